/* SPDX-License-Identifier: BSD-2-Clause */
/* Exception vectors and the context switch.
 *
 * Task-level code (tasks, idle, boot) runs at EL1 on SP_EL0.  Every
 * exception is taken on the CPU's own SP_EL1 stack.  A synchronous
 * exception (a fault: a stack overflow into a guard page included), an
 * FIQ or an SError stays there and is reported.  An IRQ from task level
 * moves to the interrupted stack (SP_EL0) and saves its frame there, as
 * x86 does, so that the tick may switch tasks inside its handler: the
 * interrupted task's frame waits on its own stack until it is switched
 * back.  If that push itself faults (a stack at its guard page), the
 * fault is taken on SP_EL1 and reported.
 *
 * Under priority masking (GICv3, irqflags.h) exception entry sets DAIF
 * but leaves ICC_PMR_EL1 as the interrupted code had it: the frame keeps
 * it, trap.c may change it while it handles an interrupt (a plain IRQ
 * runs with the PMR at "off" and DAIF.I clear, so that a pseudo-NMI can
 * still come in), and the exit sets DAIF.I, puts the PMR back and only
 * then reloads ELR/SPSR: a nested exception in between would overwrite
 * them. */
#include "a64.h"

#define ICC_PMR_EL1	S3_0_C4_C6_0

/* Whether the kernel masks by priority (cpu.c's a64_irq_by_pmr): \reg
 * becomes 0 or 1. */
.macro IRQ_BY_PMR reg, wreg
	adrp \reg, a64_irq_by_pmr
	ldrb \wreg, [\reg, :lo12:a64_irq_by_pmr]
.endm

/* One vector: make the frame, note which vector, join the common path. */
.macro VENTRY kind
	.p2align 7
	sub sp, sp, #A64_TF_SIZE
	stp x0, x1, [sp]
	mov x0, #\kind
	b a64_exc_common
.endm

.macro VENTRY_IRQ_SP0
	.p2align 7
	msr spsel, #0			/* onto the interrupted task's stack */
	sub sp, sp, #A64_TF_SIZE
	stp x0, x1, [sp]
	mov x0, #A64_EXC_IRQ_SP0
	b a64_exc_common
.endm

	.text
	.p2align 11
	.globl a64_vectors
	.type a64_vectors, @function
a64_vectors:
	VENTRY A64_EXC_SYNC_SP0		/* current EL, SP_EL0 */
	VENTRY_IRQ_SP0
	VENTRY A64_EXC_FIQ_SP0
	VENTRY A64_EXC_SERROR_SP0
	VENTRY A64_EXC_SYNC_SPX		/* current EL, SP_EL1 */
	VENTRY A64_EXC_IRQ_SPX
	VENTRY A64_EXC_FIQ_SPX
	VENTRY A64_EXC_SERROR_SPX
	.rept 8				/* lower EL: never used */
	VENTRY A64_EXC_LOWER
	.endr
	.size a64_vectors, . - a64_vectors

/* x2-x30 to (\pair stp, \one str) or from (ldp, ldr) their slots in the
 * trap frame at sp: the save and the restore walk the same layout. */
