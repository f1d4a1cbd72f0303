/* SPDX-License-Identifier: BSD-2-Clause */
/* The arm64 entry.  QEMU enters an ELF -kernel at _start with the MMU
 * off, at EL1 (or EL2 with virtualization=on), x0 = the device tree or
 * 0.  We drop to EL1 if at EL2, zero .bss, build an identity map, turn
 * the MMU on (C code must run on Normal memory: with the MMU off every
 * access is Device memory, where an unaligned access faults), set this
 * CPU's stacks and call a64_boot_main(x0).  PSCI CPU_ON starts the other
 * CPUs at a64_secondary_entry with x0 = their index; they take the same
 * steps but the first two. */
#include "a64.h"

/* Translation: 4 KiB granule, 39-bit virtual addresses (T0SZ 25: the
 * walk starts at level 1, 1 GiB per entry). */
#define TCR_T0SZ	25
#define TCR_IRGN0_WBWA	(1 << 8)
#define TCR_ORGN0_WBWA	(1 << 10)
#define TCR_SH0_INNER	(3 << 12)
#define TCR_EPD1	(1 << 23)	/* no TTBR1 walks */
#define TCR_IPS_SHIFT	32

/* MAIR: attribute 0 Device-nGnRnE, attribute 1 Normal write-back. */
#define MAIR_VALUE	0xff00

/* Block descriptors: valid block, AttrIndx, inner shareable, access
 * flag; device memory never executable. */
#define DESC_TABLE	0x3
#define DESC_NORMAL	0x705
#define DESC_DEVICE	0x0060000000000401

/* SCTLR_EL1: the RES1 bits, then M (MMU), C, SA, I; A = 0 (unaligned
 * accesses allowed: src/net reads packed headers). */
#define SCTLR_RES1	0x30d00800
#define SCTLR_MMU_OFF	SCTLR_RES1
#define SCTLR_MMU_ON	(SCTLR_RES1 | (1 << 0) | (1 << 2) | (1 << 3) | (1 << 12))

/* GICv3 system registers by encoding (the assembler may not name them). */
#define ICC_SRE_EL2	S3_4_C12_C9_5
#define ICH_HCR_EL2	S3_4_C12_C11_0

/* x9 = the top of CPU x19's stack in \stacks, an array of \size-byte
 * stacks (x10, x11 clobbered). */
.macro STACK_TOP stacks, size
	mov x10, #\size
	madd x9, x19, x10, x10
	ldr x11, =\stacks
	add x9, x9, x11
.endm

/* From EL2 to EL1, when entered at EL2 (-M virt,virtualization=on):
 * EL1 is AArch64, its timer and counter untrapped with no virtual
 * offset, the GICv3 system registers usable from EL1, every PMU counter
 * EL1's and untrapped, and EL1 sees the real MIDR and MPIDR.  Clobbers
 * x9, x10. */
.macro EL2_TO_EL1
	mrs x9, CurrentEL
	lsr x9, x9, #2
	cmp x9, #2
	b.ne 8f
	mov x9, #(1 << 31)		/* HCR_EL2.RW */
	msr hcr_el2, x9
	mov x9, #3			/* CNTHCTL_EL2.EL1PCTEN, EL1PCEN */
	msr cnthctl_el2, x9
	msr cntvoff_el2, xzr
	mrs x9, id_aa64pfr0_el1
	ubfx x9, x9, #24, #4		/* GIC system registers */
	cbz x9, 6f
	mrs x9, ICC_SRE_EL2
	mov x10, #0x9			/* SRE, Enable (EL1 may use SRE) */
	orr x9, x9, x10
	msr ICC_SRE_EL2, x9
	isb
	msr ICH_HCR_EL2, xzr
6:	mrs x9, id_aa64dfr0_el1
	ubfx x9, x9, #8, #4		/* PMUVer */
	cbz x9, 7f
	cmp x9, #0xf
	b.eq 7f
	mrs x9, pmcr_el0
	ubfx x9, x9, #11, #5		/* PMCR_EL0.N */
	msr mdcr_el2, x9		/* HPMN = N; TPM, TPMCR clear */
7:	mrs x9, midr_el1
	msr vpidr_el2, x9
	mrs x9, mpidr_el1
	msr vmpidr_el2, x9
	mov x9, #0x33ff			/* CPTR_EL2: trap nothing */
	msr cptr_el2, x9
	msr hstr_el2, xzr
	ldr x9, =SCTLR_MMU_OFF
	msr sctlr_el1, x9
	mov x9, #0x3c5			/* EL1h, DAIF masked */
	msr spsr_el2, x9
	adr x9, 8f
	msr elr_el2, x9
	eret
8:
.endm

	.section .boot.text, "ax"
	.globl _start
	.type _start, @function
_start:
	mov x20, x0			/* the device tree, or 0 */
	mrs x21, CurrentEL		/* for the banner */
	EL2_TO_EL1
	msr daifset, #0xf
	ldr x9, =SCTLR_MMU_OFF
	msr sctlr_el1, x9
	isb
	/* .bss holds the page tables and the stacks: zero it first. */
	ldr x9, =__bss_start
	ldr x10, =__bss_end
