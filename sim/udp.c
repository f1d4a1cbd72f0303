/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's transport in ksim: a socket on 127.0.0.1, read by a
 * thread outside the CPUs into a queue that a kernel task on CPU 0
 * drains (sim/kglue.c), answering with sendto(). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim.h"

#define SIM_UDP_SLOTS 64	/* a power of two */

static int sim_udp_fd = -1;
static unsigned sim_udp_bound_port;
static struct sim_dgram sim_udp_q[SIM_UDP_SLOTS];
static unsigned sim_udp_head, sim_udp_tail;
/* Datagrams lost before the shell saw them: the ring was full, or the
 * socket's own queue was (SO_RXQ_OVFL, learnt with the next datagram). */
static uint64_t sim_udp_ring_full;
static uint32_t sim_udp_overflowed;

/* Only loopback sources reach the shell here (the socket is bound to
 * 127.0.0.1 as well: this is the second fence). */
static bool sim_udp_allowed(uint32_t addr)
{
	return (addr >> 24) == 127;
}

static void sim_udp_push(const struct sockaddr_in *from, const char *buf, size_t n)
{
	unsigned head = sim_udp_head;
	struct sim_dgram *d;

	if (head - __atomic_load_n(&sim_udp_tail, __ATOMIC_ACQUIRE) == SIM_UDP_SLOTS) {
		/* The shell is behind: drop, as a NIC would, and count it. */
		__atomic_fetch_add(&sim_udp_ring_full, 1, __ATOMIC_RELAXED);
		return;
	}
	d = &sim_udp_q[head % SIM_UDP_SLOTS];
	d->addr = ntohl(from->sin_addr.s_addr);
	d->port = ntohs(from->sin_port);
	d->size = (uint32_t)n;
	if (n > sizeof(d->data))
		n = sizeof(d->data);	/* cut: the shell answers with the size */
	d->len = (uint16_t)n;
	memcpy(d->data, buf, n);
	__atomic_store_n(&sim_udp_head, head + 1, __ATOMIC_RELEASE);
}

/* recvfrom() that also reads the socket's drop count off the datagram. */
static ssize_t sim_udp_recv(char *buf, size_t size, struct sockaddr_in *from,
			    socklen_t *flen)
{
	unsigned len = *flen;
	/* Kept unless the datagram carries a newer count. */
	uint32_t v = (uint32_t)__atomic_load_n(&sim_udp_overflowed, __ATOMIC_RELAXED);
	long n = sim_recv_counting_drops(sim_udp_fd, buf, size, 0, from, &len, &v);

	if (n < 0)
		return -1;
	*flen = len;
	__atomic_store_n(&sim_udp_overflowed, v, __ATOMIC_RELAXED);
	return n;
}

void sim_udp_losses(uint64_t *ring_full, uint64_t *overflowed)
{
	*ring_full = __atomic_load_n(&sim_udp_ring_full, __ATOMIC_RELAXED);
	*overflowed = __atomic_load_n(&sim_udp_overflowed, __ATOMIC_RELAXED);
}

static void *sim_udp_reader(void *arg)
{
	char buf[sizeof(((struct sim_dgram *)0)->data)];

	(void)arg;
	for (;;) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		ssize_t n = sim_udp_recv(buf, sizeof(buf), &from, &flen);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			perror("ksim: udp recvmsg");
			return NULL;
		}
		if (flen < sizeof(from) || from.sin_family != AF_INET ||
		    !sim_udp_allowed(ntohl(from.sin_addr.s_addr)))
			continue;
		/* With MSG_TRUNC, n is the datagram's real size, which may
		 * exceed what buf holds: the push keeps both. */
		sim_udp_push(&from, buf, (size_t)n);
	}
}

bool sim_udp_pop(struct sim_dgram *d)
{
	unsigned tail = sim_udp_tail;

	if (__atomic_load_n(&sim_udp_head, __ATOMIC_ACQUIRE) == tail)
		return false;
	*d = sim_udp_q[tail % SIM_UDP_SLOTS];
	__atomic_store_n(&sim_udp_tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

int sim_udp_reply(uint32_t addr, uint16_t port, const void *buf, size_t len)
{
	struct sockaddr_in to;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(addr);
	to.sin_port = htons(port);
	for (;;) {
		if (sendto(sim_udp_fd, buf, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

unsigned ksim_udp_port(void)
{
	return sim_udp_bound_port;
}

int sim_udp_init(void)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	pthread_t t;

	sim_udp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sim_udp_fd < 0) {
		perror("ksim: udp socket");
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)sim_config.udp_port);
	if (bind(sim_udp_fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(sim_udp_fd, (struct sockaddr *)&a, &alen) != 0) {
		fprintf(stderr, "ksim: udp port %d: %s\n", sim_config.udp_port,
			strerror(errno));
		close(sim_udp_fd);
		sim_udp_fd = -1;
		return -1;
	}
	sim_udp_bound_port = ntohs(a.sin_port);
	setsockopt(sim_udp_fd, SOL_SOCKET, SO_RXQ_OVFL, &(int){ 1 }, sizeof(int));
	if (pthread_create(&t, NULL, sim_udp_reader, NULL) != 0) {
		perror("ksim: udp thread");
		return -1;
	}
	pthread_detach(t);
	return 0;
}
