/* SPDX-License-Identifier: BSD-2-Clause */
/* kp-symgen: the symbol table of a linked image, emitted as C source to be
 * compiled and linked back into the same image (tools/kp-link3 runs the
 * three passes).  A host program, built for the build machine.
 *
 *   kp-symgen [--stats[=FILE]] [--name SYMBOL] [-o OUT.c] IMAGE
 *   kp-symgen --empty [--name SYMBOL] [-o OUT.c]
 *
 * The table is the C object kp_symtab, or --name's: a test that walks
 * another machine's stacks links a table of its own beside it.
 *
 * The table (src/kernel/symbols.h) holds
 *   - the text symbols: STT_FUNC symbols of executable sections, sorted by
 *     address, without overlap: of several symbols at one address the one
 *     with a size, then the strongest binding (global, weak, local), then
 *     the largest size, then the first name in byte order wins; a symbol
 *     without a size runs to the next symbol or the end of its section; a
 *     symbol that runs into the next one is cut where the next one starts;
 *   - the CFA rule per address range, from .eh_frame (and .debug_frame
 *     where .eh_frame says nothing), for every executable section: CFA =
 *     sp + off or fp + off, with the return address at CFA + ra or still in
 *     the link register.  Anything else (expressions, other registers, code
 *     no FDE covers) is SYM_CFA_UNKNOWN.
 *
 * Addresses are 32-bit offsets from the table's base.  A position-
 * dependent image (ET_EXEC: a kernel, a -no-pie program) gets a constant
 * base, its lowest executable section.  A position-independent one
 * (ET_DYN: Debian's default PIE) gets offsets from its ELF header, and
 * base = __ehdr_start, which the dynamic loader relocates.
 *
 * The output depends only on the image's contents, so that passes two
 * and three of the link can be compared byte for byte. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Mirrors enum sym_cfa_reg in src/kernel/symbols.h. */
enum { CFA_UNKNOWN = 0, CFA_SP = 1, CFA_FP = 2 };

/* sizeof the runtime structures, for --stats (struct sym_entry,
 * struct sym_cfa). */
#define ENTRY_BYTES 12
#define RULE_BYTES 8

struct section {
	uint64_t start, end;
	size_t ndx;		/* ELF section index */
};

struct symbol {
	uint64_t addr, size;
	const char *name;
	int rank;		/* binding: 0 global, 1 weak, 2 local, 3 other */
};

struct rule {
	uint64_t start;
	int offset;
	int ra;
	int reg;
};

struct image {
	const char *path;
	Elf *elf;
	GElf_Ehdr ehdr;
	struct section *secs;		/* executable, sorted by start */
	size_t nsecs;
	struct symbol *syms;		/* every FUNC symbol, then the kept ones */
	size_t nsyms;
	struct rule *rules;
	size_t nrules, rules_cap;
	uint64_t base;			/* link-time address offsets count from */
	bool pie;
	int sp_reg, fp_reg, lr_reg;	/* DWARF numbers; lr -1: none */
};

static const char *progname = "kp-symgen";
static const char *table_name = "kp_symtab";

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (n && size > SIZE_MAX / n)
		die("out of memory");
	bytes = n * size;
	p = realloc(p, bytes ? bytes : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* The DWARF register numbers of the stack pointer, frame pointer and link
 * register of the image's machine. */
static void image_set_machine(struct image *im)
{
	switch (im->ehdr.e_machine) {
	case EM_X86_64:
		im->sp_reg = 7;
		im->fp_reg = 6;
		im->lr_reg = -1;
		break;
	case EM_AARCH64:
		im->sp_reg = 31;
		im->fp_reg = 29;
		im->lr_reg = 30;
		break;
	default:
		/* Symbols only: every CFA rule reads as unknown. */
		im->sp_reg = im->fp_reg = im->lr_reg = -1;
		break;
	}
}

static int cmp_section(const void *a, const void *b)
{
	const struct section *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Executable sections that occupy memory, sorted.  Returns, per section
 * index, 1 + the index into im->secs, or 0 for a section of no interest. */
static size_t *image_read_sections(struct image *im)
{
	size_t nscn, i;
	size_t *map;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(im->elf, &nscn))
		die("%s: cannot read section headers: %s", im->path, elf_errmsg(-1));
	map = calloc(nscn ? nscn : 1, sizeof(*map));
	im->secs = xrealloc(NULL, nscn, sizeof(*im->secs));
	if (!map)
		die("out of memory");
	while ((scn = elf_nextscn(im->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC) ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0)
			continue;
		im->secs[im->nsecs].start = sh.sh_addr;
		im->secs[im->nsecs].end = sh.sh_addr + sh.sh_size;
		im->secs[im->nsecs].ndx = elf_ndxscn(scn);
		im->nsecs++;
	}
	qsort(im->secs, im->nsecs, sizeof(*im->secs), cmp_section);
	for (i = 0; i < im->nsecs; i++)
		map[im->secs[i].ndx] = i + 1;
	return map;
}

static Elf_Scn *image_symtab(struct image *im, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dynsh;

	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB)
			return scn;
		if (sh->sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dynsh = *sh;
		}
	}
	if (dyn)
		*sh = dynsh;
	return dyn;
}

