/* SPDX-License-Identifier: BSD-2-Clause */
/* PVH entry: QEMU (or any PVH loader) enters pvh_start32 in 32-bit
 * protected mode, paging off, with %ebx = physical address of struct
 * hvm_start_info.  We zero .bss, build an identity map, enter long mode
 * and call x86_boot_main(start_info) on the boot stack. */
#include "x86.h"

#define PTE_P	0x001
#define PTE_RW	0x002
#define PTE_PWT	0x008
#define PTE_PCD	0x010
#define PTE_PS	0x080

/* How far the identity map reaches: 4 GiB in 2 MiB pages, which also
 * covers the I/O APIC and local APIC windows below 4 GiB. */
#define MAP_GIB		4

	/* XEN_ELFNOTE_PHYS32_ENTRY (18): the 32-bit entry.  In a 64-bit
	 * ELF QEMU reads the descriptor as 8 bytes. */
	.section .note.Xen, "a"
	.p2align 2
	.long 4			/* name size */
	.long 8			/* descriptor size */
	.long 18		/* XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.p2align 2
	.quad pvh_start32
	.p2align 2

	.section .boot.text, "ax"
	.code32
	.globl pvh_start32
	.type pvh_start32, @function
pvh_start32:
	cli
	cld
	lgdt (boot_gdt_ptr)
	ljmp $X86_SEL_CODE32, $1f
1:	movl $X86_SEL_DATA, %eax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs

	/* .bss holds the page tables and the boot stack: zero it first.
	 * %ebx (start info) survives; rep stosb uses %edi, %ecx, %eax. */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	movl $x86_boot_stack_top, %esp

	/* PML4[0] -> PDPT; PDPT[0..3] -> four page directories. */
	movl $boot_pdpt, %eax
	orl $(PTE_P | PTE_RW), %eax
	movl %eax, boot_pml4
	movl $boot_pd, %eax
	orl $(PTE_P | PTE_RW), %eax
	xorl %ecx, %ecx
2:	movl %eax, boot_pdpt(,%ecx,8)
	addl $4096, %eax
	incl %ecx
	cmpl $MAP_GIB, %ecx
	jb 2b

	/* 2 MiB pages over [0, MAP_GIB GiB).  Each entry is 8 bytes; the
	 * high half holds address bits 32-39: 2048 * 2 MiB = 4 GiB fits
	 * in the low half except for nothing (the last page starts at
	 * 4 GiB - 2 MiB), so the high halves stay zero. */
	xorl %ecx, %ecx
3:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_P | PTE_RW | PTE_PS), %eax
	movl %eax, boot_pd(,%ecx,8)
	incl %ecx
	cmpl $(MAP_GIB * 512), %ecx
	jb 3b
	/* The I/O APIC (0xfec00000) and local APIC (0xfee00000) windows
	 * are device registers: uncached. */
	orl $(PTE_PCD | PTE_PWT), boot_pd + (0xfec00000 >> 21) * 8
	orl $(PTE_PCD | PTE_PWT), boot_pd + (0xfee00000 >> 21) * 8

	/* The first 2 MiB in 4 KiB pages with page 0 left out, so that a
	 * NULL dereference faults. */
	movl $(4096 | PTE_P | PTE_RW), %eax
	movl $1, %ecx
4:	movl %eax, boot_pt0(,%ecx,8)
	addl $4096, %eax
	incl %ecx
	cmpl $512, %ecx
	jb 4b
	movl $boot_pt0, %eax
	orl $(PTE_P | PTE_RW), %eax
	movl %eax, boot_pd

	X86_ENTER_LONG_MODE $boot_pml4, long_entry

	.code64
long_entry:
	X86_LOAD_SEGMENTS64
	movq $x86_boot_stack_top, %rsp
	xorl %ebp, %ebp		/* ends every frame-pointer walk */
	movl %ebx, %edi		/* zero-extends: the start info address */
	call x86_boot_main
5:	cli
	hlt
	jmp 5b
	.size pvh_start32, . - pvh_start32

	.section .data
	.p2align 3
	.globl x86_gdt
x86_gdt:
	.quad 0				/* null */
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit code, boot only */
	.quad 0x00cf92000000ffff	/* 0x10: data */
	.quad 0x00af9a000000ffff	/* 0x18: 64-bit code */
	.quad 0, 0			/* 0x20: TSS, filled by gdt.c */
	.globl x86_gdt_end
x86_gdt_end:

	.p2align 3
boot_gdt_ptr:
	.word x86_gdt_end - x86_gdt - 1
	.quad x86_gdt

	.section .bss
	.p2align 12
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
	.globl x86_boot_pd
x86_boot_pd:
boot_pd:	.skip 4096 * MAP_GIB
	.globl x86_boot_pt0
x86_boot_pt0:
boot_pt0:	.skip 4096
	.globl x86_boot_stack, x86_boot_stack_top
x86_boot_stack:	.skip 16384
x86_boot_stack_top:

	.section .note.GNU-stack, "", @progbits
