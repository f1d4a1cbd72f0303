/* SPDX-License-Identifier: BSD-2-Clause */
/* The PMU backend's access layer (pmu_hw.h) on the real machine.  The
 * _safe accesses carry an exception-table entry: a #GP at the access
 * resumes at its fixup, which reports -EIO (x86_extable_fixup()). */
#include "pmu_hw.h"

#include "lib/errno.h"
#include "x86.h"

/* @insn at label 1 with an exception-table entry: a fault there runs
 * the fixup at 3 (%[err] = %[eio], then @fix), which resumes after the
 * instruction (2). */
#define X86_SAFE_INSN(insn, fix)					\
	"1: " insn "\n"						\
	"2:\n"								\
	".pushsection .text.fixup, \"ax\"\n"				\
	"3: movl %[eio], %[err]\n"					\
	fix								\
	"   jmp 2b\n"							\
	".popsection\n"							\
	".pushsection kp_extable, \"a\"\n"				\
	".balign 8\n"							\
	".quad 1b, 3b\n"						\
	".popsection\n"

void x86_hw_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	cpuid(leaf, sub, r);
}

uint64_t x86_hw_rdmsr(uint32_t msr)
{
	return rdmsr(msr);
}

void x86_hw_wrmsr(uint32_t msr, uint64_t v)
{
	wrmsr(msr, v);
}

int x86_hw_rdmsr_safe(uint32_t msr, uint64_t *v)
{
	uint32_t lo, hi;
	int err = 0;

	__asm__ volatile(X86_SAFE_INSN("rdmsr", "   xorl %%eax, %%eax\n"
						"   xorl %%edx, %%edx\n")
			 : "=a"(lo), "=d"(hi), [err] "+r"(err)
			 : "c"(msr), [eio] "i"(-EIO));
	*v = ((uint64_t)hi << 32) | lo;
	return err;
}

int x86_hw_wrmsr_safe(uint32_t msr, uint64_t v)
{
	int err = 0;

	__asm__ volatile(X86_SAFE_INSN("wrmsr", "")
			 : [err] "+r"(err)
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)),
			   [eio] "i"(-EIO)
			 : "memory");
	return err;
}

uint8_t x86_hw_inb(uint16_t port)
{
	return inb(port);
}

uint64_t x86_hw_tsc(void)
{
	return rdtsc();
}

uint64_t x86_hw_tsc_hz(void)
{
	return x86_tsc_hz();
}

void x86_hw_xapic_write(unsigned reg, uint32_t v)
{
	mmio_write32(0xfee00000ul + reg, v);
}

uint32_t x86_hw_xapic_read(unsigned reg)
{
	return mmio_read32(0xfee00000ul + reg);
}

/* The exception table: pairs of (faulting address, where to resume),
 * collected by kernel.ld between these two symbols. */
extern const uint64_t __start_kp_extable[], __stop_kp_extable[];

bool x86_extable_fixup(struct trap_frame *tf)
{
	for (const uint64_t *e = __start_kp_extable; e < __stop_kp_extable; e += 2) {
		if (e[0] == tf->rip) {
			tf->rip = e[1];
			return true;
		}
	}
	return false;
}
