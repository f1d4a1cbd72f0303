/* SPDX-License-Identifier: BSD-2-Clause */
/* Flame graphs as self-contained SVG: the plain one (colour by function
 * name) and the differential one (widths from AFTER, colour from the
 * change in share since BEFORE).
 *
 * Geometry: the root ("all") is the bottom row; each frame is a <rect>
 * whose width is its samples times (width - 2 * PAD) / total.  Edges are
 * placed in sample units (a frame starts where its previous sibling
 * ended) and only then turned into pixels, rounded to 1/100 px: rounding
 * is monotone, so a child never leaves its parent's x-range. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAD 10		/* px, left and right */
#define FRAME_H 16	/* px per row; rects are one less, for a gap */
#define TOP 40		/* px for the title, above the subtitle's lines */
#define LINE_H 16	/* px per subtitle line; the frames come below */
#define SUBTITLE_MAX 6	/* its lines: subtitle() */
#define BOTTOM 34	/* px below: the details line and buttons */
#define CHAR_W 7.2	/* px, a 12 px monospace character */

/* A frame whose share moved less than this (points) is white. */
#define DIFF_FLAT 0.1

/* A frame to visit: its node, the same path in BEFORE's tree (diff; NULL
 * when absent there), its row and the samples left of it.  The walks run
 * on a stack of these on the heap, not on the C stack, so that a line of
 * 100,000 frames draws instead of overflowing it (issue 51). */
struct visit {
	const struct node *n, *b;
	unsigned depth;
	uint64_t start;
};

struct visits {
	struct visit *v;
	size_t len, cap;
};

static void visit_push(struct visits *vs, const struct node *n, const struct node *b,
		       unsigned depth, uint64_t start)
{
	if (vs->len == vs->cap) {
		vs->cap = vs->cap ? 2 * vs->cap : 64;
		vs->v = xrealloc(vs->v, vs->cap * sizeof *vs->v);
	}
	vs->v[vs->len++] = (struct visit){ n, b, depth, start };
}

struct svg {
	struct buf *out;
	const struct profile *p;	/* whose widths */
	const struct profile *before;	/* diff only */
	const struct svg_opts *o;
	double scale;			/* px per sample */
	unsigned rows;
	unsigned top;			/* px above the frames */
	double max_change;		/* diff: largest |change| seen */
	uint64_t pruned;		/* samples in frames not drawn */
};

/* A frame narrower than the minimum width is not drawn, nor anything
 * above it (narrower still): flamegraph.pl's --minwidth.  Its samples
 * are counted, for the subtitle. */
static bool too_narrow(const struct svg *s, const struct node *n)
{
	return (double)n->total * s->scale < s->o->min_width;
}

/* Rows the drawn frames need (the depth of the tree without what is too
 * narrow to draw), and the samples of the frames not drawn. */
static unsigned prepass(struct svg *s, const struct node *root)
{
	struct visits vs = { 0 };
	unsigned d = 0;

	visit_push(&vs, root, NULL, 1, 0);
	while (vs.len) {
		struct visit v = vs.v[--vs.len];

		if (v.depth > d)
			d = v.depth;
		for (size_t i = 0; i < v.n->nkids; i++) {
			if (too_narrow(s, v.n->kids[i]))
				s->pruned += v.n->kids[i]->total;
			else
				visit_push(&vs, v.n->kids[i], NULL, v.depth + 1, 0);
		}
	}
	free(vs.v);
	return d;
}

/* Hundredths of a pixel at @samples from the left edge. */
static long px100(const struct svg *s, uint64_t samples)
{
	return lround((PAD + (double)samples * s->scale) * 100.0);
}

