/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell, independent of any transport: a datagram and its source
 * in, reply datagrams out through a callback.  The simulator feeds it from
 * a loopback socket, the kernel from src/net's UDP.
 *
 * One concern a file, each file's head saying what it guarantees and
 * against whom: admit.c (the two halves, admit and serve), allow.c (the
 * allowlist), reply.c (output into datagrams; the keyless bound),
 * cookie.c (keyless cookies), tickets.c (keyed: tickets, replay, kept
 * replies, the rate of short answers), wire.c (the keyed framing and
 * its MAC); for the kernel's transport net.c (on src/net's UDP) and
 * boot_keys.c (udpsh=, udpsh.allow=, udpsh.key=); serving.c lists the
 * shells that serve, for `net`.
 *
 * Protocol, one exchange per datagram:
 *  - A datagram is one command, with or without one trailing line end
 *    ("\n", "\r\n" or "\r").  It runs with remote = true, so serial-only
 *    commands are refused.
 *  - A datagram holding more than one line, a NUL or other control byte,
 *    a command longer than SHELL_LINE_MAX bytes or too many words gets a
 *    one-line error instead (and counts as malformed).  An empty datagram
 *    runs nothing and is answered with the prompt alone.
 *  - The reply goes to the source address and port.  Every reply
 *    datagram starts with UDPSH_REPLY_MARK, a control byte no command
 *    can start with, and a datagram that starts with it is never
 *    answered (counted: replies_in): two keyless shells that allow each
 *    other cannot be set bouncing by one forged datagram.  After that
 *    byte the output is cut into pieces of at most UDPSH_PLAIN_MAX
 *    bytes, each holding whole lines; only a single line longer than
 *    UDPSH_PLAIN_MAX is cut inside, every UDPSH_PLAIN_MAX bytes.  Datagrams are sent as the output is
 *    produced, not once the command is done.
 *  - The prompt "> " is always the last two bytes of the last datagram
 *    and is never split: it is appended to the datagram holding the end
 *    of the output when that stays within UDPSH_PLAIN_MAX, else it
 *    travels alone in one more datagram.  A client reads datagrams until
 *    one ends with "> ".
 *  - A source outside the allowlist gets no answer at all.
 *  - A command the transport cannot queue gets "busy", cut to the
 *    request's length (udpsh_busy()): an answer never larger than the
 *    question, so a forged source cannot use it to amplify.
 *  - A datagram that arrived cut short (a first IP fragment, a truncated
 *    read) is answered with the line-length error and its real size.
 *
 *  - Until an address has shown that it receives (udpsh_cookie_set()
 *    turns this on), the shell sends it at most UDPSH_AMP_FACTOR times
 *    the bytes it received, counted on the wire (IPv4 and UDP headers
 *    included, UDPSH_WIRE_IP_UDP each way), as QUIC does before address
 *    validation (RFC 9000, 8.1).  A reply that would go past that is cut:
 *    what fits, then one line, "cookie @C: start the request with it",
 *    and the prompt.  C is a stateless cookie: 16 hex digits of an
 *    HMAC-SHA256 under a boot secret of the source's address, port and
 *    a coarse time (UDPSH_COOKIE_EPOCH_NS; the last two epochs are
 *    taken).  A request that starts with "@C " (or "@C" alone) has shown
 *    it receives at that address and gets its reply whole (counted:
 *    cookies; cut replies: cut).  A wrong or old cookie is taken off and
 *    the bound kept.
 *
 * Without a key this plain protocol is all there is: the allowlist is the
 * only gate, so commands that act on the world beyond the reply (`work
 * start`, `netload send`) are refused over the network (shell_ctx
 * .authenticated is false).
 *
 * With a key (udpsh_key_set()) every datagram either way is framed and
 * authenticated as shell/udpsh/wire.h says, and a request runs only when
 * it spends an unspent ticket of this boot:
 *
 *  - A request without one (ticket 0, an old boot's nonce, a ticket never
 *    issued, or one issued more than UDPSH_TICKET_LIFE_NS ago) is
 *    answered from the receive path, never queued: one stale datagram
 *    that hands out a fresh ticket, bound to the request's id.  The same
 *    request id asked again gets the same ticket while it is unspent and
 *    young, and at most UDPSH_REPEAT_MAX answers while it is among the
 *    UDPSH_RECENT last ones.
 *  - Short answers (stale, gone) are rate limited by token buckets: per
 *    source address UDPSH_SOURCE_BURST at once and UDPSH_SOURCE_RATE a
 *    second, all sources together UDPSH_GLOBAL_BURST and
 *    UDPSH_GLOBAL_RATE.  A replay flood, however many request ids it
 *    cycles, earns no more answers or tickets than that (counted: stale,
 *    limited), and no ticket leaves the window while it is young.
 *  - Tickets are numbered; the last UDPSH_TICKETS issued stay in the
 *    window, one bit each saying whether it is spent, and each is good for
 *    UDPSH_TICKET_LIFE_NS after it was issued: a request held back by a
 *    relay and fired later is answered stale, never run.  Tickets come
 *    from the shell alone, so any number of clients share the key without
 *    a table of them, and nothing a client sends can lock the shell out.
 *  - A request that spends a valid ticket runs once.  Its reply, as it is
 *    sent, is also kept in one of UDPSH_CACHE_SLOTS slots (the least
 *    recently used one that is not running is reused), up to
 *    UDPSH_CACHE_BYTES: the same request again from the same address and
 *    port (a retransmission) gets the kept reply again, up to
 *    UDPSH_RESEND_MAX times while its ticket is young, and nothing while
 *    the command still runs.  A spent ticket whose reply is not kept
 *    (evicted, too long, another source, resent enough, its ticket old)
 *    or one that left the window is answered "gone": it may have run; it
 *    never runs again.
 *  - The datagram flagged last carries the command's status: ok, failed
 *    (unknown command, usage error, the command's own failure) or busy.
 *  - A bad MAC, bad framing or a datagram cut short gets no reply at all
 *    (counted).  Short answers are UDPSH_WIRE_OVERHEAD bytes, never more
 *    than the request.
 *
 * The output is cut as above into payloads of at most UDPSH_DGRAM_MAX -
 * UDPSH_WIRE_OVERHEAD bytes; the reply numbers let a client see a datagram
 * lost or reordered, and the request id that the reply answers it.
 */
#ifndef KPROF_SHELL_UDPSH_H
#define KPROF_SHELL_UDPSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shell/udpsh/wire.h"

/* Largest reply datagram: an Ethernet MTU of 1500 less IPv4 and UDP
 * headers, so a reply is never fragmented. */
#define UDPSH_DGRAM_MAX 1472
/* The keyless amplification bound (above). */
#define UDPSH_AMP_FACTOR 3
#define UDPSH_WIRE_IP_UDP 28		/* IPv4 and UDP headers, per datagram */
#define UDPSH_COOKIE_HEX 16
#define UDPSH_COOKIE_EPOCH_NS (64ull * 1000000000ull)

/* A keyless reply datagram's output, after the mark. */
#define UDPSH_PLAIN_MAX (UDPSH_DGRAM_MAX - 1)
/* Most allowlist entries. */
#define UDPSH_ALLOW_MAX 8
/* Longest allowlist text udpsh_allow_format() writes, terminator included:
 * eight "255.255.255.255/32" and their commas. */
#define UDPSH_ALLOW_TEXT_MAX (UDPSH_ALLOW_MAX * 19)

/* The keyed protocol's state (above). */
#define UDPSH_TICKETS 1024		/* valid tickets: a multiple of 64 */
#define UDPSH_RECENT 16			/* stale request ids remembered */
#define UDPSH_REPEAT_MAX 4		/* answers to one remembered id */
#define UDPSH_CACHE_SLOTS 8		/* > UDPSH_NET_QUEUE + 1 */
#define UDPSH_CACHE_BYTES 65536		/* one reply kept, at most */
#define UDPSH_CACHE_DGRAMS 128		/* its datagrams, at most */
#define UDPSH_RESEND_MAX 4		/* times one kept reply is sent again */
/* A ticket's life: a few round trips, and kshell's resends (0.4, 0.8,
 * 1.6 s) with room to spare. */
#define UDPSH_TICKET_LIFE_NS (5ull * 1000000000ull)
/* Short answers a second, and at once (the buckets, above). */
#define UDPSH_SOURCE_RATE 64
#define UDPSH_SOURCE_BURST 16
#define UDPSH_SOURCES 16		/* source addresses with a bucket */
#define UDPSH_GLOBAL_RATE 128
#define UDPSH_GLOBAL_BURST 128

/* The most tickets issued in one ticket's life stay inside the window:
 * a ticket can leave it only once it is old. */
_Static_assert(UDPSH_GLOBAL_BURST + UDPSH_GLOBAL_RATE *
	       (UDPSH_TICKET_LIFE_NS / 1000000000ull + 1) < UDPSH_TICKETS,
	       "the ticket window must outlast a ticket's life at the global rate");

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
	uint64_t stale;		/* keyed: no valid ticket; answered stale */
	uint64_t busy;		/* could not be queued; answered busy */
	uint64_t cut_short;	/* arrived shorter than sent (fragment, truncated) */
	uint64_t tickets;	/* keyed: tickets issued */
	uint64_t resent;	/* keyed: kept replies sent again */
	uint64_t gone;		/* keyed: spent ticket, reply not kept; answered gone */
	uint64_t limited;	/* keyed: repeats past UDPSH_REPEAT_MAX; no answer */
	uint64_t replies_in;	/* keyless: a reply (UDPSH_REPLY_MARK); no answer */
	uint64_t cut;		/* keyless: reply cut at UDPSH_AMP_FACTOR, cookie given */
	uint64_t cookies;	/* keyless: requests that echoed a valid cookie */
};

