/* SPDX-License-Identifier: BSD-2-Clause */
/* Files the machine's firmware or host hands the kernel outside the
 * command line, which other local users of the host can read: QEMU's
 * fw_cfg on x86 (`-fw_cfg name=opt/kprof/udpsh.key,file=FILE`), the
 * simulator's options (`ksim --udp-key FILE`). */
#ifndef KPROF_HAL_FIRMWARE_H
#define KPROF_HAL_FIRMWARE_H

#include <stddef.h>

/* The name the UDP shell's key is published under. */
#define HAL_FW_UDPSH_KEY "opt/kprof/udpsh.key"
/* Bytes from the host's random source, fresh for each boot (qemu-run,
 * kprof-qemu: 32 bytes in hex), which the UDP shell's boot nonce mixes
 * in: two boots differ even where the guest's own entropy repeats (QEMU
 * -seed, -icount).  Not secret; only new. */
#define HAL_FW_RANDOM_SEED "opt/kprof/random.seed"

/* Copy the firmware file @name into @buf of @size bytes.  Returns its
 * length (which may exceed @size: only @size bytes were copied), or
 * -ENOENT when there is no such file.  Task context, boot; may be slow
 * (port I/O byte by byte). */
long hal_fw_file_read(const char *name, void *buf, size_t size);

#endif
