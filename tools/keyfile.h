/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's key file on the host, as ssh treats a private key: the
 * one place that knows the rules and the default path, shared by kshell
 * (and, through `kshell --check-key` and `kshell --init-key`, by
 * kprof-qemu and make run) and ksim.
 *
 * A key file is refused, in one line naming the file and the rule, when
 * it is not a regular file (a FIFO or a device would block or never end:
 * it is opened without blocking and checked before anything is read),
 * when its group or others may read or write it (chmod 600), when it
 * does not hold 16-64 bytes in hex, when the key is one byte repeated
 * (all zero, say) or the test key doc/shell.md publishes, when it has the
 * setuid, setgid or sticky bit, when another user than us or root owns
 * it, or when its folder is owned by another or writable by group or
 * others without the sticky bit (/tmp's): whoever may write there can
 * swap the key.  kshell --init-key makes no key in such a folder.
 *
 * The default path is $XDG_CONFIG_HOME/kprof/udpsh.key, with
 * $XDG_CONFIG_HOME defaulting to $HOME/.config. */
#ifndef KPROF_TOOLS_KEYFILE_H
#define KPROF_TOOLS_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEYFILE_TEXT_MAX 512

/* True when @key (@len bytes) is the test key doc/shell.md publishes in
 * its worked example: every reader of a key refuses it. */
bool keyfile_key_published(const uint8_t *key, size_t len);

/* Read and check the key file @path.  Returns the key's length with the
 * key in @key (UDPSH_KEY_MAX bytes), or -1 after one line on stderr,
 * "@prog: key file @path: RULE"; -2 when the file does not exist (also
 * said).  The key is never printed. */
int keyfile_read(const char *prog, const char *path, uint8_t *key);

/* The default key path into @buf of @size bytes.  Returns 0, or -1
 * (neither XDG_CONFIG_HOME nor HOME set, or too long: said on stderr). */
int keyfile_default_path(const char *prog, char *buf, size_t size);

/* Make the default key file (32 random bytes in hex, mode 0600, its
 * folder 0700) unless it exists, then check it as keyfile_read() does.
 * The path goes to @buf.  Returns the key's length with the key in @key,
 * or -1 after one line on stderr; *@made says whether it was made now. */
int keyfile_init_default(const char *prog, char *buf, size_t size, uint8_t *key,
			 int *made);

#endif
