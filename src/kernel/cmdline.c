/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/cmdline.h"
#include "kernel/cmdline_test.h"

#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"

/* Unknown keys remembered so each is reported once; keys past these
 * limits are still reported, possibly more than once. */
#define CMDLINE_UNKNOWN_MAX 8
#define CMDLINE_KEY_MAX 31

struct cmdline_word {
	const char *start;	/* the whole word, for messages */
	size_t len;
	const char *key;
	size_t key_len;
	const char *value;	/* inside the quotes when quoted */
	size_t value_len;
};

struct cmdline_seen {
	char keys[CMDLINE_UNKNOWN_MAX][CMDLINE_KEY_MAX + 1];
	unsigned n;
};

static bool cmdline_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The word starting at @s ends at the first space outside quotes.  An
 * unterminated quote runs the word to the end of the line. */
static size_t cmdline_word_len(const char *s)
{
	bool quoted = false;
	size_t n = 0;

	for (; s[n]; n++) {
		if (s[n] == '"')
			quoted = !quoted;
		else if (!quoted && cmdline_is_space(s[n]))
			break;
	}
	return n;
}

/* Split @w into key and value.  Returns NULL when well-formed, else what
 * is wrong with it. */
static const char *cmdline_split(struct cmdline_word *w)
{
	const char *eq = kmemchr(w->start, '=', w->len);
	const char *end = w->start + w->len;

	if (!eq)
		return "expected key=value";
	w->key = w->start;
	w->key_len = (size_t)(eq - w->start);
	if (w->key_len == 0)
		return "empty key";
	if (kmemchr(w->key, '"', w->key_len))
		return "quote in the key";
	w->value = eq + 1;
	w->value_len = (size_t)(end - w->value);
	if (w->value_len && w->value[0] == '"') {
		const char *close = kmemchr(w->value + 1, '"', w->value_len - 1);

		if (!close)
			return "unterminated quote";
		if (close != end - 1)
			return "text after the closing quote";
		w->value++;
		w->value_len -= 2;
	}
	if (kmemchr(w->value, '"', w->value_len))
		return "stray quote in the value";
	return NULL;
}

static bool cmdline_key_is(const struct cmdline_word *w, const char *key)
{
	return w->key_len == kstrlen(key) && !kmemcmp(w->key, key, w->key_len);
}

bool cmdline_value_copy(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		return false;
	kmemcpy(dst, s, len);
	dst[len] = '\0';
	return true;
}

/* True the first time @w's key is seen unknown. */
static bool cmdline_first_unknown(struct cmdline_seen *seen,
				  const struct cmdline_word *w)
{
	for (unsigned i = 0; i < seen->n; i++)
		if (cmdline_key_is(w, seen->keys[i]))
			return false;
	if (seen->n < CMDLINE_UNKNOWN_MAX &&
	    cmdline_value_copy(seen->keys[seen->n], sizeof(seen->keys[0]), w->key,
			 w->key_len))
		seen->n++;
	return true;
}

/* The table's bounds, from the linker (ld defines __start_/__stop_ for
 * a section named like a C identifier; the kernel's linker script names
 * them itself).  Weak: a program with no key at all still links. */
extern const struct cmdline_key *const __start_kp_cmdline_keys[] __attribute__((weak));
extern const struct cmdline_key *const __stop_kp_cmdline_keys[] __attribute__((weak));

const struct cmdline_key *const *cmdline_keys(size_t *n)
{
	*n = __start_kp_cmdline_keys ?
	     (size_t)(__stop_kp_cmdline_keys - __start_kp_cmdline_keys) : 0;
	return __start_kp_cmdline_keys;
}

const struct cmdline_key *cmdline_key_find(const char *name, size_t len)
{
	size_t n;
	const struct cmdline_key *const *keys = cmdline_keys(&n);

	for (size_t i = 0; i < n; i++)
		if (kstrlen(keys[i]->name) == len && !kmemcmp(keys[i]->name, name, len))
			return keys[i];
	return NULL;
}

