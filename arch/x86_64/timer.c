/* SPDX-License-Identifier: BSD-2-Clause */
/* The tick (hal/timer.h): every CPU's local APIC timer at the rate the
 * kernel chose (kernel/tick.c), the APIC
 * timer and the TSC calibrated once, on the boot CPU (the APs' timers run
 * off the same bus clock): the TSC's rate from CPUID where the CPU
 * states it, else measured against the ACPI PM timer, else the PIT;
 * hal_clock_ns() from the TSC.  The local APIC's registers are
 * lapic.c's. */
#include "hal/timer.h"

#include "kernel/console.h"
#include "lib/out.h"
#include "lib/ticks.h"
#include "x86.h"

#define PIT_HZ		1193182u
#define PM_TIMER_HZ	3579545u
#define CALIBRATE_MS	10
#define CALIBRATE_TRIES	5
/* How long a reference may stand still before it counts as absent: 2^33
 * TSC cycles, 2 s at 4 GHz, 8 s at 1 GHz. */
#define REF_TIMEOUT_TSC	(1ull << 33)
/* Measuring the APIC timer against a TSC of stated rate: the TSC in
 * units of 2^8 cycles, so that a 32-bit reading spans minutes. */
#define TSC_REF_SHIFT	8

static uint64_t tsc_hz;
static const char *calib_source = "none";
static uint64_t apic_hz;
static unsigned tick_hz;		/* hal_timer_start()'s */
static uint64_t tsc_boot;
static struct ticks_scale ns_scale;

uint64_t x86_tsc_hz(void)
{
	return tsc_hz;
}

/* The clock the TSC and the APIC timer are measured against: a counter
 * that runs at a known rate and counts up through @mask.  The PIT's
 * channel 2 (counting down from 0xffff, read inverted) was once the
 * only one; many current PCs gate the PIT off, so the ACPI PM timer
 * comes first. */
struct ref_clock {
	const char *name;
	uint64_t hz;
	uint32_t mask;
	uint16_t port;			/* the PM timer's */
	uint32_t (*read)(const struct ref_clock *rc);
};

static uint32_t pit_read(const struct ref_clock *rc)
{
	uint8_t lo, hi;

	(void)rc;
	outb(0x43, 0x80);			/* latch channel 2's count */
	lo = inb(0x42);
	hi = inb(0x42);
	return (uint16_t)~(lo | hi << 8);
}

static uint32_t pm_read(const struct ref_clock *rc)
{
	return inl(rc->port) & rc->mask;
}

/* Let PIT channel 2 count down from 0xffff (mode 0, gate on, speaker
 * off). */
static void pit_start(void)
{
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);
	outb(0x43, 0xb0);			/* ch 2, lo/hi byte, mode 0 */
	outb(0x42, 0xff);
	outb(0x42, 0xff);
}

/* One reading of the reference, the TSC and the APIC timer together.
 * The vCPU (or the CPU, under an SMI) may be stopped at any instruction:
 * the TSC read before and after bounds how long the reading took, and
 * the caller keeps the tightest of several. */
struct clock_sample {
	uint64_t tsc;		/* mid-point of the reading */
	uint64_t spread;	/* TSC cycles the reading took */
	uint32_t apic;
	uint32_t ref;
};

static void clock_sample_take(const struct ref_clock *rc, struct clock_sample *cs)
{
	uint64_t a, b;

	a = rdtsc();
	cs->ref = rc->read(rc);
	cs->apic = x86_lapic_timer_current();
	b = rdtsc();
	cs->tsc = a + (b - a) / 2;
	cs->spread = b - a;
}

static void clock_sample_best(const struct ref_clock *rc, struct clock_sample *best)
{
	clock_sample_take(rc, best);
	for (int i = 1; i < CALIBRATE_TRIES; i++) {
		struct clock_sample cs;

		clock_sample_take(rc, &cs);
		if (cs.spread < best->spread)
			*best = cs;
	}
}

/* Read the reference with the TSC and the APIC timer at both ends of a
 * window of about CALIBRATE_MS: the reference's ticks between the two
 * readings give the time that passed.  False when it did not advance
 * the window within REF_TIMEOUT_TSC cycles (a clock that is not there
 * reads the same forever). */
