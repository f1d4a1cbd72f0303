/* SPDX-License-Identifier: BSD-2-Clause */
/* The stack live in ksim, through its network device (Ethernet frames in
 * UDP datagrams on 127.0.0.1; sim/netdev.h).  The test plays the wire:
 * it injects frames into one ksim and reads what comes back (ARP, ICMP
 * echo, the UDP shell, garbage that must be dropped and counted), and it
 * wires two ksims together and runs netload from one to the other.  All
 * ports are free ports on loopback, found by binding port 0. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "test_wire.h"
#include "testlib.h"

#define KSIM_IP 0x0a00020fu	/* 10.0.2.15, the default */
#define GW_IP 0x0a000202u	/* 10.0.2.2: the UDP shell's default client */

static const uint8_t test_mac[6] = { 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* --- processes -------------------------------------------------------- */

struct proc {
	pid_t pid;
	int out;		/* its stdout and stderr */
	int in;			/* its stdin, -1 when closed */
	char text[65536];
	size_t len;
};

static void proc_start(struct proc *p, char *const argv[])
{
	int o[2], i[2];

	ck_assert_int_eq(pipe(o), 0);
	ck_assert_int_eq(pipe(i), 0);
	p->len = 0;
	p->text[0] = '\0';
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		dup2(i[0], 0);
		dup2(o[1], 1);
		dup2(o[1], 2);
		close(o[0]);
		close(i[1]);
		execv(KSIM_PATH, argv);
		_exit(127);
	}
	close(o[1]);
	close(i[0]);
	p->out = o[0];
	p->in = i[1];
}

/* Read its output until @needle appears (true) or @ms pass or it ends. */
static bool proc_wait_for(struct proc *p, const char *needle, unsigned ms)
{
	uint64_t end = tl_now_ms() + ms;

	while (!strstr(p->text, needle)) {
		struct pollfd pfd = { .fd = p->out, .events = POLLIN };
		uint64_t now = tl_now_ms();
		ssize_t n;

		if (now >= end)
			return false;
		if (poll(&pfd, 1, (int)(end - now)) <= 0)
			continue;
		n = read(p->out, p->text + p->len, sizeof(p->text) - 1 - p->len);
		if (n <= 0)
			return false;
		p->len += (size_t)n;
		p->text[p->len] = '\0';
	}
	return true;
}

