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

	(void)arg;
	for (;;) {
		unsigned n = 0;
		size_t len;

		while ((len = sim_netdev_recv(frame, sizeof(frame))) > 0) {
			net_rx(frame, len < sizeof(frame) ? len : sizeof(frame));
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
