/* SPDX-License-Identifier: BSD-2-Clause */
/* The virtio family (src/drivers/virtio) against a modelled device
 * (tests/kit/virtio_model.c) on each transport: negotiation and the header
 * length it implies, full rings, a device returning ids and lengths out
 * of range, reset, the receive race of the poll contract
 * (hal/netdev.h), and interrupt suppression both ways. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "drivers/virtio/virtio.h"
#include "drivers/virtio/virtio_net.h"
#include "drivers/virtio/virtqueue.h"
#include "hal/netdev.h"
#include "virtio_model.h"
#include "check_main.h"

static struct vmodel model;
static struct virtio_transport tr;
static struct virtio_net vn;

/* ---- a sink that records what the driver delivers ---- */

#define SINK_MAX 512

static struct {
	unsigned n;
	size_t len[SINK_MAX];
	uint8_t first[SINK_MAX];	/* each frame's first byte */
	uint64_t lost[3];
	void (*during)(unsigned n);	/* called after each delivery */
} rec;

static void sink_deliver(const void *frame, size_t len)
{
	ck_assert_uint_le(len, VIRTIO_NET_BUF_SIZE);
	if (rec.n < SINK_MAX) {
		rec.len[rec.n] = len;
		rec.first[rec.n] = len ? *(const uint8_t *)frame : 0;
	}
	rec.n++;
	if (rec.during)
		rec.during(rec.n);
}

static void sink_lost(enum net_rx_loss why, uint64_t n)
{
	rec.lost[why] += n;
}

static const struct netdev_sink sink = { sink_deliver, sink_lost };

/* The wrap of virtq_enable_irq() (linked with --wrap): a test may have
 * the device receive a frame at the very moment the driver turns its
 * interrupt back on, after its last look at the ring. */
bool __real_virtq_enable_irq(struct virtq *q);
static unsigned race_frames;

bool __wrap_virtq_enable_irq(struct virtq *q)
{
	if (race_frames && q == &vn.rx) {
		uint8_t f[60] = { 0xee };

		race_frames--;
		ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	}
	return __real_virtq_enable_irq(q);
}

static void frame_of(uint8_t *f, size_t len, uint8_t tag)
{
	memset(f, 0, len);
	f[0] = tag;
	for (size_t i = 1; i < len; i++)
		f[i] = (uint8_t)(tag + i);
}

/* Bring a driver up on a fresh model of @kind offering @features. */
static void up(enum vm_kind kind, uint64_t features)
{
	memset(&rec, 0, sizeof(rec));
	race_frames = 0;
	vm_init(&model, kind, features);
	if (kind == VM_PCI_LEGACY)
		virtio_pci_legacy_init(&tr, &model.bus);
	else
		ck_assert_int_eq(virtio_mmio_init(&tr, &model.bus), 0);
	ck_assert_int_eq(virtio_net_probe(&vn, &tr), 0);
	virtio_net_start(&vn);
}

static const uint64_t F_LEGACY = 1ull << VM_F_MAC | 1ull << VM_F_STATUS;
static const uint64_t F_MODERN = 1ull << VM_F_MAC | 1ull << VM_F_STATUS |
				 1ull << VM_F_VERSION_1;

/* One frame each way, checked byte for byte on the device's side. */
static void round_trip(void)
{
	uint8_t f[100], g[64];

	frame_of(f, sizeof(f), 0x42);
	ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(virtio_net_poll(&vn, 64, &sink), 1);
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_uint_eq(rec.len[0], sizeof(f));
	ck_assert_uint_eq(rec.first[0], 0x42);

	frame_of(g, sizeof(g), 0x17);
	ck_assert_int_eq(virtio_net_send(&vn, g, sizeof(g)), 0);
	ck_assert_uint_eq(vm_tx_consume(&model), 1);
	ck_assert_uint_eq(model.ntx, 1);
	ck_assert_uint_eq(model.tx[0].len, sizeof(g));
	ck_assert(model.tx[0].hdr_zero);
	ck_assert_mem_eq(model.tx[0].data, g, sizeof(g));
}

