/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the kernel command line (src/kernel/cmdline.c) and
 * every key's owner linked into the kernel (cmd, cpus, ip, gw, udpsh,
 * udpsh.allow, udpsh.key, profile.source).  The input is read twice:
 *
 * - as a command line: cmdline_parse() must report exactly as many lines
 *   as it says, each ending in a newline, and cmdline_next_command() must
 *   step through cmd= in order, within it, to its end;
 * - with a secret key's word spliced in at a place the input chooses
 *   (`udpsh.key=` then a marker value, quoted or not): the marker must
 *   never appear in what the parser prints, whatever surrounds it, nor
 *   any 8 bytes of it the input did not hold itself.
 *
 * Each run starts from the defaults, as a boot does. */
#define _GNU_SOURCE		/* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "init/boot_args.h"
#include "kernel/cmdline.h"
#include "kernel/cmdline_test.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "lib/out.h"
#include "net/net.h"
#include "shell/udpsh/net.h"

#define FZ_LINE_MAX	4096	/* longer than any boot loader passes */

static const char fz_secret[] = "c0ffee5ecre7c0ffee5ecre7c0ffee5e";
static char fz_msgs[16384];

static void fz_defaults(void)
{
	boot_args_reset();
	net_config_reset();
	udpsh_config_reset();
	prof_set_source("auto");
}

/* Every key the kernel has must be here: a target that lost one would
 * fuzz less than it says. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const keys[] = { "cmd", "cpus", "ip", "gw", "udpsh",
					    "udpsh.allow", "udpsh.key", "profile.source" };

	(void)argc;
	(void)argv;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!cmdline_key_find(keys[i], strlen(keys[i])))
			abort();
	return 0;
}

static size_t fz_count_lines(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

static void fz_parse_checked(const char *line)
{
	struct out_buf ob;
	const char *pos, *cmd, *end;
	size_t len;
	int reported;

	fz_defaults();
	out_buf_init(&ob, fz_msgs, sizeof(fz_msgs));
	reported = cmdline_parse(line, &ob.out);
	len = strlen(fz_msgs);
	if (reported < 0 || (len + 1 < sizeof(fz_msgs) &&
			     (fz_count_lines(fz_msgs, len) != (size_t)reported ||
			      (len && fz_msgs[len - 1] != '\n'))))
		abort();
	pos = boot_args()->cmd;
	end = pos + strlen(pos);
	while ((cmd = cmdline_next_command(&pos, &len))) {
		if (cmd < boot_args()->cmd || cmd + len > end || len == 0 ||
		    cmd[0] == ' ' || cmd[len - 1] == ' ' || memchr(cmd, ';', len))
			abort();
	}
	if (pos != end)
		abort();
}

/* The word is spliced in where the input's own words cannot swallow it:
 * after a space, outside quotes (quotes toggle anywhere in a word, so an
 * even count before it closes them all).  Inside a quoted cmd= value the
 * marker is just text of that word, which may be echoed. */
static void fz_secret_never_printed(const uint8_t *data, size_t size)
{
	static char line[FZ_LINE_MAX + 64];
	struct out_buf ob;
	size_t at, n, quotes = 0;
	int quoted = size > 1 && (data[1] & 1);

	if (size > FZ_LINE_MAX)
		size = FZ_LINE_MAX;
	at = size ? data[0] % (size + 1) : 0;
	for (size_t i = 0; i < at; i++)
		quotes += data[i] == '"';
	if (quotes % 2)
		return;
	memcpy(line, data, at);
	n = at + (size_t)snprintf(line + at, sizeof(line) - at, " udpsh.key=%s%s ",
				  quoted ? "\"" : "", fz_secret);
	memcpy(line + n, data + at, size - at);
	line[n + size - at] = '\0';
	fz_defaults();
	out_buf_init(&ob, fz_msgs, sizeof(fz_msgs));
	cmdline_parse(line, &ob.out);
	/* Neither the marker nor any 8 bytes of it, unless the input itself
	 * brought those bytes. */
	for (size_t i = 0; i + 8 < sizeof(fz_secret); i++)
		if (!memmem(data, size, fz_secret + i, 8) &&
		    memmem(fz_msgs, strlen(fz_msgs), fz_secret + i, 8))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[FZ_LINE_MAX + 1];
	size_t n = size < FZ_LINE_MAX ? size : FZ_LINE_MAX;

	memcpy(line, data, n);
	line[n] = '\0';		/* a boot loader's string ends at its first NUL */
	fz_parse_checked(line);
	fz_secret_never_printed(data, size);
	return 0;
}
