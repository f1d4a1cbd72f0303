/* SPDX-License-Identifier: BSD-2-Clause */
/* What firmware and GRUB hand the x86 kernel, on the host:
 * arch/x86_64/lapic.c against a modelled APIC in xAPIC and x2APIC mode
 * (tests/kit/apic_model.c), the MADT's local APIC entries (types 0 and 9),
 * the Multiboot2 boot information (arch/x86_64/multiboot2.c into
 * bootinfo.c), GRUB's requoting of the command line and the TSC's rate
 * from CPUID leaves 0x15 and 0x16. */
#include <check.h>
#include <string.h>

#include "apic_model.h"
#include "check_main.h"
#include "../arch/x86_64/bootinfo.h"
#include "../arch/x86_64/x86.h"

#define ICR_NMI_ASSERT	((4u << 8) | (1u << 14))

/* ---- the local APIC ---- */

CHECK_TEST("core", test_xapic_mode_uses_mmio_only)
{
	apic_model_init(false, 3);
	x86_lapic_mode_init();
	ck_assert(!x86_lapic_x2apic());
	x86_lapic_enable(X86_LVT_NMI);
	ck_assert_uint_eq(apic_regs[0x0f], 0x100 | X86_VEC_SPURIOUS);
	ck_assert_uint_eq(apic_regs[0x35], X86_LVT_MASKED);
	ck_assert_uint_eq(apic_regs[0x36], X86_LVT_NMI);
	ck_assert_uint_eq(x86_lapic_id(), 3);
	ck_assert(x86_lapic_send_ipi(5, ICR_NMI_ASSERT));
	ck_assert_uint_eq(apic_nipis, 1);
	ck_assert_uint_eq(apic_ipis[0].dest, 5);
	ck_assert_uint_eq(apic_ipis[0].lo, ICR_NMI_ASSERT);
	/* Past 8 bits xAPIC cannot address: refused, nothing sent. */
	ck_assert(!x86_lapic_send_ipi(0x100, ICR_NMI_ASSERT));
	ck_assert_uint_eq(apic_nipis, 1);
	ck_assert_uint_eq(apic_msr_accesses, 0);
	ck_assert_msg(!apic_violations, "%s", apic_violation);
}
END_TEST

CHECK_TEST("core", test_x2apic_mode_uses_msrs_only)
{
	apic_model_init(true, 0x12345);
	x86_lapic_mode_init();
	ck_assert(x86_lapic_x2apic());
	x86_lapic_enable(X86_LVT_NMI);
	ck_assert_uint_eq(apic_regs[0x0f], 0x100 | X86_VEC_SPURIOUS);
	ck_assert_uint_eq(apic_regs[0x36], X86_LVT_NMI);
	ck_assert_uint_eq(x86_lapic_id(), 0x12345);		/* all 32 bits */
	ck_assert(x86_lapic_send_ipi(0x12346, ICR_NMI_ASSERT));
	ck_assert_uint_eq(apic_nipis, 1);			/* one write */
	ck_assert_uint_eq(apic_ipis[0].dest, 0x12346);
	ck_assert_uint_eq(apic_ipis[0].lo, ICR_NMI_ASSERT);
	x86_lapic_eoi();
	x86_lapic_timer_periodic(1000);
	ck_assert_uint_eq(apic_regs[0x3e], 0x3);		/* divide by 16 */
	ck_assert_uint_eq(apic_regs[0x38], 1000);
	ck_assert_uint_eq(apic_regs[0x32], (1u << 17) | X86_VEC_TIMER);
	apic_regs[0x39] = 777;
	ck_assert_uint_eq(x86_lapic_timer_current(), 777);
	ck_assert_uint_eq(apic_mmio_accesses, 0);
	ck_assert_msg(!apic_violations, "%s", apic_violation);
}
END_TEST

/* The boot CPU in x2APIC mode, an AP that came up in xAPIC mode: the AP
 * joins the boot CPU's mode before it touches a register. */
CHECK_TEST("core", test_ap_in_xapic_mode_switched_to_x2apic)
{
	apic_model_init(true, 0);
	x86_lapic_mode_init();
	apic_model_init(false, 7);			/* now the AP */
	x86_lapic_enable(X86_LVT_MASKED);
	ck_assert(apic_base & (1ull << 10));
	ck_assert(apic_base & (1ull << 11));
	ck_assert_uint_eq(x86_lapic_id(), 7);
	ck_assert_uint_eq(apic_mmio_accesses, 0);
	ck_assert_msg(!apic_violations, "%s", apic_violation);
}
END_TEST

/* ---- the TSC's rate from CPUID ---- */

