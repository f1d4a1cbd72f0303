/* SPDX-License-Identifier: BSD-2-Clause */
/* ARP for IPv4 over Ethernet (RFC 826): requests for our address are
 * answered, a small cache maps next hops to MACs, entries expire when
 * nothing confirms them.
 *
 * ARP has no authentication, so the cache trusts as little as it can:
 * a live entry changes its MAC only on a reply to a request we sent (and
 * only the first such reply), never from unsolicited traffic; an expired
 * entry may be taken over.  Entries are made only for senders on our
 * subnet.  Refused packets are dropped whole and counted (arp_spoof,
 * arp_off_subnet). */
#include "hal/timer.h"
#include "kernel/sched.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/spinlock.h"
#include "net/internal.h"

struct arp_entry {
	uint32_t ip;		/* 0: free */
	uint8_t mac[ETH_ALEN];
	uint64_t confirmed_ns;
};

/* Requests we sent, so that a reply can be told from an unsolicited
 * one; an entry is used up by the first reply. */
struct arp_asked {
	uint32_t ip;		/* 0: free */
	uint64_t asked_ns;
};

/* How long after a request its reply still counts as solicited. */
#define ARP_ASKED_NS 2000000000ull

static struct spinlock arp_lock = SPINLOCK_INIT;
static struct arp_entry arp_cache[ARP_CACHE_SIZE];
static struct arp_asked arp_asked[ARP_CACHE_SIZE];

void arp_reset(void)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);

	kmemset(arp_cache, 0, sizeof(arp_cache));
	kmemset(arp_asked, 0, sizeof(arp_asked));
	spin_unlock_irqrestore(&arp_lock, flags);
}

static bool arp_live(const struct arp_entry *e, uint64_t now)
{
	return e->ip && now - e->confirmed_ns < ARP_TTL_NS;
}

static struct arp_entry *arp_find_locked(uint32_t ip)
{
	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++)
		if (arp_cache[i].ip == ip)
			return &arp_cache[i];
	return NULL;
}

/* The entry for @ip, or the slot to reuse for it: a free one, else the
 * least recently confirmed one that is not the gateway's, so that a flood
 * of strangers' requests cannot push out the next hop for everything
 * off-link. */
static struct arp_entry *arp_slot_locked(uint32_t ip)
{
	struct arp_entry *e = arp_find_locked(ip), *oldest = NULL;
	uint32_t gw = net_config()->gw;

	if (e)
		return e;
	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++) {
		if (!arp_cache[i].ip)
			return &arp_cache[i];
		if (arp_cache[i].ip != gw &&
		    (!oldest || arp_cache[i].confirmed_ns < oldest->confirmed_ns))
			oldest = &arp_cache[i];
	}
	return oldest;
}

/* Note a request for @ip (the oldest note makes room). */
static void arp_note_asked(uint32_t ip)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	struct arp_asked *slot = &arp_asked[0];

	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++) {
		if (arp_asked[i].ip == ip || !arp_asked[i].ip) {
			slot = &arp_asked[i];
			break;
		}
		if (arp_asked[i].asked_ns < slot->asked_ns)
			slot = &arp_asked[i];
	}
	slot->ip = ip;
	slot->asked_ns = hal_clock_ns();
	spin_unlock_irqrestore(&arp_lock, flags);
}

/* True, once, when we asked for @ip recently. */
static bool arp_take_asked_locked(uint32_t ip, uint64_t now)
{
	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++) {
		if (arp_asked[i].ip == ip) {
			bool recent = now - arp_asked[i].asked_ns < ARP_ASKED_NS;

			arp_asked[i].ip = 0;
			return recent;
		}
	}
	return false;
}

/* True when a request for @ip went out less than @ns ago. */
static bool arp_asked_within(uint32_t ip, uint64_t ns)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	uint64_t now = hal_clock_ns();
	bool recent = false;

	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++)
		if (arp_asked[i].ip == ip && now - arp_asked[i].asked_ns < ns)
			recent = true;
	spin_unlock_irqrestore(&arp_lock, flags);
	return recent;
}

/* @ip says it is at @mac.  @reply_to_us: an ARP reply addressed to us;
 * @to_us: any ARP packet whose target is our address (RFC 826 creates an
 * entry only then).  Returns false when the packet tried to move a live
 * entry to another MAC unasked: refused. */
static bool arp_learn(uint32_t ip, const uint8_t *mac, bool reply_to_us, bool to_us)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	uint64_t now = hal_clock_ns();
	struct arp_entry *e = arp_find_locked(ip);
	bool ok = true;

	if (e && arp_live(e, now)) {
		if (kmemcmp(e->mac, mac, ETH_ALEN) == 0) {
			e->confirmed_ns = now;
			if (reply_to_us)
				arp_take_asked_locked(ip, now);
		} else if (reply_to_us && arp_take_asked_locked(ip, now)) {
			kmemcpy(e->mac, mac, ETH_ALEN);
			e->confirmed_ns = now;
		} else {
			ok = false;
		}
	} else if (e || to_us) {
		if (!e)
			e = arp_slot_locked(ip);
		if (e) {
			e->ip = ip;
			kmemcpy(e->mac, mac, ETH_ALEN);
			e->confirmed_ns = now;
		}
		if (reply_to_us)
			arp_take_asked_locked(ip, now);
	}
	spin_unlock_irqrestore(&arp_lock, flags);
	return ok;
}

