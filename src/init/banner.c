/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot banner, printed from the platform's facts (hal/platform.h):
 * one line saying what the platform found, then any problem with how it
 * was booted. */
#include "init/banner.h"

#include "hal/mem.h"
#include "hal/platform.h"
#include "kernel/page.h"
#include "lib/kstring.h"
#include "lib/out.h"

static void banner_clock(struct out *o, const struct hal_platform_facts *f)
{
	if (f->clock_in_khz)
		out_printf(o, ", %s %lu kHz", f->clock, (unsigned long)(f->clock_hz / 1000));
	else
		out_printf(o, ", %s %lu MHz", f->clock, (unsigned long)(f->clock_hz / 1000000));
	if (f->clock_by)
		out_printf(o, " (%s)", f->clock_by);
}

static void banner_line(struct out *o, const struct hal_platform_facts *f)
{
	out_printf(o, "kprof %s: %zu MiB free (%s)", f->arch,
		   page_free_count() * HAL_PAGE_SIZE >> 20, f->mem_source);
	if (f->irqc)
		out_printf(o, ", %s", f->irqc);
	if (f->clock)
		banner_clock(o, f);
	if (f->entry_el >= 0)
		out_printf(o, ", entered at el%d", f->entry_el);
	out_puts(o, "\n");
}

void init_banner(struct out *o)
{
	struct hal_platform_facts f;
	size_t kept;

	kmemset(&f, 0, sizeof(f));
	hal_platform_facts(&f);
	if (!f.arch)
		return;
	banner_line(o, &f);
	if (f.bad_boot_info)
		out_printf(o, "%s: boot information at 0x%x is malformed; no memory map, command line or ACPI from it\n",
			   f.bad_boot_info, f.bad_boot_info_at);
	/* Said before the words are read: a cut cmd= would otherwise read
	 * only as an unterminated quote. */
	kept = kstrlen(hal_platform_cmdline());
	if (f.cmdline_given > kept)
		out_printf(o, "cmdline: cut to its first %zu of %zu bytes\n", kept,
			   f.cmdline_given);
}