static int bind_rank(int bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

/* Every FUNC symbol of an executable section. */
static void image_read_symbols(struct image *im)
{
	size_t *map = image_read_sections(im);
	size_t nscn = 0;
	GElf_Shdr sh;
	Elf_Scn *scn = image_symtab(im, &sh);
	Elf_Data *data;
	size_t n, i;

	if (!scn || !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize) {
		free(map);
		return;		/* stripped: an empty table */
	}
	elf_getshdrnum(im->elf, &nscn);
	n = sh.sh_size / sh.sh_entsize;
	im->syms = xrealloc(NULL, n, sizeof(*im->syms));
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		size_t sec;

		if (!gelf_getsym(data, (int)i, &s) ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE ||
		    s.st_shndx >= nscn)
			continue;
		sec = map[s.st_shndx];
		name = elf_strptr(im->elf, sh.sh_link, s.st_name);
		if (!sec || !name || !*name)
			continue;
		sec--;
		if (s.st_value < im->secs[sec].start ||
		    s.st_value >= im->secs[sec].end)
			continue;
		im->syms[im->nsyms].addr = s.st_value;
		im->syms[im->nsyms].size = s.st_size;
		im->syms[im->nsyms].name = name;
		im->syms[im->nsyms].rank = bind_rank(GELF_ST_BIND(s.st_info));
		im->nsyms++;
	}
	free(map);
}

/* The order that decides which of several symbols at one address stays:
 * the first one. */
static int cmp_symbol(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->size == 0) != (y->size == 0))
		return x->size == 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const struct section *section_of(const struct image *im, uint64_t addr)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (addr >= im->secs[i].start && addr < im->secs[i].end)
			return &im->secs[i];
	return NULL;
}

/* Sort, then keep one symbol per address, with a size that reaches
 * neither into the next symbol nor past its section. */
static void image_settle_symbols(struct image *im)
{
	size_t i, kept = 0;

	qsort(im->syms, im->nsyms, sizeof(*im->syms), cmp_symbol);
	for (i = 0; i < im->nsyms; i++)
		if (kept == 0 || im->syms[kept - 1].addr != im->syms[i].addr)
			im->syms[kept++] = im->syms[i];
	im->nsyms = kept;
	for (i = 0; i < im->nsyms; i++) {
		struct symbol *s = &im->syms[i];
		uint64_t end = section_of(im, s->addr)->end;

		if (i + 1 < im->nsyms && im->syms[i + 1].addr < end)
			end = im->syms[i + 1].addr;
		if (s->size == 0 || s->size > end - s->addr)
			s->size = end - s->addr;
	}
}

/* Where offsets count from (see the top of this file). */
static void image_set_base(struct image *im)
{
	size_t nph;

	im->pie = im->ehdr.e_type == ET_DYN;
	if (!im->pie) {
		im->base = im->nsecs ? im->secs[0].start : 0;
		return;
	}
	if (elf_getphdrnum(im->elf, &nph))
		die("%s: cannot read program headers: %s", im->path, elf_errmsg(-1));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(im->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_offset == 0) {
			im->base = ph.p_vaddr;
			return;
		}
	}
	die("%s: position-independent, but its ELF header is not loaded "
	    "(no __ehdr_start to count from)", im->path);
}

static uint32_t image_offset(const struct image *im, uint64_t addr)
{
	if (addr < im->base || addr - im->base > UINT32_MAX)
		die("%s: address 0x%" PRIx64 " is more than 4 GiB from the "
		    "table's base 0x%" PRIx64, im->path, addr, im->base);
	return (uint32_t)(addr - im->base);
}

