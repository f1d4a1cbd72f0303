/* SPDX-License-Identifier: BSD-2-Clause */
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
 *  - A command the transport cannot queue gets "busy", cut to the
 *    request's length (udpsh_busy()): an answer never larger than the
 *    question, so a forged source cannot use it to amplify.
 *  - A datagram that arrived cut short (a first IP fragment, a truncated
 *    read) is answered with the line-length error and its real size.
 *
 * Without a key this plain protocol is all there is: the allowlist is the
 * only gate, so commands that act on the world beyond the reply (`work
 * start`, `netload send`) are refused over the network (shell_ctx
 * .authenticated is false).
 *
 * With a key (udpsh_key_set()) every datagram either way is
 *
 *   0   4  magic "KPA1"
 *   4   8  nonce: the shell's boot nonce, big-endian
 *   12  8  sequence: the request's number; a reply repeats its request's
 *   20  1  direction: 1 request, 2 reply
 *   21  1  flags (replies): 1 last datagram, 2 stale, 4 busy
 *   22  2  reply number: 0, 1, 2 ... within one request's reply
 *   24  8  mark: in a reply, the highest sequence accepted so far
 *   32  n  payload: the command, or a piece of the output
 *   32+n 32 HMAC-SHA256 under the key of bytes 0 .. 32+n
 *
 * so the MAC covers nonce, sequence, direction and payload, and a reply
 * also its number and flags.  A request runs only when its MAC verifies,
 * its nonce is the current one and its sequence is above the mark (one
 * mark per key, raised to it).  A verified request with an old nonce or
 * sequence is not run: it gets one "stale" reply (flags stale|last, no
 * payload) carrying the current nonce and mark, from which a client
 * retries with mark + 1.  A bad MAC, bad framing or a datagram cut short
 * gets no reply at all (counted).  The output is cut as above into
 * payloads of at most UDPSH_DGRAM_MAX - UDPSH_AUTH_OVERHEAD bytes, the
 * prompt ends the datagram flagged last, and the reply numbers let a
 * client see a datagram lost, reordered or forged.  Stale and busy
 * replies are UDPSH_AUTH_OVERHEAD bytes, never more than the request.
 * State per peer (address and port) is kept only for requests whose MAC
 * verified, in a table of UDPSH_PEERS entries (the least recently seen
 * is replaced).
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

/* The authenticated framing (above). */
#define UDPSH_KEY_MIN 16
#define UDPSH_KEY_MAX 64
#define UDPSH_AUTH_MAGIC "KPA1"
#define UDPSH_AUTH_HDR 32
#define UDPSH_AUTH_MAC 32
#define UDPSH_AUTH_OVERHEAD (UDPSH_AUTH_HDR + UDPSH_AUTH_MAC)
#define UDPSH_DIR_REQUEST 1
#define UDPSH_DIR_REPLY 2
#define UDPSH_FLAG_LAST 1
#define UDPSH_FLAG_STALE 2
#define UDPSH_FLAG_BUSY 4
/* Peers remembered (only after their MAC verified). */
#define UDPSH_PEERS 8

/* What the shell says about itself when it has no key: at boot and in
 * `net`. */
#define UDPSH_UNAUTH_WARNING \
	"UDP shell unauthenticated: any host that can forge an allowed address can use it"

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
	uint64_t bad_mac;	/* keyed: bad framing or MAC; no answer */
	uint64_t stale;		/* keyed: old nonce or sequence; answered stale */
	uint64_t busy;		/* could not be queued; answered busy */
	uint64_t cut_short;	/* arrived shorter than sent (fragment, truncated) */
	uint64_t peers;		/* peers whose MAC verified (table entries made) */
};

/* A peer whose MAC verified. */
struct udpsh_peer {
	uint32_t addr;		/* 0: free */
	uint16_t port;
	uint64_t last_seq;
	uint64_t requests;
	uint64_t used;		/* LRU stamp */
};

/* A datagram udpsh_admit() let through, ready for udpsh_serve(). */
struct udpsh_request {
	uint32_t addr;
	uint16_t port;
	bool authenticated;	/* came with a verified MAC */
	bool stale;		/* ... but an old nonce or sequence: not run,
				 * served its stale answer */
	uint64_t seq;		/* its sequence (authenticated only) */
	const char *cmd;	/* the command bytes that arrived */
	size_t len;
	size_t size;		/* the command's real size (> len: cut short) */
	size_t dgram_len;	/* the whole datagram's length, as received */
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
	/* Keyed mode (udpsh_key_set()); fixed while datagrams flow. */
	bool keyed;
	uint8_t key[UDPSH_KEY_MAX];
	size_t key_len;
	uint64_t nonce;
	uint64_t mark;		/* highest sequence run; atomic */
	struct udpsh_peer peers[UDPSH_PEERS];
	uint64_t peer_clock;
	/* The reply datagram udpsh_serve() builds (one caller at a time). */
	uint8_t tx[UDPSH_DGRAM_MAX];
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

/* Require the authenticated framing from now on, with @key of @len bytes
 * (UDPSH_KEY_MIN to UDPSH_KEY_MAX) and boot @nonce (non-zero).  Returns
 * 0 or -EINVAL (length, zero nonce).  Not concurrent with input. */
int udpsh_key_set(struct udpsh *u, const void *key, size_t len, uint64_t nonce);

/* Read a key written in hex (two digits a byte, either case), optionally
 * followed by blanks or line ends, from the @len bytes at @text into
 * @key (UDPSH_KEY_MAX bytes).  Returns the key's length, or -EINVAL when
 * the text is not that or the key is not UDPSH_KEY_MIN to UDPSH_KEY_MAX
 * bytes.  Never prints: the caller says what was wrong without the key. */
int udpsh_key_parse(const char *text, size_t len, uint8_t *key);

/* First half of handling a datagram of @len bytes from @addr:@port, of
 * which @size were sent (@size > @len: it arrived cut short): check the
 * allowlist and, keyed, the framing, MAC, nonce and sequence.  True when
 * @rq (pointing into @data) should be served: its command run, or, when
 * rq->stale, its stale answer sent (from the serving task, which may
 * wait for the requester's MAC).  Sends nothing and never sleeps: a
 * receive path may call it.  One caller at a time. */
bool udpsh_admit(struct udpsh *u, const void *data, size_t len, size_t size,
		 uint32_t addr, uint16_t port, struct udpsh_request *rq);

/* Second half: run @rq's command and send the reply and prompt.  Task
 * context; one caller at a time (may run alongside udpsh_admit()). */
void udpsh_serve(struct udpsh *u, const struct udpsh_request *rq);

/* Answer an admitted @rq that cannot be queued with "busy" (a stale one
 * with its stale answer): one datagram, never larger than the request.
 * Never sleeps. */
void udpsh_busy(struct udpsh *u, const struct udpsh_request *rq);

/* Both halves: admit, then serve.  Task context; one caller at a time. */
void udpsh_input(struct udpsh *u, const void *data, size_t len,
		 uint32_t addr, uint16_t port);

/* As udpsh_input() for a datagram of @size bytes of which @len arrived. */
void udpsh_input_sized(struct udpsh *u, const void *data, size_t len,
		       size_t size, uint32_t addr, uint16_t port);

#endif
