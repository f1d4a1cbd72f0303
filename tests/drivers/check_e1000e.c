/* SPDX-License-Identifier: BSD-2-Clause */
/* The 82574L driver (src/drivers/e1000e) against a modelled part
 * (tests/kit/e1000e_model.c): set-up as the datasheet wants it, frames both
 * ways, and everything QEMU cannot be made to do — malformed
 * descriptors, runt and oversize frames, a full ring, the link down —
 * each counted once and never fatal: the next good frame still arrives. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/e1000e/e1000e.h"
#include "hal/netdev.h"
#include "e1000e_model.h"
#include "check_main.h"

static const uint8_t MAC[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static struct emodel model;
static struct e1000e nic;
static struct e1000e_mem *mem;

/* ---- a sink that records what the driver delivers ---- */

#define SINK_MAX 512

static struct {
	unsigned n;
	size_t len[SINK_MAX];
	uint8_t first[SINK_MAX];	/* each frame's first byte */
	uint64_t lost[3];
} rec;

static void sink_deliver(const void *frame, size_t len)
{
	ck_assert_uint_ge(len, 14);
	ck_assert_uint_le(len, HAL_NETDEV_MTU_FRAME);
	if (rec.n < SINK_MAX) {
		rec.len[rec.n] = len;
		rec.first[rec.n] = *(const uint8_t *)frame;
	}
	rec.n++;
}

static void sink_lost(enum net_rx_loss why, uint64_t n)
{
	ck_assert_uint_lt(why, 3);
	rec.lost[why] += n;
}

static const struct netdev_sink sink = { sink_deliver, sink_lost };

static void frame_of(uint8_t *f, size_t len, uint8_t tag)
{
	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(tag + i);
}

static bool rx_tagged(size_t len, uint8_t tag)
{
	uint8_t f[2048];

	frame_of(f, len, tag);
	return em_rx_frame(&model, f, len);
}

static void setup(void)
{
	/* aligned_alloc wants a size that is a multiple of the alignment. */
	mem = aligned_alloc(4096, (sizeof(*mem) + 4095) & ~(size_t)4095);
	ck_assert_ptr_nonnull(mem);
	memset(mem, 0, sizeof(*mem));
	memset(&rec, 0, sizeof(rec));
	em_init(&model, MAC, mem, sizeof(*mem));
}

static void teardown(void)
{
	free(mem);
}

static void up(void)
{
	ck_assert_int_eq(e1000e_probe(&nic, &model.bus, mem), 0);
	e1000e_start(&nic);
}

/* ---- set-up ---- */

CHECK_TEST("setup", test_probe_resets_reads_mac_and_programs_rings)
{
	up();
	ck_assert_uint_eq(model.resets, 1);
	ck_assert_mem_eq(nic.mac, MAC, 6);
	ck_assert(nic.link_up);
	/* The rings at the part's address of our memory, whole. */
	ck_assert_uint_eq((uint64_t)em_reg(&model, EM_RDBAH) << 32 | em_reg(&model, EM_RDBAL),
			  (uintptr_t)mem->rx + EM_DMA_OFFSET);
	ck_assert_uint_eq((uint64_t)em_reg(&model, EM_TDBAH) << 32 | em_reg(&model, EM_TDBAL),
			  (uintptr_t)mem->tx + EM_DMA_OFFSET);
	ck_assert_uint_eq(em_reg(&model, EM_RDLEN), E1000E_RX_DESCS * 16);
	ck_assert_uint_eq(em_reg(&model, EM_RDLEN) % 128, 0);
	ck_assert_uint_eq(em_reg(&model, EM_TDLEN), E1000E_TX_DESCS * 16);
	ck_assert_uint_eq(em_reg(&model, EM_RDH), 0);
	ck_assert_uint_eq(em_reg(&model, EM_RDT), E1000E_RX_DESCS - 1);
	ck_assert_uint_eq(em_reg(&model, EM_TDH), em_reg(&model, EM_TDT));
	/* Receiver on, broadcast taken, CRC stripped, 2 KiB buffers, legacy
	 * descriptors (DTYP 0); transmitter on, short frames padded. */
	ck_assert_uint_eq(em_reg(&model, EM_RCTL) & (1u << 1 | 1u << 15 | 1u << 26),
			  1u << 1 | 1u << 15 | 1u << 26);
	ck_assert_uint_eq(em_reg(&model, EM_RCTL) & (3u << 16 | 1u << 25 | 3u << 10), 0);
	ck_assert_uint_eq(em_reg(&model, EM_TCTL) & (1u << 1 | 1u << 3), 1u << 1 | 1u << 3);
	/* Receive, overrun and link interrupts unmasked after start. */
	ck_assert_uint_eq(model.ims & (EM_ICR_RXT0 | EM_ICR_RXO | EM_ICR_LSC),
			  EM_ICR_RXT0 | EM_ICR_RXO | EM_ICR_LSC);
	ck_assert_uint_eq(model.bad_dma, 0);
}
END_TEST