/* ---- negotiation ---- */

CHECK_TEST("negotiation", test_pci_legacy_negotiates_mac_only_header_10)
{
	up(VM_PCI_LEGACY, F_LEGACY | 1ull << 22);
	ck_assert_uint_eq(vn.features, 1ull << VM_F_MAC);
	ck_assert_uint_eq(model.driver_features, 1ull << VM_F_MAC);
	ck_assert_uint_eq(vn.hdr_len, 10);
	ck_assert_uint_eq(vm_hdr_len(&model), 10);
	ck_assert_mem_eq(vn.mac, model.mac, 6);
	/* §3.1.1 legacy: reset, ACKNOWLEDGE, DRIVER, DRIVER_OK; no
	 * FEATURES_OK. */
	ck_assert_uint_eq(model.nstatus, 4);
	ck_assert_uint_eq(model.status_log[0], 0);
	ck_assert_uint_eq(model.status_log[1], 1);
	ck_assert_uint_eq(model.status_log[2], 3);
	ck_assert_uint_eq(model.status_log[3], 7);
	round_trip();
}
END_TEST

CHECK_TEST("negotiation", test_mmio_v1_is_legacy_header_10)
{
	up(VM_MMIO_V1, F_LEGACY);
	ck_assert(tr.legacy);
	ck_assert_uint_eq(tr.device_id, 1);
	ck_assert_uint_eq(vn.hdr_len, 10);
	ck_assert_uint_eq(model.guest_page_size, 4096);
	ck_assert_uint_eq(model.q[0].align, 4096);
	ck_assert(vm_queue_live(&model, 0) && vm_queue_live(&model, 1));
	ck_assert_uint_eq(model.status & 8, 0);
	round_trip();
}
END_TEST

CHECK_TEST("negotiation", test_mmio_v2_negotiates_version_1_header_12)
{
	up(VM_MMIO_V2, F_MODERN);
	ck_assert(!tr.legacy);
	ck_assert_uint_eq(vn.features, 1ull << VM_F_MAC | 1ull << VM_F_VERSION_1);
	ck_assert_uint_eq(model.driver_features, vn.features);
	ck_assert_uint_eq(vn.hdr_len, 12);
	ck_assert_uint_eq(vm_hdr_len(&model), 12);
	/* reset, ACK, DRIVER, FEATURES_OK, DRIVER_OK */
	ck_assert_uint_eq(model.nstatus, 5);
	ck_assert_uint_eq(model.status_log[3], 1 | 2 | 8);
	ck_assert_uint_eq(model.status_log[4], 1 | 2 | 8 | 4);
	ck_assert(model.q[0].ready && model.q[1].ready);
	/* Separate areas: the used ring need not start a page. */
	ck_assert_uint_eq(model.q[0].device % 4, 0);
	ck_assert_uint_ne(model.q[0].device % 4096, 0);
	round_trip();
}
END_TEST

CHECK_TEST("negotiation", test_mmio_v2_refused_features_fail_the_probe)
{
	vm_init(&model, VM_MMIO_V2, F_MODERN);
	model.refuse_features = true;
	ck_assert_int_eq(virtio_mmio_init(&tr, &model.bus), 0);
	ck_assert_int_eq(virtio_net_probe(&vn, &tr), -ENODEV);
	ck_assert_uint_eq(model.status & 128, 128);	/* FAILED */
	ck_assert(!vm_queue_live(&model, 0));
}
END_TEST

CHECK_TEST("negotiation", test_mmio_v2_without_version_1_is_not_driven)
{
	vm_init(&model, VM_MMIO_V2, F_LEGACY);
	ck_assert_int_eq(virtio_mmio_init(&tr, &model.bus), 0);
	ck_assert_int_eq(virtio_net_probe(&vn, &tr), -ENODEV);
}
END_TEST

