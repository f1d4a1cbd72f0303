/* SPDX-License-Identifier: BSD-2-Clause */
/* Spinlocks that mask interrupts while held, so a tick can never preempt
 * or deadlock against the holder on the same CPU. */
#ifndef KPROF_LIB_SPINLOCK_H
#define KPROF_LIB_SPINLOCK_H

#include <stdatomic.h>
#include <stdbool.h>

#include "hal/cpu.h"

struct spinlock {
	atomic_bool held;
};

#define SPINLOCK_INIT { false }

static inline void spin_init(struct spinlock *l)
{
	atomic_init(&l->held, false);
}

static inline bool spin_trylock(struct spinlock *l)
{
	return !atomic_exchange_explicit(&l->held, true, memory_order_acquire);
}

static inline void spin_lock(struct spinlock *l)
{
	while (!spin_trylock(l))
		while (atomic_load_explicit(&l->held, memory_order_relaxed))
			hal_cpu_relax();
}

static inline void spin_unlock(struct spinlock *l)
{
	atomic_store_explicit(&l->held, false, memory_order_release);
}

static inline unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = hal_irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
	hal_irq_restore(flags);
}

#endif
