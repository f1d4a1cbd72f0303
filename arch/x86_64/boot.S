/* SPDX-License-Identifier: BSD-2-Clause */
/* The two 32-bit entries and the way into long mode they share.  PVH:
 * QEMU (or any PVH loader) enters pvh_start32 in 32-bit protected mode,
 * paging off, with %ebx = physical address of struct hvm_start_info.
 * Multiboot2: GRUB 2 (BIOS or UEFI, boot services exited) enters
 * mb2_start32 in the same state with %eax = the Multiboot2 magic and
 * %ebx = the boot information's address.  Either way we zero .bss, build
 * an identity map, enter long mode and call x86_boot_main(info, how) on
 * the boot stack; %esi carries which loader it was (X86_BOOT_PVH or
 * X86_BOOT_MB2) through the way in. */
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

	/* The Multiboot2 header: 8-aligned within the image's first 32 KiB
	 * (kernel.ld puts .multiboot2 first).  Architecture 0 is 32-bit
	 * protected mode.  Tags: the entry address (the ELF entry is the PVH
	 * one), an optional linear framebuffer of any size (GRUB sets one
	 * when its menu entry asks for a screen), the end tag. */
	.section .multiboot2, "a"
	.p2align 3
mb2_header:
	.long MB2_HEADER_MAGIC
	.long 0				/* architecture: i386 */
	.long mb2_header_end - mb2_header
	.long -(MB2_HEADER_MAGIC + 0 + (mb2_header_end - mb2_header))
	.p2align 3
	.word 3				/* entry address */
	.word 0
	.long 12
	.long mb2_start32
	.p2align 3
	.word 5				/* framebuffer */
	.word 1				/* optional */
	.long 20
	.long 0, 0, 32			/* width, height: any; 32 bpp */
	.p2align 3
	.word 0				/* end */
	.word 0
	.long 8
mb2_header_end:

	.section .boot.text, "ax"
	.code32
	.globl mb2_start32
	.type mb2_start32, @function
mb2_start32:
	cli
	/* A loader that is not Multiboot2 gave us nothing we can read. */
	cmpl $MB2_BOOT_MAGIC, %eax
	jne 6f
	movl $X86_BOOT_MB2, %esi
	jmp x86_start32
6:	hlt
	jmp 6b
	.size mb2_start32, . - mb2_start32

	.globl pvh_start32
	.type pvh_start32, @function
pvh_start32:
	movl $X86_BOOT_PVH, %esi
x86_start32:
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
	 * %ebx (the loader's information) and %esi (which loader) survive
	 * to long mode: rep stosb uses %edi, %ecx, %eax, the long-mode
	 * steps %eax, %ecx, %edx. */
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
	movl %ebx, %edi		/* zero-extends: the information's address */
	movl %esi, %esi		/* zero-extends: which loader */
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