CHECK_TEST("negotiation", test_no_mac_feature_gives_fallback_mac)
{
	static const uint8_t fallback[6] = { 0x52, 1, 2, 3, 4, 5 };

	up(VM_MMIO_V1, 0);
	ck_assert_uint_eq(vn.features, 0);
	ck_assert_mem_eq(vn.mac, fallback, 6);
}
END_TEST

CHECK_TEST("negotiation", test_mmio_window_checked_magic_version_slot)
{
	struct vmodel m;

	/* A window that is not virtio-mmio: no magic at 0. */
	vm_init(&m, VM_PCI_LEGACY, F_LEGACY);
	ck_assert_int_eq(virtio_mmio_init(&tr, &m.bus), -ENODEV);
	vm_init(&m, VM_MMIO_V2, F_MODERN);
	m.mmio_version = 3;
	ck_assert_int_eq(virtio_mmio_init(&tr, &m.bus), -EINVAL);
	/* QEMU fills every slot; an empty one says device 0. */
	vm_init(&m, VM_MMIO_V1, F_LEGACY);
	m.device_id = 0;
	ck_assert_int_eq(virtio_mmio_init(&tr, &m.bus), 0);
	ck_assert_uint_eq(tr.device_id, 0);
}
END_TEST

/* ---- full rings ---- */

CHECK_TEST("full rings", test_rx_ring_full_then_refilled)
{
	uint8_t f[60];

	up(VM_PCI_LEGACY, F_LEGACY);
	for (unsigned i = 0; i < VIRTIO_NET_RX_BUFS; i++) {
		frame_of(f, sizeof(f), (uint8_t)i);
		ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	}
	ck_assert(!vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(model.rx_no_buffer, 1);
	/* A budget bounds the work; the rest waits for the next call. */
	ck_assert_uint_eq(virtio_net_poll(&vn, 100, &sink), 100);
	ck_assert_uint_eq(virtio_net_poll(&vn, 100, &sink), VIRTIO_NET_RX_BUFS - 100);
	for (unsigned i = 0; i < VIRTIO_NET_RX_BUFS; i++)
		ck_assert_uint_eq(rec.first[i], (uint8_t)i);
	/* Every buffer is posted again. */
	for (unsigned i = 0; i < VIRTIO_NET_RX_BUFS; i++)
		ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert(!vm_rx_frame(&model, f, sizeof(f)));
}
END_TEST

CHECK_TEST("full rings", test_tx_ring_full_is_eagain_and_nothing_in_flight_reused)
{
	uint8_t f[80];

	up(VM_MMIO_V2, F_MODERN);
	for (unsigned i = 0; i < VIRTIO_NET_TX_BUFS; i++) {
		frame_of(f, sizeof(f), (uint8_t)(i + 1));
		ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	}
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), -EAGAIN);
	/* What the device reads now is what was sent, in order: no
	 * buffer in flight was written again. */
	ck_assert_uint_eq(vm_tx_consume(&model), VIRTIO_NET_TX_BUFS);
	for (unsigned i = 0; i < VIRTIO_NET_TX_BUFS; i++) {
		frame_of(f, sizeof(f), (uint8_t)(i + 1));
		ck_assert_mem_eq(model.tx[i].data, f, sizeof(f));
	}
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_int_eq(virtio_net_send(&vn, f, HAL_NETDEV_MTU_FRAME + 1), -EINVAL);
}
END_TEST

/* ---- a device out of range ---- */

CHECK_TEST("bad device", test_rx_id_out_of_range_rejected_and_counted)
{
	uint8_t f[60];

	up(VM_PCI_LEGACY, F_LEGACY);
	vm_rx_raw(&model, 1000, 60, false);		/* past the table */
	vm_rx_raw(&model, VIRTIO_NET_RX_BUFS, 60, false);	/* not ours */
	frame_of(f, sizeof(f), 9);
	ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(virtio_net_poll(&vn, 64, &sink), 1);
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_uint_eq(rec.first[0], 9);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_BAD_BUFFER], 2);
	ck_assert_uint_eq(vn.rx.bad_id, 2);
}
END_TEST

