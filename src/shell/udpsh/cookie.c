/* SPDX-License-Identifier: BSD-2-Clause */
/* Keyless cookies: a stateless proof that a source address receives
 * (the protocol: udpsh.h; after QUIC's address validation, RFC 9000 8.1).
 *
 * What it guarantees, once udpsh_cookie_set() gave a boot secret: a
 * request that does not start with its address's cookie gets a reply of
 * at most UDPSH_AMP_FACTOR times its own wire bytes (reply.c cuts it
 * and ends it with the cookie); a cookie is an HMAC-SHA256 under the
 * secret of the address, the port and the time's epoch, good for that
 * address and port in this epoch and the last, compared in constant
 * time; a wrong one is taken off and the bound kept.  The shell keeps
 * no state per address.
 * Against: a peer that forges the source address of a victim to use the
 * keyless shell as an amplifier.  Not against one that receives at the
 * address: a keyless shell authenticates nobody. */
#include "shell/udpsh/internal.h"

#include "hal/timer.h"
#include "lib/bytes.h"
#include "lib/kstring.h"
#include "lib/sha256.h"

void udpsh_cookie_set(struct udpsh *u, const void *secret, size_t len)
{
	if (len > sizeof(u->cookie_secret))
		len = sizeof(u->cookie_secret);
	kmemset(u->cookie_secret, 0, sizeof(u->cookie_secret));
	kmemcpy(u->cookie_secret, secret, len);
	u->amp_limit = true;
}

static void udpsh_cookie_epoch(const struct udpsh *u, uint32_t addr, uint16_t port,
			       uint64_t epoch, char hex[UDPSH_COOKIE_HEX + 1])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t msg[14], mac[SHA256_LEN];

	msg[0] = (uint8_t)(addr >> 24);
	msg[1] = (uint8_t)(addr >> 16);
	msg[2] = (uint8_t)(addr >> 8);
	msg[3] = (uint8_t)addr;
	msg[4] = (uint8_t)(port >> 8);
	msg[5] = (uint8_t)port;
	be64_put(msg + 6, epoch);
	hmac_sha256(u->cookie_secret, sizeof(u->cookie_secret), msg, sizeof(msg), mac);
	for (unsigned i = 0; i < UDPSH_COOKIE_HEX / 2; i++) {
		hex[2 * i] = digits[mac[i] >> 4];
		hex[2 * i + 1] = digits[mac[i] & 15];
	}
	hex[UDPSH_COOKIE_HEX] = '\0';
}

void udpsh_cookie(const struct udpsh *u, uint32_t addr, uint16_t port,
		  uint64_t now_ns, char hex[UDPSH_COOKIE_HEX + 1])
{
	udpsh_cookie_epoch(u, addr, port, now_ns / UDPSH_COOKIE_EPOCH_NS, hex);
}

/* A request starting "@" and 16 hex digits (then one space, or the end):
 * take the cookie off @rq's command; true when it is this address's, of
 * this epoch or the last. */
static bool udpsh_cookie_take(const struct udpsh *u, struct udpsh_request *rq)
{
	char want[UDPSH_COOKIE_HEX + 1];
	uint64_t epoch = hal_clock_ns() / UDPSH_COOKIE_EPOCH_NS;
	size_t n = 1 + UDPSH_COOKIE_HEX;
	bool ok;

	if (rq->len < n || rq->cmd[0] != '@')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((rq->cmd[i] >= '0' && rq->cmd[i] <= '9') ||
		      (rq->cmd[i] >= 'a' && rq->cmd[i] <= 'f')))
			return false;
	if (rq->len > n && rq->cmd[n] != ' ')
		return false;
	udpsh_cookie_epoch(u, rq->addr, rq->port, epoch, want);
	ok = ct_equal(want, rq->cmd + 1, UDPSH_COOKIE_HEX);
	if (!ok && epoch) {
		udpsh_cookie_epoch(u, rq->addr, rq->port, epoch - 1, want);
		ok = ct_equal(want, rq->cmd + 1, UDPSH_COOKIE_HEX);
	}
	if (rq->len > n)
		n++;
	rq->cmd += n;
	rq->len -= n;
	rq->size -= n;
	return ok;
}

void udpsh_bound(struct udpsh *u, struct udpsh_request *rq)
{
	rq->budget = SIZE_MAX;
	if (!u->amp_limit)
		return;
	if (udpsh_cookie_take(u, rq)) {
		udpsh_count(&u->stats.cookies);
		return;
	}
	rq->budget = UDPSH_AMP_FACTOR * (rq->dgram_len + UDPSH_WIRE_IP_UDP);
}
