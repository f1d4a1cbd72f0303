/* SPDX-License-Identifier: BSD-2-Clause */
/* Network configuration from kernel command-line words (see net.h). */
#include "net/net.h"

#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "kernel/cmdline.h"

static struct net_config net_cfg = {
	.ip = NET_DEFAULT_IP,
	.prefix = NET_DEFAULT_PREFIX,
	.gw = NET_DEFAULT_GW,
	.arp_ttl_ns = ARP_TTL_NS,
};

const struct net_config *net_config(void)
{
	return &net_cfg;
}

void net_config_reset(void)
{
	net_cfg.ip = NET_DEFAULT_IP;
	net_cfg.prefix = NET_DEFAULT_PREFIX;
	net_cfg.gw = NET_DEFAULT_GW;
	net_cfg.gw_mac_set = false;
	kmemset(net_cfg.gw_mac, 0, sizeof(net_cfg.gw_mac));
	net_cfg.arp_ttl_ns = ARP_TTL_NS;
}

static uint32_t net_mask(unsigned prefix)
{
	return prefix == 0 ? 0 : ~(uint32_t)0 << (32 - prefix);
}

/* An address a host may own or route through: not 0/8, loopback,
 * multicast or reserved, and on @prefix neither the subnet's network nor
 * its broadcast address. */
static bool net_host_addr_ok(uint32_t ip, unsigned prefix)
{
	uint32_t host = ip & ~net_mask(prefix);

	if ((ip >> 24) == 0 || (ip >> 24) == 127 || (ip >> 28) >= 14)
		return false;
	return host != 0 && host != ~net_mask(prefix);
}

static bool net_same_subnet(uint32_t a, uint32_t b, unsigned prefix)
{
	return ((a ^ b) & net_mask(prefix)) == 0;
}

/* "ADDR[/PREFIX]" into @ip/@prefix: the address is a host's, so its host
 * bits are not zero (parse_cidr() would refuse them). */
static int net_parse_host_prefix(const char *s, uint32_t *ip, unsigned *prefix)
{
	char addr[16];
	const char *slash = s;
	uint64_t n = NET_DEFAULT_PREFIX;
	size_t len;

	while (*slash && *slash != '/')
		slash++;
	len = (size_t)(slash - s);
	if (len == 0 || len >= sizeof(addr))
		return -EINVAL;
	kmemcpy(addr, s, len);
	addr[len] = '\0';
	if (parse_ipv4(addr, ip) < 0)
		return -EINVAL;
	if (*slash && (parse_u64(slash + 1, &n) < 0 || n < 1 || n > 30))
		return -EINVAL;
	*prefix = (unsigned)n;
	return net_host_addr_ok(*ip, *prefix) ? 0 : -EINVAL;
}

/* "GW" or "none", checked against @ip/@prefix. */
static int net_parse_gw(const char *s, uint32_t ip, unsigned prefix,
			uint32_t *gw)
{
	if (kstreq(s, "none")) {
		*gw = 0;
		return 0;
	}
	if (parse_ipv4(s, gw) < 0 || !net_host_addr_ok(*gw, prefix) ||
	    !net_same_subnet(*gw, ip, prefix) || *gw == ip)
		return -EINVAL;
	return 0;
}

static void net_say_ip(struct out *err, const char *value)
{
	char ip[16];

	out_printf(err, "net: ip=%s is not ADDR[/PREFIX][,gw=GW] with a host address and prefix 1-30; keeping %s/%u\n",
		   value, net_ip_str(net_cfg.ip, ip), net_cfg.prefix);
}

static int net_word_ip(const char *value, struct out *err)
{
	char text[40];
	char *comma;
	const char *gwtext = NULL;
	uint32_t ip, gw = net_cfg.gw;
	unsigned prefix;
	char gws[16], ips[16];

	if (kstrnlen(value, sizeof(text)) >= sizeof(text)) {
		net_say_ip(err, value);
		return -EINVAL;
	}
	kstrlcpy(text, value, sizeof(text));
	comma = text;
	while (*comma && *comma != ',')
		comma++;
	if (*comma) {
		*comma = '\0';
		gwtext = comma + 1;
		if (!kstarts_with(gwtext, "gw=")) {
			net_say_ip(err, value);
			return -EINVAL;
		}
		gwtext += 3;
	}
	if (net_parse_host_prefix(text, &ip, &prefix) < 0) {
		net_say_ip(err, value);
		return -EINVAL;
	}
	if (gwtext) {
		if (net_parse_gw(gwtext, ip, prefix, &gw) < 0) {
			net_say_ip(err, value);
			return -EINVAL;
		}
	} else if (gw && (!net_same_subnet(gw, ip, prefix) || gw == ip ||
			  !net_host_addr_ok(gw, prefix))) {
		/* The old gateway cannot serve the new subnet. */
		out_printf(err, "net: gateway %s is outside %s/%u; no gateway\n",
			   net_ip_str(gw, gws), net_ip_str(ip, ips), prefix);
		gw = 0;
	}
	net_cfg.ip = ip;
	net_cfg.prefix = prefix;
	net_cfg.gw = gw;
	return 0;
}

