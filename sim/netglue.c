/* ksim's network device, kernel side: the task that hands received
 * frames to the stack.  Like sim/kglue.c it includes the kernel's headers
 * and no libc header. */
#include "hal/entry.h"
#include "kernel/kernel.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "sim/netdev.h"

/* Bigger than any frame: a longer datagram arrives cut to this, which is
 * still over the Ethernet limit, so net_rx() counts it as oversize. */
#define SIM_NET_BUF 2048

/* Frames handled before letting the CPU's other tasks run. */
#define SIM_NET_BATCH 64

static void sim_net_task(void *arg)
{
	static unsigned char frame[SIM_NET_BUF];
	uint32_t overflowed = 0, counted = 0;

	(void)arg;
	for (;;) {
		unsigned n = 0;
		long len;

		while ((len = sim_netdev_recv(frame, sizeof(frame), &overflowed)) >= 0) {
			if (overflowed != counted) {
				net_rx_lost(NET_RX_LOST_OVERFLOW, (uint32_t)(overflowed - counted));
				counted = overflowed;
			}
			net_rx(frame, (size_t)len < sizeof(frame) ? (size_t)len : sizeof(frame));
			if (++n % SIM_NET_BATCH == 0)
				sched_yield_cpu();
		}
		/* Nothing waiting: look again at the next tick. */
		sched_sleep_ms(1);
	}
}

void sim_netdev_start_task(void)
{
	if (!task_create("netrx", sim_net_task, NULL, 0))
		panic("ksim: cannot start the network receive task");
}