static void rule_push(struct image *im, uint64_t start, const struct rule *r)
{
	struct rule *last = im->nrules ? &im->rules[im->nrules - 1] : NULL;

	if (last && last->start == start) {
		/* An empty run before this one: replace it. */
		im->nrules--;
		last = im->nrules ? &im->rules[im->nrules - 1] : NULL;
	}
	if (last ? (last->reg == r->reg && last->offset == r->offset &&
		    last->ra == r->ra)
		 : r->reg == CFA_UNKNOWN)
		return;
	if (im->nrules == im->rules_cap) {
		im->rules_cap = im->rules_cap ? 2 * im->rules_cap : 256;
		im->rules = xrealloc(im->rules, im->rules_cap, sizeof(*im->rules));
	}
	im->rules[im->nrules] = *r;
	im->rules[im->nrules].start = start;
	im->nrules++;
}

/* The return address rule: saved at CFA + off (returns off, never 0), or
 * still in the link register (returns 0).  -1000 when neither. */
static int frame_ra(const struct image *im, Dwarf_Frame *f, int ra_reg)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	if (dwarf_frame_register(f, ra_reg, mem, &ops, &nops))
		return -1000;
	if (nops == 0)
		return ops == NULL && ra_reg == im->lr_reg ? 0 : -1000;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1000;
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
		off = (int64_t)ops[1].number;
	else if (nops == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus)
		off = (int64_t)ops[1].number;
	else
		return -1000;
	return off != 0 && off >= INT8_MIN && off <= INT8_MAX ? (int)off : -1000;
}

/* The rule of frame state @f, SYM_CFA_UNKNOWN when it is not of the
 * compact form. */
static void frame_rule(const struct image *im, Dwarf_Frame *f, int ra_reg,
		       struct rule *r)
{
	Dwarf_Op *ops;
	size_t nops;
	int64_t reg, off;
	int ra;

	r->reg = CFA_UNKNOWN;
	r->offset = r->ra = 0;
	if (dwarf_frame_cfa(f, &ops, &nops) || nops != 1)
		return;
	if (ops[0].atom == DW_OP_bregx) {
		reg = (int64_t)ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return;
	}
	if (off < INT16_MIN || off > INT16_MAX)
		return;
	ra = frame_ra(im, f, ra_reg);
	if (ra == -1000)
		return;
	if (reg == im->sp_reg)
		r->reg = CFA_SP;
	else if (reg == im->fp_reg)
		r->reg = CFA_FP;
	else
		return;
	r->offset = (int)off;
	r->ra = ra;
}

/* The rule at @addr from @cfi, and in *end where the row it comes from
 * ends.  False when no FDE covers @addr. */
static bool cfi_rule_at(const struct image *im, Dwarf_CFI *cfi, uint64_t addr,
			struct rule *r, uint64_t *end)
{
	Dwarf_Frame *f;
	Dwarf_Addr s, e;
	bool signal;
	int ra_reg;

	if (!cfi || dwarf_cfi_addrframe(cfi, addr, &f))
		return false;
	ra_reg = dwarf_frame_info(f, &s, &e, &signal);
	if (ra_reg < 0 || signal) {
		r->reg = CFA_UNKNOWN;
		r->offset = r->ra = 0;
	} else {
		frame_rule(im, f, ra_reg, r);
	}
	*end = e > addr ? e : addr + 1;
	free(f);
	return true;
}

/* Scan every executable section row by row. */
static void image_read_cfi(struct image *im)
{
	Dwarf_CFI *eh = dwarf_getcfi_elf(im->elf);
	Dwarf *dw = dwarf_begin_elf(im->elf, DWARF_C_READ, NULL);
	Dwarf_CFI *dbg = dw ? dwarf_getcfi(dw) : NULL;
	const struct rule unknown = { 0, 0, 0, CFA_UNKNOWN };

	for (size_t i = 0; i < im->nsecs; i++) {
		const struct section *sec = &im->secs[i];
		uint64_t addr = sec->start;

		while (addr < sec->end) {
			struct rule r;
			uint64_t end;

			if (cfi_rule_at(im, eh, addr, &r, &end) ||
			    cfi_rule_at(im, dbg, addr, &r, &end)) {
				rule_push(im, addr, &r);
			} else {
				/* Byte by byte: an FDE may start anywhere,
				 * with or without a symbol there. */
				rule_push(im, addr, &unknown);
				end = addr + 1;
			}
			addr = end < sec->end ? end : sec->end;
		}
		rule_push(im, sec->end, &unknown);
	}
	if (eh)
		dwarf_cfi_end(eh);
	if (dw)
		dwarf_end(dw);
}

