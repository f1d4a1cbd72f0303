/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/console.h for ksim.  Output goes straight to the output descriptor
 * with write(2), which any context may call.  Input arrives in a ring
 * from outside the CPUs (the stdin reader thread, ksim_console_feed(),
 * or the -c commands) and the console shell task polls it.
 *
 * The shell polls only when it is ready for more: so when it finds the
 * ring empty twice in a row after taking the last byte, every line given
 * to it has run and it is waiting for input again.  That is when the
 * next -c command is fed, and when a script's end ends the machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hal/console.h"
#include "shell/shell.h"
#include "sim/sim.h"

#define SIM_CONSOLE_RING 65536		/* a power of two */

static struct {
	char buf[SIM_CONSOLE_RING];
	unsigned head;			/* written by the producer */
	unsigned tail;			/* written by the shell task */
	pthread_mutex_t producers;	/* one producer at a time */
	bool eof;			/* the input has ended */
	unsigned empty_polls;		/* getc found nothing, since the last byte */
	unsigned next_command;		/* -c commands fed so far */
	bool ended;
} sim_in = { .producers = PTHREAD_MUTEX_INITIALIZER };

/* write(2) all of @buf to @fd, retrying on EINTR and short writes. */
static void sim_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;		/* nowhere to write: drop, never hang */
		p += n;
		len -= (size_t)n;
	}
}

void hal_console_write(const char *buf, size_t len)
{
	sim_write_all(sim_config.out_fd, buf, len);
}

/* Producer side, outside the CPUs: waits (politely) while the ring is
 * full, since the shell drains it as it runs the lines. */
static void sim_in_push(const char *bytes, size_t n)
{
	struct timespec pause_ts = { 0, 1000000 };

	pthread_mutex_lock(&sim_in.producers);
	while (n > 0) {
		unsigned head = sim_in.head;
		unsigned room = SIM_CONSOLE_RING -
				(head - __atomic_load_n(&sim_in.tail, __ATOMIC_ACQUIRE));

		if (room == 0) {
			nanosleep(&pause_ts, NULL);
			continue;
		}
		while (room > 0 && n > 0) {
			sim_in.buf[head % SIM_CONSOLE_RING] = *bytes++;
			head++;
			room--;
			n--;
		}
		__atomic_store_n(&sim_in.head, head, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sim_in.producers);
}

void ksim_console_feed(const char *bytes, size_t n)
{
	sim_in_push(bytes, n);
}

/* Called by the shell task only (the one consumer). */
static int sim_in_pop(void)
{
	unsigned tail = sim_in.tail;
	int c;

	if (__atomic_load_n(&sim_in.head, __ATOMIC_ACQUIRE) == tail)
		return -1;
	c = (unsigned char)sim_in.buf[tail % SIM_CONSOLE_RING];
	__atomic_store_n(&sim_in.tail, tail + 1, __ATOMIC_RELEASE);
	return c;
}

/* Task context on the shell's CPU: the -c feeding and the script's end
 * happen here, where "the shell is waiting for input" is known. */
static void sim_console_idle_poll(void)
{
	bool scripted = sim_config.ncommands > 0;

	if (sim_in.ended || ++sim_in.empty_polls < 2)
		return;
	if (scripted && sim_in.next_command < sim_config.ncommands) {
		const char *cmd = sim_config.commands[sim_in.next_command++];

		/* The script shows what it typed, as a terminal would. */
		hal_console_write(cmd, strlen(cmd));
		hal_console_write("\n", 1);
		sim_in_push(cmd, strlen(cmd));
		sim_in_push("\n", 1);
		sim_in.empty_polls = 0;
		return;
	}
	if (scripted || (sim_config.exit_on_eof &&
			 __atomic_load_n(&sim_in.eof, __ATOMIC_ACQUIRE))) {
		sim_in.ended = true;
		/* A script whose command failed must not read as success. */
		sim_machine_exit(scripted && shell_console_failures() ? 1 : 0);
	}
}

int hal_console_getc(void)
{
	int c = sim_in_pop();

	if (c >= 0) {
		sim_in.empty_polls = 0;
		return c;
	}
	sim_console_idle_poll();
	return -1;
}

static void *sim_console_reader(void *arg)
{
	char buf[4096];

	(void)arg;
	for (;;) {
		ssize_t n = read(sim_config.in_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sim_in_push(buf, (size_t)n);
	}
	__atomic_store_n(&sim_in.eof, true, __ATOMIC_RELEASE);
	return NULL;
}

void sim_console_init(void)
{
	pthread_t t;

	if (sim_config.in_fd < 0 || sim_config.ncommands > 0)
		return;
	if (pthread_create(&t, NULL, sim_console_reader, NULL) != 0) {
		perror("ksim: console reader thread");
		exit(1);
	}
	pthread_detach(t);
}

/* The host's terminal echoes what is typed on stdin (-c commands are
 * shown by sim_console_idle_poll() itself), and a pipe or a terminal in
 * its usual mode starts a line on LF. */
void hal_console_info(struct hal_console_info *info)
{
	info->echo = false;
	info->crlf = false;
}
