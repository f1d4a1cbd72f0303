/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel command line: space-separated key=value words.  A value may
 * be double-quoted to hold spaces and semicolons: cmd="work;ps".  No
 * escapes inside quotes.
 *
 * Each key is declared by the code that owns it, with CMDLINE_KEY() next
 * to its handler (in the spirit of Linux's __setup()); the parser walks
 * the table of them and knows no subsystem by name.  The table is a
 * linker section of pointers, so an entry exists in a program exactly
 * when its owner's object is linked in: doc/boot.md lists every key, and
 * the tests of `test keys` (tests/sim/check_sim.c, tests/qemu/test_shell)
 * check both against each other. */
#ifndef KPROF_KERNEL_CMDLINE_H
#define KPROF_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

struct out;

/* The longest value, terminator included, a key's word handler is given
 * (a longer one is refused in one line by the parser). */
#define CMDLINE_WORD_MAX 192

struct cmdline_key {
	const char *name;
	/* The owner's handler: set or word, the other NULL.  Either takes
	 * the value with the quotes of a quoted value already removed and
	 * returns 0 when taken, or a negative errno after one line on @err
	 * saying what was wrong and which value stays.  Boot only (and
	 * tests); allocates nothing.
	 * set: the @len bytes at @value, not terminated, for a key with a
	 * parser of its own.
	 * word: @value as a string (shorter than CMDLINE_WORD_MAX) and @key,
	 * this entry's own name, for an owner whose keys share one parser of
	 * key=value words (net_config_word()): one function serves every
	 * key it owns, with no function per key to say which it is. */
	int (*set)(const char *value, size_t len, struct out *err);
	int (*word)(const char *key, const char *value, struct out *err);
	/* The value is never printed, not even in a malformed word. */
	bool secret;
	/* "VALUE  what it does", one line, for `test keys`. */
	const char *help;
};

/* Declare @ident as a command-line key: CMDLINE_KEY(tick_key_hz_entry,
 * .name = "tick.hz", .set = ..., .help = ...), or with .word = ... .  Only a pointer goes into the section,
 * so no sanitizer pads between entries. */
#define CMDLINE_KEY(ident, ...)						\
	static const struct cmdline_key ident = { __VA_ARGS__ };		\
	static const struct cmdline_key *const ident##_entry		\
		__attribute__((used, section("kp_cmdline_keys"),		\
			       aligned(sizeof(void *)))) = &ident

/* The keys linked into this program, in link order; *n is their count. */
const struct cmdline_key *const *cmdline_keys(size_t *n);

/* Read @s: each well-formed word with a known key goes to its owner (the
 * last one wins).  Problems are reported on @o, one line each, and change
 * nothing: an unknown key (once, however often it appears), a malformed
 * word (no '=', empty key, stray or unterminated quote), a value its
 * owner refuses.  An owner may add a notice about a word it took.
 * Returns the number of lines written to @o, notices included.  Any context that
 * may write to @o; allocates nothing. */
int cmdline_parse(const char *s, struct out *o);

/* For owners: @len bytes at @value as a string in @dst of @size bytes;
 * false (and nothing copied) when they do not fit. */
bool cmdline_value_copy(char *dst, size_t size, const char *value, size_t len);

/* For owners whose values fit a fixed buffer: as cmdline_value_copy(),
 * and when the value does not fit, one line on @err: "cmdline: KEY= is
 * N bytes, too long; ignored" (never the value: it may be a secret). */
bool cmdline_value_fits(char *dst, size_t size, const char *key,
			const char *value, size_t len, struct out *err);

/* One key of an owner's word parser (.word) and the function that takes
 * its value: the owner's keys as a table, so that its parser is a
 * look-up (cmdline_word_take()), not a switch on names. */
struct cmdline_word_key {
	const char *key;
	int (*take)(const char *value, struct out *err);
};

/* For owners of several .word keys: @value to the function of @key among
 * the @n at @keys; -ENOENT, with nothing written, for a key not there. */
int cmdline_word_take(const struct cmdline_word_key *keys, size_t n, const char *key,
		      const char *value, struct out *err);

/* Step through the ';'-separated commands of @cmd: *pos starts at @cmd;
 * each call returns the next non-blank command (leading and trailing
 * spaces dropped) with its length in *len, or NULL at the end. */
const char *cmdline_next_command(const char **pos, size_t *len);

#endif