1:	stp xzr, xzr, [x9], #16
	cmp x9, x10
	b.lo 1b
	bl build_tables
	mov x19, #0
	b cpu_common
	.size _start, . - _start

	.globl a64_secondary_entry
	.type a64_secondary_entry, @function
a64_secondary_entry:
	mov x19, x0			/* this CPU's index (context id) */
	EL2_TO_EL1
	msr daifset, #0xf
	ldr x9, =SCTLR_MMU_OFF
	msr sctlr_el1, x9
	isb
	b cpu_common
	.size a64_secondary_entry, . - a64_secondary_entry

/* x19 = CPU index, x20 = the device tree (boot CPU).  MMU on, vectors,
 * SP_EL1 = the CPU's exception stack, SP_EL0 = its boot stack, which
 * every task-level code runs on; a terminating frame record {0, 0}. */
	.type cpu_common, @function
cpu_common:
	ldr x9, =MAIR_VALUE
	msr mair_el1, x9
	mrs x9, id_aa64mmfr0_el1
	and x9, x9, #7			/* PARange */
	cmp x9, #5
	mov x10, #5
	csel x9, x9, x10, ls
	lsl x9, x9, #TCR_IPS_SHIFT
	ldr x10, =(TCR_T0SZ | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | TCR_SH0_INNER | TCR_EPD1)
	orr x9, x9, x10
	msr tcr_el1, x9
	ldr x9, =a64_ttbr0		/* read with the MMU off: mem.c cleans it */
	ldr x9, [x9]
	msr ttbr0_el1, x9
	isb
	tlbi vmalle1
	dsb nsh
	isb
	ldr x9, =SCTLR_MMU_ON
	msr sctlr_el1, x9
	isb
	ldr x9, =a64_vectors
	msr vbar_el1, x9
	isb
	STACK_TOP a64_exc_stacks, A64_EXC_STACK_SIZE
	msr spsel, #1
	mov sp, x9
	STACK_TOP a64_boot_stacks, A64_BOOT_STACK_SIZE
	msr spsel, #0
	mov sp, x9
	stp xzr, xzr, [sp, #-16]!
	mov x29, sp
	mov x30, xzr
	mov x0, x19
	mov x1, x20
	cbnz x19, 2f
	mov x0, x20
	mov x1, x21
	bl a64_boot_main
	b 3f
2:	bl a64_secondary_main
3:	wfi
	b 3b
	.size cpu_common, . - cpu_common

/* The identity map: level 1 entry 0 (0-1 GiB) through a level 2 table
 * of 2 MiB device blocks from 128 MiB (the flash below stays unmapped,
 * so NULL and small offsets fault), entry 1 (1-2 GiB, where RAM starts)
 * through a level 2 table of 2 MiB normal blocks (mem.c moves every CPU
 * to copies in 4 KiB pages before the others start), entries 2-3 (2-4 GiB) as 1 GiB
 * normal blocks.  Clobbers x9-x13. */
	.type build_tables, @function
build_tables:
	ldr x9, =a64_pt_l1
	ldr x10, =a64_pt_l2_low
	orr x10, x10, #DESC_TABLE
	str x10, [x9, #0]
	ldr x10, =a64_pt_l2_ram
	orr x10, x10, #DESC_TABLE
	str x10, [x9, #8]
	ldr x11, =DESC_NORMAL
	mov x10, #(2 << 30)
	orr x10, x10, x11
	str x10, [x9, #16]
	mov x12, #(1 << 30)
	add x10, x10, x12
	str x10, [x9, #24]

	ldr x9, =a64_pt_l2_low
	ldr x11, =DESC_DEVICE
	mov x12, #64			/* 64 * 2 MiB = 128 MiB */
1:	lsl x10, x12, #21
	orr x10, x10, x11
	str x10, [x9, x12, lsl #3]
	add x12, x12, #1
	cmp x12, #512
	b.lo 1b

	ldr x9, =a64_pt_l2_ram
	ldr x11, =DESC_NORMAL
	mov x13, #(1 << 30)
	mov x12, #0
2:	lsl x10, x12, #21
	add x10, x10, x13
	orr x10, x10, x11
	str x10, [x9, x12, lsl #3]
	add x12, x12, #1
	cmp x12, #512
	b.lo 2b
	dsb sy
	ret
	.size build_tables, . - build_tables

	.section .bss
	.p2align 12
	.globl a64_pt_l1, a64_pt_l2_low, a64_pt_l2_ram
a64_pt_l1:	.skip 4096
a64_pt_l2_low:	.skip 4096
a64_pt_l2_ram:	.skip 4096
	.globl a64_boot_stacks, a64_exc_stacks
	.p2align 4
a64_boot_stacks: .skip A64_BOOT_STACK_SIZE * 16
a64_exc_stacks:	.skip A64_EXC_STACK_SIZE * 16

/* The level 1 table every CPU starts on: this one until
 * a64_mem_split_ram() replaces it, before the secondaries start. */
	.section .data
	.p2align 3
	.globl a64_ttbr0
a64_ttbr0:	.quad a64_pt_l1

	.section .note.GNU-stack, "", @progbits