/* A stale request id and the ticket it was given. */
struct udpsh_recent {
	uint8_t rid[UDPSH_WIRE_RID];
	uint64_t ticket;
	unsigned answers;	/* times asked, answered or not (the rate) */
};

/* A token bucket, its tokens counted as the nanoseconds of refill they
 * stand for. */
struct udpsh_bucket {
	uint32_t addr;		/* per source: whose; 0 with at_ns 0: free */
	uint64_t credit_ns;
	uint64_t at_ns;		/* when credit_ns was last brought up to date */
};

/* A reply kept for retransmission: its datagrams as sent, back to back. */
struct udpsh_kept {
	uint8_t state;		/* UDPSH_KEPT_*; atomic between the halves */
	bool whole;		/* every datagram fitted */
	uint8_t resends;
	uint16_t port;
	uint32_t addr;
	uint64_t ticket;
	uint64_t used;		/* LRU stamp */
	uint8_t rid[UDPSH_WIRE_RID];
	uint16_t ndgrams;
	uint32_t bytes;
	uint16_t lens[UDPSH_CACHE_DGRAMS];
	uint8_t data[UDPSH_CACHE_BYTES];
};

enum { UDPSH_KEPT_FREE, UDPSH_KEPT_RUNNING, UDPSH_KEPT_DONE };

