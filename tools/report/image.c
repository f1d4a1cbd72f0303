/* SPDX-License-Identifier: BSD-2-Clause */
/* The image an address view came from, read with elfutils' libdw: found
 * by build-id (--elf FILE, or --elf-dir DIR in the .build-id/xx/rest
 * layout of debuginfod and perf buildid-cache), refused when its id is
 * not the profile's, and asked for each address's function, file and
 * line with inline frames expanded innermost first (eu-addr2line -i). */
#include "report.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A function symbol, for the look-up by address. */
struct image_sym {
	uint64_t addr, size;
	const char *name;		/* libdw's string: lives with the image */
	int local;			/* 0 global, 1 weak, 2 local */
};

/* An address's lines, as image_lines() found them once. */
struct image_lines_memo {
	uint64_t addr;			/* 0: an empty slot */
	size_t n;
	struct frame_line *lines;
};

struct image {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct image_info info;
	struct names paths;	/* absolute file names handed out */
	/* The sized function symbols by address: libdw's own look-up
	 * reads the whole symbol table at each call, which a collector
	 * that resolves every interval cannot pay. */
	struct image_sym *syms;
	size_t nsyms;
	/* Each address's lines once: a program that resolves interval
	 * after interval (kprof-collect) asks for the same few hundred
	 * addresses again and again; the table holds at most one entry
	 * per address of the image's text that was ever sampled. */
	struct image_lines_memo *memo;
	size_t nmemo, memo_slots;
};

static const Dwfl_Callbacks image_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void hex_of(const unsigned char *id, size_t n, char *out, size_t size)
{
	size_t w = 0;

	for (size_t i = 0; i < n && w + 2 < size; i++)
		w += (size_t)snprintf(out + w, size - w, "%02x", id[i]);
	out[w] = '\0';
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* DIR/.build-id/xx/rest, as debuginfod's and gdb's caches lay it out;
 * rest.debug (gdb's separate debug files) and rest/elf (perf
 * buildid-cache: a directory per id) too.  NULL when none is there. */
static char *find_by_build_id(const char *dir, const char *id)
{
	static const char *const tails[] = { "", ".debug", "/elf" };
	char path[PATH_MAX];

	if (strlen(id) < 3)
		return NULL;
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		snprintf(path, sizeof path, "%s/.build-id/%.2s/%s%s", dir, id,
			 id + 2, tails[i]);
		if (is_file(path))
			return xstrdup(path);
	}
	return NULL;
}

/* The executable PT_LOAD segment: pprof's Mapping, the addresses an
 * address view's frames lie in. */
static bool text_segment(Elf *elf, struct image_info *in)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		in->start = ph.p_vaddr;
		in->limit = ph.p_vaddr + ph.p_memsz;
		in->offset = ph.p_offset;
		return true;
	}
	return false;
}

static bool has_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(n, name) == 0)
			return true;
	}
	return false;
}

/* The load's one error: its line into @err, what was built freed. */
static struct image *load_fail(struct image *im, char *err, size_t errlen,
			       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static struct image *load_fail(struct image *im, char *err, size_t errlen,
			       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	image_close(im);
	return NULL;
}

/* The checks after the file is open: its build-id against @want, its
 * machine, its text and its DWARF. */
static struct image *image_check(struct image *im, Elf *elf, const char *want,
				 const char *who, const char *path, char *err,
				 size_t errlen)
{
	const void *id = NULL;
	ssize_t idlen = dwelf_elf_gnu_build_id(elf, &id);
	GElf_Ehdr eh;

	if (idlen > 0)
		hex_of(id, (size_t)idlen, im->info.build_id, sizeof im->info.build_id);
	if (want[0] && strcmp(want, im->info.build_id) != 0)
		return load_fail(im, err, errlen, "%s: build-id %s is not the image's: %s has build-id %s",
				 who, want, path,
				 im->info.build_id[0] ? im->info.build_id : "(none)");
	if (gelf_getehdr(elf, &eh))
		im->info.machine = eh.e_machine;
	if (!text_segment(elf, &im->info))
		return load_fail(im, err, errlen, "%s: no executable segment", path);
	if (!has_section(elf, ".debug_info") || !has_section(elf, ".debug_line"))
		return load_fail(im, err, errlen, "%s: no DWARF (.debug_info, .debug_line): stripped? give the unstripped image",
				 path);
	return im;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct image_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->local != y->local)
		return x->local - y->local;
	return strcmp(x->name, y->name);
}

