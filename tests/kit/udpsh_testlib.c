/* SPDX-License-Identifier: BSD-2-Clause */
/* The kit of the UDP shell core's suites (udpsh_testlib.h): a transport
 * that records what would have been sent, a command table of test
 * commands, and requests built and replies checked under a test key. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "shell_testcmds.h"
#include "udpsh_testlib.h"

/* --- the recording transport ---------------------------------------- */

struct sent sent[SENT_MAX];
struct udpsh u;
unsigned nsent;
int send_result;
unsigned crash_runs, args_runs;

int record_send(void *ctx, uint32_t addr, uint16_t port,
		const char *data, size_t len)
{
	ck_assert_ptr_eq(ctx, &nsent);
	ck_assert_uint_ge(len, 1);
	ck_assert_uint_le(len, UDPSH_DGRAM_MAX);
	ck_assert_uint_lt(nsent, SENT_MAX);
	/* Every keyless reply datagram is marked as one: kept without it. */
	if (!u.keyed) {
		ck_assert_int_eq((unsigned char)data[0], UDPSH_REPLY_MARK);
		data++;
		len--;
	}
	sent[nsent].addr = addr;
	sent[nsent].port = port;
	sent[nsent].len = len;
	memcpy(sent[nsent].data, data, len);
	sent[nsent].data[len] = '\0';
	nsent++;
	return send_result;
}

/* --- the test command table ----------------------------------------- */

/* One line of @len bytes, the last a newline, the rest @c. */
static void put_line(struct out *o, size_t len, char c)
{
	char *s = malloc(len);

	memset(s, c, len - 1);
	s[len - 1] = '\n';
	out_write(o, s, len);
	free(s);
}

/* fill N LEN: N lines of LEN bytes each (newline included), line i made
 * of the letter 'a' + i. */
static int tcmd_fill(struct shell_ctx *sh, int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 10), len = strtoul(argv[2], NULL, 10);

	ck_assert_int_eq(argc, 3);
	for (unsigned long i = 0; i < n; i++)
		put_line(sh->out, len, (char)('a' + i % 26));
	return 0;
}

/* lines LEN...: one line per argument, of that many bytes. */
static int tcmd_lines(struct shell_ctx *sh, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		put_line(sh->out, strtoul(argv[i], NULL, 10), (char)('a' + i - 1));
	return 0;
}

/* raw LEN: LEN bytes of 'r', no newline, written a byte at a time. */
static int tcmd_raw(struct shell_ctx *sh, int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 10);

	ck_assert_int_eq(argc, 2);
	for (unsigned long i = 0; i < n; i++)
		out_write(sh->out, "r", 1);
	return 0;
}

/* probe: two 1000-byte lines, then how many datagrams had gone out
 * while the command was still running. */
static int tcmd_probe(struct shell_ctx *sh, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	put_line(sh->out, 1000, 'a');
	put_line(sh->out, 1000, 'b');
	out_printf(sh->out, "sent %u\n", nsent);
	return 0;
}

bool refused_ran;

/* act: stands for `work start`: refused unauthenticated over UDP. */
static int tcmd_refuse(struct shell_ctx *sh, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (shell_refuse_unauthenticated(sh, "work start"))
		return 1;
	refused_ran = true;
	out_puts(sh->out, "started\n");
	return 0;
}

const struct shell_cmd shell_commands[] = {
	{ "help", "help [command]", "list commands, or show one's usage", cmd_help, false, true },
	{ "args", "args [word]...", "print the words", tcmd_args, false, true },
	{ "crash", "crash", "stop the machine", tcmd_crash, true, false },
	{ "fill", "fill N LEN", "N lines of LEN bytes", tcmd_fill, false, true },
	{ "lines", "lines LEN...", "lines of the given lengths", tcmd_lines, false, true },
	{ "raw", "raw LEN", "LEN bytes, no newline", tcmd_raw, false, true },
	{ "probe", "probe", "datagrams sent while running", tcmd_probe, false, true },
	{ "act", "act", "acts beyond the reply", tcmd_refuse, false, false },
	{ NULL, NULL, NULL, NULL, false, false },
};

/* --- helpers -------------------------------------------------------- */

