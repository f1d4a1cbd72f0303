/* SPDX-License-Identifier: BSD-2-Clause */
/* The console shell: bytes from hal_console_getc(), output to the console. */
#include "shell/shell.h"

#include <stdint.h>

#include "hal/console.h"
#include "kernel/console.h"
#include "kernel/sched.h"
#include "lib/out.h"

/* How long the console task sleeps when no byte is waiting: short enough
 * that typing feels immediate, long enough that an idle shell costs
 * nothing measurable in a profile. */
#define SHELL_CONSOLE_POLL_MS 10

void shell_console_init(struct shell_console *con, struct out *out, bool echo)
{
	shell_input_init(&con->in, echo);
	con->sh.out = out;
	con->sh.remote = false;
	out_puts(out, SHELL_PROMPT);
}

static unsigned shell_console_failed;

unsigned shell_console_failures(void)
{
	return __atomic_load_n(&shell_console_failed, __ATOMIC_ACQUIRE);
}

/* Published before the console polls again, so whoever ends a script from
 * inside hal_console_getc() sees every line that ran. */
static void shell_console_publish(struct shell_console *con)
{
	__atomic_store_n(&shell_console_failed, con->in.failed, __ATOMIC_RELEASE);
}

size_t shell_console_poll(struct shell_console *con)
{
	char chunk[64];
	size_t taken = 0, n = 0;
	int c;

	/* Feed in chunks so a pasted line is not echoed a byte at a time. */
	while ((c = hal_console_getc()) >= 0) {
		chunk[n++] = (char)c;
		if (n == sizeof(chunk)) {
			shell_input_feed(&con->in, &con->sh, chunk, n);
			shell_console_publish(con);
			taken += n;
			n = 0;
		}
	}
	if (n) {
		shell_input_feed(&con->in, &con->sh, chunk, n);
		shell_console_publish(con);
	}
	return taken + n;
}

void shell_console_task(void *arg)
{
	struct shell_console con;

	shell_console_init(&con, &out_console, (uintptr_t)arg != 0);
	for (;;)
		if (!shell_console_poll(&con))
			sched_sleep_ms(SHELL_CONSOLE_POLL_MS);
}