/* A datagram udpsh_admit() let through, ready for udpsh_serve(). */
struct udpsh_request {
	uint32_t addr;
	uint16_t port;
	bool authenticated;	/* came with a verified MAC and a valid ticket */
	int slot;		/* keyed: its slot in udpsh.kept, or -1 */
	uint8_t rid[UDPSH_WIRE_RID];	/* keyed: its request id */
	const char *cmd;	/* the command bytes that arrived */
	size_t len;
	size_t size;		/* the command's real size (> len: cut short) */
	size_t dgram_len;	/* the whole datagram's length, as received */
	size_t budget;		/* keyless: wire bytes the reply may take;
				 * SIZE_MAX: no bound (a valid cookie) */
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
	/* Tickets: written by udpsh_admit() alone. */
	uint64_t ticket_top;	/* the last one issued; 0: none */
	uint64_t ticket_spent[UDPSH_TICKETS / 64];
	uint64_t ticket_born[UDPSH_TICKETS];	/* hal_clock_ns() at issue */
	/* Short answers' rate (above): written by udpsh_admit() alone. */
	struct udpsh_bucket sources[UDPSH_SOURCES];
	struct udpsh_bucket global;
	struct udpsh_recent recent[UDPSH_RECENT];
	unsigned recent_next;
	/* Kept replies: a slot is taken and freed by udpsh_admit(), filled
	 * by udpsh_serve() while UDPSH_KEPT_RUNNING. */
	struct udpsh_kept kept[UDPSH_CACHE_SLOTS];
	uint64_t kept_clock;
	/* The reply datagram udpsh_serve() builds (one caller at a time). */
	uint8_t tx[UDPSH_DGRAM_MAX];
	/* Keyless: the amplification bound and its cookies (udpsh_cookie_set()). */
	bool amp_limit;
	uint8_t cookie_secret[32];
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
 * (UDPSH_KEY_MIN to UDPSH_KEY_MAX) and boot @nonce (non-zero: it must
 * differ from every other boot's, as udpsh_boot_nonce() makes it).
 * Returns 0 or -EINVAL (length, zero nonce).  Not concurrent with input. */
int udpsh_key_set(struct udpsh *u, const void *key, size_t len, uint64_t nonce);

/* Keyless: bound replies to unproven addresses (above) under the boot
 * @secret (@len bytes, at most 32 used; random, new each boot).  Not
 * concurrent with input. */
void udpsh_cookie_set(struct udpsh *u, const void *secret, size_t len);

/* The cookie for @addr:@port at time @now_ns, 16 hex digits and a NUL
 * into @hex (for tests and clients that compute it). */
void udpsh_cookie(const struct udpsh *u, uint32_t addr, uint16_t port,
		  uint64_t now_ns, char hex[UDPSH_COOKIE_HEX + 1]);

/* First half of handling a datagram of @len bytes from @addr:@port, of
 * which @size were sent (@size > @len: it arrived cut short): check the
 * allowlist and, keyed, the framing, MAC and ticket.  True when @rq
 * (pointing into @data) should be served: its command run (keyed: its
 * ticket is spent and a slot keeps its reply).  Keyed, a request that may
 * not run is answered here (stale, gone, or its kept reply sent again)
 * and false returned: it never takes a queue slot.  Never sleeps: a
 * receive path calls it.  One caller at a time. */
bool udpsh_admit(struct udpsh *u, const void *data, size_t len, size_t size,
		 uint32_t addr, uint16_t port, struct udpsh_request *rq);

/* Second half: run @rq's command and send the reply and prompt.  Task
 * context; one caller at a time (may run alongside udpsh_admit()). */
void udpsh_serve(struct udpsh *u, const struct udpsh_request *rq);

/* Answer an admitted @rq that cannot be queued with "busy" (keyed: status
 * busy, kept for its retransmissions): one datagram, never larger than
 * the request.  Never sleeps. */
void udpsh_busy(struct udpsh *u, const struct udpsh_request *rq);

/* Both halves: admit, then serve.  Task context; one caller at a time. */
void udpsh_input(struct udpsh *u, const void *data, size_t len,
		 uint32_t addr, uint16_t port);

/* As udpsh_input() for a datagram of @size bytes of which @len arrived. */
void udpsh_input_sized(struct udpsh *u, const void *data, size_t len,
		       size_t size, uint32_t addr, uint16_t port);

#endif
