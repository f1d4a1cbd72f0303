/* SPDX-License-Identifier: BSD-2-Clause */
/* ARP for IPv4 over Ethernet (RFC 826): requests for our address are
 * answered, a small cache maps next hops to MACs, entries expire when
 * nothing confirms them.
 *
 * ARP has no authentication, so the cache trusts as little as it can,
 * after Linux's neighbour states: an entry is confirmed only by a reply
 * to a request we sent, never by other traffic (an IPv4 frame's source
 * MAC proves nothing).  On expiry the next send probes it: first unicast
 * to the MAC it had, then broadcast.  The first reply to a request
 * is taken; a second one naming another MAC, or a reply naming another
 * MAC than a live entry learnt from a reply, is a conflict: counted,
 * shown in `net`, and the address disputed.  A disputed address keeps
 * neither MAC (an attacker who answers first must not keep it): a
 * broadcast probe asks again, and a MAC is taken only once a whole round
 * (ARP_ASKED_NS after the probe) had answers that all named it; a round
 * with two MACs leaves it disputed until the next.  Unsolicited packets never change an entry,
 * live or expired; a request to us from a host we have no entry for
 * makes one (RFC 826), which a reply to our own request may correct.
 * net.gw_mac= makes the gateway's entry static: nothing replaces it.
 * Entries are made only for senders on our subnet.  Refused packets are
 * dropped whole and counted (arp_spoof, arp_off_subnet). */
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
	bool solicited;		/* the MAC came from a reply to our request */
	bool probed;		/* expired, and the unicast probe went out */
	bool disputed;		/* two MACs claimed it: none kept (above) */
};

/* Requests we sent, so that a reply can be told from an unsolicited
 * one, and the first answer from a second. */
struct arp_asked {
	uint32_t ip;		/* 0: free */
	uint64_t asked_ns;
	bool answered;
	bool split;		/* a later answer named another MAC */
	uint8_t mac[ETH_ALEN];	/* the first answer's */
};


static struct spinlock arp_lock = SPINLOCK_INIT;
static struct arp_entry arp_cache[ARP_CACHE_SIZE];
static struct arp_asked arp_asked[ARP_CACHE_SIZE];
static struct arp_conflicts arp_conflict;

void arp_reset(void)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);

	kmemset(arp_cache, 0, sizeof(arp_cache));
	kmemset(arp_asked, 0, sizeof(arp_asked));
	kmemset(&arp_conflict, 0, sizeof(arp_conflict));
	spin_unlock_irqrestore(&arp_lock, flags);
}

void arp_conflicts_read(struct arp_conflicts *c)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);

	*c = arp_conflict;
	spin_unlock_irqrestore(&arp_lock, flags);
}

static void arp_conflict_locked(uint32_t ip, const uint8_t *kept, const uint8_t *other,
				bool disputed)
{
	arp_conflict.count++;
	arp_conflict.last_ip = ip;
	kmemcpy(arp_conflict.last_kept, kept, ETH_ALEN);
	kmemcpy(arp_conflict.last_other, other, ETH_ALEN);
	arp_conflict.last_disputed = disputed;
}

/* The static entry's MAC when @ip is the gateway and net.gw_mac= gave
 * it, else NULL. */
static const uint8_t *arp_static_mac(uint32_t ip)
{
	const struct net_config *c = net_config();

	return c->gw_mac_set && ip && ip == c->gw ? c->gw_mac : NULL;
}

static bool arp_live(const struct arp_entry *e, uint64_t now)
{
	return e->ip && !e->disputed && now - e->confirmed_ns < net_config()->arp_ttl_ns;
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

/* Note a request for @ip (the oldest note makes room).  A note still in
 * its window keeps its first answer: asking again does not open a new
 * race for the first reply. */
static void arp_note_asked_locked(uint32_t ip, uint64_t now)
{
	struct arp_asked *slot = &arp_asked[0];

	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++) {
		if (arp_asked[i].ip == ip || !arp_asked[i].ip) {
			slot = &arp_asked[i];
			break;
		}
		if (arp_asked[i].asked_ns < slot->asked_ns)
			slot = &arp_asked[i];
	}
	if (slot->ip != ip || now - slot->asked_ns >= ARP_ASKED_NS) {
		slot->answered = false;
		slot->split = false;
	}
	slot->ip = ip;
	slot->asked_ns = now;
}

/* Our last request for @ip, however old, or NULL. */
static struct arp_asked *arp_asked_last_locked(uint32_t ip)
{
	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++)
		if (arp_asked[i].ip == ip)
			return &arp_asked[i];
	return NULL;
}

