/* SPDX-License-Identifier: BSD-2-Clause */
/* What the UDP shell core's suites (tests/shell/udpsh/check_udpsh_*.c, one a concern
 * of src/shell/udpsh/) share: the core under test with a transport that
 * records each reply datagram, the test commands of its command table,
 * and requests framed and replies checked under a test key. */
#ifndef KPROF_TESTS_UDPSH_TESTLIB_H
#define KPROF_TESTS_UDPSH_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shell/udpsh/udpsh.h"
#include "shell/udpsh/wire.h"
#include "shell_testcmds.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define CLIENT IP(10, 0, 2, 2)
#define CLIENT_PORT 40123

/* ---- the recording transport ---- */

#define SENT_MAX 64

struct sent {
	uint32_t addr;
	uint16_t port;
	size_t len;
	char data[UDPSH_DGRAM_MAX + 1];	/* keyless: without the mark */
};

extern struct sent sent[SENT_MAX];
extern unsigned nsent;
extern int send_result;		/* what record_send() returns */
extern struct udpsh u;		/* the core under test */

/* The core's send callback, its context &nsent: checks the datagram's
 * size (and keyless, its mark) and records it in sent[]. */
int record_send(void *ctx, uint32_t addr, uint16_t port,
		const char *data, size_t len);

/* ---- the test command table (shell_commands[]) ----
 * help, args and crash (shell_testcmds.h), and: fill N LEN (N lines of
 * LEN bytes), lines LEN... (one line per argument), raw LEN (no
 * newline), probe (datagrams sent while it runs), act (acts beyond the
 * reply: refused unauthenticated; sets refused_ran when it runs). */
extern bool refused_ran;

/* ---- fixtures and helpers ---- */

/* Keyless core allowing 10.0.2.0/24, counters zeroed: a checked fixture. */
void setup(void);

/* setup(), then the test key and TEST_NONCE. */
void setup_keyed(void);

/* One datagram @s from @addr (dgram: from CLIENT), port CLIENT_PORT. */
void dgram_from(const char *s, uint32_t addr);
void dgram(const char *s);

/* Exactly one datagram was sent, holding @want. */
void assert_one_reply(const char *want);

/* sent[i] is @len bytes of @c, then @tail. */
void assert_sent(unsigned i, size_t len, char c, const char *tail);

/* ---- keyed ---- */

#define TEST_NONCE 0x1122334455667788ull
extern const uint8_t tkey[16];

/* A request for @cmd spending @ticket under request id @id (16 bytes of
 * it) and @key into @d; its length. */
size_t auth_req(uint8_t *d, uint64_t nonce, uint64_t ticket, uint8_t id,
		const char *cmd, const uint8_t *key);

/* That request under tkey, from CLIENT:@port (auth_send: CLIENT_PORT). */
void auth_send_from(uint64_t nonce, uint64_t ticket, uint8_t id, const char *cmd,
		    uint16_t port);
void auth_send(uint64_t nonce, uint64_t ticket, uint8_t id, const char *cmd);

/* sent[i] as a reply under the key: it verifies and answers request id
 * @id with the boot nonce, number @num, @flags and @status. */
struct udpsh_wire assert_auth_reply(unsigned i, uint8_t id, uint16_t num,
				    uint8_t flags, uint8_t status);

/* A ticket for request id @id, from the stale answer to a request
 * without one. */
uint64_t ticket_for(uint8_t id);

#endif