CHECK_TEST("core", test_tsc_hz_from_cpuid)
{
	/* Leaf 0x15 complete: crystal 24 MHz times 176/2. */
	uint32_t l0[4] = { 0x16 }, l15[4] = { 2, 176, 24000000 }, l16[4] = { 2100 };
	uint32_t no15[4] = { 2, 176, 0 }, none[4] = { 0 };
	uint32_t old[4] = { 0xd };

	ck_assert_uint_eq(x86_tsc_hz_from_cpuid(l0, l15, l16), 2112000000ull);
	/* No crystal in 0x15 (many client parts): 0x16's base MHz. */
	ck_assert_uint_eq(x86_tsc_hz_from_cpuid(l0, no15, l16), 2100000000ull);
	ck_assert_uint_eq(x86_tsc_hz_from_cpuid(l0, none, l16), 2100000000ull);
	/* Neither says (QEMU's TCG, AMD): 0, so the PM timer measures it. */
	ck_assert_uint_eq(x86_tsc_hz_from_cpuid(l0, none, none), 0);
	/* Leaves past the maximum are not believed, whatever they hold. */
	ck_assert_uint_eq(x86_tsc_hz_from_cpuid(old, l15, l16), 0);
}
END_TEST

/* ---- the MADT ---- */

CHECK_TEST("core", test_madt_x2apic_entries)
{
	static const uint8_t e[] = {
		0, 8, 0, 0, 1, 0, 0, 0,			/* APIC id 0, enabled */
		0, 8, 1, 1, 0, 0, 0, 0,			/* APIC id 1, disabled */
		9, 16, 0, 0, 0x00, 0x01, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,	/* x2APIC 0x100 */
		9, 16, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,	/* id 0 again */
		9, 16, 0, 0, 0x78, 0x56, 0x34, 0x12, 2, 0, 0, 0, 3, 0, 0, 0,	/* online-capable */
		9, 12, 0, 0,				/* too short: ignored */
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct x86_madt m;

	memset(&m, 0, sizeof(m));
	x86_madt_entries(e, sizeof(e), &m);
	ck_assert_uint_eq(m.ncpus, 3);
	ck_assert_uint_eq(m.apic_ids[0], 0);
	ck_assert_uint_eq(m.apic_ids[1], 0x100);
	ck_assert_uint_eq(m.apic_ids[2], 0x12345678);
	ck_assert_uint_eq(m.disabled, 1);
}
END_TEST

/* ---- Multiboot2 ---- */

static uint8_t mbi[512] __attribute__((aligned(8)));
static size_t mbi_len;

static void mbi_tag(uint32_t type, const void *body, uint32_t len)
{
	uint32_t hdr[2] = { type, 8 + len };

	memcpy(mbi + mbi_len, hdr, 8);
	if (len)
		memcpy(mbi + mbi_len + 8, body, len);
	mbi_len += (8 + len + 7) & ~7u;
}

static void mbi_start(void)
{
	memset(mbi, 0, sizeof(mbi));
	mbi_len = 8;
}

static void mbi_end(void)
{
	uint32_t total;

	mbi_tag(0, NULL, 0);
	total = (uint32_t)mbi_len;
	memcpy(mbi, &total, 4);
}

struct mmap_entry {
	uint64_t addr, len;
	uint32_t type, reserved;
};

static void mbi_grub_like(void)
{
	static const char cmdline[] = "\"cmd=lscpu; profile 1000 all 3\" cpus=2";
	struct {
		uint32_t entry_size, version;
		struct mmap_entry e[3];
	} mm = { 24, 0, { { 0, 0x9fc00, 1, 0 }, { 0xf0000, 0x10000, 2, 0 },
			  { 0x100000, 0xfee0000, 1, 0 } } };
	uint8_t v1[20] = "RSD PTR v1", v2[36] = "RSD PTR v2";
	struct __attribute__((packed)) {
		uint64_t addr;
		uint32_t pitch, width, height;
		uint8_t bpp, type;
		uint16_t reserved;
		uint8_t rp, rs, gp, gs, bp, bs;
	} fb = { 0xfd000000, 4096, 1024, 768, 32, 1, 0, 16, 8, 8, 8, 0, 8 };

	mbi_start();
	mbi_tag(1, cmdline, sizeof(cmdline));
	mbi_tag(15, v2, sizeof(v2));		/* 2.0's first: it must still win */
	mbi_tag(6, &mm, sizeof(mm));
	mbi_tag(14, v1, sizeof(v1));
	mbi_tag(8, &fb, sizeof(fb));
	mbi_tag(77, "?", 1);			/* unknown: skipped */
	mbi_end();
}

CHECK_TEST("core", test_mb2_tags_read)
{
	const struct x86_boot_fb *fb;
	uint64_t a, s;

	mbi_grub_like();
	ck_assert(x86_mb2_parse(mbi));
	ck_assert_str_eq(x86_boot_loader(), "multiboot2");
	ck_assert_str_eq(x86_boot_cmdline(), "cmd=\"lscpu; profile 1000 all 3\" cpus=2");
	ck_assert_uint_eq(x86_boot_ram_count(), 2);
	x86_boot_ram(1, &a, &s);
	ck_assert_uint_eq(a, 0x100000);
	ck_assert_uint_eq(s, 0xfee0000);
	ck_assert(!memcmp((const void *)(uintptr_t)x86_boot_rsdp(), "RSD PTR v2", 10));
	/* The trampoline's page is RAM; the EBDA's last page is not whole. */
	ck_assert(x86_boot_ram_holds(X86_TRAMPOLINE, X86_TRAMPOLINE + 4096));
	ck_assert(!x86_boot_ram_holds(0x9f000, 0xa0000));
	ck_assert(!x86_boot_ram_holds(0xf0000, 0xf1000));
	fb = x86_boot_fb();
	ck_assert_ptr_nonnull(fb);
	ck_assert_uint_eq(fb->addr, 0xfd000000);
	ck_assert_uint_eq(fb->width, 1024);
	ck_assert_uint_eq(fb->height, 768);
	ck_assert_uint_eq(fb->pitch, 4096);
	ck_assert_uint_eq(fb->red_pos, 16);
	ck_assert_uint_eq(fb->blue_pos, 0);
}
END_TEST

/* A tag that runs past the total, a size below a tag header, no end
 * tag: refused whole, nothing taken from it. */
CHECK_TEST("core", test_mb2_malformed_refused_whole)
{
	uint32_t bad;

	mbi_grub_like();
	bad = 4000;
	memcpy(mbi + 8 + 4, &bad, 4);			/* the cmdline tag's size */
	ck_assert(!x86_mb2_parse(mbi));
	mbi_grub_like();
	bad = 4;
	memcpy(mbi + 8 + 4, &bad, 4);
	ck_assert(!x86_mb2_parse(mbi));
	mbi_grub_like();
	bad = (uint32_t)mbi_len - 8;			/* cut before the end tag */
	memcpy(mbi, &bad, 4);
	ck_assert(!x86_mb2_parse(mbi));
	bad = 1u << 30;
	memcpy(mbi, &bad, 4);
	ck_assert(!x86_mb2_parse(mbi));
	ck_assert_str_eq(x86_boot_loader(), "none");
	ck_assert_str_eq(x86_boot_cmdline(), "");
	ck_assert_uint_eq(x86_boot_ram_count(), 0);
	ck_assert_uint_eq(x86_boot_rsdp(), 0);
	ck_assert_ptr_null(x86_boot_fb());
}
END_TEST

CHECK_TEST("core", test_mb2_cmdline_without_nul_ends_at_tag)
{
	mbi_start();
	mbi_tag(1, "cpus=2XXXX", 6);			/* no NUL inside */
	mbi_end();
	ck_assert(x86_mb2_parse(mbi));
	ck_assert_str_eq(x86_boot_cmdline(), "cpus=2");
}
END_TEST

/* A line longer than the kernel takes: cut, and the length given kept
 * for the banner's "cut to its first N of M bytes". */
CHECK_TEST("core", test_mb2_long_cmdline_cut_says_so)
{
	static char big[1500];
	static uint8_t buf[2048] __attribute__((aligned(8)));
	uint32_t hdr[4] = { 0, 0, 1, 8 + sizeof(big) };
	uint32_t end[2] = { 0, 8 };
	uint32_t total;

	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "cmd=", 4);
	memcpy(buf, hdr, sizeof(hdr));
	memcpy(buf + 16, big, sizeof(big));
	total = (16 + sizeof(big) + 7) & ~7u;
	memcpy(buf + total, end, 8);
	total += 8;
	memcpy(buf, &total, 4);
	ck_assert(x86_mb2_parse(buf));
	ck_assert_uint_eq(strlen(x86_boot_cmdline()), 1023);
	ck_assert_uint_eq(x86_boot_cmdline_given(), sizeof(big) - 1);
}
END_TEST

