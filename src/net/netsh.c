/* The UDP shell core (shell/udpsh.h) served on src/net's UDP.  Datagrams
 * are queued by net_rx()'s task and run by a task of their own, because a
 * command may take seconds (a profile takes up to 2 s) and the receive
 * path must keep going meanwhile. */
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/spinlock.h"
#include "net/internal.h"

struct netsh_item {
	uint32_t addr;
	uint16_t port;
	uint16_t len;
	uint8_t data[UDP_PAYLOAD_MAX];
};

static struct udpsh netsh_core;
static struct spinlock netsh_lock = SPINLOCK_INIT;
/* A ring with one consumer: the head slot stays owned by the consumer
 * until it has run, so producers never write it. */
static struct netsh_item netsh_queue[NET_UDPSH_QUEUE];
static unsigned netsh_head, netsh_count;
static struct task *netsh_task;
static uint16_t netsh_port;

void netsh_reset(void)
{
	unsigned long flags = spin_lock_irqsave(&netsh_lock);

	netsh_head = 0;
	netsh_count = 0;
	netsh_port = 0;
	spin_unlock_irqrestore(&netsh_lock, flags);
	udpsh_init(&netsh_core, NULL, NULL);
}

static int netsh_send(void *ctx, uint32_t addr, uint16_t port,
		      const char *data, size_t len)
{
	int err = udp_send(addr, netsh_port, port, data, len);

	(void)ctx;
	/* The requester's MAC can have expired between its request and our
	 * answer; on a live system wait for it once rather than lose the
	 * reply. */
	if (err == -EAGAIN && net_is_up() && net_resolve(addr, 200) == 0)
		err = udp_send(addr, netsh_port, port, data, len);
	return err;
}

static void netsh_rx(void *ctx, const struct udp_dgram *d)
{
	struct netsh_item *it;
	unsigned long flags;
	struct task *t;

	(void)ctx;
	/* Refused here, not in the shell's task, so that nobody outside the
	 * allowlist can fill the queue. */
	if (!udpsh_allowed(&netsh_core, d->src)) {
		net_count_drop(NET_DROP_UDPSH_DENIED);
		return;
	}
	flags = spin_lock_irqsave(&netsh_lock);
	if (netsh_count == NET_UDPSH_QUEUE) {
		spin_unlock_irqrestore(&netsh_lock, flags);
		net_count_drop(NET_DROP_UDPSH_BUSY);
		return;
	}
	it = &netsh_queue[(netsh_head + netsh_count) % NET_UDPSH_QUEUE];
	it->addr = d->src;
	it->port = d->sport;
	/* udp_input() bounds the payload by one frame. */
	it->len = (uint16_t)(d->len < sizeof(it->data) ? d->len : sizeof(it->data));
	kmemcpy(it->data, d->data, it->len);
	netsh_count++;
	t = netsh_task;
	spin_unlock_irqrestore(&netsh_lock, flags);
	if (t)
		sched_wake(t);
}

unsigned net_udpsh_run_queued(void)
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

		udpsh_input(&netsh_core, it->data, it->len, it->addr, it->port);
		ran++;

		flags = spin_lock_irqsave(&netsh_lock);
		netsh_head = (netsh_head + 1) % NET_UDPSH_QUEUE;
		netsh_count--;
		spin_unlock_irqrestore(&netsh_lock, flags);
	}
}

void net_udpsh_stats(struct udpsh_stats *s)
{
	s->datagrams_in = __atomic_load_n(&netsh_core.stats.datagrams_in, __ATOMIC_RELAXED);
	s->answered = __atomic_load_n(&netsh_core.stats.answered, __ATOMIC_RELAXED);
	s->dropped_allow = __atomic_load_n(&netsh_core.stats.dropped_allow, __ATOMIC_RELAXED);
	s->malformed = __atomic_load_n(&netsh_core.stats.malformed, __ATOMIC_RELAXED);
	s->send_failed = __atomic_load_n(&netsh_core.stats.send_failed, __ATOMIC_RELAXED);
}

int net_udpsh_open(void)
{
	const struct net_config *c = net_config();
	int err;

	if (!c->udpsh_port)
		return 0;
	udpsh_init(&netsh_core, netsh_send, NULL);
	/* An empty list answers nobody; the text was checked when set. */
	if (c->udpsh_allow[0] && (err = udpsh_allow_set(&netsh_core, c->udpsh_allow)) < 0)
		return err;
	netsh_port = c->udpsh_port;
	return udp_bind(c->udpsh_port, netsh_rx, NULL);
}

static void netsh_task_main(void *arg)
{
	(void)arg;
	for (;;)
		if (net_udpsh_run_queued() == 0)
			sched_block();
}

int netsh_start(void)
{
	struct task *t;
	unsigned long flags;
	int err = net_udpsh_open();

	if (err < 0 || !net_config()->udpsh_port)
		return err;
	t = task_create("udpsh", netsh_task_main, NULL, 0);
	if (!t) {
		udp_unbind(net_config()->udpsh_port);
		return -ENOMEM;
	}
	flags = spin_lock_irqsave(&netsh_lock);
	netsh_task = t;
	spin_unlock_irqrestore(&netsh_lock, flags);
	/* Anything queued before the task was known. */
	sched_wake(t);
	return 0;
}
