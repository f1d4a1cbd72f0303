/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: kprof-collect's interval path (tools/collect/
 * interval.c) on a reply a kernel could send to `profile rotate`, the
 * hostile one included: the size check, the block's header, the folded
 * reader under the run's caps and the pprof writer, as target.c and
 * store.c call them.  The first two bytes choose the run (--hz from a
 * short list or the kernel's default, --depth 1-32 or the default, the
 * interval 100 ms-1 h, and --max-reply given or not); the rest is the
 * reply.  Whatever it holds, the path must end without a crash, a leak,
 * an exit or a hang, and:
 *
 * - refusing, say why in one line;
 * - accepting the header, give seq/start_ns/end_ns at most INT64_MAX,
 *   end_ns >= start_ns, and a block that begins the reply and ends with
 *   its end line's newline;
 * - accepting the interval, have written a gzip stream. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "lib/folded_frame.h"

static const unsigned fz_hz[8] = { 0, 10, 99, 100, 997, 1000, 4000, 10000 };
static const int64_t fz_interval_ns[4] = {
	100000000ll, 1000000000ll, 10000000000ll, 3600000000000ll,
};

/* A target's labels, as main.c makes them from its line. */
static const struct target_labels fz_labels = {
	{ "target", "service_name" }, { "fuzz", "fuzz" }, 2
};

static void fz_check_error(const char *err)
{
	if (!err[0] || strchr(err, '\n'))
		abort();
}

static void fz_check_header(const struct interval *iv, const char *text, size_t len)
{
	const char *last;

	if (iv->start_ns > (uint64_t)INT64_MAX || iv->end_ns > (uint64_t)INT64_MAX ||
	    iv->end_ns < iv->start_ns || iv->text != text || !iv->len || iv->len > len ||
	    text[iv->len - 1] != '\n')
		abort();
	last = text + iv->len - 1;
	while (last > text && last[-1] != '\n')
		last--;
	if (strncmp(last, FOLDED_END_WORDS, sizeof(FOLDED_END_WORDS) - 1))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct interval_caps caps;
	struct interval iv;
	struct buf out = { 0 };
	char err[512] = "";
	char *text;

	if (size < 2)
		return 0;
	interval_caps(&caps, fz_hz[data[0] & 7], (data[0] >> 3) & 31,
		      fz_interval_ns[data[1] & 3], data[1] & 4 ? 4096u << (data[1] >> 5) : 0);
	data += 2;
	size -= 2;
	/* As the client hands a reply over: NUL-terminated. */
	text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	if (size > caps.reply_max) {
		/* target.c refuses it here, before reading a byte of it. */
	} else if (!interval_header(text, size, &iv, err, sizeof(err))) {
		fz_check_error(err);
	} else {
		fz_check_header(&iv, text, size);
		iv.host_start_ns = (int64_t)iv.start_ns;
		err[0] = '\0';
		if (interval_pprof(&iv, &fz_labels, &caps.lim, &out, err, sizeof(err))) {
			if (out.len < 18 || (uint8_t)out.p[0] != 0x1f || (uint8_t)out.p[1] != 0x8b)
				abort();
		} else {
			fz_check_error(err);
		}
	}
	buf_free(&out);
	free(text);
	return 0;
}