CHECK_TEST("setup", test_reset_that_never_ends_times_out)
{
	model.stuck_reset = true;
	ck_assert_int_eq(e1000e_probe(&nic, &model.bus, mem), -ETIMEDOUT);
	ck_assert_uint_eq(em_reg(&model, EM_RCTL), 0);
}
END_TEST

CHECK_TEST("setup", test_part_without_mac_is_not_driven)
{
	model.no_mac = true;
	ck_assert_int_eq(e1000e_probe(&nic, &model.bus, mem), -ENODEV);
	ck_assert_uint_eq(em_reg(&model, EM_RCTL), 0);
}
END_TEST

/* ---- frames both ways ---- */

CHECK_TEST("frames", test_frames_delivered_in_order_and_descriptors_given_back)
{
	up();
	for (unsigned i = 0; i < 10; i++)
		ck_assert(rx_tagged(60 + i, (uint8_t)i));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 10);
	ck_assert_uint_eq(rec.n, 10);
	for (unsigned i = 0; i < 10; i++) {
		ck_assert_uint_eq(rec.len[i], 60 + i);
		ck_assert_uint_eq(rec.first[i], i);
	}
	/* All but one descriptor the part's again: RDT just behind RDH. */
	ck_assert_uint_eq(em_reg(&model, EM_RDT), 9);
	ck_assert_uint_eq(nic.stats.rx_frames, 10);
	/* Round the ring several times. */
	for (unsigned i = 0; i < 3 * E1000E_RX_DESCS; i++) {
		ck_assert(rx_tagged(100, (uint8_t)i));
		ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	}
	ck_assert_uint_eq(rec.n, 10 + 3 * E1000E_RX_DESCS);
	ck_assert_uint_eq(rec.lost[0] + rec.lost[1] + rec.lost[2], 0);
	ck_assert_uint_eq(model.bad_dma, 0);
}
END_TEST

CHECK_TEST("frames", test_send_queues_eop_ifcs_rs_and_copies_the_frame)
{
	uint8_t f[1514];

	up();
	frame_of(f, sizeof(f), 7);
	ck_assert_int_eq(e1000e_send(&nic, f, 60), 0);
	ck_assert_int_eq(e1000e_send(&nic, f, sizeof(f)), 0);
	ck_assert_uint_eq(em_reg(&model, EM_TDT), 2);
	ck_assert_uint_eq(em_tx_consume(&model), 2);
	ck_assert_uint_eq(model.tx[0].len, 60);
	ck_assert_uint_eq(model.tx[1].len, 1514);
	ck_assert_mem_eq(model.tx[1].data, f, sizeof(f));
	ck_assert_uint_eq(model.tx[0].cmd, 0x01 | 0x02 | 0x08);
	ck_assert_int_eq(e1000e_send(&nic, f, 1515), -EINVAL);
	ck_assert_int_eq(e1000e_send(&nic, f, 0), -EINVAL);
	ck_assert_uint_eq(nic.stats.tx_frames, 2);
}
END_TEST

CHECK_TEST("frames", test_tx_ring_full_is_eagain_until_the_part_sends)
{
	uint8_t f[60];
	unsigned queued = 0;

	up();
	frame_of(f, sizeof(f), 1);
	while (e1000e_send(&nic, f, sizeof(f)) == 0)
		queued++;
	/* One descriptor stays empty, so TDT never catches TDH. */
	ck_assert_uint_eq(queued, E1000E_TX_DESCS - 1);
	ck_assert_int_eq(e1000e_send(&nic, f, sizeof(f)), -EAGAIN);
	ck_assert_uint_eq(nic.stats.tx_ring_full, 2);
	ck_assert_uint_eq(em_tx_consume(&model), E1000E_TX_DESCS - 1);
	ck_assert_int_eq(e1000e_send(&nic, f, sizeof(f)), 0);
	ck_assert_uint_eq(em_tx_consume(&model), 1);
}
END_TEST