static const char *unquote(const char *in, size_t size)
{
	static char out[256];

	x86_mb2_unquote(in, out, size);
	return out;
}

CHECK_TEST("core", test_grub_requoting_undone)
{
	/* As written in grub.cfg -> as GRUB hands it over -> as the kernel
	 * wants it. */
	ck_assert_str_eq(unquote("cpus=2 cmd=lscpu", 256), "cpus=2 cmd=lscpu");
	/* cmd="lscpu; profile 1000 all 3" */
	ck_assert_str_eq(unquote("\"cmd=lscpu; profile 1000 all 3\"", 256),
			 "cmd=\"lscpu; profile 1000 all 3\"");
	/* 'cmd="lscpu"' (no blank: GRUB escapes the quotes, no outer ones) */
	ck_assert_str_eq(unquote("cmd=\\\"lscpu\\\"", 256), "cmd=\"lscpu\"");
	/* 'cmd="a b"' (kernel quotes written by hand, with a blank) */
	ck_assert_str_eq(unquote("\"cmd=\\\"a b\\\"\"", 256), "cmd=\"a b\"");
	/* blanks collapse; a backslash escapes anything */
	ck_assert_str_eq(unquote("  a=1   b=\\\\2 ", 256), "a=1 b=\\2");
	/* cut to fit, NUL-terminated */
	ck_assert_str_eq(unquote("cpus=2 cmd=lscpu", 7), "cpus=2");
	ck_assert_str_eq(unquote("", 256), "");
}
END_TEST

int main(void)
{
	return check_run_mode(check_suite("x86boot", NULL, 0), CK_FORK);
}
