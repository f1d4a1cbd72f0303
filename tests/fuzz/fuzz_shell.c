/* libFuzzer target: the shell's input paths.  The input is one UDP shell
 * datagram (udpsh_input(), allowlist open to the source) and also a byte
 * stream typed at the console (shell_input_feed(), in pieces whose sizes
 * come from the input), against a command table that parses but never
 * runs commands (fuzz_commands.c).  The UDP shell's protocol is checked
 * on every reply: 1 to UDPSH_DGRAM_MAX bytes a datagram, and the prompt
 * exactly the last two bytes sent. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out.h"
#include "shell/shell.h"
#include "shell/udpsh.h"

static char fz_last[UDPSH_DGRAM_MAX];
static size_t fz_last_len, fz_replies;

static int fz_send(void *ctx, uint32_t addr, uint16_t port, const char *data, size_t len)
{
	(void)ctx;
	if (addr != 0x0a000202u || port != 4000 || len < 1 || len > UDPSH_DGRAM_MAX)
		abort();
	memcpy(fz_last, data, len);
	fz_last_len = len;
	fz_replies++;
	return 0;
}

static void fz_discard(struct out *o, const char *s, size_t n)
{
	(void)o;
	(void)s;
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct udpsh u;
	static struct out sink = { .write = fz_discard };
	struct shell_ctx sh = { .out = &sink, .remote = false };
	struct shell_input in;
	size_t pos = 0;

	udpsh_init(&u, fz_send, NULL);
	if (udpsh_allow_set(&u, "10.0.2.0/24") != 0)
		abort();
	fz_replies = 0;
	fz_last_len = 0;
	udpsh_input(&u, data, size, 0x0a000202u, 4000);
	if (fz_replies == 0 || fz_last_len < 2 ||
	    memcmp(fz_last + fz_last_len - 2, SHELL_PROMPT, 2) != 0)
		abort();

	shell_input_init(&in, size && (data[0] & 1));
	while (pos < size) {
		size_t piece = 1 + data[pos] % 64;

		if (piece > size - pos)
			piece = size - pos;
		shell_input_feed(&in, &sh, (const char *)data + pos, piece);
		pos += piece;
	}
	return 0;
}
