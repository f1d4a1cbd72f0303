/* SPDX-License-Identifier: BSD-2-Clause */
/* Losses counted where they happen, in ksim end to end: a flood at the
 * UDP shell's socket (ksim --udp) overruns the queue to the shell's task,
 * a flood at the network device's socket (ksim --net) overruns that
 * socket, and `net` accounts for every datagram sent: taken, or counted
 * as lost, nothing unaccounted.  The flood arrives while `test irqsoff`
 * holds CPU 0, where the tasks that drain both queues run, so it
 * overruns them whatever the host's speed.  Then the machine drains, one
 * last datagram goes (a socket's overflow count arrives with the next
 * datagram it takes), and the sums must match, waited for (bounded). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sim_fixture.h"
#include "testlib.h"
#include "check_main.h"

#define MAX_BURSTS 10

static struct ksim_config cfg;
static int tx_fd;
static struct sockaddr_in to;

static void aim(unsigned port)
{
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)port);
}

static void send_n(const void *data, size_t len, unsigned n, unsigned long long *sent)
{
	for (unsigned i = 0; i < n; i++) {
		ck_assert_int_eq(sendto(tx_fd, data, len, 0, (struct sockaddr *)&to,
					sizeof(to)), (ssize_t)len);
		(*sent)++;
	}
}

/* `net`'s counters that account for what was sent. */
struct tally {
	long long taken, lost_a, lost_b;
};

typedef struct tally (*read_fn)(void);

/* Hold CPU 0 with interrupts off for a while, starting now. */
static void stall_cpu0(void)
{
	char *out = simfx_run("test irqsoff 0 1000 0", 10000);

	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "test: irqsoff on cpu 0 for 1000 ms"), "test said: %s", out);
	free(out);
}

/* Flood with @burst copies of @data while CPU 0 stalls, until @rd shows
 * a loss; drain; one last datagram; then every datagram sent must be
 * taken or counted lost. */
static struct tally flood_and_account(const void *data, size_t len, unsigned burst,
				      read_fn rd)
{
	unsigned long long sent = 0;
	struct tally t = rd(), before;

	ck_assert_int_eq(t.taken, 0);
	for (unsigned b = 0; b < MAX_BURSTS && t.lost_a + t.lost_b == 0; b++) {
		stall_cpu0();
		send_n(data, len, burst, &sent);
		t = rd();
	}
	ck_assert_msg(t.lost_a + t.lost_b > 0, "%llu datagrams sent, none lost", sent);
	/* Drained once two readings 100 ms apart agree. */
	do {
		before = t;
		tl_sleep_ms(100);
		t = rd();
	} while (t.taken != before.taken);
	send_n(data, len, 1, &sent);
	for (unsigned i = 0; i < 100 && (unsigned long long)(t.taken + t.lost_a + t.lost_b) != sent; i++) {
		tl_sleep_ms(100);
		t = rd();
	}
	ck_assert_msg((unsigned long long)(t.taken + t.lost_a + t.lost_b) == sent,
		      "sent %llu: taken %lld, lost %lld + %lld", sent, t.taken,
		      t.lost_a, t.lost_b);
	return t;
}

/* ---- ksim --udp: the queue to the shell's task ---- */

static char udp_name[64];

static bool udp_serving(void)
{
	char *out = simfx_run("net", 10000), prefix[128];
	bool yes;

	ck_assert_ptr_nonnull(out);
	snprintf(prefix, sizeof(prefix), "udp shell (%s): ", udp_name);
	yes = strstr(out, prefix) != NULL;
	free(out);
	return yes;
}

static struct tally udp_read(void)
{
	char *out = simfx_run("net", 10000), prefix[128];
	struct tally t;

	ck_assert_ptr_nonnull(out);
	snprintf(prefix, sizeof(prefix), "udp shell (%s): ", udp_name);
	t.taken = tl_number_after(out, prefix);
	snprintf(prefix, sizeof(prefix), "udp shell (%s): lost before the shell: ", udp_name);
	t.lost_a = tl_number_after(out, prefix);
	snprintf(prefix, sizeof(prefix), "queue full, ");
	t.lost_b = tl_number_after(strstr(out, "lost before the shell: ") ?: out, prefix);
	ck_assert_msg(t.taken >= 0 && t.lost_a >= 0 && t.lost_b >= 0, "net said:\n%s", out);
	free(out);
	return t;
}

CHECK_TEST("flood", test_udp_shell_flood_every_datagram_accounted)
{
	int port;
	struct tally t;

	ksim_config_defaults(&cfg);
	cfg.cpus = 1;
	cfg.source = KSIM_SOURCE_TICK;
	cfg.udp_port = 0;
	cfg.cmdline = "udpsh.key=none";	/* the plain protocol, by choice */
	simfx_start(&cfg);
	tx_fd = tl_loopback_socket(&port);
	aim(ksim_udp_port());
	snprintf(udp_name, sizeof(udp_name), "ksim 127.0.0.1:%u", ksim_udp_port());
	/* The UDP shell starts alongside the console's first prompt. */
	for (unsigned i = 0; i < 50 && !udp_serving(); i++)
		tl_sleep_ms(100);
	t = flood_and_account("uptime", 6, 1000, udp_read);
	/* The queue to the shell was what overflowed. */
	ck_assert_int_gt(t.lost_a, 0);
}
END_TEST

/* ---- ksim --net: the device's socket ---- */

static struct tally dev_read(void)
{
	char *out = simfx_run("net", 10000);
	struct tally t;

	ck_assert_ptr_nonnull(out);
	t.taken = tl_number_after(out, "frames: in ");
	t.lost_a = tl_number_after(out, "  dev_overflow   ");
	if (t.lost_a < 0)
		t.lost_a = 0;
	t.lost_b = 0;
	ck_assert_msg(t.taken >= 0, "net said:\n%s", out);
	free(out);
	return t;
}

CHECK_TEST("flood", test_device_flood_every_frame_accounted)
{
	/* Full-size Ethernet to another host's MAC: the stack drops it at
	 * once.  10000 of them are more than any socket queue holds. */
	static const unsigned char frame[1514] = {
		0x02, 0, 0, 0, 0, 0x99, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
	};
	int port;

	ksim_config_defaults(&cfg);
	cfg.cpus = 1;
	cfg.source = KSIM_SOURCE_TICK;
	tx_fd = tl_loopback_socket(&port);
	cfg.net_peer_port = port;
	cfg.net_port = tl_free_port();
	cfg.cmdline = "udpsh.key=none";	/* the plain protocol, by choice */
	simfx_start(&cfg);
	aim((unsigned)cfg.net_port);
	flood_and_account(frame, sizeof(frame), 10000, dev_read);
}
END_TEST

int main(void)
{
	return check_run_forked(check_suite("net_loss", NULL, 120));
}
