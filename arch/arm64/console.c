/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/console.h on the PL011 UART, polled.  QEMU's needs no set-up;
 * who may write when is the kernel's (kernel/console.c). */
#include "hal/console.h"

#include "a64.h"

#define UART_DR		0x00
#define UART_FR		0x18
#define UART_LCR_H	0x2c
#define LCR_H_FEN	(1u << 4)	/* the 16-byte FIFOs */
#define LCR_H_WLEN8	(3u << 5)
#define FR_RXFE		(1u << 4)
#define FR_TXFF		(1u << 5)

/* Bound on waiting for room in the transmit FIFO, so a missing UART
 * cannot hang a panic. */
#define UART_TX_SPINS	100000

/* QEMU virt's, until the device tree names one. */
static uintptr_t uart_base = 0x09000000;

/* With its FIFOs off (the reset state) QEMU's PL011 holds one received
 * byte, and QEMU's main loop hands it the next only after the guest
 * read that one: on a loaded host a typed line arrived a byte per
 * console poll, some 0.2 s for a 20-byte command.  With them on, up to
 * 16 bytes come in one go. */
void a64_uart_init(uintptr_t base)
{
	if (base)
		uart_base = base;
	mmio_write32(uart_base + UART_LCR_H, LCR_H_WLEN8 | LCR_H_FEN);
}

static void uart_putc(char c)
{
	for (int i = 0; i < UART_TX_SPINS; i++)
		if (!(mmio_read32(uart_base + UART_FR) & FR_TXFF))
			break;
	mmio_write32(uart_base + UART_DR, (uint8_t)c);
}

void hal_console_write(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		uart_putc(buf[i]);
}

int hal_console_getc(void)
{
	if (mmio_read32(uart_base + UART_FR) & FR_RXFE)
		return -1;
	return mmio_read32(uart_base + UART_DR) & 0xff;
}

/* A serial line to a raw terminal: it shows only what we send back, and
 * wants CR LF. */
void hal_console_info(struct hal_console_info *info)
{
	info->echo = true;
	info->crlf = true;
}
