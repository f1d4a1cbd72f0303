/* SPDX-License-Identifier: BSD-2-Clause */
/* The application processors' way in.  x86_smp_start() copies the bytes
 * between x86_trampoline_start and x86_trampoline_end to X86_TRAMPOLINE
 * (0x8000) and sends INIT, STARTUP with vector 0x08: the AP starts there
 * in real mode, CS = 0x0800, IP = 0.  It loads the boot GDT (boot.S),
 * enters protected mode, turns on PAE, the boot CPU's page tables
 * (x86_ap_cr3), EFER.LME and paging, and far-jumps to 64-bit code in the
 * image, which takes the stack and the per-CPU data the boot CPU left in
 * x86_ap_stack_top and x86_ap_cpu (one AP starts at a time). */

#include "x86.h"

/* An address inside the copy at X86_TRAMPOLINE. */
#define TRAMP(sym)	(X86_TRAMPOLINE + (sym - x86_trampoline_start))

	/* Data as far as the image is concerned: it only ever runs from
	 * the copy, so it is no function of the image. */
	.section .rodata
	.p2align 4
	.globl x86_trampoline_start, x86_trampoline_end
	.code16
x86_trampoline_start:
	cli
	cld
	xorw %ax, %ax
	movw %ax, %ds
	lgdtl TRAMP(tramp_gdt_ptr)
	movl %cr0, %eax
	orl $1, %eax			/* PE */
	movl %eax, %cr0
	ljmpl $X86_SEL_CODE32, $TRAMP(tramp_pm32)

	.code32
tramp_pm32:
	movl $X86_SEL_DATA, %eax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	X86_ENTER_LONG_MODE x86_ap_cr3, x86_ap_long_entry

	.p2align 3
tramp_gdt_ptr:
	.word X86_GDT_ENTRIES * 8 - 1	/* the boot GDT (boot.S) */
	.long x86_gdt
x86_trampoline_end:

	.text
	.code64
	.globl x86_ap_long_entry
	.type x86_ap_long_entry, @function
x86_ap_long_entry:
	X86_LOAD_SEGMENTS64
	movq x86_ap_stack_top(%rip), %rsp
	xorl %ebp, %ebp			/* ends every frame-pointer walk */
	movq x86_ap_cpu(%rip), %rdi
	call x86_ap_main
1:	cli
	hlt
	jmp 1b
	.size x86_ap_long_entry, . - x86_ap_long_entry

	.section .note.GNU-stack, "", @progbits
