/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's secrets of this boot (shell/udpsh/secrets.h): its key,
 * read from the firmware's file or udpsh.key=, the boot nonce a keyed
 * shell puts in every ticket, and the secret a keyless shell's cookies
 * are made under.
 *
 * What it guarantees: a firmware key file that is not a key, or a weak
 * one, is refused, never taken in part; the key's text is wiped once
 * read; the boot nonce and the cookie secret mix the host's seed in when
 * the firmware has one, so they differ from boot to boot under a fixed
 * QEMU -seed, each under its own label, so neither tells anything of the
 * other.
 * Against: a request recorded in one boot replayed in the next, cookies
 * forged from an earlier boot's, and a key left readable in memory. */
#include "shell/udpsh/secrets.h"

#include "hal/firmware.h"
#include "kernel/random.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/sha256.h"
#include "shell/udpsh/net.h"

/* Where the boot nonce came from (random_nonce64()), and whether the
 * host's seed went into it. */
static bool secret_nonce_hw, secret_nonce_seeded;

bool udpsh_net_nonce_hw(void)
{
	return secret_nonce_hw;
}

bool udpsh_net_nonce_seeded(void)
{
	return secret_nonce_seeded;
}

/* Hash the host's seed (when the firmware has one) with @len bytes of
 * the guest's own entropy at @mine, under @label, into @digest: under a
 * fixed QEMU -seed the guest's entropy is the same every boot, and the
 * host's seed is new for each.  True when there was a seed. */
static bool secret_mix_host_seed(const char *label, const void *mine, size_t len,
				 uint8_t digest[SHA256_LEN])
{
	uint8_t seed[128];
	long n = hal_fw_file_read(HAL_FW_RANDOM_SEED, seed, sizeof(seed));
	struct sha256 h;

	if (n <= 0)
		return false;
	sha256_init(&h);
	sha256_update(&h, label, kstrlen(label));
	sha256_update(&h, seed, n < (long)sizeof(seed) ? (size_t)n : sizeof(seed));
	sha256_update(&h, mine, len);
	sha256_final(&h, digest);
	kmemset(seed, 0, sizeof(seed));
	return true;
}

uint64_t udpsh_boot_nonce(void)
{
	uint8_t digest[SHA256_LEN];
	uint64_t nonce = random_nonce64(&secret_nonce_hw), v = 0;

	secret_nonce_seeded = secret_mix_host_seed("", &nonce, sizeof(nonce), digest);
	if (!secret_nonce_seeded)
		return nonce;
	for (unsigned i = 0; i < 8; i++)
		v = v << 8 | digest[i];
	kmemset(digest, 0, sizeof(digest));
	return v ? v : 1;
}

int udpsh_boot_key(uint8_t key[UDPSH_KEY_MAX])
{
	static char text[2 * UDPSH_KEY_MAX + 16];
	const struct udpsh_config *c = udpsh_config();
	long n = hal_fw_file_read(HAL_FW_UDPSH_KEY, text, sizeof(text));
	int len;

	if (n >= 0) {
		len = n <= (long)sizeof(text) ? udpsh_key_parse(text, (size_t)n, key) : -EINVAL;
		kmemset(text, 0, sizeof(text));
		if (len > 0 && udpsh_key_weak(key, (size_t)len))
			len = -EINVAL;
		return len;
	}
	if (!c->key_len)
		return 0;
	kmemcpy(key, c->key, c->key_len);
	return (int)c->key_len;
}

/* Keyless replies stay bounded to 3x the request until the address
 * echoes a cookie made under this secret. */
void udpsh_boot_cookie_secret(struct udpsh *u)
{
	uint64_t secret[4];
	uint8_t digest[SHA256_LEN];

	for (unsigned i = 0; i < 4; i++)
		secret[i] = random_nonce64(&secret_nonce_hw);
	secret_nonce_seeded = secret_mix_host_seed("udpsh cookie", secret, sizeof(secret), digest);
	if (secret_nonce_seeded)
		udpsh_cookie_set(u, digest, sizeof(digest));
	else
		udpsh_cookie_set(u, secret, sizeof(secret));
	kmemset(secret, 0, sizeof(secret));
	kmemset(digest, 0, sizeof(digest));
}
