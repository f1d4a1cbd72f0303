/* SPDX-License-Identifier: BSD-2-Clause */
/* netload: UDP load in iperf 2's format (net/iperf.h), either end of
 * the wire: the engines that send and receive it on the stack, and the
 * receiver's accounting.
 *
 * Gaps and reordering are counted as iperf 2 counts them: an id above
 * the highest so far plus one adds the gap to "lost"; an id at or below
 * it is "out of order".  Datagrams, bytes and rates count data datagrams
 * only, never the final one, so both ends' counts compare directly.  The
 * report's "datagrams" is the total iperf prints after "lost/": the
 * datagrams the sender's ids say were sent (received + lost), and its
 * "lost" leaves out gaps that a late datagram filled (netload_rx_lost()).
 * Integer arithmetic only.  The shell turns the command's words into a
 * struct netload_args; nothing here knows them.
 */
#ifndef KPROF_NET_NETLOAD_H
#define KPROF_NET_NETLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/iperf.h"
#include "net/wire.h"

struct out;

/* The limits of a request; the shell's parser holds words to them. */
#define NETLOAD_SIZE_MIN IPERF_HDR_LEN
#define NETLOAD_SIZE_MAX UDP_PAYLOAD_MAX
#define NETLOAD_SIZE_DEFAULT 1470u	/* iperf 2's default */
#define NETLOAD_MS_MAX 60000u
#define NETLOAD_RATE_DEFAULT 1000000u	/* 1 Mbit/s, iperf 2's UDP default */
#define NETLOAD_RATE_MAX 10000000000ull

/* The receiving end's accounting for one sender. */
struct netload_rx {
	bool started;		/* a data datagram has set the peer */
	bool finished;		/* the final datagram has arrived */
	uint32_t peer;
	uint16_t peer_port;
	uint64_t datagrams;	/* data datagrams taken */
	uint64_t bytes;		/* their UDP payload bytes */
	uint64_t lost;		/* ids skipped */
	uint64_t out_of_order;	/* ids at or below the highest seen */
	uint64_t short_dgrams;	/* too short to hold an id: ignored */
	uint64_t foreign;	/* from another sender, or after the end */
	uint64_t finals;	/* final datagrams from the stream's source */
	bool reported;		/* its report went out: once per stream */
	bool mixed;		/* data came from a second source too */
	int64_t max_id;		/* highest id so far, 0 before any */
	uint64_t first_ns, last_ns, final_ns;	/* receive clock */
	int64_t last_transit_ns;
	bool have_transit;
	int64_t jitter_ns;	/* RFC 1889 interarrival jitter */
};

void netload_rx_init(struct netload_rx *r);

/* Account the datagram @data of @len bytes from @src:@sport that arrived
 * at @now_ns.  Returns true, once per stream, when it is the first final
 * datagram from the source of the stream's data, and every data
 * datagram came from that one source: answer it with
 * netload_report_build(), to that source.  A final datagram before any
 * data, from another source, after data from two sources, or a repeat
 * gets nothing: a report is 128 bytes for a 4-byte question, so it goes
 * only where the stream came from, and once. */
bool netload_rx_account(struct netload_rx *r, uint32_t src, uint16_t sport,
			const uint8_t *data, size_t len, uint64_t now_ns);

/* Datagrams lost for good: the gaps seen, less the late datagrams that
 * filled some of them (each out-of-order arrival was counted in a gap
 * when its successor came first). */
uint64_t netload_rx_lost(const struct netload_rx *r);

/* Write the server report answering the final datagram @fin (@fin_len
 * bytes) into @buf (IPERF_REPORT_LEN bytes); returns its length. */
size_t netload_report_build(const struct netload_rx *r, const uint8_t *fin,
			    size_t fin_len, uint8_t *buf);

/* The datagrams a receiver's report says it took: iperf 2 reports the
 * total the sender's ids say were sent (received + lost) and the lost,
 * so it is the total less the lost (0 if a report claims more lost than
 * sent). */
uint64_t netload_report_received(const struct iperf_report *r);

/* Rates without floating point: packets per second, and Mbit/s times 100
 * (print as x / 100 "." x % 100).  0 when @ns is 0. */
uint64_t netload_pps(uint64_t count, uint64_t ns);
uint64_t netload_mbit100(uint64_t bytes, uint64_t ns);

/* A request: the command's arguments, parsed. */
struct netload_args {
	bool send;
	uint32_t ip;		/* send only */
	uint16_t port;
	unsigned ms;
	unsigned size;		/* send only */
	uint64_t rate;		/* bits/s, 0: no limit; send only */
};

/* Receive on a->port for a->ms, answering final datagrams, then print the
 * counts and rates.  Returns 0 or a negative errno (printed).  Task
 * context; sleeps. */
int netload_recv(struct out *o, const struct netload_args *a);

/* Send for a->ms at a->rate, then the final datagram until a report
 * comes back (up to 10 tries, 250 ms apart), and print both ends' view.
 * Task context; sleeps. */
int netload_send(struct out *o, const struct netload_args *a);

#endif
