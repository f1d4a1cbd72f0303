/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell core (shell/udpsh/udpsh.h) served on src/net's UDP
 * (shell/udpsh/net.h).  Datagrams
 * are queued by net_rx()'s task and run by a task of their own, because a
 * command may take seconds (a profile takes up to 2 s) and the receive
 * path must keep going meanwhile.
 *
 * What it guarantees: a datagram from outside the allowlist, a keyed
 * first fragment, or a request that may not run never takes one of the
 * UDPSH_NET_QUEUE slots, and a full queue is answered busy; the receive
 * path never waits (only the shell's task waits, once, for ARP); the
 * shell does not start without a key unless udpsh.key=none asked for it
 * out loud.  The key, the boot nonce and the cookie secret it is given
 * come from secrets.c.
 * Against: floods of the receive path from allowed or forged sources. */
#include "shell/udpsh/net.h"

#include "hal/firmware.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/spinlock.h"
#include "lib/out.h"
#include "net/net.h"
#include "net/wire.h"
#include "shell/udpsh/secrets.h"
#include "shell/udpsh/serving.h"

/* An admitted request (udpsh_admit()) with its command copied in. */
struct netsh_item {
	struct udpsh_request rq;
	uint8_t data[UDP_PAYLOAD_MAX];
};

static struct udpsh netsh_core;
static struct spinlock netsh_lock = SPINLOCK_INIT;
/* A ring with one consumer: the head slot stays owned by the consumer
 * until it has run, so producers never write it. */
static struct netsh_item netsh_queue[UDPSH_NET_QUEUE];
static unsigned netsh_head, netsh_count;
static struct task *netsh_task;
static uint16_t netsh_port;
static bool netsh_serving;	/* bound: udpsh_net_open() succeeded */
static char netsh_name[24];	/* for `net` (shell/udpsh/serving.h) */

void udpsh_net_reset(void)
{
	unsigned long flags = spin_lock_irqsave(&netsh_lock);

	netsh_head = 0;
	netsh_count = 0;
	netsh_port = 0;
	spin_unlock_irqrestore(&netsh_lock, flags);
	__atomic_store_n(&netsh_serving, false, __ATOMIC_RELEASE);
	udpsh_init(&netsh_core, NULL, NULL);
}

static int netsh_send(void *ctx, uint32_t addr, uint16_t port,
		      const char *data, size_t len)
{
	int err = udp_send(addr, netsh_port, port, data, len);

	(void)ctx;
	/* The requester's MAC can have expired between its request and our
	 * answer; on a live system the shell's task waits for it once rather
	 * than lose the reply.  The receive path (a stale or busy answer)
	 * never waits. */
	if (err == -EAGAIN && net_is_up() && netsh_task &&
	    task_current() == netsh_task && net_resolve(addr, 200) == 0)
		err = udp_send(addr, netsh_port, port, data, len);
	return err;
}

static void netsh_rx(void *ctx, const struct udp_dgram *d)
{
	struct udpsh_request rq;
	struct netsh_item *it;
	unsigned long flags;
	struct task *t;

	(void)ctx;
	/* Refused here, not in the shell's task, so that nobody outside the
	 * allowlist can fill the queue. */
	if (!udpsh_allowed(&netsh_core, d->src)) {
		net_drop_count(NET_DROP_UDPSH_DENIED);
		return;
	}
	/* A first fragment: keyed there is no MAC to check on a part, so it
	 * goes with the rest; keyless it is answered "line too long". */
	if (d->size > d->len && netsh_core.keyed) {
		net_drop_count(NET_DROP_IP_FRAGMENT);
		return;
	}
	/* The MAC and the ticket are checked before the request takes a
	 * queue slot or gets any answer; a request that may not run is
	 * answered here (stale, gone, its kept reply), never queued. */
	if (!udpsh_admit(&netsh_core, d->data, d->len, d->size, d->src, d->sport, &rq))
		return;
	flags = spin_lock_irqsave(&netsh_lock);
	if (netsh_count == UDPSH_NET_QUEUE) {
		spin_unlock_irqrestore(&netsh_lock, flags);
		net_drop_count(NET_DROP_UDPSH_BUSY);
		udpsh_busy(&netsh_core, &rq);
		return;
	}
	it = &netsh_queue[(netsh_head + netsh_count) % UDPSH_NET_QUEUE];
	it->rq = rq;
	/* udp_input() bounds the payload by one frame. */
	if (it->rq.len > sizeof(it->data))
		it->rq.len = sizeof(it->data);
	kmemcpy(it->data, rq.cmd, it->rq.len);
	it->rq.cmd = (const char *)it->data;
	netsh_count++;
	t = netsh_task;
	spin_unlock_irqrestore(&netsh_lock, flags);
	if (t)
		sched_wake(t);
}

unsigned udpsh_net_run_queued(void)
{
	unsigned ran = 0;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&netsh_lock);
		struct netsh_item *it;

		if (netsh_count == 0) {
			spin_unlock_irqrestore(&netsh_lock, flags);
			return ran;
		}
		it = &netsh_queue[netsh_head];
		spin_unlock_irqrestore(&netsh_lock, flags);

		udpsh_serve(&netsh_core, &it->rq);
		ran++;

		flags = spin_lock_irqsave(&netsh_lock);
		netsh_head = (netsh_head + 1) % UDPSH_NET_QUEUE;
		netsh_count--;
		spin_unlock_irqrestore(&netsh_lock, flags);
	}
}