static void put_px(struct buf *b, long v)
{
	buf_printf(b, "%ld.%02ld", v / 100, v % 100);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

/* Warm colours, the same for a name in every graph. */
static void flame_colour(const char *name, unsigned rgb[3])
{
	uint32_t h = name_hash(name);

	rgb[0] = 205 + (h & 0xff) % 50;
	rgb[1] = ((h >> 8) & 0xff) % 230;
	rgb[2] = ((h >> 16) & 0xff) % 55;
}

static void diff_colour(const struct svg *s, double change, unsigned rgb[3])
{
	double k;
	unsigned tint;

	if (fabs(change) <= DIFF_FLAT) {
		rgb[0] = rgb[1] = rgb[2] = 255;
		return;
	}
	k = fabs(change) / s->max_change;
	tint = 40 + (unsigned)lround((k > 1 ? 1 : k) * 175);
	if (change > 0) {
		rgb[0] = 255;
		rgb[1] = rgb[2] = 255 - tint;
	} else {
		rgb[0] = rgb[1] = 255 - tint;
		rgb[2] = 255;
	}
}

static const char *node_name(const struct svg *s, const struct node *n)
{
	return s->p->names->str[n->name];
}

/* Siblings left to right by name, as flamegraph.pl orders them. */
static const struct names *sort_names;

static int kid_cmp(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a;
	const struct node *y = *(struct node *const *)b;

	return strcmp(sort_names->str[x->name], sort_names->str[y->name]);
}

/* The change of share (points) of the frame @n, whose path in BEFORE's
 * tree is @b (NULL: absent there). */
static double change_of(const struct svg *s, const struct node *n,
			const struct node *b)
{
	return share(n->total, profile_value_total(s->p)) -
	       (b ? share(b->total, profile_value_total(s->before)) : 0.0);
}

static void max_change(struct svg *s, const struct node *root, const struct node *broot)
{
	struct visits vs = { 0 };

	visit_push(&vs, root, broot, 0, 0);
	while (vs.len) {
		struct visit v = vs.v[--vs.len];
		double c = fabs(change_of(s, v.n, v.b));

		if (c > s->max_change)
			s->max_change = c;
		for (size_t i = 0; i < v.n->nkids; i++)
			visit_push(&vs, v.n->kids[i],
				   v.b ? tree_child(v.b, v.n->kids[i]->name) : NULL, 0, 0);
	}
	free(vs.v);
}

/* Characters of a label that fit a frame @w100 hundredths of a px wide;
 * under 3, the frame has no label (and no <text>: most frames of a big
 * graph are that narrow, and the script makes one when a zoom widens
 * them). */
static long label_fit(long w100)
{
	return (long)(((double)w100 / 100.0 - 6) / CHAR_W);
}

static void frame_label(struct buf *out, const char *name, long fit)
{
	size_t len = strlen(name);

	if ((long)len <= fit) {
		buf_xml(out, name, len);
	} else {
		buf_xml(out, name, (size_t)fit - 2);
		buf_add(out, "..", 2);
	}
}

/* Frame @n's <g>: its rect, title and label. */
static void frame_draw(struct svg *s, const struct node *n, const struct node *b,
		       unsigned depth, uint64_t start)
{
	struct buf *out = s->out;
	const char *name = node_name(s, n);
	long x = px100(s, start), w = px100(s, start + n->total) - x;
	/* Icicle (--inverted): the root on top, callees below it. */
	unsigned row = s->o->inverted ? depth : s->rows - 1 - depth;
	long y = (long)(s->top + row * FRAME_H) * 100;
	unsigned rgb[3];
	char t[48];

	if (s->before)
		diff_colour(s, change_of(s, n, b), rgb);
	else
		flame_colour(name, rgb);
	buf_add(out, "<g class=\"f\"><title>", 20);
	buf_xml(out, name, strlen(name));
	buf_printf(out, " (%s, %.2f%%", value_text(s->p, n->total, t, sizeof t),
		   share(n->total, profile_value_total(s->p)));
	if (s->before)
		buf_printf(out, "; before %.2f%%, %+.2f points",
			   b ? share(b->total, profile_value_total(s->before)) : 0.0,
			   change_of(s, n, b));
	buf_add(out, ")</title><rect x=\"", 18);
	put_px(out, x);
	buf_printf(out, "\" y=\"%ld\" width=\"", y / 100);
	put_px(out, w);
	buf_printf(out, "\" height=\"%d\" fill=\"rgb(%u,%u,%u)\"/>",
		   FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
	if (label_fit(w) >= 3) {
		buf_add(out, "<text x=\"", 9);
		put_px(out, x + 300);
		buf_printf(out, "\" y=\"%ld.50\">", y / 100 + 11);
		frame_label(out, name, label_fit(w));
		buf_add(out, "</text>", 7);
	}
	buf_add(out, "</g>\n", 5);
}

/* Every frame from @root up, parents before their children and
 * siblings left to right by name (flamegraph.pl's order): the children
 * go on the stack right to left. */
static void frames(struct svg *s, const struct node *root, const struct node *broot)
{
	struct visits vs = { 0 };
	struct node **kids = NULL;
	size_t cap = 0;

	visit_push(&vs, root, broot, 0, 0);
	sort_names = s->p->names;
	while (vs.len) {
		struct visit v = vs.v[--vs.len];
		const struct node *n = v.n;
		uint64_t at = v.start;

		frame_draw(s, n, v.b, v.depth, v.start);
		if (n->nkids > cap) {
			cap = n->nkids;
			kids = xrealloc(kids, cap * sizeof *kids);
		}
		if (!n->nkids)
			continue;	/* a leaf: kids may still be NULL */
		memcpy(kids, n->kids, n->nkids * sizeof *kids);
		qsort(kids, n->nkids, sizeof *kids, kid_cmp);
		/* A frame's own samples are right of its children. */
		for (size_t i = 0; i < n->nkids; i++)
			at += kids[i]->total;
		for (size_t i = n->nkids; i-- > 0;) {
			at -= kids[i]->total;
			if (!too_narrow(s, kids[i]))
				visit_push(&vs, kids[i], v.b ? tree_child(v.b, kids[i]->name) : NULL,
					   v.depth + 1, at);
		}
	}
	free(kids);
	free(vs.v);
}

/* Click a frame to zoom into it, "Reset Zoom" to undo, "Search" for a
 * regular expression over frame names, "Reset Search" to clear it; no
 * network, no external file.  INV: an icicle graph (callees below). */
static const char zoom_script[] =
"(function () {\n"
"  var frames = [].slice.call(document.querySelectorAll('g.f'));\n"
"  var details = document.getElementById('details');\n"
"  var unzoom = document.getElementById('unzoom');\n"
"  var search = document.getElementById('search');\n"
"  var matched = document.getElementById('matched');\n"
"  var resetsearch = document.getElementById('resetsearch');\n"
"  function rect(g) { return g.querySelector('rect'); }\n"
"  frames.forEach(function (g) {\n"
"    var r = rect(g), t = g.querySelector('title').textContent;\n"
"    g.ox = parseFloat(r.getAttribute('x'));\n"
"    g.ow = parseFloat(r.getAttribute('width'));\n"
"    g.oy = parseFloat(r.getAttribute('y'));\n"
"    g.fill = r.getAttribute('fill');\n"
"    g.fullname = t.slice(0, t.lastIndexOf(' ('));\n"
"    g.addEventListener('mouseover', function () { details.textContent = t; });\n"
"    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
"    g.addEventListener('click', function () { zoom(g); });\n"
"  });\n"
"  function place(g, x, w) {\n"
"    var t = g.querySelector('text'), n = Math.floor((w - 6) / 7.2);\n"
"    var s = g.fullname;\n"
"    if (!t && n >= 3) {\n"
"      t = document.createElementNS(document.documentElement.namespaceURI, 'text');\n"
"      t.setAttribute('y', (g.oy + 11.5).toFixed(2));\n"
"      g.appendChild(t);\n"
"    }\n"
"    rect(g).setAttribute('x', x.toFixed(2));\n"
"    rect(g).setAttribute('width', w.toFixed(2));\n"
"    if (!t) return;\n"
"    t.setAttribute('x', (x + 3).toFixed(2));\n"
"    t.textContent = n < 3 ? '' : s.length > n ? s.slice(0, n - 2) + '..' : s;\n"
"  }\n"
"  function zoom(z) {\n"
"    var k = (W - 2 * PAD) / z.ow, e = 0.005;\n"
"    frames.forEach(function (g) {\n"
"      var inside = g.ox >= z.ox - e && g.ox + g.ow <= z.ox + z.ow + e;\n"
"      var below = g.ox <= z.ox + e && g.ox + g.ow >= z.ox + z.ow - e;\n"
"      g.style.display = '';\n"
"      g.style.opacity = '';\n"
"      var above = INV ? g.oy >= z.oy : g.oy <= z.oy;\n"
"      if (above && inside) {\n"
"        place(g, PAD + (g.ox - z.ox) * k, g.ow * k);\n"
"      } else if (!above && below) {\n"
"        g.style.opacity = '0.5';\n"
"        place(g, PAD, W - 2 * PAD);\n"
"      } else {\n"
"        g.style.display = 'none';\n"
"      }\n"
"    });\n"
"    unzoom.style.display = '';\n"
"  }\n"
"  unzoom.addEventListener('click', function () {\n"
"    frames.forEach(function (g) {\n"
"      g.style.display = '';\n"
"      g.style.opacity = '';\n"
"      place(g, g.ox, g.ow);\n"
"    });\n"
"    unzoom.style.display = 'none';\n"
"  });\n"
"  function clearsearch() {\n"
"    frames.forEach(function (g) { rect(g).setAttribute('fill', g.fill); });\n"
"    matched.textContent = ' ';\n"
"    resetsearch.style.display = 'none';\n"
"  }\n"
"  resetsearch.addEventListener('click', clearsearch);\n"
"  search.addEventListener('click', function () {\n"
"    var term = prompt('Search frame names (regular expression); empty clears', '');\n"
"    var re, spans = [], sum = 0, end = -1;\n"
"    if (term === null) return;\n"
"    if (term === '') { clearsearch(); return; }\n"
"    try { re = new RegExp(term); } catch (err) {\n"
"      matched.textContent = 'bad expression';\n"
"      return;\n"
"    }\n"
"    frames.forEach(function (g) {\n"
"      var hit = re.test(g.fullname);\n"
"      rect(g).setAttribute('fill', hit ? 'rgb(230,0,230)' : g.fill);\n"
"      if (hit) spans.push([g.ox, g.ox + g.ow]);\n"
"    });\n"
"    spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"    spans.forEach(function (s) {\n"
"      if (s[1] <= end) return;\n"
"      sum += s[1] - Math.max(s[0], end);\n"
"      end = s[1];\n"
"    });\n"
"    matched.textContent = 'Matched: ' + (100 * sum / (W - 2 * PAD)).toFixed(2) + '%';\n"
"    resetsearch.style.display = '';\n"
"  });\n"
"})();\n";


/* One line about @p: where from, how much time (with weights) and how
 * many samples, what the header said. */
static void about(struct buf *line, const char *label, const struct profile *p)
{
	const struct fold_meta *m = &p->meta;
	char t[48];

	buf_printf(line, "%s%s: %s", label, p->path,
		   value_text(p, profile_value_total(p), t, sizeof t));
	if (m->weight_ns)
		buf_printf(line, " (%s samples)", count_text(p, p->total, t, sizeof t));
	if (m->have & META_CPUS)
		buf_printf(line, ", %llu cpus", (unsigned long long)m->cpus);
	if (m->have & META_WINDOW)
		buf_printf(line, ", %llu ms", (unsigned long long)m->window_ms);
	if (m->have & META_SOURCE)
		buf_printf(line, ", source %s", m->source);
}

/* Subtitle line @i: centred, and never clipped by the edges: a line
 * longer than the width holds is cut with "..", the whole of it in its
 * tooltip. */
static void subtitle_line(const struct svg *s, const struct buf *line,
			  unsigned i)
{
	struct buf *out = s->out;
	unsigned w = s->o->width;
	size_t fit = (size_t)((w - 2 * PAD) / CHAR_W);

	buf_printf(out, "<text class=\"sub\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">",
		   w / 2, TOP + 4 + i * LINE_H);
	if (line->len <= fit) {
		buf_xml(out, line->p, line->len);
	} else {
		buf_add(out, "<title>", 7);
		buf_xml(out, line->p, line->len);
		buf_add(out, "</title>", 8);
		buf_xml(out, line->p, fit - 2);
		buf_add(out, "..", 2);
	}
	buf_add(out, "</text>\n", 8);
}

/* The subtitle's lines into @lines (up to SUBTITLE_MAX); returns how
 * many. */
static unsigned subtitle(const struct svg *s, struct buf lines[SUBTITLE_MAX])
{
	unsigned n = 0;
	char t[48];

	if (s->before) {
		about(&lines[n++], "widths: after ", s->p);
		about(&lines[n++], "red grew, blue shrank since ", s->before);
	} else {
		about(&lines[n++], "", s->p);
	}
	if (s->before && s->before->note)
		buf_printf(&lines[n++], "before: %s", s->before->note);
	if (s->p->note)
		buf_printf(&lines[n++], "%s%s", s->before ? "after: " : "",
			   s->p->note);
	if (s->pruned)
		buf_printf(&lines[n++], "%s (%.2f%%) in frames narrower than %g px not drawn (--min-width)",
			   value_text(s->p, s->pruned, t, sizeof t),
			   share(s->pruned, profile_value_total(s->p)),
			   s->o->min_width);
	/* A shape other than the usual says so: one reads a graph whose
	 * leaves are at its root as the callers. */
	if (s->o->inverted || s->o->reversed)
		buf_printf(&lines[n++], "%s%s%s", s->o->inverted ? "inverted: the root on top" : "",
			   s->o->inverted && s->o->reversed ? "; " : "",
			   s->o->reversed ? "reversed: every stack leaf first, its callers above it" : "");
	return n;
}

static void svg_write(struct svg *s, const char *title)
{
	struct buf *out = s->out;
	size_t all = names_intern(s->p->names, "all", 3);
	struct node *root = tree_build(s->p, all);
	struct node *broot = s->before ? tree_build(s->before, all) : NULL;
	unsigned w = s->o->width, h, nlines;
	struct buf lines[SUBTITLE_MAX] = { { 0 } };

	s->scale = (double)(w - 2 * PAD) / (double)profile_value_total(s->p);
	s->rows = prepass(s, root);
	nlines = subtitle(s, lines);
	s->top = TOP + nlines * LINE_H;
	h = s->top + s->rows * FRAME_H + BOTTOM;
	if (s->before) {
		s->max_change = DIFF_FLAT;
		max_change(s, root, broot);
	}
	buf_printf(out,
		   "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		   "xmlns=\"http://www.w3.org/2000/svg\">\n"
		   "<style>text { font-family: monospace; font-size: 12px; fill: #000; } "
		   "g.f:hover rect { stroke: #000; stroke-width: 0.5; } "
		   "#unzoom, #search, #resetsearch { cursor: pointer; }</style>\n"
		   "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#eeeeee\"/>\n",
		   w, h, w, h, w, h);
	buf_printf(out, "<text id=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\" "
		   "style=\"font-size: 17px\">", w / 2);
	buf_xml(out, title, strlen(title));
	buf_add(out, "</text>\n", 8);
	for (unsigned i = 0; i < nlines; i++) {
		subtitle_line(s, &lines[i], i);
		buf_free(&lines[i]);
	}
	buf_printf(out, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		   PAD, h - 12);
	if (s->o->script) {
		buf_printf(out, "<text id=\"unzoom\" x=\"%d\" y=\"24\" "
			   "style=\"display: none\">Reset Zoom</text>\n", PAD);
		buf_printf(out, "<text id=\"search\" x=\"%u\" y=\"24\" "
			   "text-anchor=\"end\">Search</text>\n", w - PAD);
		buf_printf(out, "<text id=\"resetsearch\" x=\"%u\" y=\"24\" "
			   "text-anchor=\"end\" style=\"display: none\">Reset Search</text>\n",
			   w - PAD - 60);
		buf_printf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\" "
			   "text-anchor=\"end\"> </text>\n", w - PAD, h - 12);
	}
	buf_add(out, "<g id=\"frames\">\n", 16);
	frames(s, root, broot);
	buf_add(out, "</g>\n", 5);
	if (s->o->script) {
		buf_printf(out, "<script type=\"text/ecmascript\"><![CDATA[\n"
			   "var W = %u, PAD = %d, INV = %s;\n", w, PAD,
			   s->o->inverted ? "true" : "false");
		buf_add(out, zoom_script, sizeof zoom_script - 1);
		buf_add(out, "]]></script>\n", 13);
	}
	buf_add(out, "</svg>\n", 7);
	tree_free(root);
	tree_free(broot);
}

void report_flamegraph(struct buf *out, const struct profile *p,
		       const struct svg_opts *o)
{
	struct svg s = { .out = out, .p = p, .o = o };

	svg_write(&s, o->title ? o->title : o->inverted ? "Icicle graph" : "Flame graph");
}

void report_diff_svg(struct buf *out, const struct profile *before,
		     const struct profile *after, const struct svg_opts *o)
{
	struct svg s = { .out = out, .p = after, .before = before, .o = o };

	svg_write(&s, o->title ? o->title : o->inverted ? "Differential icicle graph"
							: "Differential flame graph");
}
