/* SPDX-License-Identifier: BSD-2-Clause */
/* An 82574L as a network device: see e1000e_netdev.h.  The rings and
 * buffers come from the page allocator (zeroed, identity-mapped on x86:
 * the platform's dma_addr says what the part sees). */
#include "drivers/e1000e/e1000e_netdev.h"

#include "hal/mem.h"
#include "hal/netdev.h"
#include "kernel/page.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/spinlock.h"

static struct {
	struct netdev dev;
	const struct e1000e_platform *plat;
	struct e1000e nic;
	struct spinlock tx_lock;
} e1k = { .tx_lock = SPINLOCK_INIT };

static struct netdev_rx e1k_rx = { .poll = e1000e_poll, .dev = &e1k.nic };

#define E1K_MEM_PAGES ((sizeof(struct e1000e_mem) + HAL_PAGE_SIZE - 1) / HAL_PAGE_SIZE)

static void e1k_mac(struct netdev *d, uint8_t mac[6])
{
	(void)d;
	kmemcpy(mac, e1k.nic.mac, 6);
}

static int e1k_send(struct netdev *d, const void *frame, size_t len)
{
	unsigned long flags;
	int err;

	(void)d;
	flags = spin_lock_irqsave(&e1k.tx_lock);
	err = e1000e_send(&e1k.nic, frame, len);
	spin_unlock_irqrestore(&e1k.tx_lock, flags);
	return err;
}

static void e1k_irq(struct netdev *d)
{
	(void)d;
	(void)e1000e_irq(&e1k.nic);
}

static const struct netdev_rx *e1k_start(struct netdev *d)
{
	(void)d;
	e1k_rx.irq = e1k.plat->route(&e1k.nic);
	/* Unmasked even when nothing listens: the poll unmasks after each
	 * drain anyway, and an unrouted line or unset MSI goes nowhere. */
	e1000e_start(&e1k.nic);
	return &e1k_rx;
}

static const struct netdev_ops e1k_ops = {
	.mac = e1k_mac,
	.send = e1k_send,
	.start = e1k_start,
	.irq = e1k_irq,
};

struct netdev *e1000e_netdev_probe(const struct e1000e_platform *p)
{
	struct e1000e_mem *mem;
	int err;

	if (e1k.plat)
		return NULL;	/* one at a time: the state is this file's */
	mem = page_alloc(E1K_MEM_PAGES);
	err = mem ? e1000e_probe(&e1k.nic, &p->bus, mem) : -ENOMEM;
	if (err) {
		if (mem)
			page_free(mem, E1K_MEM_PAGES);
		p->failed(err);
		return NULL;
	}
	e1k.plat = p;
	e1k.dev.ops = &e1k_ops;
	e1k.dev.driver = "e1000e";
	return &e1k.dev;
}
