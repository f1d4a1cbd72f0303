/* SPDX-License-Identifier: BSD-2-Clause */
/* The tick (hal/timer.h): each CPU's generic virtual timer (PPI 27) at
 * the rate the kernel chose (kernel/tick.c), its compare value stepped by one period per tick so the rate does
 * not drift; hal_clock_ns() from the virtual counter, whose rate is
 * CNTFRQ_EL0's (read, never assumed: 62.5 MHz on QEMU 7.2's virt). */
#include "hal/timer.h"

#include "hal/entry.h"
#include "a64.h"
#include "lib/ticks.h"

#define CNTV_CTL_ENABLE	1u

static uint64_t timer_hz;
static uint64_t timer_period;
static uint64_t count_boot;
static struct ticks_scale ns_scale;

uint64_t a64_timer_hz(void)
{
	return timer_hz;
}

static uint64_t counter(void)
{
	isb();
	return A64_SYSREG_READ(cntvct_el0);
}

void a64_timer_start_cpu(void)
{
	/* The generic timer's output is a level (the architecture). */
	a64_gic_enable_ppi(A64_PPI_VTIMER, false);
	A64_SYSREG_WRITE(cntv_cval_el0, counter() + timer_period);
	A64_SYSREG_WRITE(cntv_ctl_el0, CNTV_CTL_ENABLE);
	isb();
}

void hal_timer_init(void)
{
	timer_hz = A64_SYSREG_READ(cntfrq_el0) & 0xffffffffu;
	if (!timer_hz)
		timer_hz = 62500000;	/* firmware left it unset */
	ticks_scale_init(&ns_scale, timer_hz);
	count_boot = counter();
}

/* The secondaries start theirs (a64_timer_start_cpu) after this, at the
 * same period: they are started after the command line is read. */
void hal_timer_start(unsigned hz)
{
	timer_period = timer_hz / hz;
	a64_timer_start_cpu();
}

/* As on x86: a second, for TCG vCPUs on a loaded host, in time whatever
 * the rate; the wait ends as soon as every CPU answered. */
void hal_timer_info(struct hal_timer_info *info)
{
	info->name = "tick";
	info->default_hz = 100;
	info->answer_ns = 1000000000ull;
	info->irq = A64_PPI_VTIMER;
}

/* The next compare value one period on; when ticks were missed (a vCPU
 * left unscheduled) it starts again from now rather than firing a burst.
 * The timer's line is level: rearmed before the EOI, it drops. */
void a64_timer_irq(struct trap_frame *tf)
{
	uint64_t next = A64_SYSREG_READ(cntv_cval_el0) + timer_period;
	uint64_t now = counter();

	if ((int64_t)(next - now) <= 0)
		next = now + timer_period;
	A64_SYSREG_WRITE(cntv_cval_el0, next);
	isb();
}

uint64_t hal_clock_ns(void)
{
	uint64_t d = counter() - count_boot;

	return ticks_to_ns(&ns_scale, d);
}

void a64_delay_us(uint64_t us)
{
	uint64_t start = counter(), n = timer_hz / 1000000 * us;

	while (counter() - start < n)
		__asm__ volatile("yield");
}