/* Close its stdin, read the rest, reap it; its exit status. */
static int proc_finish(struct proc *p, unsigned ms)
{
	int status;
	uint64_t end = tl_now_ms() + ms;

	if (p->in >= 0) {
		close(p->in);
		p->in = -1;
	}
	proc_wait_for(p, "\x01never", ms);
	close(p->out);
	while (waitpid(p->pid, &status, WNOHANG) == 0) {
		if (tl_now_ms() >= end) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &status, 0);
			return -1;
		}
		usleep(10000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Sum "PREFIX<number>" out of @text. */
static long long number_after(const char *text, const char *prefix)
{
	long long n = tl_number_after(text, prefix);

	ck_assert_msg(n >= 0, "no '%s' in:\n%s", prefix, text);
	return n;
}

/* --- two ksims ---------------------------------------------------------- */

/* A ksim at 10.0.2.16 on @net_rx (--net's PORT:PEER) receives on port 5001
 * for 3 s while one on @net_tx sends it 500 ms of 1470-byte datagrams at
 * 5 Mbit/s; both have ended, with status 0, when this returns. */
static void netload_between(struct proc *rx, char *net_rx, struct proc *tx, char *net_tx)
{
	char *rx_argv[] = { "ksim", "--cpus", "2", "--net", net_rx, "--cmdline",
			    "ip=10.0.2.16/24 udpsh=off", "-c", "netload recv 5001 3000", NULL };
	char *tx_argv[] = { "ksim", "--cpus", "2", "--net", net_tx, "--cmdline", "udpsh=off",
			    "-c", "netload send 10.0.2.16 5001 500 1470 5M", NULL };

	proc_start(rx, rx_argv);
	ck_assert_msg(proc_wait_for(rx, "netload: listening on udp port 5001", 5000),
		      "receiver never listened:\n%s", rx->text);
	proc_start(tx, tx_argv);
	ck_assert_int_eq(proc_finish(tx, 10000), 0);
	ck_assert_int_eq(proc_finish(rx, 10000), 0);
}

CHECK_TEST("wire", test_two_ksims_netload_counts_match)
{
	static struct proc rx, tx;
	char net_rx[32], net_tx[32];
	int pa = tl_free_port(), pb = tl_free_port();
	long long sent, got, reported;

	ck_assert_int_ne(pa, pb);
	snprintf(net_rx, sizeof(net_rx), "%d:%d", pb, pa);
	snprintf(net_tx, sizeof(net_tx), "%d:%d", pa, pb);
	netload_between(&rx, net_rx, &tx, net_tx);
	sent = number_after(tx.text, "netload send: ");
	reported = number_after(tx.text, "netload send: receiver got ");
	got = number_after(rx.text, "netload recv: ");
	ck_assert_msg(sent > 0, "nothing sent:\n%s", tx.text);
	ck_assert_msg(got == sent && reported == sent,
		      "sent %lld, receiver printed %lld, its report said %lld\n%s\n%s",
		      sent, got, reported, tx.text, rx.text);
	ck_assert_ptr_nonnull(strstr(rx.text, "final received"));
}
END_TEST

/* --- two ksims, a wire that drops a known share ------------------------ */

/* Between the sender's device and the receiver's: forwards every frame
 * but the UDP datagrams to port 5001 whose iperf id is a multiple of 4
 * (a quarter of the load, chosen by id so the count is exact), and
 * remembers what it did. */
struct lossy_wire {
	int from_tx, from_rx;		/* bound: the two ksims send here */
	int tx_port, rx_port;		/* where they receive */
	volatile bool stop;
	long long forwarded, dropped_ids[4096], ndropped, max_forwarded_id;
};

/* The iperf id of a frame carrying a UDP datagram to port 5001, or 0. */
static long long load_id(const uint8_t *f, ssize_t n)
{
	if (n < 14 + 20 + 8 + 4 || f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45 ||
	    f[14 + 9] != 17 || (f[14 + 20 + 2] << 8 | f[14 + 20 + 3]) != 5001)
		return 0;
	return (int32_t)((uint32_t)f[42] << 24 | (uint32_t)f[43] << 16 |
			 (uint32_t)f[44] << 8 | f[45]);
}

static void *lossy_wire_run(void *arg)
{
	struct lossy_wire *w = arg;
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint8_t f[2048];

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (!w->stop) {
		struct pollfd p[2] = { { .fd = w->from_tx, .events = POLLIN },
				       { .fd = w->from_rx, .events = POLLIN } };

		if (poll(p, 2, 100) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			ssize_t n = recv(w->from_tx, f, sizeof(f), 0);
			long long id = load_id(f, n);

			if (n > 0 && id > 0 && id % 4 == 0 && w->ndropped < 4096) {
				w->dropped_ids[w->ndropped++] = id;
			} else if (n > 0) {
				if (id > 0) {
					w->forwarded++;
					if (id > w->max_forwarded_id)
						w->max_forwarded_id = id;
				}
				to.sin_port = htons((uint16_t)w->rx_port);
				sendto(w->from_rx, f, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to));
			}
		}
		if (p[1].revents & POLLIN) {
			ssize_t n = recv(w->from_rx, f, sizeof(f), 0);

			to.sin_port = htons((uint16_t)w->tx_port);
			if (n > 0)
				sendto(w->from_tx, f, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to));
		}
	}
	return NULL;
}

/* `netload send` prints the receiver's figures from its report: received
 * = total - lost, both printed, the rate from what was received.  With a
 * quarter of the load dropped on the wire, what the sender says the
 * receiver got must be what the wire let through and what the receiver
 * itself counted, and the loss the ids the wire dropped (those before the
 * last datagram through: iperf counts a gap only when a later id comes). */
CHECK_TEST("wire", test_netload_send_reports_what_the_receiver_got)
{
	static struct proc rx, tx;
	static struct lossy_wire w;
	char net_rx[32], net_tx[32], want[160];
	pthread_t t;
	int px_tx, px_rx;
	long long lost = 0, got_rx;

	memset(&w, 0, sizeof(w));
	w.tx_port = tl_free_port();
	w.rx_port = tl_free_port();
	w.from_tx = tl_loopback_socket(&px_tx);
	w.from_rx = tl_loopback_socket(&px_rx);
	ck_assert_int_ne(w.tx_port, w.rx_port);
	snprintf(net_rx, sizeof(net_rx), "%d:%d", w.rx_port, px_rx);
	snprintf(net_tx, sizeof(net_tx), "%d:%d", w.tx_port, px_tx);
	ck_assert_int_eq(pthread_create(&t, NULL, lossy_wire_run, &w), 0);
	netload_between(&rx, net_rx, &tx, net_tx);
	w.stop = true;
	pthread_join(t, NULL);
	close(w.from_tx);
	close(w.from_rx);

	ck_assert_msg(w.forwarded >= 100 && w.ndropped >= 25,
		      "too little load to hold the test: %lld through, %lld dropped\n%s",
		      w.forwarded, w.ndropped, tx.text);
	for (long long i = 0; i < w.ndropped; i++)
		lost += w.dropped_ids[i] < w.max_forwarded_id;
	got_rx = number_after(rx.text, "netload recv: ");
	ck_assert_msg(got_rx == w.forwarded, "the receiver counted %lld, the wire passed %lld\n%s",
		      got_rx, w.forwarded, rx.text);
	snprintf(want, sizeof(want),
		 "netload send: receiver got %lld of %lld datagrams (%lld lost), %lld bytes in ",
		 w.forwarded, w.forwarded + lost, lost, w.forwarded * 1470);
	ck_assert_msg(strstr(tx.text, want) != NULL, "wanted '%s' in:\n%s\n(receiver:\n%s)",
		      want, tx.text, rx.text);
}
END_TEST

