/* SPDX-License-Identifier: BSD-2-Clause */
/* The interrupted state, read only through accessors. */
#ifndef KPROF_HAL_TRAP_H
#define KPROF_HAL_TRAP_H

#include <stddef.h>
#include <stdint.h>

/* Defined by each platform (the registers its interrupt entry saved).
 * Portable code only ever holds a pointer to it. */
struct trap_frame;

/* The interrupted instruction, frame pointer and stack pointer.
 * Any context that was handed @tf; never fault. */
uintptr_t hal_trap_ip(const struct trap_frame *tf);
uintptr_t hal_trap_fp(const struct trap_frame *tf);
uintptr_t hal_trap_sp(const struct trap_frame *tf);

/* Where the interrupted function's return address is when it has no frame
 * of its own yet (x86: 0, meaning "at [sp]"; arm64: the link register).
 * Returns 0 when the platform keeps it on the stack. */
uintptr_t hal_trap_lr(const struct trap_frame *tf);

/* The interrupted state an exception entry saved, found from the frame
 * record its handler made: @ra is that record's return address and @fp
 * the frame pointer it saved.  The entry calls its handler with the
 * frame pointer set to the frame's address + 1 (no frame record sits at
 * an odd address), so a walk that reads @ra = the entry's own return
 * address and an @fp so marked has reached the exception.  Returns the
 * frame and sets *@size to its bytes, for the caller to check against
 * the stack's bounds before it reads a field; NULL for any other
 * record.  Reads no memory; any context. */
const struct trap_frame *hal_trap_frame_at(uintptr_t ra, uintptr_t fp,
					   size_t *size);

/* What a report calls an address outside the image, on a platform where
 * code outside it runs as a matter of course: "[host]" in the simulator
 * (libc, the vDSO, the dynamic loader).  NULL on a kernel, where every
 * instruction is the image's and an address outside it prints as it is.
 * Any context; the string lives forever. */
const char *hal_trap_foreign_name(void);

/* Bounds [*lo, *hi) of the calling CPU's interrupt stack, the stack an
 * interrupt taken on top of interrupt code runs on; *lo = *hi = 0 when
 * the platform has none.  Where the NMI's stack is that same stack
 * (ksim's one alternate signal stack per CPU), a walk still reads only
 * above the interrupted sp, never the frames of the handler walking. */
void hal_trap_irq_stack(uintptr_t *lo, uintptr_t *hi);

#endif
