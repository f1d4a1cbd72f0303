/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell on src/net's UDP: its configuration from the kernel
 * command line and its binding to the stack.  The shell uses the network;
 * the network never calls the shell.
 *
 * Command-line keys (declared in boot_keys.c; doc/boot.md):
 *
 *   udpsh=PORT | udpsh=off    the UDP shell's port, 1-65535 (default 5555)
 *   udpsh.allow=CIDR[,CIDR]   sources the UDP shell answers, at most 8
 *                             (default 10.0.2.2/32)
 *   udpsh.key=HEX             the UDP shell's key, 16-64 bytes in hex
 *                             (shell/udpsh/udpsh.h); the firmware's
 *                             opt/kprof/udpsh.key file wins over it.  Its
 *                             value is never printed, not even when wrong.
 *                             One byte repeated is refused.  udpsh.key=none:
 *                             no key, the plain protocol, warned at boot.
 *                             With neither a key nor none the UDP shell
 *                             does not start: keyless is a choice made
 *                             out loud.
 *
 * A malformed word is reported in one line and the value it would have
 * replaced is kept.
 */
#ifndef KPROF_SHELL_UDPSH_NET_H
#define KPROF_SHELL_UDPSH_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shell/udpsh/udpsh.h"

struct out;

/* ---- configuration ---- */

#define UDPSH_DEFAULT_PORT 5555u
#define UDPSH_DEFAULT_ALLOW "10.0.2.2/32"

struct udpsh_config {
	uint16_t port;		/* 0: no UDP shell */
	char allow[UDPSH_ALLOW_TEXT_MAX];
	uint8_t key[UDPSH_KEY_MAX];	/* udpsh.key=, never printed */
	size_t key_len;		/* 0: none given */
	bool key_none;		/* udpsh.key=none: keyless asked for */
};

/* The configuration in force.  Changed only by udpsh_config_word() and
 * udpsh_config_reset(), before udpsh_net_start(). */
const struct udpsh_config *udpsh_config(void);

/* Back to the defaults above. */
void udpsh_config_reset(void);

/* Apply one command-line word key=value.  Returns 0 when @key is one of
 * ours and @value was taken; -EINVAL when @value is malformed, after one
 * line on @err saying so and which value stays; -ENOENT, printing
 * nothing, when @key is not one of the UDP shell's.  Boot only. */
int udpsh_config_word(const char *key, const char *value, struct out *err);

/* ---- on the network ---- */

/* Bind the UDP shell core to the configured port and allowlist, with no
 * task behind it: datagrams queue (at most UDPSH_NET_QUEUE) until
 * udpsh_net_run_queued().  udpsh_net_start() does this, then starts the
 * task.  Returns 0 (also when udpsh=off) or a negative errno. */
int udpsh_net_open(void);

#define UDPSH_NET_QUEUE 4

/* Open it and start its task, once the stack is up (net_start()); prints
 * what serves, or why nothing does, to @o.  Nothing when the stack found
 * no device.  Task context, once. */
void udpsh_net_start(struct out *o);

/* What udpsh_net_start() prints, to @o, once it started with result
 * @err: what serves, or why nothing does, and a warning when a keyed
 * shell's boot nonce had neither the CPU's generator nor the host's seed
 * behind it. */
void udpsh_net_say_started(struct out *o, int err);

/* Run the UDP shell's queued datagrams, if any, in the calling task;
 * returns how many ran.  The UDP shell's task does this; tests and fuzz
 * targets call it directly. */
unsigned udpsh_net_run_queued(void);

/* The UDP shell core's own counters. */
void udpsh_net_stats(struct udpsh_stats *s);

/* True once udpsh_net_open() bound the shell to its port: false when it
 * is off, was refused (no key, a bad key) or never opened (no device;
 * ksim --udp serves its own shell, not this one).  Any context. */
bool udpsh_net_serving(void);

/* True when the UDP shell requires authenticated datagrams (a key). */
bool udpsh_net_keyed(void);

/* True when its boot nonce (keyless: its cookie secret) came from the
 * CPU's random number generator, false when from cycle-counter jitter. */
bool udpsh_net_nonce_hw(void);

/* True when the host's seed (HAL_FW_RANDOM_SEED) went into it (keyed:
 * the boot nonce; keyless: the cookie secret). */
bool udpsh_net_nonce_seeded(void);

/* Forget the queue and the core's state; the configuration stays.  With
 * net_reset(), for tests; not while frames are being received. */
void udpsh_net_reset(void);

#endif