void setup(void)
{
	udpsh_init(&u, record_send, &nsent);
	ck_assert_int_eq(udpsh_allow_set(&u, "10.0.2.0/24"), 0);
	nsent = 0;
	send_result = 0;
	crash_runs = 0;
	args_runs = 0;
}

void dgram_from(const char *s, uint32_t addr)
{
	udpsh_input(&u, s, strlen(s), addr, CLIENT_PORT);
}

void dgram(const char *s)
{
	dgram_from(s, CLIENT);
}

/* Exactly one datagram was sent, holding @want. */
void assert_one_reply(const char *want)
{
	ck_assert_uint_eq(nsent, 1);
	ck_assert_str_eq(sent[0].data, want);
}

/* sent[i] is @len bytes of @c, then @tail. */
void assert_sent(unsigned i, size_t len, char c, const char *tail)
{
	size_t tlen = strlen(tail);

	ck_assert_uint_lt(i, nsent);
	ck_assert_uint_eq(sent[i].len, len + tlen);
	for (size_t k = 0; k < len; k++)
		if (sent[i].data[k] != c)
			ck_abort_msg("datagram %u byte %zu is 0x%02x, not '%c'", i, k,
				     (unsigned char)sent[i].data[k], c);
	ck_assert_str_eq(sent[i].data + len, tail);
}

/* --- authenticated datagrams ----------------------------------------- */

const uint8_t tkey[16] = "0123456789abcdef";

/* A request for @cmd spending @ticket under request id @id (16 bytes of
 * it) and @key into @d; its length. */
size_t auth_req(uint8_t *d, uint64_t nonce, uint64_t ticket, uint8_t id,
		       const char *cmd, const uint8_t *key)
{
	struct udpsh_wire h = { .kind = UDPSH_KIND_REQUEST, .nonce = nonce, .ticket = ticket };

	memset(h.rid, id, sizeof(h.rid));
	return udpsh_wire_frame(key, 16, &h, cmd, strlen(cmd), d);
}

void auth_send_from(uint64_t nonce, uint64_t ticket, uint8_t id, const char *cmd,
			   uint16_t port)
{
	uint8_t d[UDPSH_DGRAM_MAX];
	size_t n = auth_req(d, nonce, ticket, id, cmd, tkey);

	udpsh_input(&u, d, n, CLIENT, port);
}

void auth_send(uint64_t nonce, uint64_t ticket, uint8_t id, const char *cmd)
{
	auth_send_from(nonce, ticket, id, cmd, CLIENT_PORT);
}

/* sent[i] as a reply under the key: it verifies and answers request id
 * @id with the boot nonce, number @num, @flags and @status. */
struct udpsh_wire assert_auth_reply(unsigned i, uint8_t id, uint16_t num,
					   uint8_t flags, uint8_t status)
{
	struct udpsh_wire h;
	uint8_t rid[UDPSH_WIRE_RID];

	ck_assert_uint_lt(i, nsent);
	ck_assert_msg(udpsh_wire_open(tkey, 16, UDPSH_KIND_REPLY, (const uint8_t *)sent[i].data,
				      sent[i].len, &h), "reply %u does not verify", i);
	memset(rid, id, sizeof(rid));
	ck_assert_mem_eq(h.rid, rid, sizeof(rid));
	ck_assert(h.nonce == TEST_NONCE);
	ck_assert_uint_eq(h.num, num);
	ck_assert_uint_eq(h.flags, flags);
	ck_assert_uint_eq(h.status, status);
	return h;
}

/* A ticket for request id @id, from the stale answer to a request
 * without one. */
uint64_t ticket_for(uint8_t id)
{
	unsigned before = nsent;
	struct udpsh_wire h;

	auth_send(0, 0, id, "args ticket");
	ck_assert_uint_eq(nsent, before + 1);
	h = assert_auth_reply(before, id, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	ck_assert_uint_eq(sent[before].len, UDPSH_WIRE_OVERHEAD);
	ck_assert(h.ticket != 0);
	return h.ticket;
}

void setup_keyed(void)
{
	setup();
	ck_assert_int_eq(udpsh_key_set(&u, tkey, sizeof(tkey), TEST_NONCE), 0);
}