/* A disputed entry whose last probe round is over, and whose answers
 * in it all named one MAC, takes that MAC. */
static void arp_settle_locked(struct arp_entry *e, uint64_t now)
{
	struct arp_asked *q;

	if (!e->ip || !e->disputed)
		return;
	q = arp_asked_last_locked(e->ip);
	if (!q || now - q->asked_ns < ARP_ASKED_NS || !q->answered || q->split)
		return;
	kmemcpy(e->mac, q->mac, ETH_ALEN);
	e->confirmed_ns = now;
	e->solicited = true;
	e->probed = false;
	e->disputed = false;
}

/* Keep neither MAC for @ip: its entry (made if need be) is disputed
 * until a probe round agrees.  True when a new round should start. */
static bool arp_dispute_locked(uint32_t ip)
{
	struct arp_entry *e = arp_find_locked(ip);

	if (!e)
		e = arp_slot_locked(ip);
	if (!e)
		return false;
	e->ip = ip;
	kmemset(e->mac, 0, ETH_ALEN);
	e->solicited = false;
	e->probed = false;
	e->disputed = true;
	return true;
}

/* A reply to our probe @q of disputed @e: the round's first answer is
 * its candidate; another MAC splits the round (a conflict, refused). */
static bool arp_learn_disputed_locked(struct arp_asked *q, uint32_t ip,
				      const uint8_t *mac)
{
	if (!q->answered) {
		q->answered = true;
		kmemcpy(q->mac, mac, ETH_ALEN);
		return true;
	}
	if (kmemcmp(q->mac, mac, ETH_ALEN) == 0)
		return true;
	q->split = true;
	arp_conflict_locked(ip, q->mac, mac, true);
	return false;
}

