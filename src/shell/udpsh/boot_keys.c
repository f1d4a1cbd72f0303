/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's boot keys: its configuration from kernel command-line
 * words (shell/udpsh/net.h): udpsh=, udpsh.allow=, udpsh.key=.
 *
 * What it guarantees: a malformed word changes nothing and says so in
 * one line, naming the value that stays; udpsh.key's value is never
 * printed, right or wrong; a key of one byte repeated (a placeholder) is
 * refused; an allowlist of /0 is taken but warned about.
 * Against: a mistyped or placeholder key that would leave the shell open
 * or weak, and a key leaking into a boot log. */
#include "shell/udpsh/net.h"

#include "kernel/cmdline.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"

static struct udpsh_config udpsh_cfg = {
	.port = UDPSH_DEFAULT_PORT,
	.allow = UDPSH_DEFAULT_ALLOW,
};

const struct udpsh_config *udpsh_config(void)
{
	return &udpsh_cfg;
}

void udpsh_config_reset(void)
{
	udpsh_cfg.port = UDPSH_DEFAULT_PORT;
	kstrlcpy(udpsh_cfg.allow, UDPSH_DEFAULT_ALLOW, sizeof(udpsh_cfg.allow));
	kmemset(udpsh_cfg.key, 0, sizeof(udpsh_cfg.key));
	udpsh_cfg.key_len = 0;
	udpsh_cfg.key_none = false;
}

static int udpsh_word_port(const char *value, struct out *err)
{
	uint64_t port;

	if (kstreq(value, "off")) {
		udpsh_cfg.port = 0;
		return 0;
	}
	if (parse_u64(value, &port) < 0 || port < 1 || port > 65535) {
		out_printf(err, "net: udpsh=%s is not a port 1-65535 or off; keeping %u\n",
			   value, udpsh_cfg.port);
		return -EINVAL;
	}
	udpsh_cfg.port = (uint16_t)port;
	return 0;
}

static int udpsh_word_allow(const char *value, struct out *err)
{
	/* udpsh_allow_set() is the one parser of the list; a scratch core
	 * checks the text and gives it back in canonical form. */
	/* Static: a core is large (its kept replies); boot only, one caller. */
	static struct udpsh scratch;
	int rc;

	udpsh_init(&scratch, NULL, NULL);
	rc = udpsh_allow_set(&scratch, value);
	if (rc < 0) {
		out_printf(err, "net: udpsh.allow=%s is not CIDR[,CIDR] (at most %u, host bits zero); keeping %s\n",
			   value, UDPSH_ALLOW_MAX, udpsh_cfg.allow);
		return -EINVAL;
	}
	udpsh_allow_format(&scratch, udpsh_cfg.allow, sizeof(udpsh_cfg.allow));
	/* Taken, as asked, but a /0 is no allowlist at all. */
	for (unsigned i = 0; i < scratch.nallow; i++) {
		if (scratch.allow[i].prefix == 0) {
			out_printf(err, "net: warning: udpsh.allow=%s admits every address; only udpsh.key keeps others out\n",
				   udpsh_cfg.allow);
			break;
		}
	}
	return 0;
}

/* The key's value is never printed, right or wrong: the message says
 * what a key looks like and which key stays in force. */
static int udpsh_word_key(const char *value, struct out *err)
{
	uint8_t key[UDPSH_KEY_MAX];
	int len;

	if (kstreq(value, "none")) {
		kmemset(udpsh_cfg.key, 0, sizeof(udpsh_cfg.key));
		udpsh_cfg.key_len = 0;
		udpsh_cfg.key_none = true;
		return 0;
	}
	len = udpsh_key_parse(value, kstrlen(value), key);
	if (len > 0 && udpsh_key_weak(key, (size_t)len)) {
		kmemset(key, 0, sizeof(key));
		out_printf(err, "net: udpsh.key= is one byte repeated, not a secret; %s\n",
			   udpsh_cfg.key_len ? "keeping the key given before" : "no key");
		return -EINVAL;
	}
	if (len < 0) {
		out_printf(err, "net: udpsh.key= is not %u-%u bytes in hex (%u-%u hex digits); %s\n",
			   UDPSH_KEY_MIN, UDPSH_KEY_MAX, 2 * UDPSH_KEY_MIN,
			   2 * UDPSH_KEY_MAX,
			   udpsh_cfg.key_len ? "keeping the key given before" : "no key");
		return -EINVAL;
	}
	kmemcpy(udpsh_cfg.key, key, (size_t)len);
	udpsh_cfg.key_len = (size_t)len;
	udpsh_cfg.key_none = false;
	kmemset(key, 0, sizeof(key));
	return 0;
}

static const struct cmdline_word_key udpsh_words[] = {
	{ "udpsh", udpsh_word_port },
	{ "udpsh.allow", udpsh_word_allow },
	{ "udpsh.key", udpsh_word_key },
};

int udpsh_config_word(const char *key, const char *value, struct out *err)
{
	return cmdline_word_take(udpsh_words, sizeof(udpsh_words) / sizeof(udpsh_words[0]),
				 key, value, err);
}

/* The command line's words (kernel/cmdline.h), each through the checks
 * above under its own name. */
CMDLINE_KEY(udpsh_key_port_entry, .name = "udpsh", .word = udpsh_config_word,
	    .help = "PORT|off  the UDP shell's port (default 5555)");
CMDLINE_KEY(udpsh_key_allow_entry, .name = "udpsh.allow", .word = udpsh_config_word,
	    .help = "CIDR[,CIDR]  sources the UDP shell answers, at most 8 (default 10.0.2.2/32)");
CMDLINE_KEY(udpsh_key_key_entry, .name = "udpsh.key", .word = udpsh_config_word, .secret = true,
	    .help = "HEX|none  the UDP shell's key, 16-64 bytes, never printed; none: keyless, warned");
