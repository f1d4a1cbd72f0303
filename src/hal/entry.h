/* The few entry points a platform calls into the portable kernel. */
#ifndef KPROF_HAL_ENTRY_H
#define KPROF_HAL_ENTRY_H

#include <stdbool.h>
#include <stddef.h>

struct trap_frame;

/* The boot CPU, once the platform's own set-up is done: memory, console
 * and the tick are ready but the tick is not yet delivered.  @cmdline is
 * the kernel command line (key=value words), never NULL.  Never returns. */
void kernel_main(const char *cmdline) __attribute__((noreturn));

/* Every other CPU, once kernel_main() has published the scheduler
 * (kernel_cpus_ready() is true).  Never returns: it becomes that CPU's
 * idle task. */
void kernel_ap_main(void) __attribute__((noreturn));

/* The per-CPU tick, HZ times a second, in the timer interrupt with
 * interrupts masked.  May switch tasks (preemption) before returning. */
void kernel_tick(struct trap_frame *tf);

/* The profiler's counter interrupt (NMI on x86, the overflow signal in the
 * simulator).  Returns true when the profiler claimed it; on false the
 * platform takes its genuine-NMI path.  Never switches tasks. */
bool kernel_nmi(struct trap_frame *tf);

/* One received Ethernet frame, task context (hal/netdev.h). */
void net_rx(const void *frame, size_t len);

#endif
