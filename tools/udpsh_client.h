/* SPDX-License-Identifier: BSD-2-Clause */
/* The keyed UDP shell's client side (doc/shell.md, "The keyed wire"):
 * one request, its ticket round, resends with back-off, the reply's
 * numbered datagrams put back together.  kshell and kprof-collect both
 * speak through it; a client is one socket to one shell, used by one
 * thread at a time (kprof-collect keeps one per target). */
#ifndef KPROF_TOOLS_UDPSH_CLIENT_H
#define KPROF_TOOLS_UDPSH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shell/udpsh/wire.h"

/* How an exchange ended, besides 0 (the reply came whole). */
enum {
	UC_TIMEOUT = 10,	/* nothing came */
	UC_INCOMPLETE,		/* some of it came, or the shell gave up on it */
	UC_BUSY,		/* the shell was busy: not run */
	UC_REFUSED,		/* nothing listens on that port */
	UC_ERROR,		/* a local failure (said in err) */
	UC_FAILED,		/* it ran and failed: the reply says why */
	UC_BAD_REPLY,		/* datagrams that cannot be one reply: a number
				 * above the last, two lasts, two boots (said
				 * in err); nothing of it is kept */
	UC_TOO_LONG,		/* the reply's parts passed the client's
				 * reply_max as they came (said in err);
				 * nothing of it is kept, the rest not read */
};

/* The most reply bytes a client keeps: its reply_max's default and
 * ceiling. */
#define UC_REPLY_MAX (16u << 20)

/* An exchange's whole life, ticket round and resends included, is at
 * most this many times its timeout: news restarts the silence clock,
 * never this one, so a peer that drips datagrams cannot hold it. */
#define UDPSH_CLIENT_DEADLINE_FACTOR 4

/* Where a client's datagrams and time come from when not from its
 * socket and CLOCK_MONOTONIC: a test's fakes (tests/fuzz/
 * fuzz_udpsh_client.c), so an exchange runs at fuzzing speed.  Each
 * behaves as the function of the same name below. */
struct udpsh_client_io {
	void *ctx;
	long long (*now_ms)(void *ctx);
	int (*send)(void *ctx, const void *d, size_t len);
	ssize_t (*recv)(void *ctx, void *buf, size_t size, int timeout_ms);
};

struct udpsh_client {
	int fd;
	uint8_t key[UDPSH_KEY_MAX];
	size_t key_len;
	unsigned forged;	/* datagrams that failed verification */
	/* The last reply's: the shell's boot nonce (a new one: it
	 * rebooted), and on the host's CLOCK_REALTIME in ns when the
	 * request that ran was first sent and its first datagram came:
	 * the command ran between the two. */
	uint64_t nonce;
	int64_t sent_ns, heard_ns;
	char err[256];		/* why the last exchange failed, one line */
	/* Where datagrams land: made by the first exchange and kept until
	 * udpsh_client_close, so a client that asks every few seconds
	 * (kprof-collect) does not take and give back 64 KiB each time. */
	uint8_t *rbuf;
	/* NULL (what udpsh_client_connect sets): the socket. */
	const struct udpsh_client_io *io;
	/* The most reply bytes an exchange keeps, counted as each part
	 * comes: one more ends it (UC_TOO_LONG) before the part is
	 * kept, so a peer that sends more costs no more memory than this.
	 * udpsh_client_connect sets UC_REPLY_MAX; 0, or more than that,
	 * is taken as UC_REPLY_MAX.  Set it between exchanges, never during one. */
	size_t reply_max;
};

/* A UDP socket connected to HOST[:PORT] (@default_port without one).
 * Called once per client, before anything else (it sets every field
 * but the key).
 * Returns 0; -2 when @target is no host and port (too long, a bad
 * port, a name that does not resolve), -1 when no socket reaches it:
 * the reason in c->err.  The key is kept. */
int udpsh_client_connect(struct udpsh_client *c, const char *target,
			 const char *default_port);

/* Send @cmd (@len bytes) and wait for its whole reply, at most
 * @timeout_ms without news and UDPSH_CLIENT_DEADLINE_FACTOR times that
 * in all; resends the same request when silent (400 ms, doubling to
 * 1.6 s), so a lost datagram either way is repaired from the shell's
 * reply cache, never run twice.  A reply is whole when every datagram
 * 0..last has come, all of one boot; a stale answer midway (the shell
 * rebooted) drops what came and starts over with its ticket.  On 0 and
 * UC_FAILED *@reply holds the reply (malloc'd, NUL-terminated, prompt
 * included) and *@reply_len its length, at most c->reply_max; else a
 * UC_ code, and c->err says why where there is more to say than the
 * code. */
int udpsh_client_exchange(struct udpsh_client *c, const char *cmd, size_t len,
			  int timeout_ms, char **reply, size_t *reply_len);

/* One datagram out: 0, UC_REFUSED (an ICMP error for the last one),
 * or UC_ERROR (said in c->err). */
int udpsh_client_send(struct udpsh_client *c, const void *d, size_t len);

/* Wait up to @timeout_ms for a datagram into @buf: its length, -1 on
 * timeout, -2 on error (said in c->err), -3 when the port refused. */
ssize_t udpsh_client_recv(struct udpsh_client *c, void *buf, size_t size,
			  int timeout_ms);

/* The socket and the receive buffer. */
void udpsh_client_close(struct udpsh_client *c);

#endif
