/* SPDX-License-Identifier: BSD-2-Clause */
/* The stack's receive loop: one task polls the device (hal/netdev.h's
 * struct netdev_rx) and bounds the work of each call, so that every
 * device, the simulator's and virtio-net alike, feeds net_rx() through
 * this one loop. */
#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/netdev.h"
#include "kernel/kernel.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "net/internal.h"

/* Frames one poll may hand over before the loop lets the CPU's other
 * tasks run. */
#define NET_RX_BUDGET 64

static const struct netdev_sink net_sink = {
	.deliver = net_rx,
	.lost = net_rx_lost,
};

static struct task *net_rx_task;

/* Poll; a full budget means more may be waiting, so yield and poll
 * again.  Less means the device is idle with its interrupt back on:
 * sleep until it fires (a wake that came meanwhile makes sched_block()
 * return at once), or until the next tick for a device without one. */
static void net_rx_loop(void *arg)
{
	const struct netdev_rx *rx = arg;

	for (;;) {
		if (rx->poll(rx->dev, NET_RX_BUDGET, &net_sink) == NET_RX_BUDGET)
			sched_yield_cpu();
		else if (rx->irq)
			sched_block();
		else
			sched_sleep_ms(1);
	}
}

void net_rx_wake(void)
{
	struct task *t = __atomic_load_n(&net_rx_task, __ATOMIC_ACQUIRE);

	if (t)
		sched_wake(t);
}

void net_rx_start(const struct netdev_rx *rx)
{
	struct task *t;

	if (!rx)
		return;
	/* On this CPU, the one whose interrupt the platform routed. */
	t = task_create("netrx", net_rx_loop, (void *)rx, hal_cpu_id());
	if (!t)
		panic("net: cannot start the receive task");
	__atomic_store_n(&net_rx_task, t, __ATOMIC_RELEASE);
}
