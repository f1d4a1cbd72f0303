/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the keyed UDP shell's client (tools/udpsh_client.c),
 * the exchange kshell and kprof-collect both run, against a keyed fake
 * shell whose answers the input scripts: holes, duplicates, reorders,
 * two lasts, numbers above the last, stale and gone midway, another
 * boot's nonce, answers to an older request id, forged and short
 * datagrams, and drips.  Its socket and clock are the client's seam
 * (struct udpsh_client_io): time is a counter the script advances, so an
 * exchange that waits 4 s costs nothing.
 *
 * The input is a list of up to FZ_MAX_OPS deliveries, 5 bytes each and
 * then the payload:
 *
 *   0    delay before it arrives, in 16 ms steps (0 to 4 s)
 *   1    bits 0-1: 0 a part, 1 flagged last, 2 stale, 3 gone;
 *        bit 2: another boot's nonce; bit 3: to the request before the
 *        latest; bit 4: its MAC broken; bits 5-6: status;
 *        bit 7: a short datagram of garbage instead
 *   2-3  the reply number: byte 3, or with byte 2 0xff, 0xff00 + byte 3
 *        (the numbers near 65535, whose room a client must make)
 *   4    the payload's length, 0-31 (mod 32), taken from what follows
 *
 * Checked on every run, besides no crash, leak or overflow:
 *
 * - the exchange ends within UDPSH_CLIENT_DEADLINE_FACTOR times its
 *   timeout of fake time, and every request verifies under the key and
 *   spends only a ticket a stale answer handed out;
 * - its result is what the rules make of what it was given (fz_expect(),
 *   which reads the deliveries to the latest request id as the client
 *   must): whole (then the reply is the parts 0..last, first copies, in
 *   order, and the status the last's), refused (UC_BAD_REPLY), or
 *   unfinished (any other failure). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "shell/udpsh/wire.h"
#include "udpsh_client.h"

#define FZ_TIMEOUT_MS 1000
#define FZ_MAX_OPS 48		/* deliveries read: more add time, not cases */
#define FZ_MAX_RIDS 16
#define FZ_NONCE_A 0xa0a0a0a0a0a0a0a0ull
#define FZ_NONCE_B 0xb0b0b0b0b0b0b0b0ull

static const uint8_t fz_key[24] = "fuzz-udpsh-client-key-24";

/* One delivery the script asks for. */
struct fz_op {
	long long delay;
	uint8_t how;
	uint16_t num;
	const uint8_t *payload;
	size_t len;
};

/* A delivery as the client received it, for the oracle. */
struct fz_seen {
	struct udpsh_wire h;
	const uint8_t *payload;
	size_t len;
	bool valid;		/* verified under the key */
};

static struct {
	struct fz_op op[FZ_MAX_OPS];
	unsigned nops, next;
	long long now;
	unsigned recvs;
	uint8_t rid[FZ_MAX_RIDS][UDPSH_WIRE_RID];
	unsigned nrids;		/* distinct request ids sent, in order */
	uint8_t req[UDPSH_WIRE_OVERHEAD + 4096];
	size_t req_len;		/* the last request, as sent */
	uint64_t tickets;	/* tickets handed out so far: 1..tickets */
	uint64_t ticket_nonce[FZ_MAX_OPS + 1];
	struct fz_seen seen[FZ_MAX_OPS];
	unsigned nseen;
} fz;

static long long fz_now(void *ctx)
{
	(void)ctx;
	return fz.now;
}

/* A request: it verifies, and spends no ticket but one handed out.  A
 * resend is the last request byte for byte (its MAC checked once). */
static int fz_send(void *ctx, const void *d, size_t len)
{
	struct udpsh_wire h;

	(void)ctx;
	if (fz.nrids && len == fz.req_len && memcmp(d, fz.req, len) == 0)
		return 0;
	if (len > sizeof(fz.req) ||
	    !udpsh_wire_open(fz_key, sizeof(fz_key), UDPSH_KIND_REQUEST, d, len, &h))
		abort();
	if (h.ticket && (h.ticket > fz.tickets || fz.ticket_nonce[h.ticket] != h.nonce))
		abort();
	/* A new request always has a new id. */
	for (unsigned i = 0; i < fz.nrids && i < FZ_MAX_RIDS; i++)
		if (memcmp(fz.rid[i], h.rid, UDPSH_WIRE_RID) == 0)
			abort();
	memcpy(fz.req, d, len);
	fz.req_len = len;
	memcpy(fz.rid[fz.nrids % FZ_MAX_RIDS], h.rid, UDPSH_WIRE_RID);
	fz.nrids++;
	return 0;
}

/* The datagram @o asks for, into @buf; its length.  Its header goes to
 * @s, and whether its MAC holds. */
static size_t fz_frame(const struct fz_op *o, uint8_t *buf, struct fz_seen *s)
{
	static const uint8_t flags[4] = { 0, UDPSH_FLAG_LAST, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST,
					  UDPSH_FLAG_GONE | UDPSH_FLAG_LAST };
	struct udpsh_wire h = {
		.kind = UDPSH_KIND_REPLY, .flags = flags[o->how & 3],
		.status = (o->how >> 5) & 3, .num = o->num,
		.nonce = (o->how & 4) ? FZ_NONCE_B : FZ_NONCE_A,
	};
	unsigned r = fz.nrids - 1;
	size_t n;

	s->valid = false;
	if (o->how & 0x80) {
		n = o->len < UDPSH_WIRE_OVERHEAD ? o->len : UDPSH_WIRE_OVERHEAD - 1;
		memcpy(buf, o->payload, n);
		return n;
	}
	if ((o->how & 8) && r > 0)
		r--;
	memcpy(h.rid, fz.rid[r % FZ_MAX_RIDS], UDPSH_WIRE_RID);
	if (h.flags & UDPSH_FLAG_STALE) {
		h.ticket = ++fz.tickets;
		fz.ticket_nonce[h.ticket] = h.nonce;
	}
	n = udpsh_wire_frame(fz_key, sizeof(fz_key), &h, o->payload, o->len, buf);
	if (o->how & 0x10)
		buf[n - 1] ^= 0x5a;
	s->h = h;
	s->valid = !(o->how & 0x10);
	return n;
}

/* Deliver the next scripted datagram if it arrives within @timeout_ms
 * of fake time, else let that time pass: what poll and recv would do. */
static ssize_t fz_recv(void *ctx, void *buf, size_t size, int timeout_ms)
{
	struct fz_op *o = &fz.op[fz.next];
	struct fz_seen *s;
	size_t n;

	(void)ctx;
	/* Every call lets time pass or takes one delivery: a loop that
	 * does neither forever is a hang. */
	if (++fz.recvs > 100000 || timeout_ms < 0)
		abort();
	if (fz.next == fz.nops || o->delay > timeout_ms) {
		if (fz.next < fz.nops)
			o->delay -= timeout_ms;
		fz.now += timeout_ms;
		return -1;
	}
	fz.now += o->delay;
	fz.next++;
	s = &fz.seen[fz.nseen++];
	n = fz_frame(o, buf, s);
	if (n > size)
		abort();
	s->payload = o->payload;
	s->len = o->len;
	return (ssize_t)n;
}

static const struct udpsh_client_io fz_io = {
	.now_ms = fz_now, .send = fz_send, .recv = fz_recv,
};

/* What the client must make of the deliveries to the latest request id:
 * 1 whole (*@last its number, *@status the last's), 2 refused, 0
 * unfinished (a stale, gone, or nothing whole yet). */
static int fz_expect(long *last, uint8_t *status)
{
	const uint8_t *rid = fz.rid[(fz.nrids - 1) % FZ_MAX_RIDS];
	static bool have[65536];
	long top = -1;
	unsigned count = 0, i;
	uint64_t nonce = 0;
	int verdict = 0;

	*last = -1;
	memset(have, 0, sizeof(have));
	for (i = 0; i < fz.nseen; i++) {
		const struct udpsh_wire *h = &fz.seen[i].h;
		bool is_last = h->flags & UDPSH_FLAG_LAST;

		if (!fz.seen[i].valid || memcmp(h->rid, rid, UDPSH_WIRE_RID) != 0)
			continue;
		if (h->flags & (UDPSH_FLAG_STALE | UDPSH_FLAG_GONE))
			break;
		if ((count && h->nonce != nonce) || (is_last && *last >= 0 && h->num != *last) ||
		    (is_last && h->num < top) || (*last >= 0 && h->num > *last)) {
			verdict = 2;
			break;
		}
		nonce = h->nonce;
		if (!have[h->num]) {
			have[h->num] = true;
			count++;
		}
		if (h->num > top)
			top = h->num;
		if (is_last && *last < 0) {
			*last = h->num;
			*status = h->status;
		}
		if (*last >= 0 && count == (unsigned long)*last + 1) {
			verdict = 1;
			break;
		}
	}
	/* The client stops at its verdict: nothing after it was read. */
	if (verdict && i + 1 != fz.nseen)
		abort();
	return verdict;
}

/* The reply the parts 0..@last make, first copies, in order. */
static void fz_check_reply(long last, const char *reply, size_t len)
{
	const uint8_t *rid = fz.rid[(fz.nrids - 1) % FZ_MAX_RIDS];
	size_t off = 0;

	for (long num = 0; num <= last; num++) {
		for (unsigned i = 0; i < fz.nseen; i++) {
			const struct fz_seen *s = &fz.seen[i];

			if (!s->valid || s->h.num != num || memcmp(s->h.rid, rid, UDPSH_WIRE_RID) != 0)
				continue;
			if (off + s->len > len || memcmp(reply + off, s->payload, s->len) != 0)
				abort();
			off += s->len;
			break;
		}
	}
	if (off != len || reply[len] != '\0')
		abort();
}

/* The script from the input. */
static void fz_parse(const uint8_t *data, size_t size)
{
	size_t pos = 0;

	memset(&fz, 0, sizeof(fz));
	while (pos + 5 <= size && fz.nops < FZ_MAX_OPS) {
		struct fz_op *o = &fz.op[fz.nops++];

		o->delay = (long long)data[pos] * 16;
		o->how = data[pos + 1];
		o->num = (uint16_t)(data[pos + 2] == 0xff ? 0xff00 | data[pos + 3] : data[pos + 3]);
		o->len = data[pos + 4] % 32;
		pos += 5;
		if (o->len > size - pos)
			o->len = size - pos;
		o->payload = data + pos;
		pos += o->len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct udpsh_client c = { .fd = -1, .io = &fz_io };
	char *reply;
	size_t len;
	long last;
	uint8_t status = 0;
	int rc, want;

	fz_parse(data, size);
	memcpy(c.key, fz_key, sizeof(fz_key));
	c.key_len = sizeof(fz_key);
	rc = udpsh_client_exchange(&c, "profile show folded", 19, FZ_TIMEOUT_MS, &reply, &len);
	if (fz.now > (long long)UDPSH_CLIENT_DEADLINE_FACTOR * FZ_TIMEOUT_MS || fz.nrids == 0)
		abort();
	want = fz_expect(&last, &status);
	if (want == 1 && status == UDPSH_STATUS_BUSY)
		want = rc == UC_BUSY ? -1 : 3;
	if (want == 1) {
		if (rc != (status == UDPSH_STATUS_OK ? 0 : UC_FAILED) || !reply)
			abort();
		fz_check_reply(last, reply, len);
	} else if ((want == 2 && rc != UC_BAD_REPLY) || want == 3 ||
		   (want == 0 && (rc == 0 || rc == UC_FAILED || rc == UC_BAD_REPLY || reply))) {
		abort();
	}
	free(reply);
	return 0;
}
