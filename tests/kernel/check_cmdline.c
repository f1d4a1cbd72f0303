/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel command line: key=value words, quoted values, the reports
 * for unknown keys and malformed words, and the cmd= command list. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "init/boot_args.h"
#include "kernel/cmdline.h"
#include "prof/profiler.h"
#include "lib/out.h"
#include "net/net.h"
#include "shell/udpsh/net.h"
#include "check_main.h"

static char msgs[2048];
static struct out_buf ob;

/* cmd= and cpus= back to their defaults, then @s read; the other keys'
 * owners keep what earlier words set, as at boot. */
static int parse(const char *s)
{
	out_buf_init(&ob, msgs, sizeof(msgs));
	boot_args_reset();
	return cmdline_parse(s, &ob.out);
}

CHECK_TEST("core", test_cmdline_empty_keeps_defaults)
{
	ck_assert_int_eq(parse(""), 0);
	ck_assert_str_eq(boot_args()->cmd, "");
	ck_assert_int_eq(parse("   \t "), 0);
	ck_assert_str_eq(boot_args()->cmd, "");
	ck_assert_str_eq(msgs, "");
}
END_TEST

CHECK_TEST("core", test_cmdline_quoted_cmd_keeps_spaces_and_semicolons)
{
	ck_assert_int_eq(parse("cmd=\"work start split; profile 2000 all 3;poweroff\""), 0);
	ck_assert_str_eq(boot_args()->cmd, "work start split; profile 2000 all 3;poweroff");
	ck_assert_int_eq(parse("  cmd=help  "), 0);
	ck_assert_str_eq(boot_args()->cmd, "help");
	ck_assert_int_eq(parse("cmd=\"\""), 0);
	ck_assert_str_eq(boot_args()->cmd, "");
}
END_TEST

CHECK_TEST("core", test_cmdline_last_cmd_wins)
{
	ck_assert_int_eq(parse("cmd=ps cmd=\"help;uptime\""), 0);
	ck_assert_str_eq(boot_args()->cmd, "help;uptime");
}
END_TEST

CHECK_TEST("core", test_cmdline_unknown_key_reported_once)
{
	ck_assert_int_eq(parse("foo=1 cmd=ps foo=2 bar=\"x y\" foo=3"), 2);
	ck_assert_str_eq(msgs, "cmdline: unknown key 'foo' ignored\n"
			       "cmdline: unknown key 'bar' ignored\n");
	ck_assert_str_eq(boot_args()->cmd, "ps");
}
END_TEST

CHECK_TEST("core", test_cmdline_cpus_sets_limit)
{
	ck_assert_int_eq(parse(""), 0);
	ck_assert_uint_eq(boot_args()->cpus, 0);
	ck_assert_int_eq(parse("cpus=2 cmd=ps"), 0);
	ck_assert_uint_eq(boot_args()->cpus, 2);
	ck_assert_str_eq(msgs, "");
}
END_TEST

CHECK_TEST("core", test_cmdline_cpus_out_of_range_reported_default_kept)
{
	ck_assert_int_eq(parse("cpus=0 cpus=17 cpus=x cpus=\"\""), 4);
	ck_assert_str_eq(msgs, "cmdline: cpus= must be 1-16 (got '0'); ignored\n"
			       "cmdline: cpus= must be 1-16 (got '17'); ignored\n"
			       "cmdline: cpus= must be 1-16 (got 'x'); ignored\n"
			       "cmdline: cpus= must be 1-16 (got ''); ignored\n");
	ck_assert_uint_eq(boot_args()->cpus, 0);
}
END_TEST