void arp_confirm(uint32_t ip, const uint8_t mac[ETH_ALEN])
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	struct arp_entry *e = arp_find_locked(ip);

	if (e && kmemcmp(e->mac, mac, ETH_ALEN) == 0)
		e->confirmed_ns = hal_clock_ns();
	spin_unlock_irqrestore(&arp_lock, flags);
}

bool arp_lookup(uint32_t ip, uint8_t mac[6])
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	struct arp_entry *e = arp_find_locked(ip);
	bool found = e && arp_live(e, hal_clock_ns());

	if (found)
		kmemcpy(mac, e->mac, ETH_ALEN);
	spin_unlock_irqrestore(&arp_lock, flags);
	return found;
}

unsigned arp_snapshot(struct arp_entry_info *out, unsigned max)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	uint64_t now = hal_clock_ns();
	unsigned n = 0;

	for (unsigned i = 0; i < ARP_CACHE_SIZE && n < max; i++) {
		if (!arp_live(&arp_cache[i], now))
			continue;
		out[n].ip = arp_cache[i].ip;
		kmemcpy(out[n].mac, arp_cache[i].mac, ETH_ALEN);
		out[n].age_ns = now - arp_cache[i].confirmed_ns;
		n++;
	}
	spin_unlock_irqrestore(&arp_lock, flags);
	return n;
}

/* Build and send one ARP packet. */
static int arp_send(uint16_t op, const uint8_t tha[ETH_ALEN], uint32_t tpa,
		    const uint8_t eth_dst[ETH_ALEN])
{
	uint8_t frame[ETH_FRAME_MIN];
	uint8_t *a = frame + ETH_HLEN;

	wire_put16(a + 0, 1);			/* hardware: Ethernet */
	wire_put16(a + 2, ETH_TYPE_IPV4);	/* protocol: IPv4 */
	a[4] = ETH_ALEN;
	a[5] = 4;
	wire_put16(a + 6, op);
	kmemcpy(a + 8, net_mac, ETH_ALEN);
	wire_put32(a + 14, net_config()->ip);
	kmemcpy(a + 18, tha, ETH_ALEN);
	wire_put32(a + 24, tpa);
	return eth_output(frame, ETH_HLEN + ARP_LEN, eth_dst, ETH_TYPE_ARP);
}

void arp_request(uint32_t ip)
{
	static const uint8_t zero[ETH_ALEN];

	arp_note_asked(ip);
	if (arp_send(ARP_OP_REQUEST, zero, ip, eth_broadcast) == 0)
		net_count(&net_counters.arp_requests_sent);
}

/* A sender hardware address we will never store: broadcast, multicast or
 * zero. */
static bool arp_bad_mac(const uint8_t *mac)
{
	static const uint8_t zero[ETH_ALEN];

	return (mac[0] & 1) || kmemcmp(mac, zero, ETH_ALEN) == 0;
}

void arp_input(const uint8_t *a, size_t len)
{
	uint32_t our_ip = net_config()->ip;
	uint32_t spa, tpa;
	uint16_t op;

	if (len < ARP_LEN || wire_get16(a) != 1 || wire_get16(a + 2) != ETH_TYPE_IPV4 ||
	    a[4] != ETH_ALEN || a[5] != 4) {
		net_count_drop(NET_DROP_ARP_MALFORMED);
		return;
	}
	op = wire_get16(a + 6);
	spa = wire_get32(a + 14);
	tpa = wire_get32(a + 24);
	if ((op != ARP_OP_REQUEST && op != ARP_OP_REPLY) || arp_bad_mac(a + 8) ||
	    spa == our_ip) {
		net_count_drop(NET_DROP_ARP_MALFORMED);
		return;
	}
	/* A probe (sender 0.0.0.0) claims nothing worth storing. */
	if (spa && !ipv4_is_broadcast(spa)) {
		if (ipv4_next_hop(spa) != spa) {
			net_count_drop(NET_DROP_ARP_OFF_SUBNET);
			return;
		}
		if (!arp_learn(spa, a + 8, op == ARP_OP_REPLY && tpa == our_ip,
			       tpa == our_ip)) {
			net_count_drop(NET_DROP_ARP_SPOOF);
			return;
		}
	}
	if (tpa != our_ip) {
		net_count_drop(NET_DROP_ARP_NOT_US);
		return;
	}
	net_count(&net_counters.rx_arp);
	if (op == ARP_OP_REQUEST && arp_send(ARP_OP_REPLY, a + 8, spa, a + 8) == 0)
		net_count(&net_counters.arp_replies_sent);
}

int net_resolve(uint32_t ip, unsigned timeout_ms)
{
	uint32_t hop = ipv4_next_hop(ip);
	uint8_t mac[ETH_ALEN];
	uint64_t start = hal_clock_ns();

	if (!hop)
		return -EINVAL;
	while (!arp_lookup(hop, mac)) {
		uint64_t now = hal_clock_ns();

		if (ipv4_is_broadcast(hop))
			return 0;
		if (now - start >= (uint64_t)timeout_ms * 1000000u)
			return -ETIMEDOUT;
		/* Not again when a request just went out (the send that
		 * failed for want of this entry made one), nor in the last
		 * 50 ms of the wait, when no answer could help: one datagram
		 * in makes at most one request out. */
		if (start + (uint64_t)timeout_ms * 1000000u - now > 50000000u &&
		    !arp_asked_within(hop, 200000000u))
			arp_request(hop);
		sched_sleep_ms(10);
	}
	return 0;
}
