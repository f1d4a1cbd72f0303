/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim's network device, host side: the socket.  See sim/netdev.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hal/netdev.h"
#include "lib/errno.h"
#include "sim/netdev.h"
#include "sim/sim.h"

static int sim_net_fd = -1;
static struct sockaddr_in sim_net_peer;

static struct sockaddr_in sim_net_loopback(unsigned port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	return a;
}

int sim_netdev_init(void)
{
	struct sockaddr_in local;
	int size = 4 << 20;

	if (!sim_config.net_port)
		return 0;
	sim_net_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sim_net_fd < 0) {
		perror("ksim: --net: socket");
		return -1;
	}
	/* A deep receive queue: frames wait there until the receive task's
	 * next turn (a tick at most). */
	setsockopt(sim_net_fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* Frames the queue had no room for are counted, not silently lost:
	 * each datagram taken carries the socket's drop count. */
	setsockopt(sim_net_fd, SOL_SOCKET, SO_RXQ_OVFL, &(int){ 1 }, sizeof(int));
	local = sim_net_loopback((unsigned)sim_config.net_port);
	if (bind(sim_net_fd, (struct sockaddr *)&local, sizeof(local)) != 0) {
		fprintf(stderr, "ksim: --net: cannot bind 127.0.0.1:%d: %s\n",
			sim_config.net_port, strerror(errno));
		close(sim_net_fd);
		sim_net_fd = -1;
		return -1;
	}
	sim_net_peer = sim_net_loopback((unsigned)sim_config.net_peer_port);
	return 0;
}

bool hal_netdev_present(void)
{
	return sim_net_fd >= 0;
}

/* Locally administered, unicast, and different for every local port, so
 * that two ksims on one host never share a MAC. */
void hal_netdev_mac(uint8_t mac[6])
{
	unsigned port = (unsigned)sim_config.net_port;

	mac[0] = 0x52;
	mac[1] = 0x54;
	mac[2] = 0x00;
	mac[3] = 0x6b;
	mac[4] = (uint8_t)(port >> 8);
	mac[5] = (uint8_t)port;
}

int hal_netdev_send(const void *frame, size_t len)
{
	if (sim_net_fd < 0)
		return -EIO;
	for (;;) {
		ssize_t n = sendto(sim_net_fd, frame, len, MSG_DONTWAIT,
				   (const struct sockaddr *)&sim_net_peer,
				   sizeof(sim_net_peer));

		if (n >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		/* A full socket buffer is a busy device; anything else (the
		 * peer's port closed, say) a failed send. */
		return errno == EAGAIN || errno == ENOBUFS ? -EAGAIN : -EIO;
	}
}

long sim_recv_counting_drops(int fd, void *buf, size_t size, int flags,
			     void *from, unsigned *fromlen, uint32_t *overflowed)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(uint32_t))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr m = {
		.msg_name = from, .msg_namelen = from ? *fromlen : 0,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = &ctl, .msg_controllen = sizeof(ctl),
	};
	ssize_t n = recvmsg(fd, &m, flags | MSG_TRUNC);

	if (n < 0)
		return -1;
	if (from)
		*fromlen = m.msg_namelen;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL)
			memcpy(overflowed, CMSG_DATA(c), sizeof(*overflowed));
	return (long)n;
}

/* Take one waiting frame into @buf of @size bytes without blocking.
 * Returns its length (a longer frame is cut to @size; its length is
 * still returned so that it is counted as oversize; an empty datagram is
 * a frame of 0 bytes, a runt), or -1 when none is waiting.  When the
 * frame says so, *@overflowed becomes the number of datagrams the socket
 * dropped, since it opened, because its queue was full (SO_RXQ_OVFL: the
 * host learns of them with the next datagram it takes). */
static long sim_netdev_recv(void *buf, size_t size, uint32_t *overflowed)
{
	for (;;) {
		long n = sim_recv_counting_drops(sim_net_fd, buf, size, MSG_DONTWAIT,
						 NULL, NULL, overflowed);

		if (n >= 0)
			return n;
		/* Errors queued by earlier sends (ICMP port unreachable
		 * while the peer is not up yet) are not frames. */
		if (errno == EINTR || errno == ECONNREFUSED)
			continue;
		return -1;
	}
}

/* Bigger than any frame: a longer datagram arrives cut to this, which is
 * still over the Ethernet limit, so net_rx() counts it as oversize. */
#define SIM_NET_BUF 2048

/* The socket's drop count as last seen, and how much of it went to the
 * sink: the receive task's alone. */
static uint32_t sim_net_overflowed, sim_net_counted;

/* The device's poll (hal/netdev.h): the socket is its ring.  It has no
 * interrupt to re-enable; the stack's loop looks again at the next tick. */
static unsigned sim_netdev_poll(void *dev, unsigned budget,
				const struct netdev_sink *sink)
{
	static unsigned char frame[SIM_NET_BUF];
	unsigned n = 0;
	long len;

	(void)dev;
	while (n < budget &&
	       (len = sim_netdev_recv(frame, sizeof(frame), &sim_net_overflowed)) >= 0) {
		if (sim_net_overflowed != sim_net_counted) {
			sink->lost(NET_RX_LOST_OVERFLOW,
				   (uint32_t)(sim_net_overflowed - sim_net_counted));
			sim_net_counted = sim_net_overflowed;
		}
		sink->deliver(frame, (size_t)len < sizeof(frame) ? (size_t)len : sizeof(frame));
		n++;
	}
	return n;
}

static const struct netdev_rx sim_netdev_rx = {
	.poll = sim_netdev_poll,
	.irq = false,
};

const struct netdev_rx *hal_netdev_start(void)
{
	sim_net_overflowed = sim_net_counted = 0;
	return sim_net_fd >= 0 ? &sim_netdev_rx : NULL;
}
