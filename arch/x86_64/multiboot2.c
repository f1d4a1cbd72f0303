/* SPDX-License-Identifier: BSD-2-Clause */
/* The Multiboot2 entry's boot information (GRUB 2 on BIOS or UEFI): the
 * command line (tag 1), the memory map (6), the framebuffer (8) and the
 * RSDP (14: ACPI 1.0's, 15: 2.0's), read once on the boot CPU into
 * bootinfo.c.  The information is the loader's and may be anything: the
 * whole of it is checked before any of it is used.  Under UEFI GRUB has
 * exited boot services, so these tags are all there is: nothing here
 * calls firmware.  The header and the 32-bit entry are boot.S's. */
#include "bootinfo.h"

#include "lib/kstring.h"

#define TAG_END		0
#define TAG_CMDLINE	1
#define TAG_MMAP	6
#define TAG_FB		8
#define TAG_RSDP_V1	14
#define TAG_RSDP_V2	15
#define MMAP_RAM	1
#define FB_TYPE_RGB	1
/* GRUB's information is a few KiB (a UEFI memory map is the largest
 * part); anything claiming more than this is not GRUB's. */
#define MBI_MAX		(1u << 20)
#define CMDLINE_MAX	1024

struct mb2_tag {
	uint32_t type;
	uint32_t size;			/* header included, unpadded */
};

struct mb2_mmap {
	struct mb2_tag tag;
	uint32_t entry_size;
	uint32_t entry_version;
};

struct mb2_mmap_entry {
	uint64_t addr;
	uint64_t len;
	uint32_t type;
	uint32_t reserved;
};

/* GRUB's layout (include/multiboot2.h): the common part, then for
 * direct colour each field's position and size. */
struct mb2_fb {
	struct mb2_tag tag;
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, type;
	uint16_t reserved;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
} __attribute__((packed));

static uint32_t mb2_u32(const uint8_t *p)
{
	uint32_t v;

	kmemcpy(&v, p, sizeof(v));
	return v;
}

/* Every tag inside the total size, 8-aligned, at least its own header,
 * up to an end tag. */
static bool mb2_valid(const uint8_t *mbi, uint32_t total)
{
	uint32_t off = 8;

	while (off + sizeof(struct mb2_tag) <= total) {
		uint32_t type = mb2_u32(mbi + off), size = mb2_u32(mbi + off + 4);

		if (size < sizeof(struct mb2_tag) || size > total - off)
			return false;
		if (type == TAG_END)
			return true;
		off += (size + 7) & ~7u;
	}
	return false;
}

static void mb2_cmdline(const struct mb2_tag *t)
{
	const char *s = (const char *)(t + 1);
	size_t max = t->size - sizeof(*t);
	char raw[CMDLINE_MAX + 1], out[CMDLINE_MAX + 1];
	size_t n = 0, given;

	/* The string should end inside its tag; if it does not, the tag's
	 * end ends it. */
	while (n < max && n < sizeof(raw) - 1 && s[n])
		n++;
	kmemcpy(raw, s, n);
	raw[n] = '\0';
	for (given = n; given < max && s[given]; given++)
		;
	x86_mb2_unquote(raw, out, sizeof(out));
	x86_boot_set_cmdline(out);
	/* A line cut here says so, as one cut in bootinfo.c would. */
	if (given > n)
		x86_boot_cmdline_cut(given);
}

static void mb2_mmap(const struct mb2_tag *t)
{
	const struct mb2_mmap *m = (const struct mb2_mmap *)t;
	const uint8_t *e;

	if (t->size < sizeof(*m) || m->entry_size < sizeof(struct mb2_mmap_entry))
		return;
	for (e = (const uint8_t *)(m + 1);
	     e + m->entry_size <= (const uint8_t *)t + t->size; e += m->entry_size) {
		struct mb2_mmap_entry one;

		kmemcpy(&one, e, sizeof(one));
		if (one.type == MMAP_RAM)
			x86_boot_add_ram(one.addr, one.len);
	}
}

