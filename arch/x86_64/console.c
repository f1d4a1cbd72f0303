/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/console.h on the first 16550 UART (COM1), polled, when there is
 * one: a PC without it (many current boards) reads 0xff from the empty
 * ports, which would look like a UART forever holding a byte.  Who may
 * write when is the kernel's (kernel/console.c): this only moves bytes. */
#include "hal/console.h"

#include "x86.h"

#define COM1		0x3f8
#define UART_DATA	0	/* receive / transmit holding, DLL with DLAB */
#define UART_IER	1	/* interrupt enable, DLM with DLAB */
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define UART_SCR	7	/* scratch: any byte written reads back */
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20

/* Bound on waiting for the transmitter, so a missing UART cannot hang a
 * panic: on real hardware 16 bytes at 115200 baud take ~1.4 ms. */
#define UART_TX_SPINS	100000

static bool uart_present;

/* A 16550 keeps what is written to its scratch register; an empty port
 * reads 0xff whatever was written. */
static bool uart_probe(void)
{
	static const uint8_t probes[] = { 0x55, 0xaa };

	for (unsigned i = 0; i < sizeof(probes); i++) {
		outb(COM1 + UART_SCR, probes[i]);
		if (inb(COM1 + UART_SCR) != probes[i])
			return false;
	}
	return true;
}

void x86_serial_init(void)
{
	uart_present = uart_probe();
	if (!uart_present)
		return;
	outb(COM1 + UART_IER, 0x00);	/* polled: no interrupts */
	outb(COM1 + UART_LCR, 0x80);	/* DLAB: divisor follows */
	outb(COM1 + UART_DATA, 0x01);	/* 115200 baud */
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x03);	/* 8N1 */
	outb(COM1 + UART_FCR, 0xc7);	/* FIFOs on, cleared */
	outb(COM1 + UART_MCR, 0x03);	/* DTR, RTS; OUT2 off: no IRQ */
}

static void uart_putc(char c)
{
	for (int i = 0; i < UART_TX_SPINS; i++)
		if (inb(COM1 + UART_LSR) & LSR_THR_EMPTY)
			break;
	outb(COM1 + UART_DATA, (uint8_t)c);
}

void hal_console_write(const char *buf, size_t len)
{
	x86_fbcon_write(buf, len);
	if (!uart_present)
		return;
	for (size_t i = 0; i < len; i++)
		uart_putc(buf[i]);
}

int hal_console_getc(void)
{
	if (!uart_present || !(inb(COM1 + UART_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + UART_DATA);
}

/* A serial line to a raw terminal: it shows only what we send back, and
 * wants CR LF.  (The framebuffer console takes CR as a carriage return
 * too.) */
void hal_console_info(struct hal_console_info *info)
{
	info->echo = true;
	info->crlf = true;
}
