/* SPDX-License-Identifier: BSD-2-Clause */
/* The tick's rate, once for every platform (kernel/tick.h). */
#include "kernel/tick.h"

#include "hal/timer.h"
#include "kernel/cmdline.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/out.h"
#include "lib/parse.h"

static unsigned tick_asked;		/* tick.hz=; 0: the platform's default */
static unsigned tick_rate;		/* set once by tick_start() */
static char tick_source_name[32];

static unsigned tick_default_hz(void)
{
	struct hal_timer_info ti;

	hal_timer_info(&ti);
	return ti.default_hz;
}

/* tick.hz=N, N in TICK_HZ_MIN..TICK_HZ_MAX: faster than 100 Hz gives the
 * tick, where it is the profiler's only source (x86 under QEMU), more
 * samples per window; past 1 kHz the tick's own cost starts to show in
 * what it measures. */
static int tick_key_hz(const char *value, size_t len, struct out *err)
{
	char text[24];
	uint64_t hz = 0;

	if (!cmdline_value_copy(text, sizeof(text), value, len) ||
	    parse_u64(text, &hz) < 0 || hz < TICK_HZ_MIN || hz > TICK_HZ_MAX) {
		out_printf(err, "cmdline: tick.hz= must be %u-%u (got '%.*s'); the tick stays at %u Hz\n",
			   TICK_HZ_MIN, TICK_HZ_MAX, (int)len, value, tick_default_hz());
		return -EINVAL;
	}
	tick_asked = (unsigned)hz;
	return 0;
}

CMDLINE_KEY(tick_key_hz_entry, .name = "tick.hz", .set = tick_key_hz,
	    .help = "100-1000  the tick's rate per cpu, in Hz (default 100)");

static void tick_name_rate(unsigned hz)
{
	struct hal_timer_info ti;

	hal_timer_info(&ti);
	ksnprintf(tick_source_name, sizeof(tick_source_name), "%s %uhz", ti.name, hz);
}

void tick_start(void)
{
	tick_rate = tick_asked ? tick_asked : tick_default_hz();
	tick_name_rate(tick_rate);
	hal_timer_start(tick_rate);
}

unsigned tick_hz(void)
{
	return tick_rate ? tick_rate : tick_default_hz();
}

/* Before tick_start() only a test asks (with the fake platform): it is
 * named at the default rate then. */
const char *tick_source(void)
{
	if (!tick_rate)
		tick_name_rate(tick_default_hz());
	return tick_source_name;
}

uint64_t tick_answer_ns(void)
{
	struct hal_timer_info ti;

	hal_timer_info(&ti);
	return ti.answer_ns;
}
