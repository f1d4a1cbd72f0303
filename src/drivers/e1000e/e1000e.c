/* SPDX-License-Identifier: BSD-2-Clause */
/* The 82574L's rings: see e1000e.h.  Register offsets and bits from the
 * 82574 datasheet (as Linux e1000e/hw.h and QEMU's e1000_regs.h quote
 * it). */
#include "drivers/e1000e/e1000e.h"

#include "hal/netdev.h"
#include "lib/errno.h"
#include "lib/kstring.h"

#define REG_CTRL	0x0000
#define REG_STATUS	0x0008
#define REG_EECD	0x0010
#define REG_ICR		0x00c0
#define REG_ITR		0x00c4
#define REG_IMS		0x00d0
#define REG_IMC		0x00d8
#define REG_RCTL	0x0100
#define REG_TCTL	0x0400
#define REG_TIPG	0x0410
#define REG_RDBAL	0x2800
#define REG_RDBAH	0x2804
#define REG_RDLEN	0x2808
#define REG_RDH		0x2810
#define REG_RDT		0x2818
#define REG_RDTR	0x2820
#define REG_TDBAL	0x3800
#define REG_TDBAH	0x3804
#define REG_TDLEN	0x3808
#define REG_TDH		0x3810
#define REG_TDT		0x3818
#define REG_MPC		0x4010	/* missed packets: clears on read */
#define REG_MTA		0x5200	/* 128 multicast table words */
#define REG_RAL0	0x5400
#define REG_RAH0	0x5404

#define CTRL_SLU	(1u << 6)	/* set link up */
#define CTRL_RST	(1u << 26)
#define STATUS_LU	(1u << 1)
#define EECD_AUTO_RD	(1u << 9)	/* NVM auto-read done after reset */
#define RAH_AV		(1u << 31)

#define ICR_TXDW	(1u << 0)
#define ICR_LSC		(1u << 2)
#define ICR_RXDMT0	(1u << 4)
#define ICR_RXO		(1u << 6)
#define ICR_RXT0	(1u << 7)
/* What the receive poll masks while it drains; the link change stays on. */
#define ICR_RX		(ICR_RXT0 | ICR_RXO | ICR_RXDMT0)

#define RCTL_EN		(1u << 1)
#define RCTL_BAM	(1u << 15)	/* accept broadcast (ARP) */
#define RCTL_SECRC	(1u << 26)	/* strip the CRC: lengths are frames */
#define TCTL_EN		(1u << 1)
#define TCTL_PSP	(1u << 3)	/* pad short frames to 64 bytes */
#define TCTL_CT		(0x0fu << 4)	/* collision threshold (Linux's) */
#define TCTL_COLD	(0x3fu << 12)	/* collision distance, full duplex */
/* Inter-packet gap for copper 82574: IPGT 8, IPGR1 8, IPGR2 6. */
#define TIPG_82574	(8u | 8u << 10 | 6u << 20)

#define RXD_DD		0x01
#define RXD_EOP		0x02
/* Receive errors that make a frame bad (CE, SE, SEQ, CXE, RXE); the
 * checksum ones (TCPE, IPE) need RXCSUM, which stays off. */
#define RXD_ERR_FRAME	0x97
#define TXD_CMD_EOP	0x01
#define TXD_CMD_IFCS	0x02
#define TXD_CMD_RS	0x08
#define TXD_DD		0x01

/* Register reads the reset may take (each an MMIO read, about 1 us on
 * hardware: tens of ms in all). */
#define E1000E_RESET_READS	100000
/* Settling time after CTRL.RST before the first register read. */
#define E1000E_RESET_SETTLE_US	1000

static uint32_t rd(const struct e1000e *e, unsigned off)
{
	return e->bus.read(&e->bus, off);
}

static void wr(const struct e1000e *e, unsigned off, uint32_t v)
{
	e->bus.write(&e->bus, off, v);
}

static uint64_t dma(const struct e1000e *e, const void *p)
{
	return e->bus.dma_addr(&e->bus, p);
}

/* The part writes descriptors behind the compiler's back. */
static uint8_t rx_status(const struct e1000e *e, unsigned i)
{
	return __atomic_load_n(&e->mem->rx[i].status, __ATOMIC_ACQUIRE);
}

