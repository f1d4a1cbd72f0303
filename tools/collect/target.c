/* SPDX-License-Identifier: BSD-2-Clause */
/* What one target's thread says to its kernel, round after round
 * (doc/collect.md, "What it does"): `profile start` once, then `profile
 * rotate SEQ` each interval; a new boot nonce means the kernel rebooted
 * (a gap, a new session); silence is retried with back-off; the last
 * round rotates, stops, and takes the interval the stop closed. */
#define _GNU_SOURCE

#include "collect.h"
#include "lib/folded_frame.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Set by main(): at most this many exchanges at once. */
extern void collect_slot_take(void);
extern void collect_slot_give(void);
extern void collect_round_done(struct target *t, uint64_t round, bool answered,
			       uint64_t samples);

/* One exchange: 0 with the reply (*@reply, freed by the caller, its
 * length in *@len), or a UC_ code (then the reply, if any, is freed
 * here). */
static int ask_len(struct target *t, const char *cmd, char **reply, size_t *len)
{
	int rc;

	collect_slot_take();
	rc = udpsh_client_exchange(&t->c, cmd, strlen(cmd), opts.timeout_ms, reply, len);
	collect_slot_give();
	if (rc == UC_FAILED)
		rc = 0;		/* the kernel's own line says what failed */
	if (rc) {
		free(*reply);
		*reply = NULL;
	}
	return rc;
}

static int ask(struct target *t, const char *cmd, char **reply)
{
	size_t n;

	return ask_len(t, cmd, reply, &n);
}

/* Silence loses nothing while the session lives (the next interval
 * covers it): its gap is written only if what comes next does not start
 * where the last interval ended. */
static bool reason_soft(const char *reason)
{
	return strcmp(reason, "unreachable") == 0 || strcmp(reason, "incomplete") == 0 ||
	       strcmp(reason, "busy") == 0;
}

/* A gap opens (@reason: one word, doc/collect.md "Files").  A loss
 * after silence takes the silence's place; a second loss of another
 * kind closes the first one's gap here, so the index names each. */
