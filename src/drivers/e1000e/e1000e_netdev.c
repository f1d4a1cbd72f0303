/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h on an 82574L: see e1000e_netdev.h.  The rings and
 * buffers come from the page allocator (zeroed, identity-mapped on x86:
 * the platform's dma_addr says what the part sees). */
#include "drivers/e1000e/e1000e_netdev.h"

#include "hal/mem.h"
#include "kernel/page.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/spinlock.h"

static struct {
	bool present;
	struct e1000e nic;
	struct spinlock tx_lock;
} e1k = { .tx_lock = SPINLOCK_INIT };

static struct netdev_rx e1k_rx = { .poll = e1000e_poll, .dev = &e1k.nic };

#define E1K_MEM_PAGES ((sizeof(struct e1000e_mem) + HAL_PAGE_SIZE - 1) / HAL_PAGE_SIZE)

static void e1k_probe(void)
{
	static bool probed;
	struct e1000e_bus bus;
	struct e1000e_mem *mem;
	int err;

	if (probed)
		return;
	probed = true;
	if (!e1000e_netdev_find(&bus))
		return;
	mem = page_alloc(E1K_MEM_PAGES);
	err = mem ? e1000e_probe(&e1k.nic, &bus, mem) : -ENOMEM;
	if (err) {
		if (mem)
			page_free(mem, E1K_MEM_PAGES);
		e1000e_netdev_failed(err);
		return;
	}
	e1k.present = true;
}

bool e1000e_netdev_present(void)
{
	e1k_probe();
	return e1k.present;
}

void e1000e_netdev_mac(uint8_t mac[6])
{
	if (e1k.present)
		kmemcpy(mac, e1k.nic.mac, 6);
	else
		kmemset(mac, 0, 6);
}

int e1000e_netdev_send(const void *frame, size_t len)
{
	unsigned long flags;
	int err;

	if (!e1k.present)
		return -ENOSYS;
	flags = spin_lock_irqsave(&e1k.tx_lock);
	err = e1000e_send(&e1k.nic, frame, len);
	spin_unlock_irqrestore(&e1k.tx_lock, flags);
	return err;
}

void e1000e_netdev_irq(void)
{
	if (e1k.present)
		(void)e1000e_irq(&e1k.nic);
}

const struct netdev_rx *e1000e_netdev_start(void)
{
	e1k_rx.irq = e1000e_netdev_route(&e1k.nic);
	/* Unmasked even when nothing listens: the poll unmasks after each
	 * drain anyway, and an unrouted line or unset MSI goes nowhere. */
	e1000e_start(&e1k.nic);
	return &e1k_rx;
}
