/* SPDX-License-Identifier: BSD-2-Clause */
/* The Check suites' shared helpers that need only libc (testlib.h): a
 * suite that runs ksim as a process links these and no kernel code. */
#include "testlib.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int tl_loopback_socket(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static int ephemeral_low(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	int low = 32768;

	if (f) {
		if (fscanf(f, "%d", &low) != 1)
			low = 32768;
		fclose(f);
	}
	return low;
}

static bool port_is_free(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ok;

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* Seeded from the pid and the clock, not random()'s fixed seed: two
 * suites started together must not walk the same ports in the same order
 * (Check forks each test, so the pid tells a new process). */
static uint64_t port_random(void)
{
	static uint64_t x;
	static pid_t owner;
	struct timespec ts;

	if (owner != getpid()) {
		owner = getpid();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = ((uint64_t)owner << 32) ^ (uint64_t)ts.tv_nsec ^ 0x9e3779b97f4a7c15ull;
	}
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* Below the ephemeral range: a port from it can go to any process's
 * unbound socket (another suite's exchange sends from one) between this
 * check and the child's bind, and the child then fails to start.  Random,
 * so that suites run side by side rarely try the same one; a port handed
 * out before in this process is never handed out again. */
int tl_free_port(void)
{
	static int given[64];
	static unsigned int ngiven;
	int low = ephemeral_low(), first = low - 12000 > 1024 ? low - 12000 : 1024;

	for (int tries = 0; tries < 200 && low > first; tries++) {
		int port = first + (int)(port_random() % (uint64_t)(low - first));
		bool seen = false;

		for (unsigned int i = 0; i < ngiven && i < 64; i++)
			seen |= given[i] == port;
		if (seen || !port_is_free(port))
			continue;
		given[ngiven++ % 64] = port;
		return port;
	}
	ck_abort_msg("no free UDP port on 127.0.0.1 in %d..%d", first, low - 1);
	return -1;
}

long long tl_number_after(const char *text, const char *prefix)
{
	const char *p = strstr(text, prefix);

	return p ? strtoll(p + strlen(prefix), NULL, 10) : -1;
}

uint64_t tl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void tl_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}
