/* SPDX-License-Identifier: BSD-2-Clause */
/* Each CPU's GDT: a copy of the boot layout (boot.S) whose TSS is the
 * CPU's own.  A TSS is marked busy when loaded, so no two CPUs can share
 * one descriptor; and each CPU's IST stacks carry its NMI, double fault
 * and machine check, which may arrive on a stack that cannot be trusted. */
#include <stdint.h>

#include "lib/kstring.h"
#include "x86.h"

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern uint64_t x86_gdt[];

void x86_gdt_init_cpu(struct x86_cpu *c)
{
	uint64_t base = (uintptr_t)&c->tss;
	uint64_t limit = sizeof(c->tss) - 1;
	struct desc_ptr gdtr = {
		.limit = sizeof(c->gdt) - 1,
		.base = (uintptr_t)c->gdt,
	};

	kmemcpy(c->gdt, x86_gdt, X86_SEL_TSS);
	kmemset(&c->tss, 0, sizeof(c->tss));
	c->tss.ist[X86_IST_NMI - 1] = c->ist_stacks + 1 * X86_IST_STACK_SIZE;
	c->tss.ist[X86_IST_DF - 1] = c->ist_stacks + 2 * X86_IST_STACK_SIZE;
	c->tss.ist[X86_IST_MC - 1] = c->ist_stacks + 3 * X86_IST_STACK_SIZE;
	c->tss.iomap_base = sizeof(c->tss);	/* no I/O bitmap */

	/* A 16-byte available 64-bit TSS descriptor (type 9, present). */
	c->gdt[X86_SEL_TSS / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
				  (0x89ull << 40) | ((limit >> 16 & 0xf) << 48) |
				  ((base >> 24 & 0xff) << 56);
	c->gdt[X86_SEL_TSS / 8 + 1] = base >> 32;

	__asm__ volatile("lgdt %0" : : "m"(gdtr));
	__asm__ volatile("ltr %w0" : : "r"((uint16_t)X86_SEL_TSS));
}
