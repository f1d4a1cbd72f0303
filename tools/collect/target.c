/* SPDX-License-Identifier: BSD-2-Clause */
/* What one target's thread says to its kernel, round after round
 * (doc/collect.md, "What it does"): `profile start` once, then `profile
 * rotate SEQ` each interval; a new boot nonce means the kernel rebooted
 * (a gap, a new session); silence is retried with back-off; the last
 * round rotates, stops, and takes the interval the stop closed. */
#define _GNU_SOURCE

#include "collect.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Set by main(): at most this many exchanges at once. */
extern void collect_slot_take(void);
extern void collect_slot_give(void);
extern void collect_round_done(struct target *t, uint64_t round, bool answered,
			       uint64_t samples);

/* One exchange: 0 with the reply (*@reply, freed by the caller), or a
 * UC_ code (then the reply, if any, is freed here). */
static int ask(struct target *t, const char *cmd, char **reply)
{
	size_t n;
	int rc;

	collect_slot_take();
	rc = udpsh_client_exchange(&t->c, cmd, strlen(cmd), opts.timeout_ms, reply, &n);
	collect_slot_give();
	if (rc == UC_FAILED)
		rc = 0;		/* the kernel's own line says what failed */
	if (rc) {
		free(*reply);
		*reply = NULL;
	}
	return rc;
}

/* No samples were lost until a gap opens: reboot, a lost session. */
static void gap_open(struct target *t, const char *reason)
{
	if (!t->in_gap) {
		t->in_gap = true;
		t->gap_from_ns = t->last_end_ns ? t->last_end_ns : now_real_ns();
	}
	snprintf(t->gap_reason, sizeof(t->gap_reason), "%s", reason);
}

/* Silence: try again after a back-off (one interval, doubling to 16). */
static void silent(struct target *t, int rc)
{
	int64_t cap = 16 * opts.interval_ns;

	t->backoff_ns = t->backoff_ns ? t->backoff_ns * 2 : opts.interval_ns;
	if (t->backoff_ns > cap)
		t->backoff_ns = cap;
	t->retry_at_ns = now_mono_ns() + t->backoff_ns;
	if (!opts.quiet && t->backoff_ns == opts.interval_ns)
		fprintf(stderr, "%s: %s: %s%s%s; retrying with back-off\n", COLLECT_PROG, t->name,
			rc == UC_REFUSED ? "refused (nothing listens)" :
			rc == UC_BUSY ? "busy" : "no answer",
			t->c.err[0] ? ": " : "", t->c.err);
}

/* A reply from another boot than the session's: it rebooted. */
static bool rebooted(struct target *t)
{
	if (!t->session || t->c.nonce == t->nonce)
		return false;
	t->session = false;
	gap_open(t, "reboot");
	return true;
}

static const char *header(const char *text, const char *key, char *buf, size_t size)
{
	char want[48];
	const char *p;
	size_t n;

	snprintf(want, sizeof(want), "\n# %s=", key);
	p = strstr(text, want);
	if (!p)
		return NULL;
	p += strlen(want);
	n = strcspn(p, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

static bool header_u64(const char *text, const char *key, uint64_t *v)
{
	char buf[32], *end;

	if (!header(text, key, buf, sizeof(buf)) || !buf[0])
		return false;
	*v = strtoull(buf, &end, 10);
	return !*end;
}

/* The folded block of `profile rotate`: its numbers, and its host time. */
static bool interval_parse(struct target *t, const char *text, struct interval *iv)
{
	const char *end;
	int64_t mid, err;

	memset(iv, 0, sizeof(*iv));
	if (strncmp(text, "# kprof folded begin\n", 21) || !strstr(text, "\n# kprof folded end ") ||
	    !header_u64(text, "seq", &iv->seq) || !header_u64(text, "start_ns", &iv->start_ns) ||
	    !header_u64(text, "end_ns", &iv->end_ns) || !header_u64(text, "samples", &iv->samples) ||
	    !header_u64(text, "dropped", &iv->dropped) || iv->end_ns < iv->start_ns)
		return false;
	header(text, "build_id", iv->build_id, sizeof(iv->build_id));
	/* The cut ran between the request's first send and the reply's
	 * first datagram: the midpoint, within half the round trip.  An
	 * interval asked again after a lost reply was cut earlier: the last
	 * estimate stands for it. */
	mid = t->c.sent_ns + (t->c.heard_ns - t->c.sent_ns) / 2;
	err = (t->c.heard_ns - t->c.sent_ns + 1) / 2;
	if (!t->refetch || !t->have_offset) {
		t->offset_ns = mid - (int64_t)iv->end_ns;
		t->offset_err_ns = t->refetch ? -1 : err;
		t->have_offset = !t->refetch;
	}
	iv->host_start_ns = (int64_t)iv->start_ns + t->offset_ns;
	iv->err_ns = t->offset_err_ns;
	/* The file is the block, not the prompt after it. */
	end = strchr(strstr(text, "\n# kprof folded end ") + 1, '\n');
	iv->text = text;
	iv->len = end ? (size_t)(end + 1 - text) : strlen(text);
	return true;
}

/* `profile start`; a session left by an earlier collector (busy) is
 * stopped first.  True when one runs. */
static bool session_start(struct target *t)
{
	char cmd[96], *reply = NULL;
	int rc;

	for (int tries = 0; tries < 2; tries++) {
		snprintf(cmd, sizeof(cmd), "profile start all");
		if (opts.hz)
			snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " hz=%u", opts.hz);
		if (opts.depth)
			snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " depth=%u", opts.depth);
		if ((rc = ask(t, cmd, &reply))) {
			silent(t, rc);
			return false;
		}
		if (strncmp(reply, "profile: started", 16) == 0) {
			free(reply);
			t->session = true;
			t->nonce = t->c.nonce;
			t->seq = 1;
			t->have_offset = false;
			t->refetch = false;
			return true;
		}
		if (strncmp(reply, "profile: busy", 13) || tries) {
			fprintf(stderr, "%s: %s: profile start: %.*s\n", COLLECT_PROG, t->name,
				(int)strcspn(reply, "\n"), reply);
			free(reply);
			silent(t, UC_BUSY);
			return false;
		}
		free(reply);
		/* Ours from before, most likely: its data is lost anyway. */
		if (!ask(t, "profile stop", &reply))
			free(reply);
	}
	return false;
}