void udpsh_net_stats(struct udpsh_stats *s)
{
	const struct udpsh_stats *c = &netsh_core.stats;

	s->datagrams_in = __atomic_load_n(&c->datagrams_in, __ATOMIC_RELAXED);
	s->answered = __atomic_load_n(&c->answered, __ATOMIC_RELAXED);
	s->dropped_allow = __atomic_load_n(&c->dropped_allow, __ATOMIC_RELAXED);
	s->malformed = __atomic_load_n(&c->malformed, __ATOMIC_RELAXED);
	s->send_failed = __atomic_load_n(&c->send_failed, __ATOMIC_RELAXED);
	s->bad_mac = __atomic_load_n(&c->bad_mac, __ATOMIC_RELAXED);
	s->stale = __atomic_load_n(&c->stale, __ATOMIC_RELAXED);
	s->busy = __atomic_load_n(&c->busy, __ATOMIC_RELAXED);
	s->cut_short = __atomic_load_n(&c->cut_short, __ATOMIC_RELAXED);
	s->tickets = __atomic_load_n(&c->tickets, __ATOMIC_RELAXED);
	s->resent = __atomic_load_n(&c->resent, __ATOMIC_RELAXED);
	s->gone = __atomic_load_n(&c->gone, __ATOMIC_RELAXED);
	s->limited = __atomic_load_n(&c->limited, __ATOMIC_RELAXED);
	s->replies_in = __atomic_load_n(&c->replies_in, __ATOMIC_RELAXED);
	s->cut = __atomic_load_n(&c->cut, __ATOMIC_RELAXED);
	s->cookies = __atomic_load_n(&c->cookies, __ATOMIC_RELAXED);
}

bool udpsh_net_serving(void)
{
	return __atomic_load_n(&netsh_serving, __ATOMIC_ACQUIRE);
}

bool udpsh_net_keyed(void)
{
	return netsh_core.keyed;
}

