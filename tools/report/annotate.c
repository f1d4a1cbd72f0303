/* SPDX-License-Identifier: BSD-2-Clause */
/* `kprof-report annotate`: perf annotate's view of an address view.
 * Each hot function (or each one named) with the source lines its leaf
 * samples fell on -- an inlined helper's line is its own line, in its
 * own file -- their counts and share of every sample, the lines between
 * them for context and the hottest marked; with --asm, its instructions
 * from the platform's objdump with the samples of each. */
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
	uint64_t addr, count;
	const char *fn;			/* its ELF symbol, or NULL */
	uint64_t fn_start, fn_size;
};

/* A source line of a function and its samples. */
struct src_line {
	const char *file;
	int line;
	uint64_t count;
};

/* A function's samples. */
struct fn_total {
	const char *name;
	uint64_t start, size, count;
};

static int by_addr(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_count(const void *a, const void *b)
{
	const struct fn_total *x = a, *y = b;

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
			v[k++] = (struct leaf){ a, st->count, NULL, 0, 0 };
	}
	qsort(v, k, sizeof *v, by_addr);
	for (size_t i = 0; i < k; i++) {
		uint64_t off;

		if (w && v[w - 1].addr == v[i].addr) {
			v[w - 1].count += v[i].count;
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
			f[k++] = (struct fn_total){ v[i].fn, v[i].fn_start, v[i].fn_size, 0 };
		f[j].count += v[i].count;
	}
	qsort(f, k, sizeof *f, by_count);
	*nfn = k;
	return f;
}

static void percent(struct buf *out, uint64_t part, uint64_t whole)
{
	buf_printf(out, "%6.2f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
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

static bool near_sample(const struct src_line *l, size_t n, int line)
{
	for (size_t i = 0; i < n; i++)
		if (line >= l[i].line - ANNOTATE_CONTEXT &&
		    line <= l[i].line + ANNOTATE_CONTEXT)
			return true;
	return false;
}

/* The lines of @file that samples fell on (@l, @n of them, in order),
 * from @first (the function's own first line, or 0), with context. */
static void annotate_file(struct buf *out, const char *file,
			  const struct src_line *l, size_t n, int first,
			  uint64_t hottest, uint64_t total)
{
	size_t nsrc;
	char **src = read_source(file, &nsrc);
	int lo = l[0].line, hi = l[n - 1].line;
	bool gap = false;
	size_t k = 0;

	if (first > 0 && first < lo)
		lo = first;
	buf_printf(out, "  %s\n", file);
	if (!src)
		buf_printf(out, "  (source not readable: %s; sampled lines only)\n",
			   strerror(errno));
	for (int no = lo < 1 ? 1 : lo; no <= hi; no++) {
		uint64_t c = 0;

		while (k < n && l[k].line < no)
			k++;
		if (k < n && l[k].line == no)
			c = l[k].count;
		if (!c && (!src || (hi - lo > ANNOTATE_SPAN && !near_sample(l, n, no)))) {
			gap = true;
			continue;
		}
		if (gap)
			buf_printf(out, "          ...\n");
		gap = false;
		if (c) {
			buf_printf(out, "%c %7llu ", c == hottest ? '>' : ' ',
				   (unsigned long long)c);
			percent(out, c, total);
		} else {
			buf_printf(out, "  %7s %7s", "", "");
		}
		buf_printf(out, " %6d: %s\n", no, text_of(src, nsrc, no));
	}
	for (size_t i = 0; i < nsrc; i++)
		free(src[i]);
	free(src);
}

/* Source lines of function @f's leaf samples (@v, @n), by file. */
static void annotate_source(struct buf *out, struct image *im,
			    const struct fn_total *f, const struct leaf *v,
			    size_t n, uint64_t total)
{
	struct src_line *l = xmalloc((n + 1) * sizeof *l);
	size_t k = 0, w = 0;
	uint64_t hottest = 0, unknown = 0;
	int first = 0;

	for (size_t i = 0; i < n; i++) {
		struct frame_line fl[32];
		size_t nl;

		if (v[i].fn_start != f->start || !v[i].fn)
			continue;
		nl = image_lines(im, v[i].addr, fl, sizeof fl / sizeof fl[0]);
		if (!nl || !fl[0].file || !fl[0].line) {
			unknown += v[i].count;
			continue;
		}
		/* The innermost frame: an inlined helper's own line. */
		l[k++] = (struct src_line){ fl[0].file, fl[0].line, v[i].count };
		if (!first && fl[nl - 1].decl_line)
			first = fl[nl - 1].decl_line;
	}
	qsort(l, k, sizeof *l, by_file_line);
	for (size_t i = 0; i < k; i++) {
		if (w && l[w - 1].line == l[i].line && !strcmp(l[w - 1].file, l[i].file)) {
			l[w - 1].count += l[i].count;
			continue;
		}
		l[w++] = l[i];
	}
	for (size_t i = 0; i < w; i++)
		if (l[i].count > hottest)
			hottest = l[i].count;
	for (size_t i = 0; i < w;) {
		size_t j = i;

		while (j < w && !strcmp(l[j].file, l[i].file))
			j++;
		annotate_file(out, l[i].file, l + i, j - i, first, hottest, total);
		i = j;
	}
	if (unknown)
		buf_printf(out, "  %llu samples at addresses without a source line\n",
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

/* Function @f's instructions, each with the samples whose leaf was it. */
static void annotate_asm(struct buf *out, const struct image *im,
			 const struct fn_total *f, const struct leaf *v,
			 size_t n, uint64_t total)
{
	const struct image_info *in = image_info(im);
	char *text = disassemble(objdump_for(in->machine), in->path, f->start,
				 f->start + (f->size ? f->size : 1));
	size_t k = 0;

	buf_printf(out, "  instructions (%s):\n", objdump_for(in->machine));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *end;
		unsigned long long a = strtoull(line, &end, 16);
		uint64_t c = 0;

		if (end == line || *end != ':' || line[0] != ' ')
			continue;
		while (k < n && v[k].addr < a)
			k++;
		if (k < n && v[k].addr == a)
			c = v[k].count;
		if (c) {
			buf_printf(out, "  %7llu ", (unsigned long long)c);
			percent(out, c, total);
		} else {
			buf_printf(out, "  %7s %7s", "", "");
		}
		buf_printf(out, " %s\n", line);
	}
	free(text);
}

void report_annotate(struct buf *out, const struct profile *p,
		     struct image *im, const char *const *fns, size_t nfn,
		     unsigned n, bool with_asm)
{
	size_t nleaves, nfuncs, shown = 0;
	struct leaf *v = leaves(p, im, &nleaves);
	struct fn_total *f = functions(v, nleaves, &nfuncs);

	buf_printf(out, "annotate %s: %llu samples, image %s\n", p->path,
		   (unsigned long long)p->total, image_info(im)->path);
	for (size_t i = 0; i < nfuncs && (nfn || shown < n); i++) {
		bool named = !nfn;

		for (size_t j = 0; j < nfn && !named; j++)
			named = strcmp(fns[j], f[i].name) == 0;
		if (!named)
			continue;
		buf_printf(out, "\n%s: %llu samples (", f[i].name,
			   (unsigned long long)f[i].count);
		percent(out, f[i].count, p->total);
		buf_printf(out, " of all) with the leaf in it\n");
		annotate_source(out, im, &f[i], v, nleaves, p->total);
		if (with_asm)
			annotate_asm(out, im, &f[i], v, nleaves, p->total);
		shown++;
	}
	for (size_t j = 0; j < nfn; j++) {
		bool found = false;

		for (size_t i = 0; i < nfuncs && !found; i++)
			found = strcmp(fns[j], f[i].name) == 0;
		if (!found)
			buf_printf(out, "\n%s: no samples with the leaf in it\n", fns[j]);
	}
	free(f);
	free(v);
}