static void gap_open(struct target *t, const char *reason)
{
	if (t->in_gap && strcmp(t->gap_reason, reason) && !reason_soft(t->gap_reason) &&
	    !reason_soft(reason)) {
		int64_t now = now_real_ns();

		store_gap(t, now);
		t->gap_from_ns = now;
	} else if (t->in_gap && reason_soft(reason) && !reason_soft(t->gap_reason)) {
		return;		/* the loss says more than the silence after it */
	}
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

	/* Datagrams that cannot be one reply are no silence: whatever
	 * the kernel kept, what it sent was not it. */
	gap_open(t, rc == UC_BAD_REPLY ? "bad-reply" : rc == UC_TOO_LONG ? "too-large" :
		 rc == UC_INCOMPLETE ? "incomplete" : rc == UC_BUSY ? "busy" : "unreachable");

	t->backoff_ns = t->backoff_ns ? t->backoff_ns * 2 : opts.interval_ns;
	if (t->backoff_ns > cap)
		t->backoff_ns = cap;
	t->retry_at_ns = now_mono_ns() + t->backoff_ns;
	if (!opts.quiet && t->backoff_ns == opts.interval_ns)
		fprintf(stderr, "%s: %s: %s%s%s; retrying with back-off\n", COLLECT_PROG, t->name,
			rc == UC_REFUSED ? "refused (nothing listens)" :
			rc == UC_BUSY ? "busy" : rc == UC_BAD_REPLY ? "bad reply" :
			rc == UC_TOO_LONG ? "reply too large" :
			rc == UC_INCOMPLETE ? "incomplete reply" : "no answer",
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

/* The folded block of `profile rotate` (@len bytes): its numbers, and
 * its host time.  False with the reason in @err. */
static bool interval_parse(struct target *t, const char *text, size_t len,
			   struct interval *iv, char *err, size_t errlen)
{
	int64_t mid, err_ns, offset;

	if (!interval_header(text, len, iv, err, errlen))
		return false;
	/* The cut ran between the request's first send and the reply's
	 * first datagram: the midpoint, within half the round trip.  An
	 * interval asked again after a lost reply was cut earlier: the last
	 * estimate stands for it.  Both kernel times are at most INT64_MAX
	 * (interval_header), so neither sum overflows. */
	mid = t->c.sent_ns + (t->c.heard_ns - t->c.sent_ns) / 2;
	err_ns = (t->c.heard_ns - t->c.sent_ns + 1) / 2;
	offset = !t->refetch || !t->have_offset ? mid - (int64_t)iv->end_ns : t->offset_ns;
	if ((int64_t)iv->start_ns + offset < 0) {
		snprintf(err, errlen, "start_ns %" PRIu64 " is before the host's epoch", iv->start_ns);
		return false;
	}
	if (!t->refetch || !t->have_offset) {
		t->offset_ns = offset;
		t->offset_err_ns = t->refetch ? -1 : err_ns;
		t->have_offset = !t->refetch;
	}
	iv->host_start_ns = (int64_t)iv->start_ns + t->offset_ns;
	iv->err_ns = t->offset_err_ns;
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
			t->last_kernel_end_ns = 0;
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

/* Interval @iv came: its files, and the gap before it closed (or let
 * go, when silence lost nothing).  Its samples, or 0 (refused: a gap,
 * said). */
static uint64_t interval_store(struct target *t, struct interval *iv,
			       const struct interval_caps *caps)
{
	const char *why;

	if (t->in_gap && !(reason_soft(t->gap_reason) && t->last_kernel_end_ns &&
			   iv->start_ns == t->last_kernel_end_ns))
		store_gap(t, iv->host_start_ns);
	t->in_gap = false;
	t->last_end_ns = iv->host_start_ns + (int64_t)(iv->end_ns - iv->start_ns);
	if ((why = store_interval(t, iv, caps))) {
		/* Taken from the kernel but not kept: the index says so. */
		gap_open(t, why);
		t->last_kernel_end_ns = 0;
		return 0;
	}
	t->last_kernel_end_ns = iv->end_ns;
	return iv->samples;
}

/* A reply to `profile rotate` that is no interval to keep (too large,
 * malformed): the kernel cut interval @seq all the same, so the next is
 * asked for; a gap names why. */
static void interval_refuse(struct target *t, uint64_t seq, const char *reason,
			    const char *err)
{
	fprintf(stderr, "%s: %s: interval %" PRIu64 " refused: %s\n", COLLECT_PROG, t->name,
		seq, err);
	gap_open(t, reason);
	t->last_kernel_end_ns = 0;
	t->refetch = false;
	t->seq = seq + 1;
}

/* rotate_block(): an address view whose image is not to be had; the
 * same interval is asked for by name (the kernel keeps it). */
#define ROTATE_BY_NAME (-2)

/* With --elf-dir, an address view's image: found (iv->image), or the
 * interval is asked for again by name (ROTATE_BY_NAME, the reason in
 * *@by_name); 0 to go on. */
static int rotate_image(struct target *t, struct interval *iv, const char **by_name)
{
	const char *reason;

	if (!opts.elf_dir || !iv->addr)
		return 0;
	if (!iv->build_id[0]) {
		*by_name = "no-build-id";
		return ROTATE_BY_NAME;
	}
	iv->image = images_get(iv->build_id, t->name, &reason);
	if (iv->image)
		return 0;
	*by_name = reason;
	return ROTATE_BY_NAME;
}

/* What a folded block in the reply to `profile rotate @seq` (@len
 * bytes) comes to: its samples stored, or 0 (refused, a gap), or
 * ROTATE_BY_NAME (asked again by name: *@by_name says why; an interval
 * by name that comes then is stored with it). */
static int64_t rotate_block(struct target *t, uint64_t seq, const char *reply, size_t len,
			    const struct interval_caps *caps, const char **by_name)
{
	struct interval iv;
	char err[256];
	uint64_t got;

	if (!interval_parse(t, reply, len, &iv, err, sizeof(err))) {
		interval_refuse(t, seq, "refused", err);
		return 0;
	}
	if (iv.seq != seq) {
		snprintf(err, sizeof(err), "its header says seq=%" PRIu64, iv.seq);
		interval_refuse(t, seq, "refused", err);
		return 0;
	}
	if (!*by_name && rotate_image(t, &iv, by_name) == ROTATE_BY_NAME) {
		/* Cut already: asked again, it is mapped with this estimate. */
		t->refetch = true;
		return ROTATE_BY_NAME;
	}
	iv.by_name = *by_name;
	got = interval_store(t, &iv, caps);
	t->refetch = false;
	t->seq = seq + 1;
	return (int64_t)got;
}

/* `profile rotate SEQ` and what its answer means.  Returns the samples
 * stored, or -1 when the target said nothing usable this round. */
static int64_t rotate(struct target *t, uint64_t seq)
{
	char cmd[64], err[256], *reply = NULL;
	const char *by_name = NULL;
	struct interval_caps caps;
	unsigned long long m;
	size_t len;
	int64_t got;
	int rc;

	interval_caps(&caps, opts.hz, opts.depth, opts.interval_ns, opts.max_reply);
	for (int tries = 0; tries < 3; tries++) {
		/* With --elf-dir the address view, unless its image is
		 * missing; else (and then) the by-name view with its weights:
		 * the pprof it becomes holds the time the kernel counted, the
		 * same total as every view. */
		snprintf(cmd, sizeof(cmd), "profile rotate %" PRIu64 " %s", seq,
			 opts.elf_dir && !by_name ? "addr" : "weight");
		if ((rc = ask_len(t, cmd, &reply, &len)) == UC_TOO_LONG) {
			/* The client stopped reading it at the cap
			 * (main.c set it to caps.reply_max). */
			snprintf(err, sizeof(err), "a reply of more than %zu bytes, more than this session can produce (--max-reply); not read further",
				 t->c.reply_max);
			t->backoff_ns = 0;
			interval_refuse(t, seq, "too-large", err);
			return 0;
		}
		if (rc) {
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
		if (strncmp(reply, FOLDED_BEGIN_LINE "\n", sizeof(FOLDED_BEGIN_LINE)) == 0) {
			got = rotate_block(t, seq, reply, len, &caps, &by_name);
			free(reply);
			if (got == ROTATE_BY_NAME)
				continue;
			return got;
		}
		if (sscanf(reply, "profile: interval %*u is no longer kept (the oldest kept is %llu)", &m) == 1 ||
		    sscanf(reply, "profile: interval %*u is not open yet (the open one is %llu)", &m) == 1) {
			/* Another client rotated this session. */
			gap_open(t, "rotated-elsewhere");
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
		gap_open(t, "session-lost");
		t->session = false;
		free(reply);
		return -1;
	}
	return -1;
}

/* The last round: rotate, stop, then the interval the stop closed.
 * True when the target answered the stop; its samples into *@samples. */
static bool finish(struct target *t, uint64_t *samples)
{
	char *reply = NULL;
	unsigned long long last = 0;
	int64_t got;
	const char *p;

	*samples = 0;
	got = rotate(t, t->seq);
	if (got > 0)
		*samples += (uint64_t)got;
	if (!t->session || ask(t, "profile stop", &reply))
		return false;
	store_stopped(t, reply);
	p = strstr(reply, "\nprofile: last interval ");
	if (p && sscanf(p, "\nprofile: last interval %llu", &last) == 1 && last == t->seq) {
		got = rotate(t, last);
		if (got > 0)
			*samples += (uint64_t)got;
	}
	free(reply);
	t->session = false;
	return true;
}

void target_round(struct target *t, uint64_t round, bool final)
{
	int64_t got = -1;

	if (final) {
		uint64_t s = 0;
		bool answered = t->session && finish(t, &s);

		/* A target never reached, or lost on the way, ends in a gap. */
		if (!answered && !t->in_gap)
			gap_open(t, "unreachable");
		if (t->in_gap)
			store_gap(t, now_real_ns());
		t->in_gap = false;
		collect_round_done(t, round, answered, s);
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