int udpsh_net_open(void)
{
	const struct udpsh_config *c = udpsh_config();
	uint8_t key[UDPSH_KEY_MAX];
	int err, klen;

	__atomic_store_n(&netsh_serving, false, __ATOMIC_RELEASE);
	if (!c->port)
		return 0;
	udpsh_init(&netsh_core, netsh_send, NULL);
	/* An empty list answers nobody; the text was checked when set. */
	if (c->allow[0] && (err = udpsh_allow_set(&netsh_core, c->allow)) < 0)
		return err;
	klen = udpsh_boot_key(key);
	if (klen < 0)
		return -EKEYREJECTED;
	/* Keyless only when asked for out loud (udpsh.key=none). */
	if (klen == 0 && !c->key_none)
		return -ENOKEY;
	if (klen > 0) {
		err = udpsh_key_set(&netsh_core, key, (size_t)klen, udpsh_boot_nonce());
		kmemset(key, 0, sizeof(key));
		if (err < 0)
			return err;
	} else {
		udpsh_boot_cookie_secret(&netsh_core);
	}
	netsh_port = c->port;
	err = udp_bind_ex(c->port, netsh_rx, NULL, true);
	if (err < 0)
		return err;
	ksnprintf(netsh_name, sizeof(netsh_name), "udp port %u", netsh_port);
	err = udpsh_serving_add(&netsh_core, netsh_name, NULL);
	if (err == 0)
		__atomic_store_n(&netsh_serving, true, __ATOMIC_RELEASE);
	return err;
}

static void netsh_task_main(void *arg)
{
	(void)arg;
	for (;;)
		if (udpsh_net_run_queued() == 0)
			sched_block();
}

static int netsh_start(void)
{
	struct task *t;
	unsigned long flags;
	int err = udpsh_net_open();

	if (err < 0 || !udpsh_config()->port)
		return err;
	t = task_create("udpsh", netsh_task_main, NULL, 0);
	if (!t) {
		udp_unbind(udpsh_config()->port);
		return -ENOMEM;
	}
	flags = spin_lock_irqsave(&netsh_lock);
	netsh_task = t;
	spin_unlock_irqrestore(&netsh_lock, flags);
	/* Anything queued before the task was known. */
	sched_wake(t);
	return 0;
}

void udpsh_net_start(struct out *o)
{
	/* No device, no noise: net_start() said nothing either. */
	if (!net_is_up())
		return;
	udpsh_net_say_started(o, netsh_start());
}

void udpsh_net_say_started(struct out *o, int err)
{
	const struct udpsh_config *c = udpsh_config();

	if (err == 0 && c->port) {
		out_printf(o, "net: udp shell on port %u for %s%s\n",
			   c->port, c->allow[0] ? c->allow : "nobody",
			   udpsh_net_keyed() ? ", authenticated (HMAC-SHA256)" : "");
		if (!udpsh_net_keyed())
			out_puts(o, UDPSH_UNAUTH_WARNING "\n");
		else
			out_printf(o, "net: udp shell boot nonce from %s%s\n",
				   udpsh_net_nonce_hw() ? "the CPU's random number generator"
							: "cycle-counter jitter",
				   udpsh_net_nonce_seeded() ? " and the host's seed" : "");
		/* Jitter alone repeated 1 value in 3 boots under QEMU by hand
		 * (issue 51): a request recorded in one boot could run in
		 * another. */
		if (udpsh_net_keyed() && !udpsh_net_nonce_hw() && !udpsh_net_nonce_seeded())
			out_printf(o, "net: warning: udp shell boot nonce from cycle-counter jitter alone (no RDRAND/RNDR, no host seed): it may repeat, and a request recorded in one boot run in another; give firmware file %s (kprof-qemu and make run do)\n",
				   HAL_FW_RANDOM_SEED);
	} else if (err == -EKEYREJECTED) {
		out_printf(o, "net: udp shell not started: firmware file %s is not %u-%u bytes in hex (one byte repeated is refused too)\n",
			   HAL_FW_UDPSH_KEY, UDPSH_KEY_MIN, UDPSH_KEY_MAX);
	} else if (err == -ENOKEY) {
		out_printf(o, "net: udp shell not started: no key (firmware file %s, or udpsh.key=HEX); udpsh.key=none serves it keyless\n",
			   HAL_FW_UDPSH_KEY);
	} else if (err < 0)
		out_printf(o, "net: udp shell not started (error %d)\n", err);
}