/* A direct-colour framebuffer; whether the console can draw on it is
 * fbcon.c's to say. */
static void mb2_fb(const struct mb2_tag *t)
{
	struct mb2_fb f;
	struct x86_boot_fb fb;

	if (t->size < sizeof(f))
		return;
	kmemcpy(&f, t, sizeof(f));
	if (f.type != FB_TYPE_RGB || !f.addr || !f.width || !f.height)
		return;
	fb = (struct x86_boot_fb){
		.addr = f.addr, .pitch = f.pitch, .width = f.width,
		.height = f.height, .bpp = f.bpp,
		.red_pos = f.red_pos, .red_size = f.red_size,
		.green_pos = f.green_pos, .green_size = f.green_size,
		.blue_pos = f.blue_pos, .blue_size = f.blue_size,
	};
	x86_boot_set_fb(&fb);
}

bool x86_mb2_parse(const void *mbi)
{
	const uint8_t *base = mbi;
	const struct mb2_tag *v1 = NULL, *v2 = NULL;
	uint32_t total = mb2_u32(base);

	if (total < 16 || total > MBI_MAX || !mb2_valid(base, total))
		return false;
	x86_boot_set_loader("multiboot2");
	for (uint32_t off = 8;;) {
		const struct mb2_tag *t = (const struct mb2_tag *)(base + off);

		if (t->type == TAG_END)
			break;
		if (t->type == TAG_CMDLINE)
			mb2_cmdline(t);
		else if (t->type == TAG_MMAP)
			mb2_mmap(t);
		else if (t->type == TAG_FB)
			mb2_fb(t);
		else if (t->type == TAG_RSDP_V1)
			v1 = t;
		else if (t->type == TAG_RSDP_V2)
			v2 = t;
		off += (t->size + 7) & ~7u;
	}
	/* ACPI 2.0's when both came: it names the XSDT. */
	if (v2 || v1) {
		const struct mb2_tag *t = v2 ? v2 : v1;

		x86_boot_copy_rsdp(t + 1, t->size - sizeof(*t));
	}
	return true;
}

/* Append @c to @out unless it is full (one byte stays for the NUL). */
static void put(char *out, size_t size, size_t *n, char c)
{
	if (*n + 1 < size)
		out[(*n)++] = c;
}

/* One word of GRUB's line from @in (at a non-blank): its text without
 * GRUB's quotes and backslashes into @w; returns where it ended. */
static const char *mb2_word(const char *in, char *w, size_t size, size_t *len)
{
	bool quoted = false;

	*len = 0;
	for (; *in && (quoted || *in != ' '); in++) {
		if (*in == '\\' && in[1])
			put(w, size, len, *++in);
		else if (*in == '"')
			quoted = !quoted;
		else
			put(w, size, len, *in);
	}
	w[*len] = '\0';
	return in;
}

void x86_mb2_unquote(const char *in, char *out, size_t size)
{
	char w[CMDLINE_MAX + 1];
	size_t n = 0;

	if (!size)
		return;
	while (*in) {
		const char *eq, *start;
		size_t len;

		if (*in == ' ') {
			in++;
			continue;
		}
		start = in;
		in = mb2_word(in, w, sizeof(w), &len);
		if (n)
			put(out, size, &n, ' ');
		eq = kmemchr(w, '=', len);
		/* A value with a blank goes back in the kernel's quotes, unless
		 * the menu already wrote them (then it reads as written). */
		if (*start == '"' && eq && kmemchr(w, ' ', len) && !kmemchr(w, '"', len)) {
			for (const char *p = w; p <= eq; p++)
				put(out, size, &n, *p);
			put(out, size, &n, '"');
			for (const char *p = eq + 1; *p; p++)
				put(out, size, &n, *p);
			put(out, size, &n, '"');
		} else {
			for (const char *p = w; *p; p++)
				put(out, size, &n, *p);
		}
	}
	out[n] = '\0';
}