static void emit_string(FILE *o, const char *s)
{
	fputs("\t\"", o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c == '?' || c < 0x20 || c >= 0x7f)
			fprintf(o, "\\%03o", c);
		else
			fputc(c, o);
	}
	fputs("\\0\"\n", o);
}

static void emit_header(FILE *o)
{
	fputs("/* Generated by kp-symgen (tools/kp-symgen.c): the image's own "
	      "symbol table.\n * Do not edit. */\n"
	      "#include <stdint.h>\n\n#include \"kernel/symbols.h\"\n\n", o);
}

static void emit_empty(FILE *o)
{
	emit_header(o);
	fputs("/* The first link pass: no symbols yet. */\n"
	      "const struct sym_table ", o);
	fputs(table_name, o);
	fputs(" = { .base = 0, .strings = \"\" };\n", o);
}

static void emit_table(FILE *o, const struct image *im)
{
	size_t i, name = 0;

	/* Any symbol size beyond 32 bits is an error, not a silent cut. */
	for (i = 0; i < im->nsyms; i++)
		if (im->syms[i].size > UINT32_MAX)
			die("%s: %s is larger than 4 GiB", im->path, im->syms[i].name);
	emit_header(o);
	if (im->pie)
		fputs("/* Position-independent: offsets count from the ELF header. */\n"
		      "extern const char __ehdr_start[] "
		      "__attribute__((visibility(\"hidden\")));\n\n", o);
	if (im->nsyms) {
		fputs("static const struct sym_entry kp_sym_entries[] = {\n", o);
		for (i = 0; i < im->nsyms; i++) {
			const struct symbol *s = &im->syms[i];

			fprintf(o, "\t{ 0x%" PRIx32 ", 0x%" PRIx64 ", %zu },\n",
				image_offset(im, s->addr), s->size, name);
			name += strlen(s->name) + 1;
		}
		fputs("};\n\nstatic const char kp_sym_strings[] =\n", o);
		for (i = 0; i < im->nsyms; i++)
			emit_string(o, im->syms[i].name);
		fputs("\t\"\";\n\n", o);
	}
	if (im->nrules) {
		fputs("static const struct sym_cfa kp_sym_cfa[] = {\n", o);
		for (i = 0; i < im->nrules; i++) {
			const struct rule *r = &im->rules[i];
			static const char *const regs[] = {
				"SYM_CFA_UNKNOWN", "SYM_CFA_SP", "SYM_CFA_FP",
			};

			fprintf(o, "\t{ 0x%" PRIx32 ", %d, %d, %s },\n",
				image_offset(im, r->start), r->offset, r->ra,
				regs[r->reg]);
		}
		fputs("};\n\n", o);
	}
	fprintf(o, "const struct sym_table %s = {\n", table_name);
	if (im->pie)
		fprintf(o, "\t.base = (uintptr_t)__ehdr_start,\n");
	else
		fprintf(o, "\t.base = (uintptr_t)0x%" PRIx64 "ull,\n", im->base);
	if (im->nsyms)
		fprintf(o, "\t.entries = kp_sym_entries,\n\t.count = %zu,\n"
			"\t.strings = kp_sym_strings,\n", im->nsyms);
	else
		fputs("\t.strings = \"\",\n", o);
	if (im->nrules)
		fprintf(o, "\t.cfa = kp_sym_cfa,\n\t.ncfa = %zu,\n", im->nrules);
	fputs("};\n", o);
}

/* Figures for the closing note: bytes per symbol, text covered by rules. */
static void emit_stats(FILE *o, const struct image *im)
{
	uint64_t text = 0, in_syms = 0, by_reg[3] = { 0, 0, 0 };
	size_t names = 0, i;

	for (i = 0; i < im->nsecs; i++)
		text += im->secs[i].end - im->secs[i].start;
	for (i = 0; i < im->nsyms; i++) {
		in_syms += im->syms[i].size;
		names += strlen(im->syms[i].name) + 1;
	}
	for (i = 0; i + 1 < im->nrules; i++)
		by_reg[im->rules[i].reg] += im->rules[i + 1].start - im->rules[i].start;
	size_t bytes = im->nsyms * ENTRY_BYTES + names + im->nrules * RULE_BYTES;
	uint64_t covered = by_reg[CFA_SP] + by_reg[CFA_FP];

	fprintf(o, "%s: %zu symbols, %zu CFA rules\n", im->path, im->nsyms,
		im->nrules);
	fprintf(o, "%s: table %zu bytes (entries %zu, names %zu, rules %zu): "
		"%.1f bytes per symbol\n", im->path, bytes,
		im->nsyms * ENTRY_BYTES, names, im->nrules * RULE_BYTES,
		im->nsyms ? (double)bytes / (double)im->nsyms : 0.0);
	fprintf(o, "%s: text %" PRIu64 " bytes, %" PRIu64 " in symbols; CFA "
		"rules cover %" PRIu64 " bytes (%.1f%% of text): sp-based %"
		PRIu64 ", fp-based %" PRIu64 ", unknown %" PRIu64 "\n",
		im->path, text, in_syms, covered,
		text ? 100.0 * (double)covered / (double)text : 0.0,
		by_reg[CFA_SP], by_reg[CFA_FP], text - covered);
}