/* ---- what the part may hand back, each counted once ---- */

CHECK_TEST("malformed", test_runt_counted_short_next_frame_delivered)
{
	uint8_t f[64] = { 0 };

	up();
	ck_assert(em_rx_frame(&model, f, 10));
	ck_assert(em_rx_frame(&model, f, 0));
	ck_assert(rx_tagged(60, 0x33));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_SHORT], 2);
	ck_assert_uint_eq(nic.stats.rx_runt, 2);
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_uint_eq(rec.first[0], 0x33);
}
END_TEST

CHECK_TEST("malformed", test_oversize_and_past_buffer_lengths_counted_not_read)
{
	uint8_t f[2048];

	up();
	frame_of(f, sizeof(f), 0);
	/* Longer than any frame we take, inside the buffer. */
	ck_assert(em_rx_raw(&model, f, 1600, 1600, 0x02, 0));
	/* A length past the 2 KiB buffer: never read past it. */
	ck_assert(em_rx_raw(&model, f, 2048, 9000, 0x02, 0));
	ck_assert(em_rx_raw(&model, f, 2048, 0xffff, 0x02, 0));
	ck_assert(rx_tagged(1514, 0x44));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	ck_assert_uint_eq(nic.stats.rx_oversize, 1);
	ck_assert_uint_eq(nic.stats.rx_bad_desc, 2);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_BAD_BUFFER], 3);
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_uint_eq(rec.len[0], 1514);
	ck_assert_uint_eq(rec.first[0], 0x44);
}
END_TEST

CHECK_TEST("malformed", test_frame_spread_over_descriptors_dropped_whole_once)
{
	uint8_t f[2048];

	up();
	frame_of(f, sizeof(f), 0);
	/* Three descriptors, EOP only on the last: one frame, one loss. */
	ck_assert(em_rx_raw(&model, f, 2048, 2048, 0, 0));
	ck_assert(em_rx_raw(&model, f, 2048, 2048, 0, 0));
	ck_assert(em_rx_raw(&model, f, 100, 100, 0x02, 0));
	ck_assert(rx_tagged(60, 0x55));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_BAD_BUFFER], 1);
	ck_assert_uint_eq(nic.stats.rx_bad_desc, 1);
	ck_assert_uint_eq(rec.first[0], 0x55);
	/* All four descriptors went back. */
	ck_assert_uint_eq(em_reg(&model, EM_RDT), 3);
}
END_TEST

CHECK_TEST("malformed", test_error_bits_counted_frame_dropped)
{
	uint8_t f[64];

	up();
	frame_of(f, sizeof(f), 0);
	ck_assert(em_rx_raw(&model, f, 64, 64, 0x02, 0x01));	/* CRC */
	ck_assert(em_rx_raw(&model, f, 64, 64, 0x02, 0x80));	/* RX data error */
	/* A checksum error bit alone (RXCSUM off) is not a bad frame. */
	ck_assert(em_rx_raw(&model, f, 64, 64, 0x02, 0x40));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	ck_assert_uint_eq(nic.stats.rx_errors, 2);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_BAD_BUFFER], 2);
}
END_TEST

CHECK_TEST("malformed", test_descriptor_address_rewritten_whatever_the_part_left)
{
	up();
	ck_assert(rx_tagged(60, 1));
	/* A part that scribbled over the address it was given. */
	mem->rx[0].addr = 0xdeadbeef;
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	ck_assert_uint_eq(mem->rx[0].addr, (uintptr_t)mem->rx_buf[0] + EM_DMA_OFFSET);
	ck_assert_uint_eq(mem->rx[0].status, 0);
}
END_TEST

