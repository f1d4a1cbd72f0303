/* hal/console.h on the first 16550 UART (COM1), polled. */
#include "hal/console.h"

#include "hal/cpu.h"
#include "x86.h"

#define COM1		0x3f8
#define UART_DATA	0	/* receive / transmit holding, DLL with DLAB */
#define UART_IER	1	/* interrupt enable, DLM with DLAB */
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20

/* Bound on waiting for the transmitter, so a missing UART cannot hang a
 * panic: on real hardware 16 bytes at 115200 baud take ~1.4 ms. */
#define UART_TX_SPINS	100000

/* Who holds the console: -1 when free, else the CPU id.  Panic must get
 * through even if the code it interrupted held it: a holder on the same
 * CPU (we are nested inside it) is ignored, a holder on another CPU is
 * waited for, bounded, and then ignored. */
static int console_owner = -1;
#define CONSOLE_WAIT_SPINS 10000000

void x86_serial_init(void)
{
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

/* Returns true when this call took the console (and must release it). */
static bool console_take(void)
{
	int me = (int)hal_cpu_id();

	for (long spins = 0;; spins++) {
		int expected = -1;

		if (__atomic_compare_exchange_n(&console_owner, &expected, me,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
		if (expected == me || spins >= CONSOLE_WAIT_SPINS)
			return false;
		hal_cpu_relax();
	}
}

/* Interrupts stay masked only while one line (at most CONSOLE_CHUNK
 * bytes) goes out: on a real 115200-baud line a long report would
 * otherwise hold the tick off for hundreds of milliseconds. */
#define CONSOLE_CHUNK 80

static size_t console_write_chunk(const char *buf, size_t len)
{
	unsigned long flags = hal_irq_save();
	bool took = console_take();
	size_t i = 0;

	while (i < len && i < CONSOLE_CHUNK) {
		char c = buf[i++];

		/* A terminal on the other end wants CR LF. */
		if (c == '\n')
			uart_putc('\r');
		uart_putc(c);
		if (c == '\n')
			break;
	}
	if (took)
		__atomic_store_n(&console_owner, -1, __ATOMIC_RELEASE);
	hal_irq_restore(flags);
	return i;
}

/* Only after the other CPUs were stopped: one of them may have been
 * stopped while it held the console, and will never let go. */
void x86_console_break(void)
{
	int me = (int)hal_cpu_id();
	int owner = __atomic_load_n(&console_owner, __ATOMIC_ACQUIRE);

	if (owner >= 0 && owner != me)
		__atomic_store_n(&console_owner, -1, __ATOMIC_RELEASE);
}

void hal_console_write(const char *buf, size_t len)
{
	while (len) {
		size_t n = console_write_chunk(buf, len);

		buf += n;
		len -= n;
	}
}

int hal_console_getc(void)
{
	if (!(inb(COM1 + UART_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + UART_DATA);
}

/* A serial line to a raw terminal shows only what we send back. */
bool hal_console_wants_echo(void)
{
	return true;
}
