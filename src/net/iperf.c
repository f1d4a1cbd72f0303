/* SPDX-License-Identifier: BSD-2-Clause */
/* iperf 2's UDP wire format, see iperf.h. */
#include "net/iperf.h"

#include <stdbool.h>

#include "lib/errno.h"
#include "lib/kstring.h"
#include "net/wire.h"

void iperf_dgram_build(uint8_t *buf, size_t size, int32_t id, uint64_t now_ns)
{
	kmemset(buf, 0, size);
	wire_put32(buf, (uint32_t)id);
	wire_put32(buf + 4, (uint32_t)(now_ns / 1000000000u));
	wire_put32(buf + 8, (uint32_t)(now_ns % 1000000000u / 1000u));
}

int32_t iperf_dgram_id(const uint8_t *data)
{
	return (int32_t)wire_get32(data);
}

int64_t iperf_dgram_sent_ns(const uint8_t *data)
{
	return (int64_t)wire_get32(data + 4) * 1000000000 +
	       (int64_t)wire_get32(data + 8) * 1000;
}

size_t iperf_report_build(const struct iperf_report *rep, const uint8_t *fin,
			  size_t fin_len, uint8_t *buf)
{
	kmemset(buf, 0, IPERF_REPORT_LEN);
	kmemcpy(buf, fin, fin_len < IPERF_HDR_LEN ? fin_len : IPERF_HDR_LEN);
	wire_put32(buf + 16, IPERF_FLAG_VERSION1 | IPERF_FLAG_SEQNO64B);
	wire_put32(buf + 20, (uint32_t)(rep->bytes >> 32));
	wire_put32(buf + 24, (uint32_t)rep->bytes);
	wire_put32(buf + 28, rep->stop_sec);
	wire_put32(buf + 32, rep->stop_usec);
	wire_put32(buf + 36, (uint32_t)rep->lost);
	wire_put32(buf + 40, (uint32_t)rep->out_of_order);
	wire_put32(buf + 44, (uint32_t)rep->datagrams);
	wire_put32(buf + 48, rep->jitter_sec);
	wire_put32(buf + 52, rep->jitter_usec);
	wire_put32(buf + 116, (uint32_t)(rep->lost >> 32));
	wire_put32(buf + 120, (uint32_t)(rep->out_of_order >> 32));
	wire_put32(buf + 124, (uint32_t)(rep->datagrams >> 32));
	return IPERF_REPORT_LEN;
}

int iperf_report_parse(const uint8_t *buf, size_t len, struct iperf_report *rep)
{
	bool wide;

	if (len < IPERF_HDR_LEN + 40)
		return -EINVAL;
	rep->flags = wire_get32(buf + 16);
	if (!(rep->flags & IPERF_FLAG_VERSION1))
		return -EINVAL;
	/* Without SEQNO64B (iperf 2.0) the counts are 32-bit, and the
	 * report may end at byte 56. */
	wide = (rep->flags & IPERF_FLAG_SEQNO64B) && len >= IPERF_REPORT_LEN;
	rep->bytes = (uint64_t)wire_get32(buf + 20) << 32 | wire_get32(buf + 24);
	rep->stop_sec = wire_get32(buf + 28);
	rep->stop_usec = wire_get32(buf + 32);
	rep->lost = wire_get32(buf + 36);
	rep->out_of_order = wire_get32(buf + 40);
	rep->datagrams = wire_get32(buf + 44);
	rep->jitter_sec = wire_get32(buf + 48);
	rep->jitter_usec = wire_get32(buf + 52);
	if (wide) {
		rep->lost |= (uint64_t)wire_get32(buf + 116) << 32;
		rep->out_of_order |= (uint64_t)wire_get32(buf + 120) << 32;
		rep->datagrams |= (uint64_t)wire_get32(buf + 124) << 32;
	}
	return 0;
}
