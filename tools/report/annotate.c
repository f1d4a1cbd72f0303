/* SPDX-License-Identifier: BSD-2-Clause */
/* `kprof-report annotate`: perf annotate's view of an address view.
 * Each hot function (or each one named) with the source lines its leaf
 * samples fell on -- an inlined helper's line is its own line, in its
 * own file, and names the helper -- their samples, time and share of all
 * the time, the lines between them for context and the hottest marked;
 * with --asm, its instructions from the platform's objdump, each run of
 * them under the source line it came from (source and assembly
 * interleaved, as perf annotate shows them), with the samples and time
 * of each.  Time is the kernel's weights where the view has them
 * (`# weight=ns`), else count x period, said as nominal. */
#include "report.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Lines of context around sampled lines where a function spans more
 * than ANNOTATE_SPAN of them. */
#define ANNOTATE_SPAN 80
#define ANNOTATE_CONTEXT 3

/* A leaf address and its samples. */
struct leaf {
	uint64_t addr, count, ns;
	const char *fn;			/* its ELF symbol, or NULL */
	uint64_t fn_start, fn_size;
};

/* A source line of a function and its samples. */
struct src_line {
	const char *file;
	int line;
	uint64_t count, ns;
	const char *inlined;		/* the inlined function it is in, or NULL */
};

/* A function's samples. */
struct fn_total {
	const char *name;
	uint64_t start, size, count, ns;
};

/* The source files read so far: each is read once. */
struct src_file {
	const char *path;
	char **lines;
	size_t n;
	int err;			/* why it could not be read, or 0 */
};

/* One annotate run: the output, all the time, the files read. */
struct annot {
	struct buf *out;
	struct image *im;
	uint64_t total_ns;
	struct src_file *files;
	size_t nfiles;
};

