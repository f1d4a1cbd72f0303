/* SPDX-License-Identifier: BSD-2-Clause */
/* The tick (hal/timer.h): every CPU's local APIC timer at HZ, the APIC
 * timer and the TSC calibrated once, on the boot CPU, against the PIT
 * (the APs' timers run off the same bus clock); hal_clock_ns() from the
 * TSC.  The local APIC's registers are lapic.c's. */
#include "hal/timer.h"

#include "lib/ticks.h"
#include "x86.h"

#define PIT_HZ		1193182u
#define CALIBRATE_MS	10
#define CALIBRATE_TRIES	5

static uint64_t tsc_hz;
static uint64_t apic_hz;
static uint64_t tsc_boot;
static struct ticks_scale ns_scale;

uint64_t x86_tsc_hz(void)
{
	return tsc_hz;
}

/* One reading of PIT channel 2's count, the TSC and the APIC timer
 * together.  The vCPU (or the CPU, under an SMI) may be stopped at any
 * instruction: the TSC read before and after bounds how long the reading
 * took, and the caller keeps the tightest of several. */
struct clock_sample {
	uint64_t tsc;		/* mid-point of the reading */
	uint64_t spread;	/* TSC cycles the reading took */
	uint32_t apic;
	uint16_t pit;
};

static void clock_sample_take(struct clock_sample *cs)
{
	uint64_t a, b;
	uint8_t lo, hi;

	a = rdtsc();
	outb(0x43, 0x80);			/* latch channel 2's count */
	lo = inb(0x42);
	hi = inb(0x42);
	cs->apic = x86_lapic_timer_current();
	b = rdtsc();
	cs->pit = (uint16_t)(lo | hi << 8);
	cs->tsc = a + (b - a) / 2;
	cs->spread = b - a;
}

static void clock_sample_best(struct clock_sample *best)
{
	clock_sample_take(best);
	for (int i = 1; i < CALIBRATE_TRIES; i++) {
		struct clock_sample cs;

		clock_sample_take(&cs);
		if (cs.spread < best->spread)
			*best = cs;
	}
}

/* Let PIT channel 2 count down from 0xffff (mode 0, gate on, speaker
 * off) and read it with the TSC and the APIC timer at both ends of a
 * window of about CALIBRATE_MS.  The PIT runs at PIT_HZ exactly, so the
 * PIT ticks between the two readings give the time that passed. */
static void timer_calibrate(uint64_t *tsc_hz_out, uint64_t *apic_hz_out)
{
	uint16_t window = PIT_HZ * CALIBRATE_MS / 1000;
	struct clock_sample s0, s1;
	uint64_t pit_ticks;

	outb(0x61, (inb(0x61) & ~0x02) | 0x01);
	outb(0x43, 0xb0);			/* ch 2, lo/hi byte, mode 0 */
	outb(0x42, 0xff);
	outb(0x42, 0xff);
	x86_lapic_timer_count_down(0xffffffffu);
	clock_sample_best(&s0);
	do
		clock_sample_take(&s1);
	while ((uint16_t)(s0.pit - s1.pit) < window);
	clock_sample_best(&s1);
	x86_lapic_timer_count_down(0);
	pit_ticks = (uint16_t)(s0.pit - s1.pit);
	*tsc_hz_out = (s1.tsc - s0.tsc) * PIT_HZ / pit_ticks;
	*apic_hz_out = (uint64_t)(s0.apic - s1.apic) * PIT_HZ / pit_ticks;
}

/* Periodic from here on; delivered once interrupts are enabled. */
static void lapic_timer_start(void)
{
	x86_lapic_timer_periodic((uint32_t)(apic_hz / HZ));
}

void hal_timer_init(void)
{
	/* LINT1 carries the platform's NMI (QEMU's `nmi` monitor command,
	 * a board's NMI button): unmasked, delivered as NMI, on the boot
	 * CPU only, so that one NMI makes one report. */
	x86_lapic_enable(X86_LVT_NMI);
	timer_calibrate(&tsc_hz, &apic_hz);
	ticks_scale_init(&ns_scale, tsc_hz);
	tsc_boot = rdtsc();
	lapic_timer_start();
}

void x86_timer_init_ap(void)
{
	x86_lapic_enable(X86_LVT_MASKED);
	lapic_timer_start();
}

void x86_delay_us(uint64_t us)
{
	uint64_t start = rdtsc(), cycles = tsc_hz / 1000000 * us;

	while (rdtsc() - start < cycles)
		__asm__ volatile("pause");
}

_Static_assert(HZ == 100, "the tick source name below states the rate");

const char *hal_timer_tick_source(void)
{
	return "tick 100hz";
}

unsigned hal_timer_hz(void)
{
	return HZ;
}

/* A CPU answers on its next tick, within two on real hardware.  Under
 * QEMU's TCG every vCPU is a host thread, and on a loaded 2-core host one
 * was seen to miss a 20 ms wait (a CPU left out of a 4-CPU profile), so
 * the bound is twenty ticks: the wait ends as soon as every CPU answered,
 * and only a CPU that really stopped costs the whole of it. */
uint64_t hal_timer_answer_ns(void)
{
	return 20 * (1000000000ull / HZ);
}

uint64_t hal_clock_ns(void)
{
	uint64_t d = rdtsc() - tsc_boot;

	return ticks_to_ns(&ns_scale, d);
}