.macro FRAME_X2_X30 pair, one
	\pair x2, x3, [sp, #16]
	\pair x4, x5, [sp, #32]
	\pair x6, x7, [sp, #48]
	\pair x8, x9, [sp, #64]
	\pair x10, x11, [sp, #80]
	\pair x12, x13, [sp, #96]
	\pair x14, x15, [sp, #112]
	\pair x16, x17, [sp, #128]
	\pair x18, x19, [sp, #144]
	\pair x20, x21, [sp, #160]
	\pair x22, x23, [sp, #176]
	\pair x24, x25, [sp, #192]
	\pair x26, x27, [sp, #208]
	\pair x28, x29, [sp, #224]
	\one x30, [sp, #240]
.endm

	.p2align 4
	.type a64_exc_common, @function
a64_exc_common:
	str x0, [sp, #A64_TF_KIND]
	FRAME_X2_X30 stp, str
	/* The interrupted sp: the frame sits right below it when we are on
	 * the interrupted stack (an IRQ from task level, anything from
	 * SP_EL1); else it is SP_EL0. */
	cmp x0, #A64_EXC_IRQ_SP0
	b.eq 1f
	cmp x0, #A64_EXC_SYNC_SPX
	b.hs 1f
	mrs x1, sp_el0
	b 2f
1:	add x1, sp, #A64_TF_SIZE
2:	str x1, [sp, #A64_TF_SP]
	mrs x1, elr_el1
	mrs x2, spsr_el1
	stp x1, x2, [sp, #A64_TF_ELR]
	mrs x1, esr_el1
	mrs x2, far_el1
	stp x1, x2, [sp, #A64_TF_ESR]
	mov x2, xzr
	IRQ_BY_PMR x1, w1
	cbz w1, 3f
	mrs x2, ICC_PMR_EL1
3:	str x2, [sp, #A64_TF_PMR]
	mov x0, sp
	/* The handler's frame record then holds the frame's address + 1
	 * and a64_exc_dispatch_ret: a stack walk knows it has reached an
	 * exception and goes on from the interrupted state
	 * (hal_trap_frame_at()).  x29 comes back from the frame. */
	add x29, sp, #1
	bl a64_trap_dispatch
	.globl a64_exc_dispatch_ret
a64_exc_dispatch_ret:
	msr daifset, #2			/* ELR/SPSR are live from here */
	IRQ_BY_PMR x1, w1
	cbz w1, 4f
	ldr x1, [sp, #A64_TF_PMR]
	msr ICC_PMR_EL1, x1
	dsb sy				/* an opened mask reaches the GIC (PMHE) */
4:	ldp x1, x2, [sp, #A64_TF_ELR]
	msr elr_el1, x1
	msr spsr_el1, x2
	FRAME_X2_X30 ldp, ldr
	ldp x0, x1, [sp]
	add sp, sp, #A64_TF_SIZE
	eret
	.size a64_exc_common, . - a64_exc_common

/* The callee-saved registers, the frame record and the interrupt state
 * (x9 DAIF, x10 PMR) to (\pair stp) or from (ldp) a64_context_swap's
 * 112-byte frame at sp. */
.macro SWITCH_REGS pair
	\pair x19, x20, [sp, #0]
	\pair x21, x22, [sp, #16]
	\pair x23, x24, [sp, #32]
	\pair x25, x26, [sp, #48]
	\pair x27, x28, [sp, #64]
	\pair x29, x30, [sp, #80]
	\pair x9, x10, [sp, #96]
.endm

/* void a64_context_swap(void **save, void *to), for hal_context_switch
 * (context.c).  Saves DAIF and, under priority masking, ICC_PMR_EL1 (the
 * interrupt state) and the callee-saved registers on the current stack
 * (SP_EL0), stores sp in *save, resumes @to's.  The incoming state goes
 * back with DAIF.I set until the PMR is in place, so that nothing is
 * taken between the two. */
	.p2align 4
	.globl a64_context_swap
	.type a64_context_swap, @function
a64_context_swap:
	.cfi_startproc
	mrs x9, daif
	mov x10, xzr
	IRQ_BY_PMR x11, w11
	cbz w11, 2f
	mrs x10, ICC_PMR_EL1
2:	sub sp, sp, #112
	.cfi_def_cfa_offset 112
	SWITCH_REGS stp
	cbz x0, 1f			/* NULL: a dead task, never resumed */
	mov x12, sp
	str x12, [x0]
1:	mov sp, x1
	SWITCH_REGS ldp
	add sp, sp, #112
	.cfi_def_cfa_offset 0
	cbz w11, 3f
	msr daifset, #2
	msr ICC_PMR_EL1, x10
	dsb sy
3:	msr daif, x9
	ret
	.cfi_endproc
	.size a64_context_swap, . - a64_context_swap

/* A new context's first return lands here (context.c lays it out): x19 =
 * entry, x20 = arg, sp at the terminating frame record {0, 0}, which
 * x29 points at.  The entry is jumped to with a zero link register (it
 * never returns), so its own frame record ends every walk at it. */
	.p2align 4
	.globl a64_context_start
	.type a64_context_start, @function
a64_context_start:
	mov x29, sp
	mov x0, x20
	mov x30, xzr
	br x19
	.size a64_context_start, . - a64_context_start

	.section .note.GNU-stack, "", @progbits
