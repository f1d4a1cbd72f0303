/* SPDX-License-Identifier: BSD-2-Clause */
/* The modelled 82574L: see e1000e_model.h. */
#include "e1000e_model.h"

#include <string.h>

#define CTRL_RST	(1u << 26)
#define STATUS_FD	(1u << 0)
#define STATUS_LU	(1u << 1)
#define EECD_AUTO_RD	(1u << 9)
#define RAH_AV		(1u << 31)
#define RCTL_EN		(1u << 1)
#define TCTL_EN		(1u << 1)
#define DESC_DD		0x01
#define DESC_EOP	0x02
#define BUF_SIZE	2048

static struct emodel *bus_model(const struct e1000e_bus *b)
{
	return b->ctx;
}

uint32_t em_reg(const struct emodel *m, unsigned off)
{
	return m->r[off / 4];
}

static void em_raise(struct emodel *m, uint32_t cause)
{
	m->r[EM_ICR / 4] |= cause;
	if (m->r[EM_ICR / 4] & m->ims)
		m->interrupts++;
}

/* Power-on and CTRL.RST: registers to their defaults, the MAC reloaded
 * from the NVM into RAL0/RAH0. */
static void em_reset(struct emodel *m)
{
	memset(m->r, 0, sizeof(m->r));
	m->ims = 0;
	m->r[EM_STATUS / 4] = STATUS_FD | (m->link ? STATUS_LU : 0);
	m->r[EM_EECD / 4] = EECD_AUTO_RD;
	m->r[EM_RAL0 / 4] = (uint32_t)m->mac[0] | (uint32_t)m->mac[1] << 8 |
			    (uint32_t)m->mac[2] << 16 | (uint32_t)m->mac[3] << 24;
	m->r[EM_RAH0 / 4] = (uint32_t)m->mac[4] | (uint32_t)m->mac[5] << 8 |
			    (m->no_mac ? 0 : RAH_AV);
	if (m->stuck_reset)
		m->r[EM_CTRL / 4] = CTRL_RST;
	m->resets++;
}

static uint32_t em_read(const struct e1000e_bus *b, unsigned off)
{
	struct emodel *m = bus_model(b);
	uint32_t v;

	if (off >= sizeof(m->r) || off % 4)
		return 0xffffffffu;
	v = m->r[off / 4];
	switch (off) {
	case EM_ICR:
	case EM_MPC:
		m->r[off / 4] = 0;	/* clear on read */
		break;
	case EM_IMS:
		v = m->ims;
		break;
	}
	return v;
}

static void em_write(const struct e1000e_bus *b, unsigned off, uint32_t v)
{
	struct emodel *m = bus_model(b);

	if (off >= sizeof(m->r) || off % 4)
		return;
	switch (off) {
	case EM_CTRL:
		if (v & CTRL_RST) {
			em_reset(m);
			return;
		}
		break;
	case EM_STATUS:
	case EM_EECD:
		return;			/* read-only here */
	case EM_ICR:
		m->r[EM_ICR / 4] &= ~v;	/* write 1 to clear */
		return;
	case EM_IMS:
		m->ims |= v;
		if (m->r[EM_ICR / 4] & m->ims)
			m->interrupts++;
		m->r[off / 4] = m->ims;
		if (m->on_ims)
			m->on_ims(m);
		return;
	case EM_IMC:
		m->ims &= ~v;
		m->r[EM_IMS / 4] = m->ims;
		return;
	}
	m->r[off / 4] = v;
}

static uint64_t em_dma_addr(const struct e1000e_bus *b, const void *p)
{
	(void)b;
	return (uintptr_t)p + EM_DMA_OFFSET;
}

/* Host memory at bus address @addr for @len bytes, or NULL when that is
 * not inside the memory the driver was given. */
static void *em_host(struct emodel *m, uint64_t addr, size_t len)
{
	uint64_t lo = (uintptr_t)m->mem + EM_DMA_OFFSET;

	if (addr < lo || addr - lo > m->mem_size || m->mem_size - (addr - lo) < len) {
		m->bad_dma++;
		return NULL;
	}
	return (uint8_t *)m->mem + (addr - lo);
}