static bool timer_calibrate(const struct ref_clock *rc, uint64_t *tsc_hz_out,
			    uint64_t *apic_hz_out)
{
	uint32_t window = (uint32_t)(rc->hz * CALIBRATE_MS / 1000);
	struct clock_sample s0, s1;
	uint64_t ticks;

	x86_lapic_timer_count_down(0xffffffffu);
	clock_sample_best(rc, &s0);
	do {
		clock_sample_take(rc, &s1);
		if (s1.tsc - s0.tsc > REF_TIMEOUT_TSC) {
			x86_lapic_timer_count_down(0);
			return false;
		}
	} while (((s1.ref - s0.ref) & rc->mask) < window);
	clock_sample_best(rc, &s1);
	x86_lapic_timer_count_down(0);
	ticks = (s1.ref - s0.ref) & rc->mask;
	*tsc_hz_out = (s1.tsc - s0.tsc) * rc->hz / ticks;
	*apic_hz_out = (uint64_t)(s0.apic - s1.apic) * rc->hz / ticks;
	return true;
}

static uint64_t tsc_hz_cpuid(void)
{
	uint32_t l0[4], l15[4] = { 0 }, l16[4] = { 0 };

	cpuid(0, 0, l0);
	if (l0[0] >= 0x15)
		cpuid(0x15, 0, l15);
	if (l0[0] >= 0x16)
		cpuid(0x16, 0, l16);
	return x86_tsc_hz_from_cpuid(l0, l15, l16);
}

/* With the TSC's rate known, the APIC timer is measured against the TSC
 * itself: a reference that is always there. */
static uint32_t tsc_read(const struct ref_clock *rc)
{
	(void)rc;
	return (uint32_t)(rdtsc() >> TSC_REF_SHIFT);
}

/* The reference clocks in the order they are tried: the CPU's word for
 * the TSC, the ACPI PM timer, the PIT.  Each that fails says so in a
 * line; none at all is a one-line stop. */
static void timer_calibrate_any(void)
{
	struct ref_clock rc;
	uint64_t stated = tsc_hz_cpuid(), unused;
	bool bits32;

	if (stated) {
		rc = (struct ref_clock){ "cpuid", stated >> TSC_REF_SHIFT, 0xffffffffu, 0, tsc_read };
		if (timer_calibrate(&rc, &unused, &apic_hz)) {
			tsc_hz = stated;
			calib_source = "cpuid";
			return;
		}
	}
	if (x86_acpi_pm_timer(x86_boot_rsdp(), &rc.port, &bits32)) {
		rc.name = "acpi pm timer";
		rc.hz = PM_TIMER_HZ;
		rc.mask = bits32 ? 0xffffffffu : 0xffffffu;
		rc.read = pm_read;
		if (timer_calibrate(&rc, &tsc_hz, &apic_hz)) {
			calib_source = rc.name;
			return;
		}
		out_printf(&out_console, "timer: the ACPI PM timer at port 0x%x does not count; trying the PIT\n",
			   rc.port);
	}
	pit_start();
	rc = (struct ref_clock){ "pit", PIT_HZ, 0xffff, 0, pit_read };
	if (timer_calibrate(&rc, &tsc_hz, &apic_hz)) {
		calib_source = rc.name;
		return;
	}
	out_puts(&out_console, "timer: no clock to calibrate the TSC against (CPUID 0x15/0x16, ACPI PM timer, PIT); stopping\n");
	x86_cpu_park();
}

const char *x86_timer_calibrated_by(void)
{
	return calib_source;
}

/* Periodic from here on; delivered once interrupts are enabled. */
static void lapic_timer_start(void)
{
	x86_lapic_timer_periodic((uint32_t)(apic_hz / tick_hz));
}

void hal_timer_init(void)
{
	/* LINT1 carries the platform's NMI (QEMU's `nmi` monitor command,
	 * a board's NMI button): unmasked, delivered as NMI, on the boot
	 * CPU only, so that one NMI makes one report. */
	x86_lapic_enable(X86_LVT_NMI);
	timer_calibrate_any();
	ticks_scale_init(&ns_scale, tsc_hz);
	tsc_boot = rdtsc();
}

/* The APs start theirs (x86_timer_init_ap) after this, at the same
 * rate: they are started after the command line is read. */
void hal_timer_start(unsigned hz)
{
	tick_hz = hz;
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

/* A CPU answers on its next tick, within two on real hardware.  Under
 * QEMU's TCG every vCPU is a host thread, and on a loaded 2-core host one
 * was seen to miss a 20 ms wait, and at a load of 11-12 a 200 ms one (a
 * CPU left out of a 4-CPU profile), so the bound is a second, in time
 * whatever the tick's rate: it is the host's scheduling that it waits
 * out.  The wait ends as soon as every CPU answered, and only a CPU that
 * really stopped costs the whole of it. */
void hal_timer_info(struct hal_timer_info *info)
{
	info->name = "tick";
	info->default_hz = 100;
	info->answer_ns = 1000000000ull;
	info->irq = X86_VEC_TIMER;
}

uint64_t hal_clock_ns(void)
{
	uint64_t d = rdtsc() - tsc_boot;

	return ticks_to_ns(&ns_scale, d);
}