/* The sized function symbols, sorted by address.  Of two at one address
 * (an alias) the global one stands, as libdw prefers it, then the
 * first by name: one answer, whatever the table's order. */
static void syms_load(struct image *im)
{
	int n = dwfl_module_getsymtab(im->mod);
	size_t w = 0;

	if (n <= 0)
		return;
	im->syms = xmalloc((size_t)n * sizeof *im->syms);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(im->mod, i, &sym, &addr, NULL,
							   NULL, NULL);

		if (!name || !name[0] || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_size)
			continue;
		im->syms[im->nsyms++] = (struct image_sym){
			addr, sym.st_size, name,
			GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 0 :
			GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 2
		};
	}
	qsort(im->syms, im->nsyms, sizeof *im->syms, sym_cmp);
	for (size_t i = 0; i < im->nsyms; i++)
		if (!w || im->syms[w - 1].addr != im->syms[i].addr)
			im->syms[w++] = im->syms[i];
	im->nsyms = w;
}

/* The sized function symbol covering @addr, or NULL. */
static const struct image_sym *sym_find(const struct image *im, uint64_t addr)
{
	size_t lo = 0, hi = im->nsyms;

	/* The last symbol that starts at or before @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (addr - im->syms[i].addr < im->syms[i].size)
			return &im->syms[i];
		/* A large symbol before a small one may still cover it;
		 * none so far back that the kernel's largest function ends
		 * before it is worth walking to. */
		if (lo - i > 64)
			break;
	}
	return NULL;
}

struct image *image_load(const char *want, const char *elf_path, const char *elf_dir,
			 const char *who, char *err, size_t errlen)
{
	struct image *im;
	char path[PATH_MAX];
	char *found = NULL;
	GElf_Addr bias;
	Elf *elf;

	if (!elf_path) {
		if (!want[0]) {
			snprintf(err, errlen, "%s: the profile names no build_id: give the image with --elf FILE",
				 who);
			return NULL;
		}
		found = find_by_build_id(elf_dir, want);
		if (!found) {
			snprintf(err, errlen, "%s: no image with build-id %s under %s/.build-id/",
				 who, want, elf_dir);
			return NULL;
		}
		elf_path = found;
	}
	if (!is_file(elf_path)) {
		snprintf(err, errlen, "%s: cannot read the image: %s", elf_path,
			 strerror(errno ? errno : ENOENT));
		free(found);
		return NULL;
	}
	if (!realpath(elf_path, path))
		snprintf(path, sizeof path, "%s", elf_path);
	free(found);
	im = xcalloc(1, sizeof *im);
	im->dwfl = dwfl_begin(&image_callbacks);
	if (!im->dwfl)
		return load_fail(im, err, errlen, "libdw: %s", dwfl_errmsg(-1));
	im->mod = dwfl_report_offline(im->dwfl, path, path, -1);
	if (!im->mod || dwfl_report_end(im->dwfl, NULL, NULL) != 0)
		return load_fail(im, err, errlen, "%s: not an ELF image libdw can read: %s",
				 path, dwfl_errmsg(-1));
	elf = dwfl_module_getelf(im->mod, &bias);
	if (!elf)
		return load_fail(im, err, errlen, "%s: not an ELF image: %s", path,
				 dwfl_errmsg(-1));
	if (!image_check(im, elf, want, who, path, err, errlen))
		return NULL;
	im->info.path = xstrdup(path);
	syms_load(im);
	return im;
}