CHECK_TEST("malformed", test_full_ring_counted_as_overflow_then_refilled)
{
	unsigned got;

	up();
	for (unsigned i = 0; i < 200; i++)
		rx_tagged(60, (uint8_t)i);
	/* The part holds all but one descriptor: 127 taken, 73 missed. */
	ck_assert_uint_eq(em_reg(&model, EM_MPC), 73);
	got = e1000e_poll(&nic, 64, &sink);
	ck_assert_uint_eq(got, 64);
	got += e1000e_poll(&nic, 64, &sink);
	ck_assert_uint_eq(got, E1000E_RX_DESCS - 1);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_OVERFLOW], 73);
	ck_assert_uint_eq(nic.stats.rx_missed, 73);
	/* In order: the first 127 frames sent. */
	for (unsigned i = 0; i < got; i++)
		ck_assert_uint_eq(rec.first[i], i);
	ck_assert(rx_tagged(60, 0xaa));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	ck_assert_uint_eq(rec.first[got], 0xaa);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_OVERFLOW], 73);
}
END_TEST

CHECK_TEST("malformed", test_link_down_refuses_sends_counted_link_up_resumes)
{
	uint8_t f[60];

	up();
	frame_of(f, sizeof(f), 2);
	em_set_link(&model, false);
	ck_assert(e1000e_irq(&nic));
	ck_assert(!nic.link_up);
	ck_assert_uint_eq(nic.stats.link_changes, 1);
	ck_assert_int_eq(e1000e_send(&nic, f, sizeof(f)), -ENETDOWN);
	ck_assert_int_eq(e1000e_send(&nic, f, sizeof(f)), -ENETDOWN);
	ck_assert_uint_eq(nic.stats.tx_link_down, 2);
	ck_assert_uint_eq(em_reg(&model, EM_TDT), 0);
	/* Receive still drains what the part had. */
	ck_assert(rx_tagged(60, 9));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 1);
	/* The link back without its interrupt seen: the next send asks. */
	em_set_link(&model, true);
	ck_assert_int_eq(e1000e_send(&nic, f, sizeof(f)), 0);
	ck_assert(nic.link_up);
	ck_assert_uint_eq(em_tx_consume(&model), 1);
}
END_TEST

CHECK_TEST("malformed", test_irq_reads_and_clears_causes)
{
	up();
	ck_assert(!e1000e_irq(&nic));
	ck_assert(rx_tagged(60, 1));
	ck_assert_uint_eq(model.interrupts, 1);
	ck_assert(e1000e_irq(&nic));
	ck_assert_uint_eq(em_reg(&model, EM_ICR), 0);
	ck_assert(!e1000e_irq(&nic));
}
END_TEST

/* ---- the poll contract (hal/netdev.h) ---- */

static unsigned race_frames;

static void race_on_unmask(struct emodel *m)
{
	if (race_frames) {
		uint8_t f[60];

		race_frames--;
		frame_of(f, sizeof(f), 0xee);
		ck_assert(em_rx_frame(m, f, sizeof(f)));
	}
}

CHECK_TEST("poll", test_frame_between_last_look_and_unmask_is_delivered)
{
	up();
	ck_assert(rx_tagged(60, 1));
	race_frames = 1;
	model.on_ims = race_on_unmask;
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 2);
	ck_assert_uint_eq(rec.first[1], 0xee);
	ck_assert_uint_eq(model.ims & EM_ICR_RXT0, EM_ICR_RXT0);
}
END_TEST

CHECK_TEST("poll", test_rx_interrupts_masked_while_draining_full_budget_keeps_them_off)
{
	up();
	for (unsigned i = 0; i < 70; i++)
		ck_assert(rx_tagged(60, (uint8_t)i));
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 64);
	ck_assert_uint_eq(model.ims & EM_ICR_RXT0, 0);
	ck_assert_uint_eq(model.ims & EM_ICR_LSC, EM_ICR_LSC);
	ck_assert_uint_eq(e1000e_poll(&nic, 64, &sink), 6);
	ck_assert_uint_eq(model.ims & EM_ICR_RXT0, EM_ICR_RXT0);
}
END_TEST

CHECK_CASE("setup", setup, teardown, 0);
CHECK_CASE("frames", setup, teardown, 0);
CHECK_CASE("malformed", setup, teardown, 0);
CHECK_CASE("poll", setup, teardown, 0);

int main(void)
{
	return check_run(check_suite("e1000e", NULL, 0));
}
