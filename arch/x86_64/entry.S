/* SPDX-License-Identifier: BSD-2-Clause */
/* Interrupt entry and the context switch.
 *
 * Every vector has a 16-byte stub at x86_isr_stubs + 16 * vector that
 * pushes a zero error code where the CPU pushes none, then the vector,
 * and joins x86_isr_common, which saves the general registers in the
 * order of struct trap_frame (x86.h) and calls x86_trap_dispatch(tf).
 * Maskable interrupts run on the interrupted task's own stack (no IST),
 * so the tick may switch tasks from inside its handler; NMI, #DF and #MC
 * have IST stacks of their own (gdt.c). */

	.text
	.p2align 4
	.globl x86_isr_stubs
x86_isr_stubs:
	.type x86_isr_stubs, @function
	.set vec, 0
	.rept 256
	.p2align 4
	.if (vec == 8) || ((vec >= 10) && (vec <= 14)) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushq $0
	.endif
	pushq $vec
	jmp x86_isr_common
	.set vec, vec + 1
	.endr
	.size x86_isr_stubs, . - x86_isr_stubs

	.p2align 4
	.type x86_isr_common, @function
x86_isr_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi		/* 176 bytes pushed: %rsp is 16-aligned */
	/* The handler's frame record then holds the frame's address + 1
	 * and x86_isr_dispatch_ret: a stack walk knows it has reached an
	 * interrupt and goes on from the interrupted state
	 * (hal_trap_frame_at()).  %rbp comes back from the frame. */
	leaq 1(%rsp), %rbp
	call x86_trap_dispatch
	.globl x86_isr_dispatch_ret
x86_isr_dispatch_ret:
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp		/* vector and error code */
	iretq
	.size x86_isr_common, . - x86_isr_common

/* void hal_context_switch(void **save, void *to)
 * Saves rflags (the interrupt state) and the callee-saved registers on
 * the current stack, stores %rsp in *save, and resumes @to's. */
	.p2align 4
	.globl hal_context_switch
	.type hal_context_switch, @function
hal_context_switch:
	pushfq
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	testq %rdi, %rdi		/* NULL: a dead task, never resumed */
	jz 1f
	movq %rsp, (%rdi)
1:	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	popfq
	ret
	.size hal_context_switch, . - hal_context_switch

/* A new context's first return lands here (context.c lays it out):
 * %r12 = entry, %r13 = arg, %r14 = the page below its stack, %rbp = 0
 * so the walk ends at the entry.  That page may be a guard made on
 * another CPU while this one still cached it as present: flush it here,
 * on the CPU the task is pinned to, before its first instruction. */
	.p2align 4
	.globl x86_context_start
	.type x86_context_start, @function
x86_context_start:
	invlpg (%r14)
	movq %r13, %rdi
	call *%r12
	ud2
	.size x86_context_start, . - x86_context_start

	.section .note.GNU-stack, "", @progbits
