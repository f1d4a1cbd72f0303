/* SPDX-License-Identifier: BSD-2-Clause */
/* The tick's call into the kernel, its frame marked as the kernels'
 * interrupt entries mark theirs (hal_trap_frame_at()):
 *
 *     bool sim_tick_call(bool (*fn)(struct trap_frame *),
 *                        struct trap_frame *tf)
 *
 * calls fn(tf) with %rbp = tf + 1 (tf 16-byte aligned), so the frame
 * record fn makes holds that odd mark and sim_tick_call_ret.  A walk from
 * inside fn, on the CPU's interrupt stack (an overflow signal nested in
 * the tick, a fault there), reads them and crosses to the interrupted
 * task's state in tf instead of ending at the host's signal frame. */
	.text
	.globl	sim_tick_call
	.globl	sim_tick_call_ret
	.type	sim_tick_call, @function
sim_tick_call:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	leaq	1(%rsi), %rbp
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
sim_tick_call_ret:
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sim_tick_call, . - sim_tick_call

	.section .note.GNU-stack, "", @progbits