static int by_addr(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_count(const void *a, const void *b)
{
	const struct fn_total *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_file_line(const void *a, const void *b)
{
	const struct src_line *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The time a stack stands for: its weight where the kernel sent them,
 * else its count times the period. */
static uint64_t stack_ns(const struct profile *p, const struct stack *st)
{
	uint64_t hz = p->meta.have & META_HZ && p->meta.hz ? p->meta.hz : 1000;

	return p->meta.weight_ns ? st->weight : st->count * (1000000000ull / hz);
}

/* Every leaf address of @p with its samples, merged and in order. */
static struct leaf *leaves(const struct profile *p, const struct image *im,
			   size_t *n)
{
	struct leaf *v = xmalloc((p->nstacks + 1) * sizeof *v);
	size_t k = 0, w = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *st = &p->stacks[i];
		uint64_t a = st->addrs ? st->addrs[st->nframes - 1] : 0;

		if (a)
			v[k++] = (struct leaf){ a, st->count, stack_ns(p, st), NULL, 0, 0 };
	}
	qsort(v, k, sizeof *v, by_addr);
	for (size_t i = 0; i < k; i++) {
		uint64_t off;

		if (w && v[w - 1].addr == v[i].addr) {
			v[w - 1].count += v[i].count;
			v[w - 1].ns += v[i].ns;
			continue;
		}
		v[w] = v[i];
		v[w].fn = image_symbol_size(im, v[w].addr, &off, &v[w].fn_size);
		v[w].fn_start = v[w].addr - off;
		w++;
	}
	*n = w;
	return v;
}

/* Functions by their leaf samples, hottest first. */
static struct fn_total *functions(const struct leaf *v, size_t n, size_t *nfn)
{
	struct fn_total *f = xmalloc((n + 1) * sizeof *f);
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (!v[i].fn)
			continue;
		for (j = 0; j < k && f[j].start != v[i].fn_start; j++)
			;
		if (j == k)
			f[k++] = (struct fn_total){ v[i].fn, v[i].fn_start, v[i].fn_size, 0, 0 };
		f[j].count += v[i].count;
		f[j].ns += v[i].ns;
	}
	qsort(f, k, sizeof *f, by_count);
	*nfn = k;
	return f;
}

static void percent(struct buf *out, uint64_t part, uint64_t whole)
{
	buf_printf(out, "%6.2f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

/* A row's weight: its samples, its time in seconds, its share of all
 * the time; blanks where it has none. */
static void weight_cols(struct buf *out, uint64_t count, uint64_t ns, uint64_t total_ns)
{
	if (!count) {
		buf_printf(out, " %7s %9s %7s", "", "", "");
		return;
	}
	buf_printf(out, " %7llu %8.3fs ", (unsigned long long)count, (double)ns / 1e9);
	percent(out, ns, total_ns);
}

/* Line @no of @lines (1-based), or "" past the end. */
static const char *text_of(char **lines, size_t nlines, int no)
{
	return no >= 1 && (size_t)no <= nlines ? lines[no - 1] : "";
}

static char **read_source(const char *path, size_t *n)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char **lines = NULL, *s = NULL;
	size_t cap = 0, scap = 0;
	ssize_t got;

	*n = 0;
	if (!f)
		return NULL;
	while ((got = getline(&s, &scap, f)) >= 0) {
		if (got && s[got - 1] == '\n')
			s[--got] = '\0';
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			lines = xrealloc(lines, cap * sizeof *lines);
		}
		lines[(*n)++] = xstrdup(s);
	}
	free(s);
	fclose(f);
	return lines;
}

/* @path's lines, read once per run; NULL (errno-like code in @err)
 * when it cannot be read. */
static struct src_file *src_get(struct annot *a, const char *path)
{
	struct src_file *f;

	for (size_t i = 0; i < a->nfiles; i++)
		if (strcmp(a->files[i].path, path) == 0)
			return &a->files[i];
	a->files = xrealloc(a->files, (a->nfiles + 1) * sizeof *a->files);
	f = &a->files[a->nfiles++];
	errno = 0;
	f->path = path;
	f->lines = read_source(path, &f->n);
	f->err = f->lines ? 0 : errno ? errno : ENOENT;
	return f;
}

static void src_free(struct annot *a)
{
	for (size_t i = 0; i < a->nfiles; i++) {
		for (size_t j = 0; j < a->files[i].n; j++)
			free(a->files[i].lines[j]);
		free(a->files[i].lines);
	}
	free(a->files);
}

static bool near_sample(const struct src_line *l, size_t n, int line)
{
	for (size_t i = 0; i < n; i++)
		if (line >= l[i].line - ANNOTATE_CONTEXT &&
		    line <= l[i].line + ANNOTATE_CONTEXT)
			return true;
	return false;
}

/* The lines of @file that samples fell on (@l, @n of them, in order),
 * from @first (the function's own first line, or 0), with context; a
 * line in an inlined function names it. */
static void annotate_file(struct annot *a, const char *file,
			  const struct src_line *l, size_t n, int first,
			  uint64_t hottest)
{
	struct buf *out = a->out;
	struct src_file *src = src_get(a, file);
	int lo = l[0].line, hi = l[n - 1].line;
	bool gap = false;
	size_t k = 0;

	if (first > 0 && first < lo)
		lo = first;
	buf_printf(out, "  %s\n", file);
	if (!src->lines)
		buf_printf(out, "  (source not readable: %s; sampled lines only)\n",
			   strerror(src->err));
	for (int no = lo < 1 ? 1 : lo; no <= hi; no++) {
		const struct src_line *at = NULL;

		while (k < n && l[k].line < no)
			k++;
		if (k < n && l[k].line == no)
			at = &l[k];
		if (!at && (!src->lines || (hi - lo > ANNOTATE_SPAN && !near_sample(l, n, no)))) {
			gap = true;
			continue;
		}
		if (gap)
			buf_printf(out, "          ...\n");
		gap = false;
		buf_printf(out, "%c", at && at->ns == hottest ? '>' : ' ');
		weight_cols(out, at ? at->count : 0, at ? at->ns : 0, a->total_ns);
		buf_printf(out, " %6d: %s", no, text_of(src->lines, src->n, no));
		if (at && at->inlined)
			buf_printf(out, "    [inlined %s]", at->inlined);
		buf_printf(out, "\n");
	}
}

/* Source lines of function @f's leaf samples (@v, @n), by file. */
static void annotate_source(struct annot *a, const struct fn_total *f,
			    const struct leaf *v, size_t n)
{
	struct src_line *l = xmalloc((n + 1) * sizeof *l);
	size_t k = 0, w = 0;
	uint64_t hottest = 0, unknown = 0;
	int first = 0;

	for (size_t i = 0; i < n; i++) {
		struct frame_line fl[IMAGE_LINES_MAX];
		size_t nl;

		if (v[i].fn_start != f->start || !v[i].fn)
			continue;
		nl = image_lines(a->im, v[i].addr, fl, IMAGE_LINES_MAX);
		if (!nl || !fl[0].file || !fl[0].line) {
			unknown += v[i].count;
			continue;
		}
		/* The innermost frame: an inlined helper's own line, which
		 * names the helper. */
		l[k++] = (struct src_line){ fl[0].file, fl[0].line, v[i].count, v[i].ns,
					    nl > 1 ? fl[0].function : NULL };
		if (!first && fl[nl - 1].decl_line)
			first = fl[nl - 1].decl_line;
	}
	qsort(l, k, sizeof *l, by_file_line);
	for (size_t i = 0; i < k; i++) {
		if (w && l[w - 1].line == l[i].line && !strcmp(l[w - 1].file, l[i].file)) {
			l[w - 1].count += l[i].count;
			l[w - 1].ns += l[i].ns;
			if (!l[w - 1].inlined)
				l[w - 1].inlined = l[i].inlined;
			continue;
		}
		l[w++] = l[i];
	}
	for (size_t i = 0; i < w; i++)
		if (l[i].ns > hottest)
			hottest = l[i].ns;
	for (size_t i = 0; i < w;) {
		size_t j = i;

		while (j < w && !strcmp(l[j].file, l[i].file))
			j++;
		annotate_file(a, l[i].file, l + i, j - i, first, hottest);
		i = j;
	}
	if (unknown)
		buf_printf(a->out, "  %llu samples at addresses without a source line\n",
			   (unsigned long long)unknown);
	free(l);
}

/* The objdump that reads images of machine @m. */
static const char *objdump_for(unsigned m)
{
#if defined(__aarch64__)
	return m == EM_X86_64 ? "x86_64-linux-gnu-objdump" : "objdump";
#else
	return m == EM_AARCH64 ? "aarch64-linux-gnu-objdump" : "objdump";
#endif
}

/* objdump's disassembly of [@start, @end) of @elf, read whole. */
static char *disassemble(const char *objdump, const char *elf, uint64_t start,
			 uint64_t end)
{
	char a[32], b[32];
	struct buf text = { 0 };
	char chunk[4096];
	int fd[2], status;
	ssize_t got;
	pid_t pid;

	snprintf(a, sizeof a, "--start-address=0x%llx", (unsigned long long)start);
	snprintf(b, sizeof b, "--stop-address=0x%llx", (unsigned long long)end);
	if (pipe(fd) != 0)
		fatal(EXIT_INPUT, "annotate --asm: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		fatal(EXIT_INPUT, "annotate --asm: fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp(objdump, objdump, "-d", "--no-show-raw-insn", a, b, elf,
		       (char *)NULL);
		fprintf(stderr, "%s: annotate --asm: cannot run %s: %s\n",
			REPORT_PROG, objdump, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	while ((got = read(fd[0], chunk, sizeof chunk)) > 0)
		buf_add(&text, chunk, (size_t)got);
	close(fd[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		fatal(EXIT_INPUT, "annotate --asm: %s failed on %s (install binutils%s)",
		      objdump, elf, strcmp(objdump, "objdump") ? " for that architecture" : "");
	buf_add(&text, "", 1);
	return text.p;
}

/* The source line an instruction at @addr came from, printed when it
 * is not the one before it (*@file, *@line, *@fn: the last printed):
 * the file's base name, the line and its text, and the inlined
 * function it is in. */
static void asm_source_line(struct annot *a, uint64_t addr, const char **file,
			    int *line, const char **fn)
{
	struct frame_line fl[IMAGE_LINES_MAX];
	size_t nl = image_lines(a->im, addr, fl, IMAGE_LINES_MAX);
	const char *inl = nl > 1 ? fl[0].function : NULL;
	struct src_file *src;
	const char *base;

	if (!nl || !fl[0].file || !fl[0].line)
		return;
	if (*file && !strcmp(*file, fl[0].file) && *line == fl[0].line &&
	    !strcmp(*fn ? *fn : "", inl ? inl : ""))
		return;
	*file = fl[0].file;
	*line = fl[0].line;
	*fn = inl;
	src = src_get(a, fl[0].file);
	base = strrchr(fl[0].file, '/');
	buf_printf(a->out, "  %25s %s:%d: %s", "", base ? base + 1 : fl[0].file, fl[0].line,
		   text_of(src->lines, src->n, fl[0].line));
	if (inl)
		buf_printf(a->out, "    [inlined %s]", inl);
	buf_printf(a->out, "\n");
}

/* Function @f's instructions, each run of them under the source line it
 * came from, each with the samples and time whose leaf was it. */
static void annotate_asm(struct annot *a, const struct fn_total *f,
			 const struct leaf *v, size_t n)
{
	const struct image_info *in = image_info(a->im);
	char *text = disassemble(objdump_for(in->machine), in->path, f->start,
				 f->start + (f->size ? f->size : 1));
	const char *file = NULL, *fn = NULL;
	int line = 0;
	size_t k = 0;

	buf_printf(a->out, "  source and instructions (%s):\n", objdump_for(in->machine));
	for (char *ln = strtok(text, "\n"); ln; ln = strtok(NULL, "\n")) {
		char *end;
		unsigned long long addr = strtoull(ln, &end, 16);
		const struct leaf *at = NULL;

		if (end == ln || *end != ':' || ln[0] != ' ')
			continue;
		while (k < n && v[k].addr < addr)
			k++;
		if (k < n && v[k].addr == addr)
			at = &v[k];
		asm_source_line(a, addr, &file, &line, &fn);
		buf_printf(a->out, " ");
		weight_cols(a->out, at ? at->count : 0, at ? at->ns : 0, a->total_ns);
		buf_printf(a->out, " %s\n", ln);
	}
	free(text);
}

size_t report_annotate(struct buf *out, const struct profile *p,
		       struct image *im, const char *const *fns, size_t nfn,
		       unsigned n, bool with_asm)
{
	size_t nleaves, nfuncs, shown = 0, missing = 0;
	struct leaf *v = leaves(p, im, &nleaves);
	struct fn_total *f = functions(v, nleaves, &nfuncs);
	struct annot a = { .out = out, .im = im };

	for (size_t i = 0; i < p->nstacks; i++)
		a.total_ns += stack_ns(p, &p->stacks[i]);
	buf_printf(out, "annotate %s: %llu samples, %.3f s (%s), image %s\n", p->path,
		   (unsigned long long)p->total, (double)a.total_ns / 1e9,
		   p->meta.weight_ns ? "the time the kernel weighed"
				     : "nominal: count x period, the input has no weights",
		   image_info(im)->path);
	buf_printf(out, "  %7s %9s %7s\n", "samples", "time", "share");
	for (size_t i = 0; i < nfuncs && (nfn || shown < n); i++) {
		bool named = !nfn;

		for (size_t j = 0; j < nfn && !named; j++)
			named = strcmp(fns[j], f[i].name) == 0;
		if (!named)
			continue;
		buf_printf(out, "\n%s: %llu samples, %.3f s (", f[i].name,
			   (unsigned long long)f[i].count, (double)f[i].ns / 1e9);
		percent(out, f[i].ns, a.total_ns);
		buf_printf(out, " of all the time) with the leaf in it\n");
		annotate_source(&a, &f[i], v, nleaves);
		if (with_asm)
			annotate_asm(&a, &f[i], v, nleaves);
		shown++;
	}
	for (size_t j = 0; j < nfn; j++) {
		bool found = false;

		for (size_t i = 0; i < nfuncs && !found; i++)
			found = strcmp(fns[j], f[i].name) == 0;
		if (!found) {
			buf_printf(out, "\n%s: no samples with the leaf in it\n", fns[j]);
			missing++;
		}
	}
	src_free(&a);
	free(f);
	free(v);
	return missing;
}