CHECK_TEST("core", test_cmdline_malformed_words_reported_defaults_kept)
{
	ck_assert_int_eq(parse("quiet =x cmd=\"ps"), 3);
	ck_assert_str_eq(msgs,
		"cmdline: malformed word 'quiet' (expected key=value); ignored\n"
		"cmdline: malformed word '=x' (empty key); ignored\n"
		"cmdline: malformed word 'cmd=\"ps' (unterminated quote); ignored\n");
	ck_assert_str_eq(boot_args()->cmd, "");
	ck_assert_int_eq(parse("cmd=a\"b\" cmd=\"a\"b cmd=ok"), 2);
	ck_assert_str_eq(msgs,
		"cmdline: malformed word 'cmd=a\"b\"' (stray quote in the value); ignored\n"
		"cmdline: malformed word 'cmd=\"a\"b' (text after the closing quote); ignored\n");
	ck_assert_str_eq(boot_args()->cmd, "ok");
}
END_TEST

CHECK_TEST("core", test_cmdline_too_long_cmd_ignored)
{
	char line[BOOT_CMD_MAX + 16];

	strcpy(line, "cmd=");
	memset(line + 4, 'x', BOOT_CMD_MAX + 1);
	line[4 + BOOT_CMD_MAX + 1] = '\0';
	ck_assert_int_eq(parse(line), 1);
	ck_assert_str_eq(msgs, "cmdline: cmd= is 512 bytes, longer than 511; ignored\n");
	ck_assert_str_eq(boot_args()->cmd, "");
	line[4 + BOOT_CMD_MAX] = '\0';
	ck_assert_int_eq(parse(line), 0);
	ck_assert_uint_eq(strlen(boot_args()->cmd), BOOT_CMD_MAX);
}
END_TEST

CHECK_TEST("core", test_cmdline_next_command_splits_and_trims)
{
	const char *pos = " ;help; ps  ;;  work start split ; ";
	const char *want[] = { "help", "ps", "work start split" };
	const char *c;
	size_t len, n = 0;

	while ((c = cmdline_next_command(&pos, &len))) {
		ck_assert_uint_lt(n, 3);
		ck_assert_uint_eq(len, strlen(want[n]));
		ck_assert(!memcmp(c, want[n], len));
		n++;
	}
	ck_assert_uint_eq(n, 3);
	ck_assert_ptr_null(cmdline_next_command(&pos, &len));
}
END_TEST

/* The UDP shell's key: taken when well-formed, and never printed, not
 * even when the word or the value is wrong. */
CHECK_TEST("core", test_cmdline_udpsh_key_never_echoed)
{
	static const char secret[] = "5ec2e75ec2e75ec2e75ec2e75ec2e7";
	char word[512];

	net_config_reset();
	udpsh_config_reset();
	ck_assert_int_eq(parse("udpsh.key=000102030405060708090a0b0c0d0e0f"), 0);
	ck_assert_uint_eq(udpsh_config()->key_len, 16);
	ck_assert_uint_eq(udpsh_config()->key[15], 0x0f);
	ck_assert_str_eq(msgs, "");

	ck_assert_int_eq(parse("udpsh.key=" "5ec2e75ec2e75ec2e75ec2e75ec2e7"), 1);	/* 15 bytes */
	ck_assert_ptr_null(strstr(msgs, secret));
	ck_assert_ptr_nonnull(strstr(msgs, "udpsh.key= is not 16-64 bytes in hex"));
	ck_assert_uint_eq(udpsh_config()->key_len, 16);	/* the old key stays */

	ck_assert_int_eq(parse("udpsh.key=\"" "5ec2e75ec2e75ec2e75ec2e75ec2e7"), 1);	/* unterminated quote */
	ck_assert_ptr_null(strstr(msgs, secret));
	ck_assert_ptr_nonnull(strstr(msgs, "malformed udpsh.key= word"));

	snprintf(word, sizeof(word), "udpsh.key=%s%s%s%s%s%s%s%s", secret, secret, secret,
		 secret, secret, secret, secret, secret);
	ck_assert_int_eq(parse(word), 1);		/* too long for any buffer */
	ck_assert_ptr_null(strstr(msgs, secret));
	ck_assert_ptr_nonnull(strstr(msgs, "udpsh.key= is 240 bytes, too long"));
	net_config_reset();
	udpsh_config_reset();
}
END_TEST

