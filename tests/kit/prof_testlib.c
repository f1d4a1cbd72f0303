/* SPDX-License-Identifier: BSD-2-Clause */
#include "prof_testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_hal.h"
#include "fake_pmu.h"
#include "hal/entry.h"
#include "kernel/symbols.h"
#include "kernel/symbols_test.h"

static const char pt_strings[] =
	"memcpy\0net_frame_copy\0virtio_net_rx\0spin_lock\0udp_input\0cpu_idle";

static const struct sym_entry pt_entries[] = {
	{ 0x1000, 0x80, 0 },
	{ 0x1100, 0x100, 7 },
	{ 0x1200, 0x400, 22 },
	{ 0x1600, 0x40, 36 },
	{ 0x1700, 0x100, 46 },
	{ 0x1800, 0x20, 56 },
};

static const struct sym_table pt_table = {
	.base = PT_BASE,
	.entries = pt_entries,
	.count = sizeof(pt_entries) / sizeof(pt_entries[0]),
	.strings = pt_strings,
};

void pt_use_symbols(void)
{
	sym_use_table(&pt_table);
}

void pt_boot_cpus(unsigned n)
{
	fake_ncpus = n;
	for (unsigned cpu = 0; cpu < n; cpu++)
		fake_cpu_boot(cpu);
	fake_cpu = 0;
	fake_pmu_log_clear();
	fake_pmu_unclaimed = 0;
}

void pt_tick(unsigned cpu, uintptr_t ip)
{
	struct trap_frame tf = { .ip = ip };

	fake_cpu = cpu;
	fake_irq_off[cpu] = true;
	kernel_tick(&tf);
}

void pt_tick_all(unsigned n, uintptr_t ip)
{
	for (unsigned cpu = 0; cpu < n; cpu++)
		pt_tick(cpu, ip);
}

static char *pt_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[len] = '\0';
	fclose(f);
	return buf;
}

bool pt_golden_equal(const char *name, const char *text)
{
	char path[4096];
	char *want;
	bool same;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	want = pt_read_file(path);
	same = want && strcmp(want, text) == 0;
	free(want);
	if (same)
		return true;
	mkdir(GOLDEN_OUT_DIR, 0777);
	snprintf(path, sizeof(path), "%s/%s", GOLDEN_OUT_DIR, name);
	f = fopen(path, "wb");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	fprintf(stderr, "golden %s differs; got (also in %s):\n%s", name, path, text);
	return false;
}
