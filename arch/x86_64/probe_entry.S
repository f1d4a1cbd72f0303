/* SPDX-License-Identifier: BSD-2-Clause */
/* The probes' trampolines on x86_64 (hal/probe.h): the kernel's, and
 * ksim's on its x86_64 host, which includes this file
 * (sim/probe_entry.S).
 *
 * x86_probe_tramp is what a patched entry calls: a function's first
 * instruction, before its own prologue, so the stack holds the site's
 * return address (site + 5) over the probed function's own return
 * address.  It builds two frame records, as Linux's ftrace does for
 * -mfentry: one for the probed function's caller (its return address)
 * and one for the probed function (site + 5), so a walk from inside the
 * probe machinery loses neither; the walk recovers only one frameless
 * frame (doc/internals.md, "The walk").  It saves the argument
 * registers, calls probe_entry(site, &return slot) and goes on into the
 * function.  src/ is built -mgeneral-regs-only and -mno-red-zone: no
 * argument or return value is in a vector register.
 *
 * x86_probe_ret is where a timed function returns to (probe_entry()
 * replaced its return address): it keeps the return values, asks
 * probe_exit() for the real return address and returns there.  Its
 * frame record's return address is x86_probe_ret itself until then,
 * which a walk translates from the task's shadow stack. */
	.text
	.globl	x86_probe_tramp
	.type	x86_probe_tramp, @function
x86_probe_tramp:
	.cfi_startproc
	pushq	8(%rsp)			/* the probed function's return address */
	.cfi_adjust_cfa_offset 8
	pushq	%rbp			/* record A: the caller's */
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	pushq	16(%rsp)		/* site + 5 (the address is taken before the push) */
	.cfi_adjust_cfa_offset 8
	pushq	%rbp			/* record B: the probed function's */
	.cfi_adjust_cfa_offset 8
	movq	%rsp, %rbp
	.cfi_def_cfa %rbp, 40
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	pushq	%r10
	movq	8(%rbp), %rdi
	subq	$5, %rdi
	leaq	40(%rbp), %rsi		/* the probed function's return slot */
	call	probe_entry
	popq	%r10
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	movq	16(%rsp), %rbp		/* the caller's, from record A */
	.cfi_def_cfa %rsp, 40
	.cfi_same_value %rbp
	addq	$32, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	x86_probe_tramp, . - x86_probe_tramp

	.globl	x86_probe_ret
	.type	x86_probe_ret, @function
x86_probe_ret:
	leaq	x86_probe_ret(%rip), %r11
	pushq	%r11
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rax
	pushq	%rdx
	call	probe_exit
	movq	%rax, 8(%rbp)
	popq	%rdx
	popq	%rax
	popq	%rbp
	ret
	.size	x86_probe_ret, . - x86_probe_ret

	.section .note.GNU-stack, "", @progbits