CHECK_TEST("bad device", test_rx_length_past_buffer_rejected_buffer_kept)
{
	uint8_t f[60];

	up(VM_MMIO_V2, F_MODERN);
	vm_rx_raw(&model, 0, VIRTIO_NET_BUF_SIZE + 1, true);
	vm_rx_raw(&model, 1, 0xffffffffu, true);
	vm_rx_raw(&model, 2, 5, true);			/* shorter than the header */
	ck_assert_uint_eq(virtio_net_poll(&vn, 64, &sink), 0);
	ck_assert_uint_eq(rec.n, 0);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_BAD_BUFFER], 2);
	ck_assert_uint_eq(rec.lost[NET_RX_LOST_SHORT], 1);
	ck_assert_uint_eq(vn.rx.bad_len, 2);
	/* The three buffers are posted again: all RX_BUFS can be filled. */
	frame_of(f, sizeof(f), 3);
	for (unsigned i = 0; i < VIRTIO_NET_RX_BUFS; i++)
		ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(virtio_net_poll(&vn, 1000, &sink), VIRTIO_NET_RX_BUFS);
}
END_TEST

CHECK_TEST("bad device", test_tx_id_out_of_range_or_twice_never_frees_a_buffer)
{
	uint8_t f[60];

	up(VM_PCI_LEGACY, F_LEGACY);
	frame_of(f, sizeof(f), 5);
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_uint_eq(vm_tx_consume(&model), 1);
	vm_tx_raw(&model, 0);		/* again: no longer in flight */
	vm_tx_raw(&model, 4000);	/* past the table */
	for (unsigned i = 0; i < VIRTIO_NET_TX_BUFS; i++)
		ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_uint_eq(vn.tx.bad_id, 2);
	/* Exactly TX_BUFS in flight: one more has no buffer. */
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), -EAGAIN);
}
END_TEST

/* ---- reset ---- */

CHECK_TEST("reset", test_probe_resets_a_live_device_first)
{
	/* A device a previous driver left running: status DRIVER_OK,
	 * queues live.  Without a reset it would refuse new queues. */
	vm_init(&model, VM_MMIO_V2, F_MODERN);
	model.status = 1 | 2 | 8 | 4;
	model.q[0].ready = model.q[1].ready = true;
	model.isr = 1;
	model.reset_reads = 5;	/* and it takes its time to reset */
	ck_assert_int_eq(virtio_mmio_init(&tr, &model.bus), 0);
	ck_assert_int_eq(virtio_net_probe(&vn, &tr), 0);
	ck_assert_uint_eq(model.status_log[0], 0);
	ck_assert_uint_eq(model.status_log[1], 1);	/* only once reset showed */
	ck_assert_uint_eq(model.reset_left, 0);
	ck_assert(model.q[0].ready && model.q[1].ready);
}
END_TEST

CHECK_TEST("reset", test_device_stuck_in_reset_times_out)
{
	vm_init(&model, VM_MMIO_V2, F_MODERN);
	model.status = 4;
	model.reset_reads = UINT32_MAX;
	ck_assert_int_eq(virtio_mmio_init(&tr, &model.bus), 0);
	ck_assert_int_eq(virtio_net_probe(&vn, &tr), -ETIMEDOUT);
	ck_assert_uint_eq(model.nstatus, 1);	/* nothing after the reset */
}
END_TEST

/* ---- the receive race ---- */

CHECK_TEST("receive race", test_frame_between_last_poll_and_reenable_is_delivered)
{
	up(VM_PCI_LEGACY, F_LEGACY);
	race_frames = 1;
	/* The ring is empty; the frame lands as the driver re-enables. */
	ck_assert_uint_eq(virtio_net_poll(&vn, 64, &sink), 1);
	ck_assert_uint_eq(race_frames, 0);
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_uint_eq(rec.first[0], 0xee);
	/* It came while suppressed: no interrupt would have told. */
	ck_assert_uint_eq(model.interrupts, 0);
	ck_assert_uint_eq(vm_avail_flags(&model, 0) & 1, 0);
}
END_TEST

