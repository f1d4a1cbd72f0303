/* SPDX-License-Identifier: BSD-2-Clause */
/* The keyed UDP shell's tickets and replay (src/shell/udpsh/tickets.c):
 * a request runs once, by spending a fresh ticket of this boot; stale,
 * gone and kept replies; retransmissions resent, never rerun; tickets
 * age; floods of replays bounded by the buckets; a bad MAC answered by
 * nothing.  Each attack a review of this code found, as a test. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "fake_hal.h"
#include "check_main.h"
#include "udpsh_testlib.h"

CHECK_TEST("auth", test_auth_first_answer_stale_then_runs_once)
{
	uint64_t t = ticket_for(1);

	ck_assert_uint_eq(args_runs, 0);
	auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(nsent, 2);
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_OK);
	ck_assert_uint_eq(sent[1].len, UDPSH_WIRE_OVERHEAD + strlen("2 [args] [a]\n> "));
	ck_assert_mem_eq(sent[1].data + UDPSH_WIRE_HDR, "2 [args] [a]\n> ", 15);
	ck_assert_uint_eq(args_runs, 1);
	ck_assert_uint_eq(u.stats.stale, 1);
	ck_assert_uint_eq(u.stats.tickets, 1);
}
END_TEST

CHECK_TEST("auth", test_auth_long_reply_numbered_last_flagged)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 4 1000");
	ck_assert_uint_eq(nsent, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_auth_reply(i, 2, (uint16_t)i, i == 3 ? UDPSH_FLAG_LAST : 0,
				  UDPSH_STATUS_OK);
		ck_assert_uint_le(sent[i].len, UDPSH_DGRAM_MAX);
	}
}
END_TEST

/* Finding 6: the command's status travels in the last datagram. */
CHECK_TEST("auth", test_auth_status_failed_in_last_datagram)
{
	auth_send(TEST_NONCE, ticket_for(1), 2, "nosuch");
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_FAILED);
	auth_send(TEST_NONCE, ticket_for(3), 4, "crash");	/* serial only */
	assert_auth_reply(3, 4, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_FAILED);
	auth_send(TEST_NONCE, ticket_for(5), 6, "");
	assert_auth_reply(5, 6, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_OK);
}
END_TEST

/* Finding 5: the same request again gets the kept reply, byte for byte,
 * and never runs twice. */
CHECK_TEST("auth", test_auth_retransmission_resent_not_rerun)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 6);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(sent[i].len, sent[i + 3].len);
		ck_assert_mem_eq(sent[i].data, sent[i + 3].data, sent[i].len);
	}
	ck_assert_uint_eq(u.stats.resent, 1);
	ck_assert_uint_eq(u.stats.answered, 1);
	ck_assert_uint_eq(u.stats.stale, 1);
}
END_TEST

CHECK_TEST("auth", test_auth_resend_bounded_then_gone)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE, t, 2, "args a");
	for (unsigned i = 0; i < UDPSH_RESEND_MAX; i++)
		auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(u.stats.resent, UDPSH_RESEND_MAX);
	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A replay from another source is not sent the reply: gone, not run. */
CHECK_TEST("auth", test_auth_replay_from_elsewhere_gone)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE, t, 2, "args a");
	nsent = 0;
	auth_send_from(TEST_NONCE, t, 2, "args a", CLIENT_PORT + 1);
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
	ck_assert_uint_eq(sent[0].port, CLIENT_PORT + 1);
	ck_assert_uint_eq(sent[0].len, UDPSH_WIRE_OVERHEAD);
	ck_assert_uint_eq(args_runs, 1);
	ck_assert_uint_eq(u.stats.gone, 1);
}
END_TEST

/* A ticket runs one request: another request spending it is refused. */
CHECK_TEST("auth", test_auth_ticket_spent_once)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE, t, 2, "args a");
	auth_send(TEST_NONCE, t, 3, "args b");
	ck_assert_uint_eq(args_runs, 1);
	assert_auth_reply(2, 3, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
}
END_TEST

