/* The UDP shell, independent of any transport: a datagram and its source
 * in, reply datagrams out through a callback.  The simulator feeds it from
 * a loopback socket, the kernel from src/net's UDP.
 *
 * Protocol, one exchange per datagram:
 *  - A datagram is one command, with or without one trailing line end
 *    ("\n", "\r\n" or "\r").  It runs with remote = true, so serial-only
 *    commands are refused.
 *  - A datagram holding more than one line, a NUL or other control byte,
 *    a command longer than SHELL_LINE_MAX bytes or too many words gets a
 *    one-line error instead (and counts as malformed).  An empty datagram
 *    runs nothing and is answered with the prompt alone.
 *  - The reply goes to the source address and port.  The output is cut
 *    into datagrams of at most UDPSH_DGRAM_MAX bytes, each holding whole
 *    lines; only a single line longer than UDPSH_DGRAM_MAX is cut inside,
 *    every UDPSH_DGRAM_MAX bytes.  Datagrams are sent as the output is
 *    produced, not once the command is done.
 *  - The prompt "> " is always the last two bytes of the last datagram
 *    and is never split: it is appended to the datagram holding the end
 *    of the output when that stays within UDPSH_DGRAM_MAX, else it
 *    travels alone in one more datagram.  A client reads datagrams until
 *    one ends with "> ".
 *  - A source outside the allowlist gets no answer at all.
 */
#ifndef KPROF_SHELL_UDPSH_H
#define KPROF_SHELL_UDPSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest reply datagram: an Ethernet MTU of 1500 less IPv4 and UDP
 * headers, so a reply is never fragmented. */
#define UDPSH_DGRAM_MAX 1472
/* Most allowlist entries. */
#define UDPSH_ALLOW_MAX 8
/* Longest allowlist text udpsh_allow_format() writes, terminator included:
 * eight "255.255.255.255/32" and their commas. */
#define UDPSH_ALLOW_TEXT_MAX (UDPSH_ALLOW_MAX * 19)

struct udpsh_cidr {
	uint32_t net;		/* host byte order, host bits zero */
	unsigned prefix;	/* 0-32 */
};

/* Counters, updated by the caller of udpsh_input() only; read them from
 * elsewhere with a relaxed atomic load. */
struct udpsh_stats {
	uint64_t datagrams_in;	/* every datagram handed in */
	uint64_t answered;	/* got a reply (the prompt at least) */
	uint64_t dropped_allow;	/* source outside the allowlist: no answer */
	uint64_t malformed;	/* answered with a framing error */
	uint64_t send_failed;	/* reply datagrams the transport refused */
};

/* Send one reply datagram of @len bytes (1 to UDPSH_DGRAM_MAX) to
 * @addr:@port (host byte order).  Returns 0 or a negative errno. */
typedef int (*udpsh_send_fn)(void *ctx, uint32_t addr, uint16_t port,
			     const char *data, size_t len);

struct udpsh {
	struct udpsh_cidr allow[UDPSH_ALLOW_MAX];
	unsigned nallow;
	udpsh_send_fn send;
	void *send_ctx;
	struct udpsh_stats stats;
};

/* Set up @u with an empty allowlist (nobody is answered until
 * udpsh_allow_set() names someone) and zeroed counters. */
void udpsh_init(struct udpsh *u, udpsh_send_fn send, void *send_ctx);

/* Replace the allowlist with @text, "CIDR[,CIDR]...": up to
 * UDPSH_ALLOW_MAX entries of parse_cidr() form ("10.0.2.0/24",
 * "127.0.0.1"), no spaces, no empty entry.  Returns 0, or -EINVAL
 * (malformed) / -E2BIG (too many entries) leaving the old list as it was.
 * Not concurrent with udpsh_input(). */
int udpsh_allow_set(struct udpsh *u, const char *text);

/* True when @addr (host byte order) may use the shell. */
bool udpsh_allowed(const struct udpsh *u, uint32_t addr);

/* Write the allowlist as udpsh_allow_set() reads it ("" when empty) into
 * @buf of @size bytes, always terminated.  Returns the full length. */
size_t udpsh_allow_format(const struct udpsh *u, char *buf, size_t size);

/* Handle one datagram of @len bytes from @addr:@port (host byte order):
 * run its command and send the reply, as the protocol above says.
 * Returns when the command is done and the prompt sent.  Task context;
 * one caller at a time. */
void udpsh_input(struct udpsh *u, const void *data, size_t len,
		 uint32_t addr, uint16_t port);

#endif