struct image *image_open(const struct profile *p, const char *elf_path,
			 const char *elf_dir)
{
	char err[PATH_MAX + 512];
	struct image *im = image_load(p->meta.build_id, elf_path, elf_dir, p->path, err,
				      sizeof err);

	if (!im)
		fatal(EXIT_INPUT, "%s%s", err,
		      strstr(err, "no image with build-id") ? " (give it with --elf FILE)" : "");
	return im;
}

const struct image_info *image_info(const struct image *im)
{
	return &im->info;
}

const char *image_symbol(const struct image *im, uint64_t addr, uint64_t *off)
{
	uint64_t size;

	return image_symbol_size(im, addr, off, &size);
}

const char *image_symbol_size(const struct image *im, uint64_t addr,
			      uint64_t *off, uint64_t *size)
{
	const struct image_sym *f = sym_find(im, addr);
	GElf_Off o = 0;
	GElf_Sym sym;
	const char *name;

	if (f) {
		*off = addr - f->addr;
		*size = f->size;
		return f->name;
	}
	/* Not in a sized function (a label of hand-written assembly):
	 * libdw's nearest symbol. */
	memset(&sym, 0, sizeof sym);
	name = dwfl_module_addrinfo(im->mod, addr, &o, &sym, NULL, NULL, NULL);
	*off = o;
	*size = sym.st_size;
	return name;
}

/* @file as an absolute path: relative names are relative to the
 * compile directory of @cudie, and ".." is folded where the file is
 * there to ask.  The string lives as long as the image. */
static const char *absolute(struct image *im, Dwarf_Die *cudie, const char *file)
{
	char joined[PATH_MAX], real[PATH_MAX];
	Dwarf_Attribute at;
	const char *dir = NULL;
	size_t k;

	if (!file)
		return NULL;
	if (file[0] != '/' && cudie)
		dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &at));
	if (dir)
		snprintf(joined, sizeof joined, "%s/%s", dir, file);
	else
		snprintf(joined, sizeof joined, "%s", file);
	if (realpath(joined, real))
		snprintf(joined, sizeof joined, "%s", real);
	/* Interned first: interning may move the table. */
	k = names_intern(&im->paths, joined, strlen(joined));
	return im->paths.str[k];
}

/* The name of subprogram or inlined instance @die. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *n;

	n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
	return n;
}

static int decl_line(Dwarf_Die *die)
{
	int line = 0;

	if (dwarf_decl_line(die, &line) != 0)
		return 0;
	return line;
}

/* image_lines() asked of libdw. */
static size_t lines_of(struct image *im, uint64_t addr, struct frame_line *out,
		       size_t max)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(im->mod, addr, &bias);
	Dwarf_Die *scopes = NULL;
	Dwfl_Line *dl = dwfl_module_getsrc(im->mod, addr);
	const char *file = NULL;
	uint64_t symoff;
	int line = 0, nscopes;
	size_t n = 0;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;

	if (dl)
		file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
	file = absolute(im, cudie, file);
	nscopes = cudie ? dwarf_getscopes(cudie, addr - bias, &scopes) : -1;
	if (cudie)
		dwarf_getsrcfiles(cudie, &files, &nfiles);
	/* dwarf_getscopes() follows an inlined instance into its abstract
	 * origin (for the variables); the frames are the concrete DIEs
	 * around the innermost function instead, as eu-addr2line -i walks
	 * them. */
	for (int i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			Dwarf_Die inner = scopes[i];

			free(scopes);
			scopes = NULL;
			nscopes = dwarf_getscopes_die(&inner, &scopes);
			break;
		}
	}
	/* Innermost first: each inlined instance is a frame at the current
	 * line, and its call site is the line of the frame around it. */
	for (int i = 0; i < nscopes && n < max; i++) {
		Dwarf_Die *s = &scopes[i];
		int tag = dwarf_tag(s);
		Dwarf_Attribute at;
		Dwarf_Word cf = 0, cl = 0;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n].function = die_name(s);
		out[n].file = file;
		out[n].line = line;
		out[n].decl_line = decl_line(s);
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		if (dwarf_formudata(dwarf_attr(s, DW_AT_call_file, &at), &cf) == 0 &&
		    files && cf < nfiles)
			file = absolute(im, cudie, dwarf_filesrc(files, cf, NULL, NULL));
		if (dwarf_formudata(dwarf_attr(s, DW_AT_call_line, &at), &cl) == 0)
			line = (int)cl;
	}
	free(scopes);
	/* No DWARF scope (hand-written assembly): the symbol and the line
	 * table's answer, if any. */
	if (n == 0 && max > 0) {
		out[0].function = image_symbol(im, addr, &symoff);
		out[0].file = file;
		out[0].line = line;
		out[0].decl_line = 0;
		n = out[0].function ? 1 : 0;
	}
	return n;
}