CHECK_TEST("auth", test_auth_wrong_nonce_or_unissued_ticket_stale)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE + 1, t, 2, "args a");	/* another boot's */
	auth_send(TEST_NONCE, t + 100, 3, "args a");	/* never issued */
	ck_assert_uint_eq(args_runs, 0);
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	assert_auth_reply(2, 3, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	/* The ticket handed to request 1 still runs its request. */
	auth_send(TEST_NONCE, t, 4, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* Finding 4's receive side: a replay flood of one request earns the same
 * ticket while unspent, then no answers at all; a new request id is
 * answered and runs. */
CHECK_TEST("auth", test_auth_stale_flood_limited_one_ticket)
{
	struct udpsh_wire h;
	uint64_t t;

	for (unsigned i = 0; i < 100; i++)
		auth_send(0, 0, 9, "args flood");
	ck_assert_uint_eq(nsent, UDPSH_REPEAT_MAX);
	h = assert_auth_reply(0, 9, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	t = h.ticket;
	for (unsigned i = 1; i < nsent; i++)
		ck_assert(assert_auth_reply(i, 9, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0).ticket == t);
	ck_assert_uint_eq(u.stats.tickets, 1);
	ck_assert_uint_eq(u.stats.limited, 100 - UDPSH_REPEAT_MAX);
	auth_send(TEST_NONCE, ticket_for(1), 2, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* Finding 3: many clients at once, no table of them: 64 tickets handed
 * out before any is spent all run, in any order. */
CHECK_TEST("auth", test_auth_64_clients_interleaved_all_run)
{
	uint64_t t[64];

	/* At the rate one source may ask: all 64 still young when spent. */
	for (unsigned i = 0; i < 64; i++) {
		t[i] = ticket_for((uint8_t)(i + 1));
		fake_now_ns += 1000000000ull / UDPSH_SOURCE_RATE;
	}
	nsent = 0;
	for (unsigned i = 64; i-- > 0;) {
		auth_send(TEST_NONCE, t[i], (uint8_t)(100 + i), "args a");
		nsent = 0;
	}
	ck_assert_uint_eq(args_runs, 64);
}
END_TEST

/* A ticket that left the window never runs; nothing locks the shell. */
CHECK_TEST("auth", test_auth_ticket_out_of_window_gone)
{
	uint64_t first = ticket_for(1);

	for (unsigned i = 0; i < UDPSH_TICKETS; i++) {
		nsent = 0;
		fake_now_ns += 1000000000ull / UDPSH_SOURCE_RATE;
		ticket_for((uint8_t)(2 + i % 200));
		/* Distinct ids: forget the remembered ones. */
		memset(u.recent, 0, sizeof(u.recent));
	}
	nsent = 0;
	auth_send(TEST_NONCE, first, 2, "args a");
	ck_assert_uint_eq(args_runs, 0);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
	auth_send(TEST_NONCE, UINT64_MAX, 3, "args a");
	assert_auth_reply(1, 3, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	nsent = 0;
	auth_send(TEST_NONCE, ticket_for(4), 5, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A reply longer than a slot keeps is sent once; a retransmission is
 * told it is gone, never run again. */
CHECK_TEST("auth", test_auth_reply_too_long_to_keep_gone)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 50 1300");
	ck_assert_uint_eq(nsent, 50);
	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 50 1300");
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
}
END_TEST

CHECK_TEST("auth", test_auth_bad_mac_no_reply_no_ticket)
{
	uint8_t d[256], other[16];
	size_t n;

	n = auth_req(d, 0, 0, 1, "args a", tkey);
	d[UDPSH_WIRE_HDR] ^= 1;			/* payload changed */
	udpsh_input(&u, d, n, CLIENT, CLIENT_PORT);
	n = auth_req(d, 0, 0, 1, "args a", tkey);
	d[42] = 1;				/* a reserved byte set */
	udpsh_input(&u, d, n, CLIENT, CLIENT_PORT);
	memset(other, 'x', sizeof(other));
	n = auth_req(d, 0, 0, 1, "args a", other);	/* wrong key */
	udpsh_input(&u, d, n, CLIENT, CLIENT_PORT);
	udpsh_input(&u, "args a", 6, CLIENT, CLIENT_PORT);	/* plain text */
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.bad_mac, 4);
	ck_assert_uint_eq(u.stats.tickets, 0);
}
END_TEST

CHECK_TEST("auth", test_auth_cut_short_dropped_silently)
{
	uint8_t d[256];
	size_t n = auth_req(d, 0, 0, 1, "args a", tkey);

	udpsh_input_sized(&u, d, n, n + 2000, CLIENT, CLIENT_PORT);
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(u.stats.cut_short, 1);
}
END_TEST

/* Busy: status busy, no larger than the request, kept for a
 * retransmission, which gets busy again and never runs. */
CHECK_TEST("auth", test_busy_keyed_status_kept)
{
	struct udpsh_request rq;
	uint8_t d[128];
	size_t n = auth_req(d, TEST_NONCE, ticket_for(1), 2, "args", tkey);

	nsent = 0;
	ck_assert(udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	udpsh_busy(&u, &rq);
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_BUSY);
	ck_assert_uint_le(sent[0].len, n);
	ck_assert(!udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	ck_assert_uint_eq(nsent, 2);
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_BUSY);
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

/* While a command runs (admitted, not yet served), its retransmission is
 * not answered: the reply is on its way. */
CHECK_TEST("auth", test_auth_retransmission_while_running_silent)
{
	struct udpsh_request rq;
	uint8_t d[128];
	size_t n = auth_req(d, TEST_NONCE, ticket_for(1), 2, "args a", tkey);

	nsent = 0;
	ck_assert(udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	ck_assert(!udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	ck_assert_uint_eq(nsent, 0);
}
END_TEST

/* --- tickets age; short answers are rate limited ---------------------- */

/* A relay holds a request that spends a good ticket and fires it after
 * the ticket's life: answered stale (a new ticket, which only the key
 * can use), never run; fired again, still never run.  Just inside the
 * life it runs. */
CHECK_TEST("auth", test_auth_held_request_past_life_stale_never_run)
{
	uint64_t t = ticket_for(1), t2;
	struct udpsh_wire h;

	nsent = 0;
	fake_now_ns += UDPSH_TICKET_LIFE_NS;
	auth_send(TEST_NONCE, t, 2, "args held");
	ck_assert_uint_eq(nsent, 1);
	h = assert_auth_reply(0, 2, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	ck_assert(h.ticket != t);
	ck_assert_uint_eq(sent[0].len, UDPSH_WIRE_OVERHEAD);
	fake_now_ns += 30ull * 1000000000ull;
	auth_send(TEST_NONCE, t, 2, "args held");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.answered, 0);
	/* A ticket spent within its life runs. */
	t2 = ticket_for(3);
	fake_now_ns += UDPSH_TICKET_LIFE_NS - 1;
	auth_send(TEST_NONCE, t2, 4, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A kept reply is sent again only while its ticket is young: a captured
 * request replayed later with the client's (spoofed) source gets "gone",
 * one short datagram, not the reply. */
CHECK_TEST("auth", test_auth_resend_only_while_ticket_young)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 6);
	ck_assert_uint_eq(u.stats.resent, 1);
	fake_now_ns += UDPSH_TICKET_LIFE_NS;
	nsent = 0;
	for (unsigned i = 0; i < UDPSH_RESEND_MAX; i++)
		auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(u.stats.resent, 1);
	ck_assert_uint_eq(nsent, UDPSH_REPEAT_MAX);
	for (unsigned i = 0; i < nsent; i++) {
		assert_auth_reply(i, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
		ck_assert_uint_eq(sent[i].len, UDPSH_WIRE_OVERHEAD);
	}
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

/* The measured case: 2,000 replays cycling 17 request ids (one
 * more than are remembered) from one source earned 1,984 tickets.  Now
 * the source's bucket bounds them: all at once, UDPSH_SOURCE_BURST; over
 * 0.2 s, the burst and 0.2 s of the rate. */
CHECK_TEST("auth", test_auth_replay_flood_17_ids_bounded_by_bucket)
{
	uint64_t step = 100000;		/* 0.1 ms between replays */

	for (unsigned i = 0; i < 2000; i++)
		auth_send(0, 0, (uint8_t)(1 + i % 17), "args replay");
	ck_assert_uint_eq(u.stats.tickets, UDPSH_SOURCE_BURST);
	ck_assert_uint_eq(nsent, UDPSH_SOURCE_BURST);
	ck_assert_uint_eq(u.stats.limited, 2000 - UDPSH_SOURCE_BURST);
	fake_now_ns += 10ull * 1000000000ull;	/* the bucket full again */
	nsent = 0;
	u.stats.tickets = 0;
	for (unsigned i = 0; i < 2000; i++) {
		auth_send(0, 0, (uint8_t)(1 + i % 17), "args replay");
		fake_now_ns += step;
	}
	ck_assert_uint_le(u.stats.tickets,
			  UDPSH_SOURCE_BURST + UDPSH_SOURCE_RATE * 2000 * step / 1000000000ull + 1);
	ck_assert_uint_ge(u.stats.tickets, UDPSH_SOURCE_BURST);
	ck_assert_uint_le(nsent, SENT_MAX);
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

/* Many sources (forged from the allowed /24) share the global bucket: a
 * flood at its full rate for a whole ticket life cannot push a young
 * ticket out of the window, and the ticket still runs. */
CHECK_TEST("auth", test_auth_flood_from_many_sources_cannot_churn_window)
{
	uint64_t t = ticket_for(1), start = fake_now_ns, step = 1000000;	/* 1 ms */
	uint8_t d[128];
	unsigned i = 0;

	while (fake_now_ns + step < start + UDPSH_TICKET_LIFE_NS) {
		size_t n = auth_req(d, 0, 0, (uint8_t)i, "args x", tkey);

		udpsh_input(&u, d, n, IP(10, 0, 2, i % 256), CLIENT_PORT);
		i++;
		fake_now_ns += step;
		nsent = 0;
	}
	ck_assert_uint_le(u.stats.tickets, 1 + UDPSH_GLOBAL_BURST +
			  UDPSH_GLOBAL_RATE * UDPSH_TICKET_LIFE_NS / 1000000000ull);
	ck_assert_uint_lt(u.stats.tickets, UDPSH_TICKETS);
	auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A replay refused for the rate still uses up its request id's share
 * (and keeps its entry, so that it cannot push out another's): 1,000
 * copies each of two requests over a second, from the client's own
 * address, earn at most UDPSH_REPEAT_MAX answers each, and the client's
 * next request is answered. */
CHECK_TEST("auth", test_auth_rate_limited_replay_keeps_its_share)
{
	for (unsigned i = 0; i < UDPSH_SOURCE_BURST; i++)
		ticket_for((uint8_t)(i + 1));
	nsent = 0;
	for (unsigned i = 0; i < 1000; i++) {
		auth_send(0, 0, 100, "args replayed");
		auth_send(0, 0, 99, "args replayed");
		fake_now_ns += 1000000;		/* 1 ms */
	}
	ck_assert_uint_le(nsent, 2 * UDPSH_REPEAT_MAX);
	nsent = 0;
	ticket_for(101);
	ck_assert_uint_eq(nsent, 1);
}
END_TEST

/* Over the rate, a fresh client is answered once the bucket refills. */
CHECK_TEST("auth", test_auth_limited_source_answered_after_refill)
{
	for (unsigned i = 0; i < UDPSH_SOURCE_BURST; i++)
		ticket_for((uint8_t)(i + 1));
	nsent = 0;
	auth_send(0, 0, 200, "args a");
	ck_assert_uint_eq(nsent, 0);
	fake_now_ns += 1000000000ull / UDPSH_SOURCE_RATE;
	auth_send(0, 0, 200, "args a");
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 200, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
}
END_TEST

int main(void)
{
	return check_run(check_suite("udpsh_tickets", setup_keyed, 0));
}
