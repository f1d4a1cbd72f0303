/* SPDX-License-Identifier: BSD-2-Clause */
/* The first code of every CPU thread: the thread's own stack (the CPU's
 * boot and idle stack) begins with a terminating frame, as a kernel's
 * boot stack does, so that a walk from the idle task ends here instead
 * of following libc's thread start into raw host addresses.
 *
 *     void *sim_cpu_thread_start(void *cpu)
 *
 * %rbp is zero in sim_cpu_thread's frame record; the caller's %rbp is
 * kept on the stack and restored for libc when the thread returns. */
	.text
	.globl	sim_cpu_thread_start
	.type	sim_cpu_thread_start, @function
sim_cpu_thread_start:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	xorl	%ebp, %ebp
	call	sim_cpu_thread
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sim_cpu_thread_start, . - sim_cpu_thread_start

	.section .note.GNU-stack, "", @progbits
