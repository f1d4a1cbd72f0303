/* SPDX-License-Identifier: BSD-2-Clause */
/* A trace's life (prof/trace_session.h).  The store is allocated with
 * the rings, so a trace that starts can always keep what its rings
 * hold; the memory check counts both before either is taken. */
#include "prof/trace_session.h"

#include "hal/mem.h"
#include "hal/timer.h"
#include "kernel/page.h"
#include "kernel/sched.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"

/* Pages left free whatever a trace asks: the tasks' stacks and the
 * network's buffers come from the same allocator. */
#define TRACE_PAGES_SPARE 512

static struct trace_session sess;
static bool sess_held;

bool trace_session_claim(void)
{
	return !__atomic_exchange_n(&sess_held, true, __ATOMIC_ACQUIRE);
}

void trace_session_release(void)
{
	__atomic_store_n(&sess_held, false, __ATOMIC_RELEASE);
}
static void *store_pages;
static size_t store_npages;

const struct trace_session *trace_session(void)
{
	return &sess;
}

static size_t pages_for(size_t bytes)
{
	return (bytes + HAL_PAGE_SIZE - 1) / HAL_PAGE_SIZE;
}

static void store_free(void)
{
	if (store_pages)
		page_free(store_pages, store_npages);
	store_pages = NULL;
	store_npages = 0;
	sess.ev = NULL;
	sess.n = sess.cap = 0;
	sess.have = false;
}

static unsigned rings_wanted(const struct trace_config *cfg)
{
	unsigned n = 0;

	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		if (sched_cpu_online(i) && (cfg->cpu == TRACE_CPU_ALL || cfg->cpu == (int)i))
			n++;
	return n;
}

static void name_add(struct task *t, void *ctx);

int trace_session_start(const struct trace_config *cfg, unsigned kb, struct out *err)
{
	unsigned rings = rings_wanted(cfg);
	size_t ring_pages = pages_for(TRACE_RING_BYTES(cfg->slots));
	size_t cap = (size_t)rings * cfg->slots;
	size_t need = rings * ring_pages + pages_for(cap * sizeof(struct trace_rec));
	size_t free_pages;
	int r;

	if (sess.armed) {
		out_puts(err, "trace: one is running (trace stop first)\n");
		return -EBUSY;
	}
	/* The last trace's rings and store count as free (they go back
	 * if this one starts), but stay until then: a refused start keeps
	 * the last trace to show. */
	free_pages = page_free_count() + trace_pages_held() + store_npages;
	if (need + TRACE_PAGES_SPARE > free_pages) {
		out_printf(err, "trace: buffer=%u KB on %u cpus needs %zu KB, %zu KB free "
			   "(keeping %u KB spare)\n", kb, rings, need * (HAL_PAGE_SIZE / 1024),
			   free_pages * (HAL_PAGE_SIZE / 1024),
			   TRACE_PAGES_SPARE * (HAL_PAGE_SIZE / 1024));
		return -ENOMEM;
	}
	trace_release();
	store_free();
	store_npages = pages_for(cap * sizeof(struct trace_rec));
	store_pages = page_alloc(store_npages);
	if (!store_pages) {
		store_npages = 0;
		out_puts(err, "trace: no run of free pages long enough for the store\n");
		return -ENOMEM;
	}
	r = trace_arm(cfg);
	if (r < 0) {
		store_free();
		out_puts(err, "trace: no run of free pages long enough for a ring\n");
		return r;
	}
	sess.cfg = *cfg;
	sess.kb = kb;
	sess.ev = store_pages;
	sess.cap = cap;
	sess.n = 0;
	sess.nnames = 0;
	sess.armed = true;
	/* Named now too: a task that ends inside the window may be gone
	 * by its stop. */
	task_for_each_all(name_add, NULL);
	sess.t0 = hal_clock_ns();
	sess.t1 = 0;
	return 0;
}

static void name_keep(int pid, const char *name)
{
	for (unsigned i = 0; i < sess.nnames; i++)
		if (sess.names[i].pid == pid)
			return;
	if (sess.nnames == TRACE_NAMES_MAX)
		return;
	sess.names[sess.nnames].pid = pid;
	kstrlcpy(sess.names[sess.nnames].name, name, TASK_NAME_MAX);
	sess.nnames++;
}

static void name_add(struct task *t, void *ctx)
{
	(void)ctx;
	name_keep(t->pid, t->is_idle ? "idle" : t->name);
}

const char *trace_session_name(const struct trace_session *s, int pid)
{
	for (unsigned i = 0; i < s->nnames; i++)
		if (s->names[i].pid == pid)
			return s->names[i].name;
	return "?";
}

static void store_sink(const struct trace_rec *rec, void *ctx)
{
	(void)ctx;
	/* The store holds every ring whole: never full. */
	if (sess.n < sess.cap)
		sess.ev[sess.n++] = *rec;
}

static bool rec_before(const struct trace_rec *a, const struct trace_rec *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->cpu < b->cpu;
}

static void sift_down(struct trace_rec *v, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;
		struct trace_rec t;

		if (c >= n)
			return;
		if (c + 1 < n && rec_before(&v[c], &v[c + 1]))
			c++;
		if (!rec_before(&v[root], &v[c]))
			return;
		t = v[root];
		v[root] = v[c];
		v[c] = t;
		root = c;
	}
}

/* Heapsort: in place (the store is all the memory a trace has), and
 * n log n on a window of millions. */
static void sort_by_time(struct trace_rec *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		struct trace_rec t = v[0];

		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

int trace_session_stop(void)
{
	const char *name;
	int pid;

	if (!sess.armed)
		return -ENOENT;
	trace_disarm();
	sess.t1 = hal_clock_ns();
	sess.armed = false;
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++) {
		size_t before = sess.n;

		sess.ring[i] = trace_has_ring(i);
		trace_drain(i, store_sink, NULL);
		sess.read[i] = sess.n - before;
		sess.lost[i] = trace_lost(i);
	}
	trace_release();
	sort_by_time(sess.ev, sess.n);
	task_for_each_all(name_add, NULL);
	for (unsigned i = 0; trace_born_name(i, &pid, &name); i++)
		if (pid)
			name_keep(pid, name);
	sess.have = true;
	return 0;
}

/* One word of EVENTS: an event's name, or a group's. */
static int events_word(const char *w, size_t len, uint32_t *mask)
{
	bool all = len == 3 && kmemcmp(w, "all", 3) == 0;
	bool hit = false;

	for (unsigned e = 0; e < TRACE_EVENTS; e++) {
		const char *name = trace_events[e].name, *group = trace_events[e].group;

		if (all || (kstrlen(name) == len && kmemcmp(w, name, len) == 0) ||
		    (kstrlen(group) == len && kmemcmp(w, group, len) == 0)) {
			*mask |= 1u << e;
			hit = true;
		}
	}
	return hit ? 0 : -EINVAL;
}

int trace_parse_events(const char *word, uint32_t *mask, const char **bad, size_t *badlen)
{
	const char *p = word;

	*mask = 0;
	for (;;) {
		const char *end = p;

		while (*end && *end != ',')
			end++;
		if (events_word(p, (size_t)(end - p), mask) < 0) {
			*bad = p;
			*badlen = (size_t)(end - p);
			return -EINVAL;
		}
		if (!*end)
			return 0;
		p = end + 1;
	}
}