/* --- one ksim, the test on the other end of its wire ------------------ */

static int wire_fd;
static struct sockaddr_in ksim_addr;
static struct proc one;

static void wire_send(const uint8_t *f, size_t len)
{
	ck_assert_int_eq(sendto(wire_fd, f, len, 0, (struct sockaddr *)&ksim_addr,
				sizeof(ksim_addr)), (ssize_t)len);
}

/* The next frame ksim sends of @type (others skipped), or 0 bytes. */
static size_t wire_recv(uint8_t *f, size_t size, uint16_t type, unsigned ms)
{
	uint64_t end = tl_now_ms() + ms;

	for (;;) {
		struct pollfd pfd = { .fd = wire_fd, .events = POLLIN };
		uint64_t now = tl_now_ms();
		ssize_t n;

		if (now >= end)
			return 0;
		if (poll(&pfd, 1, (int)(end - now)) <= 0)
			continue;
		n = recv(wire_fd, f, size, 0);
		if (n >= 14 && get16(f + 12) == type)
			return (size_t)n;
	}
}

static size_t arp_request(uint8_t *f)
{
	memset(f, 0, 60);
	memcpy(f, bcast, 6);
	memcpy(f + 6, test_mac, 6);
	put16(f + 12, 0x0806);
	put16(f + 14, 1);
	put16(f + 16, 0x0800);
	f[18] = 6;
	f[19] = 4;
	put16(f + 20, 1);
	memcpy(f + 22, test_mac, 6);
	put32(f + 28, GW_IP);
	put32(f + 38, KSIM_IP);
	return 60;
}

static size_t ipv4(uint8_t *f, const uint8_t *dst_mac, uint8_t proto, size_t l4len)
{
	uint8_t *ip = f + 14;

	memcpy(f, dst_mac, 6);
	memcpy(f + 6, test_mac, 6);
	put16(f + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + l4len));
	ip[8] = 64;
	ip[9] = proto;
	put32(ip + 12, GW_IP);
	put32(ip + 16, KSIM_IP);
	put16(ip + 10, fold(sum16(0, ip, 20)));
	return 34 + l4len;
}

static size_t udp(uint8_t *f, const uint8_t *dst_mac, uint16_t dport, const char *text)
{
	uint8_t *u = f + 34;
	size_t len = strlen(text);

	put16(u, 40000);
	put16(u + 2, dport);
	put16(u + 4, (uint16_t)(8 + len));
	put16(u + 6, 0);
	memcpy(u + 8, text, len);
	return ipv4(f, dst_mac, 17, 8 + len);
}

static void shell_once(const uint8_t *ksim_mac, const char *cmd, char *reply, size_t size);

/* Send one UDP shell command and gather the reply up to the prompt.  A
 * keyless reply cut at 3x the request (shell/udpsh/udpsh.h) says which cookie
 * gets it whole: asked again with it. */
static void shell(const uint8_t *ksim_mac, const char *cmd, char *reply, size_t size)
{
	static const char tail[] = ": start the request with it\n> ";
	size_t len, hint = 8 + 16 + sizeof(tail) - 1;
	char again[300];

	shell_once(ksim_mac, cmd, reply, size);
	len = strlen(reply);
	if (len < hint || strcmp(reply + len - sizeof(tail) + 1, tail) != 0 ||
	    memcmp(reply + len - hint, "cookie @", 8) != 0)
		return;
	snprintf(again, sizeof(again), "@%.16s %s", reply + len - hint + 8, cmd);
	shell_once(ksim_mac, again, reply, size);
}

