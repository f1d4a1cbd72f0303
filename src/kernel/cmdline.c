#include "kernel/cmdline.h"

#include "hal/cpu.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "kernel/profiler.h"
#include "net/net.h"

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

void cmdline_init(struct cmdline *cl)
{
	cl->cmd[0] = '\0';
	cl->cpus = 0;
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

/* @len bytes at @s as a string in @dst; false when they do not fit. */
static bool cmdline_copy(char *dst, size_t size, const char *s, size_t len)
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
	    cmdline_copy(seen->keys[seen->n], sizeof(seen->keys[0]), w->key,
			 w->key_len))
		seen->n++;
	return true;
}

/* Keys the network stack owns (ip, gw, udpsh, udpsh.allow: net/net.h)
 * go to net_config_word(), which reports a malformed value itself.
 * Returns the number of lines reported, or -1 when the key is not one of
 * the network's. */
static int cmdline_apply_net(const struct cmdline_word *w, struct out *o)
{
	char key[CMDLINE_KEY_MAX + 1], value[192];
	int rc;

	if (!cmdline_copy(key, sizeof(key), w->key, w->key_len))
		return -1;
	if (!cmdline_copy(value, sizeof(value), w->value, w->value_len)) {
		/* Ours or not, say so without the value: it may be a key. */
		if (!net_config_key(key))
			return -1;
		out_printf(o, "cmdline: %s= is %zu bytes, too long; ignored\n",
			   key, w->value_len);
		return 1;
	}
	rc = net_config_word(key, value, o);
	if (rc == -ENOENT)
		return -1;
	return rc < 0 ? 1 : 0;
}

/* cpus=N, N in 1 .. HAL_MAX_CPUS.  Returns the number of lines reported. */
static int cmdline_apply_cpus(struct cmdline *cl, const struct cmdline_word *w,
			      struct out *o)
{
	char value[24];
	uint64_t n = 0;

	if (!cmdline_copy(value, sizeof(value), w->value, w->value_len) ||
	    parse_u64(value, &n) < 0 || n < 1 || n > HAL_MAX_CPUS) {
		out_printf(o, "cmdline: cpus= must be 1-%d (got '%.*s'); ignored\n",
			   HAL_MAX_CPUS, (int)w->value_len, w->value);
		return 1;
	}
	cl->cpus = (unsigned)n;
	return 0;
}

/* profile.source=auto|pmu|tick, as ksim's --source.  Returns the number
 * of lines reported. */
static int cmdline_apply_profile_source(const struct cmdline_word *w,
					struct out *o)
{
	char value[8];

	if (!cmdline_copy(value, sizeof(value), w->value, w->value_len) ||
	    prof_set_source(value) < 0) {
		out_printf(o, "cmdline: profile.source= must be auto, pmu or tick (got '%.*s'); ignored\n",
			   (int)w->value_len, w->value);
		return 1;
	}
	return 0;
}

/* Apply one well-formed word; returns the number of lines reported. */
static int cmdline_apply(struct cmdline *cl, const struct cmdline_word *w,
			 struct cmdline_seen *seen, struct out *o)
{
	int net;

	if (cmdline_key_is(w, "cmd")) {
		if (!cmdline_copy(cl->cmd, sizeof(cl->cmd), w->value, w->value_len)) {
			out_printf(o, "cmdline: cmd= is %zu bytes, longer than %d; ignored\n",
				   w->value_len, CMDLINE_CMD_MAX);
			return 1;
		}
		return 0;
	}
	if (cmdline_key_is(w, "cpus"))
		return cmdline_apply_cpus(cl, w, o);
	if (cmdline_key_is(w, "profile.source"))
		return cmdline_apply_profile_source(w, o);
	if ((net = cmdline_apply_net(w, o)) >= 0)
		return net;
	if (!cmdline_first_unknown(seen, w))
		return 0;
	out_printf(o, "cmdline: unknown key '%.*s' ignored\n", (int)w->key_len,
		   w->key);
	return 1;
}

/* A word that carries the UDP shell's key: never echoed, even when it is
 * malformed. */
static bool cmdline_secret(const struct cmdline_word *w)
{
	static const char key[] = "udpsh.key";

	return w->len >= sizeof(key) - 1 && !kmemcmp(w->start, key, sizeof(key) - 1);
}

int cmdline_parse(struct cmdline *cl, const char *s, struct out *o)
{
	struct cmdline_seen seen = { .n = 0 };
	int problems = 0;

	while (*s) {
		struct cmdline_word w = { .start = s };
		const char *why;

		if (cmdline_is_space(*s)) {
			s++;
			continue;
		}
		w.len = cmdline_word_len(s);
		s += w.len;
		why = cmdline_split(&w);
		if (why && cmdline_secret(&w)) {
			out_printf(o, "cmdline: malformed udpsh.key= word (%s); ignored\n", why);
			problems++;
			continue;
		}
		if (why) {
			out_printf(o, "cmdline: malformed word '%.*s' (%s); ignored\n",
				   (int)w.len, w.start, why);
			problems++;
			continue;
		}
		problems += cmdline_apply(cl, &w, &seen, o);
	}
	return problems;
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