int cmdline_word_take(const struct cmdline_word_key *keys, size_t n, const char *key,
		      const char *value, struct out *err)
{
	for (size_t i = 0; i < n; i++)
		if (kstreq(keys[i].key, key))
			return keys[i].take(value, err);
	return -ENOENT;
}

bool cmdline_value_fits(char *dst, size_t size, const char *key,
			const char *value, size_t len, struct out *err)
{
	if (cmdline_value_copy(dst, size, value, len))
		return true;
	out_printf(err, "cmdline: %s= is %zu bytes, too long; ignored\n", key, len);
	return false;
}

/* Hand the @len bytes at @value to @k's owner: as they are to its set,
 * or as a string with the key's name to its word handler. */
static int cmdline_give(const struct cmdline_key *k, const char *value,
			size_t len, struct out *o)
{
	char text[CMDLINE_WORD_MAX];
	int rc;

	if (k->set)
		return k->set(value, len, o);
	if (!cmdline_value_fits(text, sizeof(text), k->name, value, len, o))
		return -EINVAL;
	rc = k->word(k->name, text, o);
	if (k->secret)
		kmemset(text, 0, sizeof(text));
	return rc;
}

/* Hand one well-formed word to its key's owner; an unknown key is
 * reported once, however often it repeats. */
static void cmdline_apply(const struct cmdline_word *w, struct cmdline_seen *seen,
			  struct out *o)
{
	const struct cmdline_key *k = cmdline_key_find(w->key, w->key_len);

	if (k)
		cmdline_give(k, w->value, w->value_len, o);
	else if (cmdline_first_unknown(seen, w))
		out_printf(o, "cmdline: unknown key '%.*s' ignored\n", (int)w->key_len,
			   w->key);
}

/* A word that carries a secret key's value (the UDP shell's key): never
 * echoed, even when it is malformed.  Returns the key, or NULL. */
static const struct cmdline_key *cmdline_secret(const struct cmdline_word *w)
{
	size_t n;
	const struct cmdline_key *const *keys = cmdline_keys(&n);

	for (size_t i = 0; i < n; i++) {
		size_t len = kstrlen(keys[i]->name);

		if (keys[i]->secret && w->len >= len && !kmemcmp(w->start, keys[i]->name, len))
			return keys[i];
	}
	return NULL;
}

/* Owners may add a notice to a word they took ("net: gateway ... is
 * outside ..."), so the lines are counted where they are written, not
 * inferred from the owners' answers. */
struct cmdline_out {
	struct out out;
	struct out *to;
	int lines;
};

static void cmdline_out_write(struct out *o, const char *s, size_t n)
{
	struct cmdline_out *c = (struct cmdline_out *)o;

	for (size_t i = 0; i < n; i++)
		c->lines += s[i] == '\n';
	out_write(c->to, s, n);
}

int cmdline_parse(const char *s, struct out *to)
{
	struct cmdline_out counted = { .out = { cmdline_out_write }, .to = to };
	struct out *o = &counted.out;
	struct cmdline_seen seen = { .n = 0 };

	while (*s) {
		struct cmdline_word w = { .start = s };
		const struct cmdline_key *secret;
		const char *why;

		if (cmdline_is_space(*s)) {
			s++;
			continue;
		}
		w.len = cmdline_word_len(s);
		s += w.len;
		why = cmdline_split(&w);
		if (why && (secret = cmdline_secret(&w))) {
			out_printf(o, "cmdline: malformed %s= word (%s); ignored\n",
				   secret->name, why);
			continue;
		}
		if (why) {
			out_printf(o, "cmdline: malformed word '%.*s' (%s); ignored\n",
				   (int)w.len, w.start, why);
			continue;
		}
		cmdline_apply(&w, &seen, o);
	}
	return counted.lines;
}

const char *cmdline_next_command(const char **pos, size_t *len)
{
	const char *p = *pos, *start, *end;

	while (*p == ';' || cmdline_is_space(*p))
		p++;
	*pos = p;
	if (!*p)
		return NULL;
	start = p;
	while (*p && *p != ';')
		p++;
	end = p;
	while (end > start && cmdline_is_space(end[-1]))
		end--;
	*pos = p;
	*len = (size_t)(end - start);
	return start;
}