static int net_word_gw(const char *value, struct out *err)
{
	uint32_t gw;
	char ip[16], old[16];

	if (net_parse_gw(value, net_cfg.ip, net_cfg.prefix, &gw) < 0) {
		out_printf(err, "net: gw=%s is not an address inside %s/%u (or none); keeping %s\n",
			   value, net_ip_str(net_cfg.ip, ip), net_cfg.prefix,
			   net_cfg.gw ? net_ip_str(net_cfg.gw, old) : "none");
		return -EINVAL;
	}
	net_cfg.gw = gw;
	return 0;
}

/* "xx:xx:xx:xx:xx:xx" into @mac: a unicast, non-zero address. */
static int net_parse_mac(const char *s, uint8_t mac[6])
{
	static const uint8_t zero[6];

	for (unsigned i = 0; i < 6; i++) {
		int hi = khexdigit(s[0]), lo = hi < 0 ? -1 : khexdigit(s[1]);

		if (lo < 0 || s[2] != (i == 5 ? '\0' : ':'))
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 3;
	}
	if ((mac[0] & 1) || kmemcmp(mac, zero, 6) == 0)
		return -EINVAL;
	return 0;
}

static int net_word_gw_mac(const char *value, struct out *err)
{
	uint8_t mac[6];

	if (net_parse_mac(value, mac) < 0) {
		out_printf(err, "net: net.gw_mac=%s is not a unicast MAC xx:xx:xx:xx:xx:xx; %s\n",
			   value, net_cfg.gw_mac_set ? "keeping the one given before"
						     : "the gateway's MAC comes from ARP");
		return -EINVAL;
	}
	kmemcpy(net_cfg.gw_mac, mac, 6);
	net_cfg.gw_mac_set = true;
	return 0;
}

static int net_word_arp_ttl(const char *value, struct out *err)
{
	uint64_t s;

	if (parse_u64(value, &s) < 0 || s < 1 || s > 3600) {
		out_printf(err, "net: net.arp_ttl=%s is not 1-3600 seconds; keeping %llu\n",
			   value, (unsigned long long)(net_cfg.arp_ttl_ns / 1000000000ull));
		return -EINVAL;
	}
	net_cfg.arp_ttl_ns = s * 1000000000ull;
	return 0;
}

static const struct cmdline_word_key net_words[] = {
	{ "ip", net_word_ip },
	{ "gw", net_word_gw },
	{ "net.gw_mac", net_word_gw_mac },
	{ "net.arp_ttl", net_word_arp_ttl },
};

int net_config_word(const char *key, const char *value, struct out *err)
{
	return cmdline_word_take(net_words, sizeof(net_words) / sizeof(net_words[0]), key,
				 value, err);
}

/* The command line's words (kernel/cmdline.h), each through
 * net_config_word() under its own name. */
CMDLINE_KEY(net_key_gw_mac_entry, .name = "net.gw_mac", .word = net_config_word,
	    .help = "MAC  the gateway's MAC, a static ARP entry nothing replaces (default: from ARP)");
CMDLINE_KEY(net_key_arp_ttl_entry, .name = "net.arp_ttl", .word = net_config_word,
	    .help = "SECONDS  how long an ARP entry lives unconfirmed, 1-3600 (default 60)");
CMDLINE_KEY(net_key_ip_entry, .name = "ip", .word = net_config_word,
	    .help = "ADDR[/PREFIX][,gw=GW]  this host's address (default 10.0.2.15/24,gw=10.0.2.2)");
CMDLINE_KEY(net_key_gw_entry, .name = "gw", .word = net_config_word,
	    .help = "GW|none  the gateway, inside ip's subnet (default 10.0.2.2)");