static void image_open(struct image *im, const char *path)
{
	int fd = open(path, O_RDONLY);

	im->path = path;
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	im->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!im->elf || elf_kind(im->elf) != ELF_K_ELF || !gelf_getehdr(im->elf, &im->ehdr))
		die("%s: not an ELF image", path);
	if (im->ehdr.e_type != ET_EXEC && im->ehdr.e_type != ET_DYN)
		die("%s: not a linked executable (ELF type %d)", path,
		    im->ehdr.e_type);
	image_set_machine(im);
	image_read_symbols(im);
	image_settle_symbols(im);
	image_set_base(im);
	image_read_cfi(im);
}

/* The build passes the package's version; a hand build still works. */
#ifndef KP_VERSION
#define KP_VERSION "unknown"
#endif

static void usage(void)
{
	printf("Usage: %s [--stats[=FILE]] [--name SYMBOL] [-o OUT.c] IMAGE\n"
	       "       %s --empty [--name SYMBOL] [-o OUT.c]\n"
	       "Write IMAGE's symbol table and call-frame rules as C (doc/internals.md,\n"
	       "\"The image's symbol table\"); a build tool of kprof, run by kp-link3.\n"
	       "\n"
	       "  -o OUT.c        write the table there (default: standard output)\n"
	       "  --name SYMBOL   the table's C name (default kp_symtab)\n"
	       "  --stats[=FILE]  also write size figures to FILE (default: stderr)\n"
	       "  --empty         write an empty table, reading no image\n"
	       "  --help          print this help and exit\n"
	       "  --version       print the version and exit\n"
	       "\n"
	       "Exit status: 0 done; 1 the image could not be read or written; 2 a usage\n"
	       "error.\n", progname, progname);
	exit(0);
}

/* One line for a usage error, exit 2. */
static void usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s; try '%s --help'\n", progname, what, arg, progname);
	exit(2);
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!path || strcmp(path, "-") == 0)
		return stdout;
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	return f;
}

static void close_out(FILE *f, const char *path)
{
	if (ferror(f) | (f == stdout ? fflush(f) : fclose(f)))
		die("%s: write error", path ? path : "stdout");
}

int main(int argc, char **argv)
{
	const char *out = NULL, *image = NULL, *stats = NULL;
	bool empty = false;
	struct image im;
	FILE *o;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0)
			usage();
		else if (strcmp(argv[i], "--version") == 0) {
			printf("kp-symgen (kprof) %s\n", KP_VERSION);
			return 0;
		} else if (strcmp(argv[i], "--empty") == 0)
			empty = true;
		else if (strcmp(argv[i], "--stats") == 0)
			stats = "";
		else if (strncmp(argv[i], "--stats=", 8) == 0)
			stats = argv[i] + 8;
		else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
			table_name = argv[++i];
		else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--name") == 0))
			usage_error(argv[i], " needs a value");
		else if (argv[i][0] == '-' && argv[i][1])
			usage_error("unknown option ", argv[i]);
		else if (!image)
			image = argv[i];
		else
			usage_error("one IMAGE only; also got ", argv[i]);
	}
	for (const char *c = table_name; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (c > table_name && *c >= '0' && *c <= '9')))
			die("--name %s: not a C identifier", table_name);
	if (!*table_name)
		die("--name: empty");
	if (empty) {
		if (image || stats)
			usage_error("--empty takes no IMAGE and no --stats", "");
		o = open_out(out);
		emit_empty(o);
		close_out(o, out);
		return 0;
	}
	if (!image)
		usage_error("no IMAGE given", "");
	memset(&im, 0, sizeof(im));
	image_open(&im, image);
	o = open_out(out);
	emit_table(o, &im);
	close_out(o, out);
	if (stats) {
		FILE *s = *stats ? open_out(stats) : stderr;

		emit_stats(s, &im);
		if (s != stderr)
			close_out(s, stats);
	}
	elf_end(im.elf);
	return 0;
}