static void shell_once(const uint8_t *ksim_mac, const char *cmd, char *reply, size_t size)
{
	uint8_t f[2048];
	size_t len = 0;

	wire_send(f, udp(f, ksim_mac, 5555, cmd));
	reply[0] = '\0';
	while (len < 2 || memcmp(reply + len - 2, "> ", 2) != 0) {
		size_t n = wire_recv(f, sizeof(f), 0x0800, 5000), dl;

		ck_assert_msg(n > 0, "no reply to '%s' (so far '%s')", cmd, reply);
		if (f[14 + 9] != 17 || get16(f + 34) != 5555)
			continue;
		ck_assert_uint_eq(get16(f + 36), 40000);
		dl = get16(f + 38) - 8;
		ck_assert_uint_lt(len + dl, size);
		memcpy(reply + len, f + 42, dl);
		len += dl;
		reply[len] = '\0';
	}
}

static void one_start(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	char net[32];
	int ksim_port = tl_free_port();

	wire_fd = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(wire_fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(wire_fd, (struct sockaddr *)&a, &alen), 0);
	ksim_addr = a;
	ksim_addr.sin_port = htons((uint16_t)ksim_port);
	snprintf(net, sizeof(net), "%d:%d", ksim_port, ntohs(a.sin_port));
	{
		char *argv[] = { "ksim", "--cpus", "2", "--udp-insecure", "--net", net, NULL };

		proc_start(&one, argv);
	}
	ck_assert_msg(proc_wait_for(&one, "net: udp shell on port 5555", 5000),
		      "ksim did not bring the network up:\n%s", one.text);
}

CHECK_TEST("wire", test_injected_arp_ping_shell_and_garbage)
{
	uint8_t f[2048], ksim_mac[6];
	char reply[8192];
	size_t n;

	one_start();
	/* ARP: the gateway's request answered with ksim's MAC. */
	wire_send(f, arp_request(f));
	n = wire_recv(f, sizeof(f), 0x0806, 5000);
	while (n && get16(f + 20) != 2)		/* skip ksim's own request */
		n = wire_recv(f, sizeof(f), 0x0806, 5000);
	ck_assert_uint_ge(n, 42);
	memcpy(ksim_mac, f + 22, 6);
	ck_assert_uint_eq(((uint32_t)get16(f + 28) << 16) | get16(f + 30), KSIM_IP);

	/* ICMP echo. */
	memset(f + 34, 0, 12);
	f[34] = 8;
	memcpy(f + 42, "ping", 4);
	put16(f + 36, fold(sum16(0, f + 34, 12)));
	wire_send(f, ipv4(f, ksim_mac, 1, 12));
	n = wire_recv(f, sizeof(f), 0x0800, 5000);
	ck_assert_uint_ge(n, 46);
	ck_assert_uint_eq(f[14 + 9], 1);
	ck_assert_uint_eq(f[34], 0);
	ck_assert_mem_eq(f + 42, "ping", 4);

	/* The UDP shell. */
	shell(ksim_mac, "help net", reply, sizeof(reply));
	ck_assert_msg(strstr(reply, "network: frames in and out, drops by reason, the ARP cache\n> "),
		      "help net said:\n%s", reply);

	/* Garbage: a runt, an oversize datagram, an IPv4 fragment, a bad
	 * UDP checksum.  None answered; each counted; the shell still
	 * answers. */
	wire_send(f, 10);
	memset(f, 0, 2000);
	wire_send(f, 2000);
	n = udp(f, ksim_mac, 5555, "uptime");
	put16(f + 14 + 6, 0x2000);
	put16(f + 14 + 10, 0);
	put16(f + 14 + 10, fold(sum16(0, f + 14, 20)));
	wire_send(f, n);
	n = udp(f, ksim_mac, 5555, "uptime");
	put16(f + 40, 0x1234);
	wire_send(f, n);
	shell(ksim_mac, "net", reply, sizeof(reply));
	ck_assert_msg(strstr(reply, "  runt           1\n") &&
		      strstr(reply, "  oversize       1\n") &&
		      strstr(reply, "  ip_fragment    1\n") &&
		      strstr(reply, "  udp_checksum   1\n"), "net said:\n%s", reply);
	/* This command is the third datagram (the first `net` was cut at 3x
	 * and asked again with its cookie), answered once it is done. */
	ck_assert_ptr_nonnull(strstr(reply, "udp shell (udp port 5555): 3 datagrams, 2 answered"));
	ck_assert_ptr_nonnull(strstr(reply, "0 replies ignored, 1 cut at 3x, 1 cookies"));
	ck_assert_int_eq(proc_finish(&one, 5000), 0);
	close(wire_fd);
}
END_TEST

int main(void)
{
	return check_run(check_suite("net_sim", NULL, 30));
}