void em_init(struct emodel *m, const uint8_t mac[6], void *mem, size_t mem_size)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->mac, mac, 6);
	m->link = true;
	m->mem = mem;
	m->mem_size = mem_size;
	m->bus.read = em_read;
	m->bus.write = em_write;
	m->bus.dma_addr = em_dma_addr;
	m->bus.ctx = m;
	em_reset(m);
	m->resets = 0;
}

/* The next receive descriptor the part may fill, or NULL when it has
 * none (RDH has reached RDT) or the receiver is off. */
static struct e1000e_rx_desc *em_rx_next(struct emodel *m)
{
	uint32_t n = em_reg(m, EM_RDLEN) / 16, head = em_reg(m, EM_RDH);
	uint64_t base = (uint64_t)em_reg(m, EM_RDBAH) << 32 | em_reg(m, EM_RDBAL);

	if (!(em_reg(m, EM_RCTL) & RCTL_EN) || n == 0)
		return NULL;
	if (head == em_reg(m, EM_RDT)) {
		m->r[EM_MPC / 4]++;
		em_raise(m, EM_ICR_RXO);
		return NULL;
	}
	return em_host(m, base + 16ull * head, 16);
}

static void em_rx_advance(struct emodel *m)
{
	uint32_t n = em_reg(m, EM_RDLEN) / 16;

	m->r[EM_RDH / 4] = (em_reg(m, EM_RDH) + 1) % n;
	em_raise(m, EM_ICR_RXT0);
}

bool em_rx_raw(struct emodel *m, const void *frame, size_t copy, uint16_t len,
	       uint8_t status, uint8_t errors)
{
	struct e1000e_rx_desc *d = em_rx_next(m);
	uint8_t *buf;

	if (!d)
		return false;
	if (copy > BUF_SIZE)
		copy = BUF_SIZE;
	buf = em_host(m, d->addr, BUF_SIZE);
	if (buf && copy)
		memcpy(buf, frame, copy);
	d->length = len;
	d->errors = errors;
	d->csum = 0;
	d->special = 0;
	__atomic_store_n(&d->status, (uint8_t)(status | DESC_DD), __ATOMIC_RELEASE);
	em_rx_advance(m);
	return true;
}

bool em_rx_frame(struct emodel *m, const void *frame, size_t len)
{
	return em_rx_raw(m, frame, len, (uint16_t)len, DESC_EOP, 0);
}

unsigned em_tx_consume(struct emodel *m)
{
	uint32_t n = em_reg(m, EM_TDLEN) / 16;
	uint64_t base = (uint64_t)em_reg(m, EM_TDBAH) << 32 | em_reg(m, EM_TDBAL);
	unsigned sent = 0;

	if (!(em_reg(m, EM_TCTL) & TCTL_EN) || n == 0)
		return 0;
	while (em_reg(m, EM_TDH) != em_reg(m, EM_TDT)) {
		uint32_t head = em_reg(m, EM_TDH);
		struct e1000e_tx_desc *d = em_host(m, base + 16ull * head, 16);
		const uint8_t *buf = d ? em_host(m, d->addr, d->length) : NULL;

		if (buf && m->ntx < EM_TX_MAX && d->length <= BUF_SIZE) {
			m->tx[m->ntx].len = d->length;
			m->tx[m->ntx].cmd = d->cmd;
			memcpy(m->tx[m->ntx].data, buf, d->length);
			m->ntx++;
			sent++;
		}
		if (d)
			__atomic_store_n(&d->status, DESC_DD, __ATOMIC_RELEASE);
		m->r[EM_TDH / 4] = (head + 1) % n;
	}
	return sent;
}

void em_set_link(struct emodel *m, bool up)
{
	m->link = up;
	if (up)
		m->r[EM_STATUS / 4] |= STATUS_LU;
	else
		m->r[EM_STATUS / 4] &= ~STATUS_LU;
	em_raise(m, EM_ICR_LSC);
}
