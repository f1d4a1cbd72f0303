/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's secrets of this boot (secrets.c): what its network
 * glue (net.c) hands the core when it opens.  Private to shell/udpsh.
 * Boot only, in task context: none is concurrent with another. */
#ifndef KPROF_SHELL_UDPSH_SECRETS_H
#define KPROF_SHELL_UDPSH_SECRETS_H

#include <stdint.h>

#include "shell/udpsh/udpsh.h"

/* The key into @key: the firmware's file first (not visible to other
 * users of the host), else udpsh.key= from the command line.  Returns
 * its length, 0 when there is none, or -EINVAL when the firmware's file
 * is not a key or a weak one (the command line's was checked when it
 * was read). */
int udpsh_boot_key(uint8_t key[UDPSH_KEY_MAX]);

/* The boot nonce, never 0: the guest's own entropy, hashed with the
 * host's seed when the firmware has one, so that a request recorded in
 * one boot cannot run in the next under a fixed QEMU -seed. */
uint64_t udpsh_boot_nonce(void);

/* Keyless: give @u the secret its cookies are made under, the guest's
 * entropy hashed with the host's seed (under its own label) or else the
 * entropy alone (udpsh_cookie_set()). */
void udpsh_boot_cookie_secret(struct udpsh *u);

#endif