/* The interval came: its files, and the gap before it closed. */
static uint64_t interval_store(struct target *t, const struct interval *iv)
{
	if (t->in_gap) {
		store_gap(t, iv->host_start_ns);
		t->in_gap = false;
	}
	if (store_interval(t, iv) < 0) {
		/* Taken from the kernel but not kept: the index says so. */
		gap_open(t, "not written");
		return 0;
	}
	t->last_end_ns = iv->host_start_ns + (int64_t)(iv->end_ns - iv->start_ns);
	return iv->samples;
}

/* `profile rotate SEQ` and what its answer means.  Returns the samples
 * stored, or -1 when the target said nothing usable this round. */
static int64_t rotate(struct target *t, uint64_t seq)
{
	char cmd[64], *reply = NULL;
	struct interval iv;
	unsigned long long m;
	int64_t got = -1;
	int rc;

	for (int tries = 0; tries < 3; tries++) {
		snprintf(cmd, sizeof(cmd), "profile rotate %" PRIu64 " folded", seq);
		if ((rc = ask(t, cmd, &reply))) {
			/* It may have cut: the same SEQ again gets the kept one. */
			t->refetch = true;
			silent(t, rc);
			return -1;
		}
		t->backoff_ns = 0;
		if (rebooted(t)) {
			free(reply);
			return -1;
		}
		if (interval_parse(t, reply, &iv) && iv.seq == seq) {
			got = (int64_t)interval_store(t, &iv);
			t->refetch = false;
			t->seq = seq + 1;
			free(reply);
			return got;
		}
		if (sscanf(reply, "profile: interval %*u is no longer kept (the oldest kept is %llu)", &m) == 1 ||
		    sscanf(reply, "profile: interval %*u is not open yet (the open one is %llu)", &m) == 1) {
			/* Another client rotated this session. */
			gap_open(t, "rotated elsewhere");
			seq = t->seq = m;
			t->refetch = true;
			free(reply);
			continue;
		}
		if (strncmp(reply, "profile: busy", 13) == 0) {
			free(reply);
			return -1;
		}
		/* No session any more (stopped by someone, or it rebooted
		 * between our rounds without our noticing). */
		gap_open(t, "session lost");
		t->session = false;
		free(reply);
		return -1;
	}
	return got;
}

/* The last round: rotate, stop, then the interval the stop closed. */
static uint64_t finish(struct target *t)
{
	char *reply = NULL;
	unsigned long long last = 0;
	uint64_t samples = 0;
	int64_t got;
	const char *p;

	got = rotate(t, t->seq);
	if (got > 0)
		samples += (uint64_t)got;
	if (!t->session || ask(t, "profile stop", &reply))
		return samples;
	store_stopped(t, reply);
	p = strstr(reply, "\nprofile: last interval ");
	if (p && sscanf(p, "\nprofile: last interval %llu", &last) == 1 && last == t->seq) {
		got = rotate(t, last);
		if (got > 0)
			samples += (uint64_t)got;
	}
	free(reply);
	t->session = false;
	return samples;
}

void target_round(struct target *t, uint64_t round, bool final)
{
	int64_t got = -1;

	if (final) {
		uint64_t s = t->session ? finish(t) : 0;

		if (t->in_gap)
			store_gap(t, now_real_ns());
		t->in_gap = false;
		collect_round_done(t, round, true, s);
		return;
	}
	if (t->retry_at_ns && now_mono_ns() < t->retry_at_ns) {
		collect_round_done(t, round, false, 0);
		return;
	}
	t->retry_at_ns = 0;
	if (t->session)
		got = rotate(t, t->seq);
	if (!t->session && session_start(t))
		got = 0;
	collect_round_done(t, round, got >= 0, got > 0 ? (uint64_t)got : 0);
}