static bool e1000e_reset(struct e1000e *e)
{
	unsigned n;

	wr(e, REG_IMC, 0xffffffffu);
	wr(e, REG_RCTL, 0);
	wr(e, REG_TCTL, 0);
	(void)rd(e, REG_STATUS);	/* flush the writes before the reset */
	wr(e, REG_CTRL, rd(e, REG_CTRL) | CTRL_RST);
	/* Linux e1000e waits before touching a part in reset; so do we
	 * where the platform can tell time. */
	if (e->bus.delay_us)
		e->bus.delay_us(&e->bus, E1000E_RESET_SETTLE_US);
	for (n = 0; n < E1000E_RESET_READS && (rd(e, REG_CTRL) & CTRL_RST); n++)
		;
	if (n == E1000E_RESET_READS)
		return false;
	/* The MAC comes from the NVM after the reset: wait for it, bounded;
	 * a part without the bit still has RAH0.AV to say. */
	for (n = 0; n < E1000E_RESET_READS && !(rd(e, REG_EECD) & EECD_AUTO_RD); n++)
		;
	wr(e, REG_IMC, 0xffffffffu);
	(void)rd(e, REG_ICR);
	return true;
}

static bool e1000e_read_mac(struct e1000e *e)
{
	uint32_t lo = rd(e, REG_RAL0), hi = rd(e, REG_RAH0);

	if (!(hi & RAH_AV))
		return false;
	for (unsigned i = 0; i < 4; i++)
		e->mac[i] = (uint8_t)(lo >> (8 * i));
	e->mac[4] = (uint8_t)hi;
	e->mac[5] = (uint8_t)(hi >> 8);
	return true;
}

/* Give descriptor @i (back) to the part: our buffer, nothing done. */
static void rx_arm(struct e1000e *e, unsigned i)
{
	struct e1000e_rx_desc *d = &e->mem->rx[i];

	/* The address is rewritten each time: the part owns the whole
	 * descriptor while it holds it. */
	d->addr = dma(e, e->mem->rx_buf[i]);
	d->length = 0;
	d->errors = 0;
	__atomic_store_n(&d->status, 0, __ATOMIC_RELEASE);
}

static void e1000e_rx_setup(struct e1000e *e)
{
	uint64_t base = dma(e, e->mem->rx);

	for (unsigned i = 0; i < E1000E_RX_DESCS; i++)
		rx_arm(e, i);
	e->rx_next = 0;
	e->skipping = false;
	wr(e, REG_RDBAL, (uint32_t)base);
	wr(e, REG_RDBAH, (uint32_t)(base >> 32));
	wr(e, REG_RDLEN, sizeof(e->mem->rx));
	wr(e, REG_RDH, 0);
	/* The part owns [RDH, RDT): all but one, so a full ring is never
	 * mistaken for an empty one. */
	wr(e, REG_RDT, E1000E_RX_DESCS - 1);
	wr(e, REG_RDTR, 0);	/* no receive delay: the poll batches */
	wr(e, REG_ITR, 0);
	wr(e, REG_RCTL, RCTL_EN | RCTL_BAM | RCTL_SECRC);
}

static void e1000e_tx_setup(struct e1000e *e)
{
	uint64_t base = dma(e, e->mem->tx);

	kmemset(e->mem->tx, 0, sizeof(e->mem->tx));
	e->tx_next = e->tx_clean = 0;
	wr(e, REG_TDBAL, (uint32_t)base);
	wr(e, REG_TDBAH, (uint32_t)(base >> 32));
	wr(e, REG_TDLEN, sizeof(e->mem->tx));
	wr(e, REG_TDH, 0);
	wr(e, REG_TDT, 0);
	wr(e, REG_TIPG, TIPG_82574);
	wr(e, REG_TCTL, TCTL_EN | TCTL_PSP | TCTL_CT | TCTL_COLD);
}

int e1000e_probe(struct e1000e *e, const struct e1000e_bus *bus, struct e1000e_mem *mem)
{
	kmemset(e, 0, sizeof(*e));
	e->bus = *bus;
	e->mem = mem;
	if (!e1000e_reset(e))
		return -ETIMEDOUT;
	if (!e1000e_read_mac(e))
		return -ENODEV;
	for (unsigned i = 0; i < 128; i++)
		wr(e, REG_MTA + 4 * i, 0);
	wr(e, REG_CTRL, rd(e, REG_CTRL) | CTRL_SLU);
	e1000e_rx_setup(e);
	e1000e_tx_setup(e);
	(void)e1000e_link_up(e);
	return 0;
}

void e1000e_start(struct e1000e *e)
{
	wr(e, REG_IMS, ICR_RX | ICR_LSC);
}

bool e1000e_link_up(struct e1000e *e)
{
	e->link_up = (rd(e, REG_STATUS) & STATUS_LU) != 0;
	return e->link_up;
}

bool e1000e_irq(struct e1000e *e)
{
	uint32_t icr = rd(e, REG_ICR);

	if (icr & ICR_LSC) {
		e->stats.link_changes++;
		(void)e1000e_link_up(e);
	}
	return icr != 0;
}

/* Descriptors the part has finished sending become ours again. */
static void tx_reclaim(struct e1000e *e)
{
	while (e->tx_clean != e->tx_next &&
	       (__atomic_load_n(&e->mem->tx[e->tx_clean].status, __ATOMIC_ACQUIRE) & TXD_DD))
		e->tx_clean = (e->tx_clean + 1) % E1000E_TX_DESCS;
}