CHECK_TEST("receive race", test_race_on_mmio_v2_too)
{
	uint8_t f[60];

	up(VM_MMIO_V2, F_MODERN);
	frame_of(f, sizeof(f), 1);
	ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	race_frames = 2;
	ck_assert_uint_eq(virtio_net_poll(&vn, 64, &sink), 3);
	ck_assert_uint_eq(rec.n, 3);
	ck_assert_uint_eq(vm_avail_flags(&model, 0) & 1, 0);
}
END_TEST

/* ---- interrupt suppression ---- */

static void inject_during_poll(unsigned n)
{
	uint8_t f[60] = { 0x33 };

	if (n == 1) {
		ck_assert_uint_eq(vm_avail_flags(&model, 0) & 1, 1);
		ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	}
}

CHECK_TEST("interrupt suppression", test_rx_interrupts_off_while_polling_on_after)
{
	uint8_t f[60];
	uint64_t before;

	up(VM_MMIO_V1, F_LEGACY);
	frame_of(f, sizeof(f), 1);
	ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(model.interrupts, 1);		/* idle: it interrupts */
	ck_assert(virtio_net_irq(&vn));
	ck_assert(!virtio_net_irq(&vn));		/* acknowledged */
	rec.during = inject_during_poll;
	before = model.interrupts;
	ck_assert_uint_eq(virtio_net_poll(&vn, 64, &sink), 2);
	ck_assert_uint_eq(model.interrupts, before);	/* none while polling */
	rec.during = NULL;
	ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(model.interrupts, before + 1);	/* on again */
}
END_TEST

CHECK_TEST("interrupt suppression", test_full_budget_leaves_interrupts_off)
{
	uint8_t f[60];

	up(VM_PCI_LEGACY, F_LEGACY);
	frame_of(f, sizeof(f), 1);
	for (unsigned i = 0; i < 5; i++)
		ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(virtio_net_poll(&vn, 3, &sink), 3);
	ck_assert_uint_eq(vm_avail_flags(&model, 0) & 1, 1);
	ck_assert_uint_eq(virtio_net_poll(&vn, 3, &sink), 2);
	ck_assert_uint_eq(vm_avail_flags(&model, 0) & 1, 0);
}
END_TEST

CHECK_TEST("interrupt suppression", test_tx_completions_do_not_interrupt)
{
	uint8_t f[60];

	up(VM_MMIO_V2, F_MODERN);
	frame_of(f, sizeof(f), 1);
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_uint_eq(vm_tx_consume(&model), 1);
	ck_assert_uint_eq(model.interrupts, 0);
}
END_TEST

CHECK_TEST("interrupt suppression", test_device_no_notify_is_respected)
{
	uint8_t f[60];
	uint64_t n;

	up(VM_PCI_LEGACY, F_LEGACY);
	frame_of(f, sizeof(f), 1);
	n = model.q[1].notifies;
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_uint_eq(model.q[1].notifies, n + 1);
	vm_set_used_flags(&model, 1, 1);		/* VIRTQ_USED_F_NO_NOTIFY */
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_uint_eq(model.q[1].notifies, n + 1);
	vm_set_used_flags(&model, 1, 0);
	ck_assert_int_eq(virtio_net_send(&vn, f, sizeof(f)), 0);
	ck_assert_uint_eq(model.q[1].notifies, n + 2);
	ck_assert_uint_eq(vm_tx_consume(&model), 4);
	/* The receive side notifies once per poll that gave buffers back. */
	n = model.q[0].notifies;
	ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert(vm_rx_frame(&model, f, sizeof(f)));
	ck_assert_uint_eq(virtio_net_poll(&vn, 64, &sink), 2);
	ck_assert_uint_eq(model.q[0].notifies, n + 1);
}
END_TEST

int main(void)
{
	return check_run(check_suite("virtio", NULL, 0));
}
