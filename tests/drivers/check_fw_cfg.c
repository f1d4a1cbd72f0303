/* SPDX-License-Identifier: BSD-2-Clause */
/* The fw_cfg driver (src/drivers/fw_cfg/) against a modelled device: a
 * selector and a data register in front of items, the signature and a
 * file directory among them, as QEMU lays them out.  The model reads 0
 * past an item's end, as QEMU does, and counts each register access. */
#include <check.h>
#include <stdbool.h>
#include <string.h>

#include "check_main.h"
#include "drivers/fw_cfg/fw_cfg.h"
#include "lib/errno.h"

#define MODEL_ITEMS	0x40
#define MODEL_ITEM_MAX	1024

struct model {
	uint8_t item[MODEL_ITEMS][MODEL_ITEM_MAX];
	size_t len[MODEL_ITEMS];
	uint16_t sel;
	size_t at;
	bool absent;		/* no device: the data register reads 0xff */
	unsigned selects, reads;
};

static struct model m;

static struct model *model_of(const struct fw_cfg_bus *b)
{
	return b->ctx;
}

static void model_select(const struct fw_cfg_bus *b, uint16_t item)
{
	struct model *d = model_of(b);

	d->selects++;
	d->sel = item;
	d->at = 0;
}

static uint8_t model_read8(const struct fw_cfg_bus *b)
{
	struct model *d = model_of(b);

	d->reads++;
	if (d->absent)
		return 0xff;
	if (d->sel >= MODEL_ITEMS || d->at >= d->len[d->sel])
		return 0;
	return d->item[d->sel][d->at++];
}

static const struct fw_cfg_bus bus = {
	.select = model_select,
	.read8 = model_read8,
	.ctx = &m,
};

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A device with the signature and an empty directory. */
static void model_reset(void)
{
	memset(&m, 0, sizeof(m));
	memcpy(m.item[FW_CFG_SIGNATURE], "QEMU", 4);
	m.len[FW_CFG_SIGNATURE] = 4;
	m.len[FW_CFG_FILE_DIR] = 4;
}

/* File @name (its 56 bytes copied as they are: a name of 56 characters
 * fills the entry without a NUL) at item @sel, holding @data. */
static void model_add_file(const char *name, uint16_t sel, const void *data, size_t len)
{
	uint8_t *dir = m.item[FW_CFG_FILE_DIR];
	uint32_t n = (uint32_t)dir[3];
	uint8_t *e = dir + 4 + 64 * n;
	size_t nl = strlen(name);

	ck_assert_uint_lt(4 + 64 * (n + 1), MODEL_ITEM_MAX);
	memset(e, 0, 64);
	put_be32(e, (uint32_t)len);
	e[4] = (uint8_t)(sel >> 8);
	e[5] = (uint8_t)sel;
	memcpy(e + 8, name, nl < FW_CFG_NAME_MAX ? nl : FW_CFG_NAME_MAX);
	put_be32(dir, n + 1);
	m.len[FW_CFG_FILE_DIR] = 4 + 64 * (n + 1);
	memcpy(m.item[sel], data, len);
	m.len[sel] = len;
}

CHECK_TEST("directory", test_file_read_through_directory)
{
	char buf[64];

	model_reset();
	model_add_file("etc/boot-menu-wait", 0x20, "\x00\x00", 2);
	model_add_file("opt/kprof/udpsh.key", 0x21, "00112233", 8);
	model_add_file("opt/kprof/random.seed", 0x22, "abcdef", 6);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(fw_cfg_file_read(&bus, "opt/kprof/udpsh.key", buf, sizeof(buf)), 8);
	ck_assert(memcmp(buf, "00112233xx", 10) == 0);
	ck_assert_int_eq(fw_cfg_file_read(&bus, "opt/kprof/random.seed", buf, sizeof(buf)), 6);
	ck_assert(memcmp(buf, "abcdef", 6) == 0);
}
END_TEST

/* A file longer than the buffer: its length, and only @size bytes. */
CHECK_TEST("directory", test_file_longer_than_buffer_copies_size_returns_length)
{
	char buf[8] = "........";

	model_reset();
	model_add_file("opt/kprof/udpsh.key", 0x21, "0123456789abcdef", 16);
	ck_assert_int_eq(fw_cfg_file_read(&bus, "opt/kprof/udpsh.key", buf, 4), 16);
	ck_assert(memcmp(buf, "0123....", 8) == 0);
}
END_TEST

CHECK_TEST("directory", test_missing_file_is_enoent)
{
	char buf[16] = "untouched";

	model_reset();
	model_add_file("opt/kprof/random.seed", 0x22, "abcdef", 6);
	ck_assert_int_eq(fw_cfg_file_read(&bus, "opt/kprof/udpsh.key", buf, sizeof(buf)),
			 -ENOENT);
	/* A prefix of a file's name is not that file. */
	ck_assert_int_eq(fw_cfg_file_read(&bus, "opt/kprof/random", buf, sizeof(buf)),
			 -ENOENT);
	ck_assert_str_eq(buf, "untouched");
}
END_TEST

CHECK_TEST("directory", test_absent_device_is_enoent)
{
	char buf[16] = "untouched";

	model_reset();
	m.absent = true;
	ck_assert_int_eq(fw_cfg_file_read(&bus, "opt/kprof/udpsh.key", buf, sizeof(buf)),
			 -ENOENT);
	ck_assert_str_eq(buf, "untouched");
	/* The signature, and nothing after it. */
	ck_assert_uint_eq(m.selects, 1);
	ck_assert_uint_eq(m.reads, 4);
}
END_TEST

/* An entry holds 55 characters and its NUL: a name of 55 is found; one
 * of 56 matches no entry (not even one whose 56 bytes are that name,
 * without a NUL) and the device is not asked. */
CHECK_TEST("directory", test_name_too_long_is_enoent)
{
	char n55[56], n56[57], buf[8];

	memset(n55, 'a', 55);
	n55[55] = '\0';
	memset(n56, 'a', 56);
	n56[56] = '\0';
	model_reset();
	model_add_file(n55, 0x20, "five5", 5);
	ck_assert_int_eq(fw_cfg_file_read(&bus, n55, buf, sizeof(buf)), 5);
	model_reset();
	model_add_file(n56, 0x20, "six66", 5);
	ck_assert_int_eq(fw_cfg_file_read(&bus, n56, buf, sizeof(buf)), -ENOENT);
	ck_assert_uint_eq(m.selects + m.reads, 0);
	/* That entry's 56 bytes have no NUL: read as its first 55, which
	 * are the 55-character name. */
	ck_assert_int_eq(fw_cfg_file_read(&bus, n55, buf, sizeof(buf)), 5);
}
END_TEST

/* A directory that claims more entries than it holds reads zeros past
 * its end: empty names, which match nothing; the walk ends at the count
 * (bounded by FW_CFG_FILES_MAX), never loops. */
CHECK_TEST("directory", test_directory_count_past_its_end)
{
	char buf[8];

	model_reset();
	model_add_file("opt/kprof/random.seed", 0x22, "abcdef", 6);
	put_be32(m.item[FW_CFG_FILE_DIR], 0xffffffffu);
	ck_assert_int_eq(fw_cfg_file_read(&bus, "opt/kprof/udpsh.key", buf, sizeof(buf)),
			 -ENOENT);
	ck_assert_uint_eq(m.reads, 4 + 4 + 64u * FW_CFG_FILES_MAX);
}
END_TEST

int main(void)
{
	return check_run(check_suite("fw_cfg", NULL, 0));
}