int e1000e_send(struct e1000e *e, const void *frame, size_t len)
{
	struct e1000e_tx_desc *d;
	unsigned i = e->tx_next, next = (i + 1) % E1000E_TX_DESCS;

	if (len == 0 || len > HAL_NETDEV_MTU_FRAME)
		return -EINVAL;
	/* A missed link interrupt must not leave us mute: ask the part. */
	if (!e->link_up && !e1000e_link_up(e)) {
		e->stats.tx_link_down++;
		return -ENETDOWN;
	}
	tx_reclaim(e);
	if (next == e->tx_clean) {
		e->stats.tx_ring_full++;
		return -EAGAIN;
	}
	kmemcpy(e->mem->tx_buf[i], frame, len);
	d = &e->mem->tx[i];
	d->addr = dma(e, e->mem->tx_buf[i]);
	d->length = (uint16_t)len;
	d->cso = d->css = 0;
	d->special = 0;
	d->cmd = TXD_CMD_EOP | TXD_CMD_IFCS | TXD_CMD_RS;
	d->status = 0;
	e->tx_next = next;
	/* The descriptor is in memory before the part hears of it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	wr(e, REG_TDT, next);
	e->stats.tx_frames++;
	return 0;
}

/* One completed descriptor: deliver its frame or count why not.  True
 * when a frame was delivered. */
static bool rx_one(struct e1000e *e, unsigned i, const struct netdev_sink *sink)
{
	const struct e1000e_rx_desc *d = &e->mem->rx[i];
	uint8_t status = d->status, errors = d->errors;
	unsigned len = d->length;
	bool was_skipping = e->skipping;

	/* A frame the part spread over descriptors (only a part told to
	 * take long frames does): not ours to glue, dropped to its EOP. */
	e->skipping = !(status & RXD_EOP);
	if (was_skipping || !(status & RXD_EOP)) {
		if (!was_skipping) {
			e->stats.rx_bad_desc++;
			sink->lost(NET_RX_LOST_BAD_BUFFER, 1);
		}
		return false;
	}
	if (len > E1000E_BUF_SIZE) {
		e->stats.rx_bad_desc++;
		sink->lost(NET_RX_LOST_BAD_BUFFER, 1);
	} else if (errors & RXD_ERR_FRAME) {
		e->stats.rx_errors++;
		sink->lost(NET_RX_LOST_BAD_BUFFER, 1);
	} else if (len < 14) {
		e->stats.rx_runt++;
		sink->lost(NET_RX_LOST_SHORT, 1);
	} else if (len > HAL_NETDEV_MTU_FRAME) {
		e->stats.rx_oversize++;
		sink->lost(NET_RX_LOST_BAD_BUFFER, 1);
	} else {
		e->stats.rx_frames++;
		sink->deliver(e->mem->rx_buf[i], len);
		return true;
	}
	return false;
}

/* Take completed descriptors until @budget frames went or none is done;
 * *@posted counts descriptors given back.  Not inlined, so profiles of
 * the receive task name it. */
static __attribute__((noipa)) unsigned e1000e_rx_drain(struct e1000e *e, unsigned budget,
						     const struct netdev_sink *sink,
						     unsigned *posted)
{
	unsigned done = 0;

	while (done < budget && (rx_status(e, e->rx_next) & RXD_DD)) {
		unsigned i = e->rx_next;

		done += rx_one(e, i, sink);
		rx_arm(e, i);
		e->rx_next = (i + 1) % E1000E_RX_DESCS;
		(*posted)++;
	}
	return done;
}

/* Receive interrupts stay masked while the ring has frames and come back
 * on before one last look (NAPI's order, hal/netdev.h): a frame that
 * completes between the drain and the unmask is taken here. */
unsigned e1000e_poll(void *dev, unsigned budget, const struct netdev_sink *sink)
{
	struct e1000e *e = dev;
	unsigned done = 0, posted = 0;
	uint32_t missed;

	wr(e, REG_IMC, ICR_RX);
	for (;;) {
		done += e1000e_rx_drain(e, budget - done, sink, &posted);
		if (done == budget)
			break;
		wr(e, REG_IMS, ICR_RX);
		if (!(rx_status(e, e->rx_next) & RXD_DD))
			break;
		wr(e, REG_IMC, ICR_RX);
	}
	if (posted) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		wr(e, REG_RDT, (e->rx_next + E1000E_RX_DESCS - 1) % E1000E_RX_DESCS);
	}
	/* Frames the part had no descriptor for: the ring was full. */
	missed = rd(e, REG_MPC);
	if (missed) {
		e->stats.rx_missed += missed;
		sink->lost(NET_RX_LOST_OVERFLOW, missed);
	}
	return done;
}
