/* SPDX-License-Identifier: BSD-2-Clause */
/* Console ownership: which CPU may write now.  A platform's console
 * (hal/console.h) only moves bytes; the rules that let a panic get
 * through live here, once for every platform. */
#include "kernel/console.h"

#include <stdbool.h>

#include "hal/console.h"
#include "hal/cpu.h"
#include "lib/out.h"

/* Who holds the console: -1 when free, else the CPU id.  A panic must get
 * through even if the code it interrupted held it: a holder on the same
 * CPU (we are nested inside it) is ignored, a holder on another CPU is
 * waited for, bounded, and then ignored. */
static int console_owner = -1;
#define CONSOLE_WAIT_SPINS 10000000

/* Interrupts stay masked only while one line (at most CONSOLE_CHUNK
 * bytes) goes out: on a real 115200-baud line a long report would
 * otherwise hold the tick off for hundreds of milliseconds. */
#define CONSOLE_CHUNK 80

/* Returns true when this call took the console (and must release it). */
static bool console_take(void)
{
	int me = (int)hal_cpu_id();

	for (long spins = 0;; spins++) {
		int expected = -1;

		if (__atomic_compare_exchange_n(&console_owner, &expected, me,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
		if (expected == me || spins >= CONSOLE_WAIT_SPINS)
			return false;
		hal_cpu_relax();
	}
}

static size_t console_line_len(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && i < CONSOLE_CHUNK)
		if (buf[i++] == '\n')
			break;
	return i;
}

/* One line (or CONSOLE_CHUNK bytes of one) to the device, its LF as CR
 * LF where the far end is a terminal, once here for every UART. */
static void console_put_line(const char *buf, size_t n)
{
	struct hal_console_info ci;

	hal_console_info(&ci);
	if (!ci.crlf || buf[n - 1] != '\n') {
		hal_console_write(buf, n);
		return;
	}
	hal_console_write(buf, n - 1);
	hal_console_write("\r\n", 2);
}

static size_t console_write_chunk(const char *buf, size_t len)
{
	unsigned long flags = hal_irq_save();
	bool took = console_take();
	size_t n = console_line_len(buf, len);

	console_put_line(buf, n);
	if (took)
		__atomic_store_n(&console_owner, -1, __ATOMIC_RELEASE);
	hal_irq_restore(flags);
	return n;
}

void console_write(const char *buf, size_t len)
{
	while (len) {
		size_t n = console_write_chunk(buf, len);

		buf += n;
		len -= n;
	}
}

void console_break(void)
{
	int me = (int)hal_cpu_id();
	int owner = __atomic_load_n(&console_owner, __ATOMIC_ACQUIRE);

	if (owner >= 0 && owner != me)
		__atomic_store_n(&console_owner, -1, __ATOMIC_RELEASE);
}

bool console_wants_echo(void)
{
	struct hal_console_info ci;

	hal_console_info(&ci);
	return ci.echo;
}

static void out_console_write(struct out *o, const char *s, size_t n)
{
	(void)o;
	console_write(s, n);
}

struct out out_console = { .write = out_console_write };
