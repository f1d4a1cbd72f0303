/* SPDX-License-Identifier: BSD-2-Clause */
/* net: the stack's configuration, frame counts, drops by reason, the
 * counters of every UDP shell in use and the ARP cache. */
#include "lib/out.h"
#include "net/net.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "shell/udpsh/net.h"
#include "shell/udpsh/serving.h"

static void cmd_net_config(struct out *o)
{
	const struct net_config *c = net_config();
	const struct udpsh_config *u = udpsh_config();
	char ip[16], gw[16];

	out_printf(o, "net: %s, %s/%u gw %s\n", net_is_up() ? "up" : "down",
		   net_ip_str(c->ip, ip), c->prefix,
		   c->gw ? net_ip_str(c->gw, gw) : "none");
	/* Only the shell that serves is described: a keyed ksim --udp, or a
	 * kernel refused a key, must not read as unauthenticated. */
	if (!u->port) {
		out_puts(o, "udp shell: off\n");
	} else if (!udpsh_net_serving()) {
		out_puts(o, "udp shell: not started\n");
	} else {
		out_printf(o, "udp shell: port %u, allow %s, %s\n", u->port,
			   u->allow[0] ? u->allow : "nobody",
			   udpsh_net_keyed() ? "authenticated (HMAC-SHA256)" : "unauthenticated");
		if (!udpsh_net_keyed())
			out_puts(o, UDPSH_UNAUTH_WARNING "\n");
	}
}

static void cmd_net_counters(struct out *o, const struct net_stats *s)
{
	out_printf(o, "frames: in %llu (%llu bytes), out %llu (%llu bytes)\n",
		   (unsigned long long)s->rx_frames, (unsigned long long)s->rx_bytes,
		   (unsigned long long)s->tx_frames, (unsigned long long)s->tx_bytes);
	out_printf(o, "accepted: arp %llu, ipv4 %llu, icmp %llu, udp %llu\n",
		   (unsigned long long)s->rx_arp, (unsigned long long)s->rx_ipv4,
		   (unsigned long long)s->rx_icmp, (unsigned long long)s->rx_udp);
	out_printf(o, "sent: arp requests %llu, arp replies %llu, echo replies %llu\n",
		   (unsigned long long)s->arp_requests_sent,
		   (unsigned long long)s->arp_replies_sent,
		   (unsigned long long)s->echo_replies_sent);
	out_printf(o, "not sent: no arp entry %llu, no route %llu, device refused %llu\n",
		   (unsigned long long)s->tx_no_arp, (unsigned long long)s->tx_no_route,
		   (unsigned long long)s->tx_failed);
}

static void cmd_net_drops(struct out *o, const struct net_stats *s)
{
	uint64_t total = net_stats_drops(s);

	if (!total) {
		out_puts(o, "drops: none\n");
		return;
	}
	out_printf(o, "drops: %llu\n", (unsigned long long)total);
	for (unsigned i = 0; i < NET_DROP_COUNT; i++)
		if (s->drops[i])
			out_printf(o, "  %-14s %llu\n", net_drop_name((enum net_drop)i),
				   (unsigned long long)s->drops[i]);
}

static void cmd_net_arp(struct out *o)
{
	struct arp_entry_info e[ARP_CACHE_SIZE + 1];
	unsigned n = arp_snapshot(e, ARP_CACHE_SIZE + 1);
	struct arp_conflicts c;
	char ip[16];

	arp_conflicts_read(&c);
	if (c.count && c.last_disputed) {
		const uint8_t *k = c.last_kept, *x = c.last_other;

		out_printf(o, "arp conflicts: %llu (last: %s claimed by %02x:%02x:%02x:%02x:%02x:%02x and %02x:%02x:%02x:%02x:%02x:%02x; neither kept until a probe's answers agree)\n",
			   (unsigned long long)c.count, net_ip_str(c.last_ip, ip),
			   k[0], k[1], k[2], k[3], k[4], k[5], x[0], x[1], x[2], x[3], x[4], x[5]);
	} else if (c.count) {
		const uint8_t *k = c.last_kept, *x = c.last_other;

		out_printf(o, "arp conflicts: %llu (last: %s at %02x:%02x:%02x:%02x:%02x:%02x, also claimed by %02x:%02x:%02x:%02x:%02x:%02x)\n",
			   (unsigned long long)c.count, net_ip_str(c.last_ip, ip),
			   k[0], k[1], k[2], k[3], k[4], k[5], x[0], x[1], x[2], x[3], x[4], x[5]);
	}
	if (!n) {
		out_puts(o, "arp: empty\n");
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		out_printf(o, "arp: %-15s %02x:%02x:%02x:%02x:%02x:%02x  ",
			   net_ip_str(e[i].ip, ip), e[i].mac[0], e[i].mac[1],
			   e[i].mac[2], e[i].mac[3], e[i].mac[4], e[i].mac[5]);
		if (e[i].is_static)
			out_puts(o, "static (net.gw_mac)\n");
		else
			out_printf(o, "%llu s ago\n", (unsigned long long)(e[i].age_ns / 1000000000u));
	}
}

/* Every UDP shell in use: the stack's, and ksim's on its own socket. */
static void cmd_net_udpsh(struct out *o)
{
	struct udpsh_serving sv;

	for (unsigned i = 0; udpsh_serving_get(i, &sv); i++) {
		struct udpsh_stats u;

		udpsh_stats_read(sv.u, &u);
		out_printf(o, "udp shell (%s): %llu datagrams, %llu answered, %llu malformed, %llu replies not sent\n",
			   sv.name, (unsigned long long)u.datagrams_in,
			   (unsigned long long)u.answered, (unsigned long long)u.malformed,
			   (unsigned long long)u.send_failed);
		out_printf(o, "udp shell (%s): %llu bad mac, %llu stale, %llu busy, %llu cut short\n",
			   sv.name, (unsigned long long)u.bad_mac, (unsigned long long)u.stale,
			   (unsigned long long)u.busy, (unsigned long long)u.cut_short);
		out_printf(o, "udp shell (%s): %llu tickets, %llu resent, %llu gone, %llu limited\n",
			   sv.name, (unsigned long long)u.tickets, (unsigned long long)u.resent,
			   (unsigned long long)u.gone, (unsigned long long)u.limited);
		out_printf(o, "udp shell (%s): %llu replies ignored, %llu cut at 3x, %llu cookies\n",
			   sv.name, (unsigned long long)u.replies_in,
			   (unsigned long long)u.cut, (unsigned long long)u.cookies);
		if (sv.losses) {
			struct udpsh_losses l;

			sv.losses(&l);
			out_printf(o, "udp shell (%s): lost before the shell: %llu queue full, %llu socket overflow\n",
				   sv.name, (unsigned long long)l.queue_full,
				   (unsigned long long)l.overflowed);
		}
	}
}

int cmd_net(struct shell_ctx *sh, int argc, char **argv)
{
	struct net_stats s;

	(void)argv;
	if (argc > 1) {
		out_puts(sh->out, "net: takes no arguments\n");
		return SHELL_CMD_FAILED;
	}
	net_stats_read(&s);
	cmd_net_config(sh->out);
	cmd_net_counters(sh->out, &s);
	cmd_net_drops(sh->out, &s);
	cmd_net_udpsh(sh->out);
	cmd_net_arp(sh->out);
	return 0;
}