/* Our request for @ip still in its window, or NULL. */
static struct arp_asked *arp_asked_find_locked(uint32_t ip, uint64_t now)
{
	for (unsigned i = 0; i < ARP_CACHE_SIZE; i++)
		if (arp_asked[i].ip == ip && now - arp_asked[i].asked_ns < ARP_ASKED_NS)
			return &arp_asked[i];
	return NULL;
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

/* A reply to our request @q: the first answer is taken; a later one
 * naming another MAC, or one naming another MAC than a live entry learnt
 * from a reply, is a conflict that disputes the address (*@probe: a new
 * round should start). */
static bool arp_learn_solicited_locked(struct arp_asked *q, uint32_t ip,
				       const uint8_t *mac, uint64_t now, bool *probe)
{
	struct arp_entry *e = arp_find_locked(ip);

	if (e && e->disputed)
		return arp_learn_disputed_locked(q, ip, mac);
	if (q->answered && kmemcmp(q->mac, mac, ETH_ALEN) != 0) {
		arp_conflict_locked(ip, q->mac, mac, true);
		*probe = arp_dispute_locked(ip);
		return false;
	}
	if (e && e->solicited && arp_live(e, now) && kmemcmp(e->mac, mac, ETH_ALEN) != 0) {
		arp_conflict_locked(ip, e->mac, mac, true);
		*probe = arp_dispute_locked(ip);
		return false;
	}
	q->answered = true;
	kmemcpy(q->mac, mac, ETH_ALEN);
	if (!e)
		e = arp_slot_locked(ip);
	if (!e)
		return true;
	e->ip = ip;
	kmemcpy(e->mac, mac, ETH_ALEN);
	e->confirmed_ns = now;
	e->solicited = true;
	e->probed = false;
	e->disputed = false;
	return true;
}

static void arp_probe_round(uint32_t ip);

/* @ip says it is at @mac.  @reply_to_us: an ARP reply addressed to us;
 * @to_us: any ARP packet whose target is our address (RFC 826 creates an
 * entry only then).  Returns false when the packet is refused: it named
 * another MAC for an address we hold (spoof or conflict). */
static bool arp_learn(uint32_t ip, const uint8_t *mac, bool reply_to_us, bool to_us)
{
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	uint64_t now = hal_clock_ns();
	const uint8_t *fixed = arp_static_mac(ip);
	struct arp_asked *q = reply_to_us ? arp_asked_find_locked(ip, now) : NULL;
	struct arp_entry *e;
	bool ok = true, probe = false;

	if (fixed) {
		ok = kmemcmp(fixed, mac, ETH_ALEN) == 0;
		if (!ok)
			arp_conflict_locked(ip, fixed, mac, false);
	} else if (q) {
		ok = arp_learn_solicited_locked(q, ip, mac, now, &probe);
	} else if ((e = arp_find_locked(ip)) != NULL) {
		/* Unsolicited: confirms nothing, changes nothing. */
		ok = kmemcmp(e->mac, mac, ETH_ALEN) == 0;
	} else if (to_us && (e = arp_slot_locked(ip)) != NULL) {
		e->ip = ip;
		kmemcpy(e->mac, mac, ETH_ALEN);
		e->confirmed_ns = now;
		e->solicited = false;
		e->probed = false;
		e->disputed = false;
	}
	spin_unlock_irqrestore(&arp_lock, flags);
	if (probe)
		arp_probe_round(ip);
	return ok;
}

bool arp_lookup(uint32_t ip, uint8_t mac[6])
{
	const uint8_t *fixed = arp_static_mac(ip);
	unsigned long flags;
	struct arp_entry *e;
	bool found;

	if (fixed) {
		kmemcpy(mac, fixed, ETH_ALEN);
		return true;
	}
	flags = spin_lock_irqsave(&arp_lock);
	e = arp_find_locked(ip);
	if (e)
		arp_settle_locked(e, hal_clock_ns());
	found = e && arp_live(e, hal_clock_ns());
	if (found)
		kmemcpy(mac, e->mac, ETH_ALEN);
	spin_unlock_irqrestore(&arp_lock, flags);
	return found;
}

unsigned arp_snapshot(struct arp_entry_info *out, unsigned max)
{
	const struct net_config *c = net_config();
	unsigned long flags;
	uint64_t now;
	unsigned n = 0;

	if (c->gw_mac_set && c->gw && max) {
		out[0].ip = c->gw;
		kmemcpy(out[0].mac, c->gw_mac, ETH_ALEN);
		out[0].age_ns = 0;
		out[0].is_static = true;
		n = 1;
	}
	flags = spin_lock_irqsave(&arp_lock);
	now = hal_clock_ns();
	for (unsigned i = 0; i < ARP_CACHE_SIZE && n < max; i++) {
		arp_settle_locked(&arp_cache[i], now);
		if (!arp_live(&arp_cache[i], now) || arp_static_mac(arp_cache[i].ip))
			continue;
		out[n].ip = arp_cache[i].ip;
		kmemcpy(out[n].mac, arp_cache[i].mac, ETH_ALEN);
		out[n].age_ns = now - arp_cache[i].confirmed_ns;
		out[n].is_static = false;
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

/* A new round for disputed @ip: its answers so far forgotten, one
 * broadcast probe. */
static void arp_probe_round(uint32_t ip)
{
	static const uint8_t zero[ETH_ALEN];
	unsigned long flags = spin_lock_irqsave(&arp_lock);
	struct arp_asked *q;

	arp_note_asked_locked(ip, hal_clock_ns());
	q = arp_asked_last_locked(ip);
	if (q) {
		q->answered = false;
		q->split = false;
	}
	spin_unlock_irqrestore(&arp_lock, flags);
	if (arp_send(ARP_OP_REQUEST, zero, ip, eth_broadcast) == 0)
		net_count(&net_counters.arp_requests_sent);
}

/* Disputed @e: true while its probe round runs (nothing to ask), else
 * false and a new round is due. */
static bool arp_round_running_locked(const struct arp_entry *e, uint64_t now)
{
	struct arp_asked *q = arp_asked_last_locked(e->ip);

	return q && now - q->asked_ns < ARP_ASKED_NS;
}

void arp_request(uint32_t ip)
{
	static const uint8_t zero[ETH_ALEN];
	uint8_t dst[ETH_ALEN];
	unsigned long flags;
	struct arp_entry *e;
	uint64_t now;

	if (arp_static_mac(ip))
		return;
	flags = spin_lock_irqsave(&arp_lock);
	now = hal_clock_ns();
	e = arp_find_locked(ip);
	if (e)
		arp_settle_locked(e, now);
	if (e && e->disputed) {
		/* One probe a round, and the round's end not moved. */
		bool running = arp_round_running_locked(e, now);

		spin_unlock_irqrestore(&arp_lock, flags);
		if (!running)
			arp_probe_round(ip);
		return;
	}
	arp_note_asked_locked(ip, now);
	/* The first probe of an expired entry goes to the MAC it had: the
	 * host that held it answers, and nobody else hears it. */
	if (e && !arp_live(e, now) && !e->probed) {
		e->probed = true;
		kmemcpy(dst, e->mac, ETH_ALEN);
	} else {
		kmemcpy(dst, eth_broadcast, ETH_ALEN);
	}
	spin_unlock_irqrestore(&arp_lock, flags);
	if (arp_send(ARP_OP_REQUEST, zero, ip, dst) == 0)
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