static void memo_grow(struct image *im)
{
	struct image_lines_memo *old = im->memo;
	size_t n = im->memo_slots;

	im->memo_slots = n ? 2 * n : 256;
	im->memo = xcalloc(im->memo_slots, sizeof *im->memo);
	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (!old[i].addr)
			continue;
		for (j = (size_t)(old[i].addr * 0x9e3779b97f4a7c15ull) & (im->memo_slots - 1);
		     im->memo[j].addr; j = (j + 1) & (im->memo_slots - 1))
			;
		im->memo[j] = old[i];
	}
	free(old);
}

size_t image_lines(struct image *im, uint64_t addr, struct frame_line *out,
		   size_t max)
{
	struct frame_line all[IMAGE_LINES_MAX];
	struct image_lines_memo *m;
	size_t j, n;

	if (!addr)
		return lines_of(im, addr, out, max);
	if (2 * (im->nmemo + 1) > im->memo_slots)
		memo_grow(im);
	for (j = (size_t)(addr * 0x9e3779b97f4a7c15ull) & (im->memo_slots - 1);
	     im->memo[j].addr; j = (j + 1) & (im->memo_slots - 1))
		if (im->memo[j].addr == addr)
			break;
	m = &im->memo[j];
	if (!m->addr) {
		m->n = lines_of(im, addr, all, IMAGE_LINES_MAX);
		m->lines = xmalloc((m->n ? m->n : 1) * sizeof *m->lines);
		memcpy(m->lines, all, m->n * sizeof *m->lines);
		m->addr = addr;
		im->nmemo++;
	}
	n = m->n < max ? m->n : max;
	memcpy(out, m->lines, n * sizeof *out);
	return n;
}

void image_close(struct image *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->memo_slots; i++)
		free(im->memo[i].lines);
	free(im->memo);
	free(im->syms);
	if (im->dwfl)
		dwfl_end(im->dwfl);
	names_free(&im->paths);
	free((char *)im->info.path);
	free(im);
}

/* "0x..." as an address; 0 for anything else. */
static uint64_t frame_addr(const char *s)
{
	if (s[0] != '0' || s[1] != 'x')
		return 0;
	return strtoull(s + 2, NULL, 16);
}

void image_resolve(struct profile *p, struct image *im)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		struct stack *st = &p->stacks[i];

		st->addrs = xcalloc(st->nframes, sizeof *st->addrs);
		for (size_t j = 1; j < st->nframes; j++) {
			uint64_t a = frame_addr(p->names->str[st->frames[j]]);
			/* A caller is looked up at ra - 1: the call, not what
			 * follows it (which may be the next function). */
			uint64_t at = j + 1 < st->nframes && a ? a - 1 : a;
			uint64_t off;
			const char *fn;

			st->addrs[j] = a;
			if (!a)
				continue;
			fn = image_symbol(im, at, &off);
			if (fn)
				st->frames[j] = names_intern(p->names, fn, strlen(fn));
		}
	}
}