/* Keys whose owner reads every one of them with one word parser
 * (.word: net_config_word(), udpsh_config_word()) are handed their own
 * name: each word lands in its own setting, and a value too long for the
 * parser's buffer is refused naming its key. */
CHECK_TEST("core", test_cmdline_word_keys_reach_their_owner_by_name)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	char word[300];

	net_config_reset();
	udpsh_config_reset();
	ck_assert_int_eq(parse("ip=10.0.2.20/24 gw=10.0.2.1 net.gw_mac=52:54:00:12:34:56 "
			       "net.arp_ttl=30 udpsh=6000 udpsh.allow=127.0.0.1 "
			       "udpsh.key=000102030405060708090a0b0c0d0e0f"), 0);
	ck_assert_str_eq(msgs, "");
	ck_assert_uint_eq(net_config()->ip, 0x0a000214);
	ck_assert_uint_eq(net_config()->prefix, 24);
	ck_assert_uint_eq(net_config()->gw, 0x0a000201);
	ck_assert(net_config()->gw_mac_set);
	ck_assert_mem_eq(net_config()->gw_mac, mac, 6);
	ck_assert(net_config()->arp_ttl_ns == 30ull * 1000000000ull);
	ck_assert_uint_eq(udpsh_config()->port, 6000);
	ck_assert_str_eq(udpsh_config()->allow, "127.0.0.1/32");
	ck_assert_uint_eq(udpsh_config()->key_len, 16);

	memset(word, 0, sizeof(word));
	memcpy(word, "net.arp_ttl=", 12);
	memset(word + 12, '1', CMDLINE_WORD_MAX);
	ck_assert_int_eq(parse(word), 1);
	ck_assert_str_eq(msgs, "cmdline: net.arp_ttl= is 192 bytes, too long; ignored\n");
	ck_assert(net_config()->arp_ttl_ns == 30ull * 1000000000ull);
	net_config_reset();
	udpsh_config_reset();
}
END_TEST

/* A word its owner takes with a notice: the notice is a line reported
 * (found by fuzz_cmdline: the count once left it out). */
CHECK_TEST("core", test_cmdline_owner_notice_counted)
{
	net_config_reset();
	ck_assert_int_eq(parse("ip=192.168.1.5/24 cpus=2"), 1);
	ck_assert_str_eq(msgs, "net: gateway 10.0.2.2 is outside 192.168.1.5/24; no gateway\n");
	ck_assert_int_eq(parse("ip=10.0.2.15/24 gw=10.0.2.2 nope=1"), 1);
	net_config_reset();
}
END_TEST

CHECK_TEST("core", test_cmdline_profile_source_chooses_the_sampler)
{
	const struct hal_pmu_info *info = prof_pmu_info();	/* the fake counter */

	ck_assert_int_eq(parse("profile.source=nmi"), 1);
	ck_assert_str_eq(msgs, "cmdline: profile.source= must be auto, pmu or tick (got 'nmi'); ignored\n");
	ck_assert_str_eq(prof_source_name(info), "pmu/fake cycles");
	ck_assert_int_eq(parse("profile.source=tick"), 0);
	ck_assert_str_eq(msgs, "");
	ck_assert_str_eq(prof_source_name(info), "tick 100hz");
	ck_assert(!prof_counter_required_but_absent(info));
	ck_assert_int_eq(parse("profile.source=pmu"), 0);
	ck_assert_str_eq(prof_source_name(info), "pmu/fake cycles");
	ck_assert_int_eq(parse("profile.source=auto"), 0);
	ck_assert_str_eq(prof_source_name(info), "pmu/fake cycles");
}
END_TEST

int main(void)
{
	return check_run(check_suite("cmdline", NULL, 0));
}
