/* SPDX-License-Identifier: BSD-2-Clause */
/* The console on a linear framebuffer, when the boot loader set one up
 * (Multiboot2's framebuffer tag: GOP under UEFI, VBE under BIOS): text in
 * the 8x13 font fontgen made at build time (font.c), light grey on
 * black, scrolling a line at a time.  It only draws what the serial
 * console writes (console.c calls it), so a panic's report stays on the
 * screen once every CPU has stopped.  Input stays on the serial line and
 * the UDP shell.  The framebuffer is mapped uncached, so that each
 * pixel reaches the screen without a cache flush. */
#include "kernel/console.h"
#include "lib/out.h"
#include "x86.h"

#define MAP_LIMIT	(4ull << 30)	/* the identity map (boot.S) */
/* A shadow of the text, so that scrolling redraws from RAM instead of
 * reading the (uncached, slow) framebuffer back. */
#define COLS_MAX	256
#define ROWS_MAX	128
#define FG		0xaa		/* light grey */

extern const unsigned x86_font_width, x86_font_height;
extern const unsigned x86_font_first, x86_font_last;
extern const uint8_t x86_font_rows[];	/* height bytes a glyph */

static const struct x86_boot_fb *fb;
static unsigned cols, rows, col, row;
static uint32_t fg_pixel;
static char text[ROWS_MAX][COLS_MAX];

static uint32_t fb_colour(uint8_t v)
{
	return (uint32_t)(v >> (8 - fb->red_size)) << fb->red_pos |
	       (uint32_t)(v >> (8 - fb->green_size)) << fb->green_pos |
	       (uint32_t)(v >> (8 - fb->blue_size)) << fb->blue_pos;
}

/* 32 or 24 bits a pixel (VBE modes come in both), little-endian. */
static void fb_put(unsigned x, unsigned y, uint32_t pixel)
{
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)(fb->addr +
		(uint64_t)y * fb->pitch + (uint64_t)x * (fb->bpp / 8));

	if (fb->bpp == 32) {
		*(volatile uint32_t *)p = pixel;
		return;
	}
	p[0] = (uint8_t)pixel;
	p[1] = (uint8_t)(pixel >> 8);
	p[2] = (uint8_t)(pixel >> 16);
}

static void fb_draw(unsigned c, unsigned r, char ch)
{
	unsigned x0 = c * x86_font_width, y0 = r * x86_font_height;
	const uint8_t *g = NULL;

	if ((unsigned char)ch >= x86_font_first && (unsigned char)ch <= x86_font_last)
		g = x86_font_rows + ((unsigned char)ch - x86_font_first) * x86_font_height;
	for (unsigned y = 0; y < x86_font_height; y++) {
		uint8_t bits = g ? g[y] : 0;

		for (unsigned x = 0; x < x86_font_width; x++)
			fb_put(x0 + x, y0 + y, (bits & (0x80 >> x)) ? fg_pixel : 0);
	}
}

static void fb_scroll(void)
{
	for (unsigned r = 0; r + 1 < rows; r++)
		for (unsigned c = 0; c < cols; c++)
			if (text[r][c] != text[r + 1][c]) {
				text[r][c] = text[r + 1][c];
				fb_draw(c, r, text[r][c]);
			}
	for (unsigned c = 0; c < cols; c++) {
		text[rows - 1][c] = ' ';
		fb_draw(c, rows - 1, ' ');
	}
}

static void fb_newline(void)
{
	col = 0;
	if (row + 1 < rows)
		row++;
	else
		fb_scroll();
}

void x86_fbcon_write(const char *buf, size_t len)
{
	if (!fb)
		return;
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];

		if (ch == '\n') {
			fb_newline();
		} else if (ch == '\r') {
			col = 0;
		} else if (ch == '\b') {
			if (col)
				col--;
		} else if ((unsigned char)ch >= 0x20 && ch != 0x7f) {
			if (col == cols)
				fb_newline();
			text[row][col] = ch;
			fb_draw(col, row, ch);
			col++;
		}
	}
}

void x86_fbcon_init(void)
{
	const struct x86_boot_fb *f = x86_boot_fb();
	uint64_t size;

	if (!f)
		return;
	if ((f->bpp != 32 && f->bpp != 24) || f->pitch / (f->bpp / 8) < f->width ||
	    f->red_size > 8 || f->green_size > 8 || f->blue_size > 8) {
		out_printf(&out_console, "fbcon: %ux%u framebuffer at %u bits a pixel; drawing needs 24 or 32; serial only\n",
			   f->width, f->height, f->bpp);
		return;
	}
	size = (uint64_t)f->pitch * f->height;
	if (f->addr >= MAP_LIMIT || size > MAP_LIMIT - f->addr) {
		out_printf(&out_console, "fbcon: framebuffer at 0x%lx is past the identity map's 4 GiB; serial only\n",
			   (unsigned long)f->addr);
		return;
	}
	x86_mem_uncached(f->addr, f->addr + size);
	fb = f;
	cols = fb->width / x86_font_width;
	rows = fb->height / x86_font_height;
	if (cols > COLS_MAX)
		cols = COLS_MAX;
	if (rows > ROWS_MAX)
		rows = ROWS_MAX;
	fg_pixel = fb_colour(FG);
	/* Whatever GRUB drew goes: the kernel's text starts top left. */
	for (unsigned y = 0; y < fb->height; y++)
		for (unsigned x = 0; x < fb->width; x++)
			fb_put(x, y, 0);
	for (unsigned r = 0; r < rows; r++)
		for (unsigned c = 0; c < cols; c++)
			text[r][c] = ' ';
	col = row = 0;
	out_printf(&out_console, "fbcon: %ux%u framebuffer at 0x%lx, %ux%u text\n",
		   fb->width, fb->height, (unsigned long)fb->addr, cols, rows);
}
