/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim: the simulated machine as a program.
 *
 *   ksim [--cpus N] [--udp PORT] [--source auto|pmu|tick] [--hz HZ]
 *        [--stats] [--net PORT:PEERPORT] [--cmdline WORDS]
 *        [--udp-key FILE | --udp-insecure] [-c CMD]...
 *
 * With --udp or --net and neither --udp-key nor --udp-insecure, the UDP
 * shells take the default key file (tools/keyfile.h), made on first use,
 * the one kshell, kprof-qemu and make run use.
 *   ksim --help | --version
 *
 * Exit status (ksim(1) has the same table): 0 the machine ran and ended
 * (or `poweroff N` gave N); 1 a -c command failed; 2 a usage error,
 * nothing started; 3 the machine could not start. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "hal/cpu.h"
#include "sim/ksim.h"
#include "../tools/keyfile.h"

#define KSIM_MAX_COMMANDS 64

enum { KSIM_EXIT_FAILED = 1, KSIM_EXIT_USAGE = 2, KSIM_EXIT_START = 3 };

static void usage(void)
{
	printf("Usage: ksim [OPTION]...\n"
	       "Run the kprof kernel as a Linux process: threads are its CPUs, SIGPROF\n"
	       "its tick, perf_event_open overflow signals its PMU.  Commands come from\n"
	       "-c, else from standard input; `help' lists them (ksim(1), doc/shell.md).\n"
	       "\n"
	       "  -c CMD            run CMD in the shell; repeatable; exit after the last\n"
	       "      --cpus=N      simulated CPUs, 1-%u (default 4)\n"
	       "      --source=S    profiler samples: auto (the counter when it counts;\n"
	       "                    the default), pmu (the counter or fail), tick (SIGPROF)\n"
	       "      --hz=HZ       tick rate per CPU, 1-100000 (default 100)\n"
	       "      --pmu-counters=N  stat's counters per CPU, 1-8 (default 8): more\n"
	       "                    events than that are multiplexed on the tick\n"
	       "      --udp=PORT    serve the UDP shell on 127.0.0.1:PORT (0: a free port);\n"
	       "                    ksim then runs until poweroff or a signal\n"
	       "      --udp-key=FILE  the UDP shells' key, 16-64 bytes in hex: requests\n"
	       "                    must be authenticated (kshell -k FILE speaks it);\n"
	       "                    a regular file of mode 600, not one byte repeated.\n"
	       "                    Default with --udp or --net: the key file kshell uses,\n"
	       "                    $XDG_CONFIG_HOME/kprof/udpsh.key (~/.config/...),\n"
	       "                    made on first use\n"
	       "      --udp-insecure  no key: the UDP shells speak the plain protocol\n"
	       "                    (udpsh.key=none; warned)\n"
	       "      --net=P:PEER  a network device: Ethernet frames in UDP datagrams,\n"
	       "                    received on 127.0.0.1:P, sent to 127.0.0.1:PEER\n"
	       "      --cmdline=W   the kernel command line, key=value words (doc/boot.md)\n"
	       "      --stats       print each CPU's tick and signal counts at the end\n"
	       "  -h, --help        print this help and exit\n"
	       "      --version     print the version and exit\n"
	       "\n"
	       "KSIM_PERF_REFUSE=1 acts as if perf_event_open were refused.\n"
	       "\n"
	       "Exit status: 0 the machine ended normally (`poweroff N': N); 1 a -c\n"
	       "command failed; 2 a usage error; 3 the machine could not start.\n"
	       "\n"
	       "Report bugs to: %s\n"
	       "kprof home page: <%s>\n",
	       HAL_MAX_CPUS, PACKAGE_BUGREPORT, PACKAGE_URL);
}

static void version(void)
{
	printf("ksim (%s) %s\n"
	       "Copyright (c) 2026 the kprof authors.\n"
	       "License BSD-2-Clause <https://spdx.org/licenses/BSD-2-Clause.html>.\n"
	       "This is free software: you are free to change and redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n",
	       PACKAGE_NAME, PACKAGE_VERSION);
}

/* One line on stderr for a usage error; the caller exits 2. */
static int usage_error(const char *what)
{
	fprintf(stderr, "ksim: %s; try 'ksim --help'\n", what);
	return KSIM_EXIT_USAGE;
}

/* A decimal number @min-@max; one line naming the range when not. */
static int parse_uint(const char *opt, const char *s, unsigned long min,
		      unsigned long max, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 10);
	if (!*s || *s == '-' || *end || *v < min || *v > max) {
		fprintf(stderr, "ksim: %s must be a number %lu-%lu (got %s)\n", opt,
			min, max, s);
		return -1;
	}
	return 0;
}

/* The numeric options: --cpus, --udp and --hz, each with its range. */
static const struct {
	int opt;
	const char *name;
	unsigned long min, max;
} number_options[] = {
	{ 'n', "--cpus", 1, HAL_MAX_CPUS },
	{ 'u', "--udp", 0, 65535 },
	{ 'z', "--hz", 1, 100000 },
	{ 'P', "--pmu-counters", 1, 8 },
};

static int parse_number_option(int opt, const char *s, struct ksim_config *cfg)
{
	unsigned long v = 0;

	for (size_t i = 0; i < sizeof(number_options) / sizeof(number_options[0]); i++) {
		if (number_options[i].opt != opt)
			continue;
		if (parse_uint(number_options[i].name, s, number_options[i].min,
			       number_options[i].max, &v) != 0)
			return -1;
		break;
	}
	if (opt == 'n')
		cfg->cpus = (unsigned)v;
	else if (opt == 'u')
		cfg->udp_port = (int)v;
	else if (opt == 'P')
		cfg->pmu_counters = (unsigned)v;
	else
		cfg->hz = (unsigned)v;
	return 0;
}

static int parse_source(const char *s, enum ksim_source *src)
{
	if (strcmp(s, "auto") == 0)
		*src = KSIM_SOURCE_AUTO;
	else if (strcmp(s, "pmu") == 0)
		*src = KSIM_SOURCE_PMU;
	else if (strcmp(s, "tick") == 0)
		*src = KSIM_SOURCE_TICK;
	else {
		fprintf(stderr, "ksim: --source must be auto, pmu or tick (got %s)\n", s);
		return -1;
	}
	return 0;
}

/* "PORT:PEERPORT", both 1-65535. */
static int parse_net(const char *s, struct ksim_config *cfg)
{
	unsigned long port, peer;
	char *end;

	port = strtoul(s, &end, 10);
	if (end != s && *end == ':' && port >= 1 && port <= 65535) {
		const char *p = end + 1;

		peer = strtoul(p, &end, 10);
		if (end != p && !*end && peer >= 1 && peer <= 65535 && *s != '-' && *p != '-') {
			cfg->net_port = (int)port;
			cfg->net_peer_port = (int)peer;
			return 0;
		}
	}
	fprintf(stderr, "ksim: --net must be PORT:PEERPORT, each 1-65535 (got %s)\n", s);
	return -1;
}

static void print_stats(void)
{
	for (unsigned i = 0; i < ksim_cpu_count(); i++) {
		struct ksim_cpu_stats st;

		ksim_cpu_stats(i, &st);
		fprintf(stderr,
			"ksim: cpu %u: %llu ticks (%llu idle), %llu overflows, "
			"%llu unclaimed, %llu foreign signals\n", i,
			(unsigned long long)st.ticks, (unsigned long long)st.idle_ticks,
			(unsigned long long)st.overflows,
			(unsigned long long)st.unclaimed,
			(unsigned long long)st.foreign);
	}
}

/* An overflow nobody claimed is the simulator's genuine NMI: say so. */
static void print_unclaimed(void)
{
	unsigned long long total = 0;

	for (unsigned i = 0; i < ksim_cpu_count(); i++) {
		struct ksim_cpu_stats st;

		ksim_cpu_stats(i, &st);
		total += st.unclaimed;
	}
	if (total)
		fprintf(stderr, "ksim: %llu unclaimed overflow signals (NMIs)\n", total);
}

/* getopt_long's own message is two lines and says less: with opterr off
 * (and ':' leading the short options), say in one what was wrong. */
static int bad_option(int opt, char **argv, const struct option *opts)
{
	char what[160];

	if (opt == ':' && optopt == 'c')
		return usage_error("-c needs a command");
	for (const struct option *o = opts; opt == ':' && o->name; o++)
		if (o->val == optopt) {
			snprintf(what, sizeof(what), "--%s needs a value", o->name);
			return usage_error(what);
		}
	if (optopt)
		snprintf(what, sizeof(what), "unknown option -%c", optopt);
	else
		snprintf(what, sizeof(what), "unknown option %.100s", argv[optind - 1]);
	return usage_error(what);
}

/* The key the UDP shells take when none was named: the default key file
 * (made on first use), or none at all with --udp-insecure, which the
 * kernel hears as udpsh.key=none.  0, or -1 having said why. */
static int key_default(struct ksim_config *cfg, bool insecure)
{
	static char path[4096], cmdline[8192];
	uint8_t key[64];
	int made;

	if (insecure) {
		snprintf(cmdline, sizeof(cmdline), "udpsh.key=none%s%s",
			 cfg->cmdline ? " " : "", cfg->cmdline ? cfg->cmdline : "");
		cfg->cmdline = cmdline;
		return 0;
	}
	if (cfg->udp_key_file || (cfg->udp_port < 0 && !cfg->net_port))
		return 0;
	if (keyfile_init_default("ksim", path, sizeof(path), key, &made) < 0)
		return -1;
	memset(key, 0, sizeof(key));
	if (made)
		fprintf(stderr, "ksim: made the UDP shell's key %s (mode 600)\n", path);
	cfg->udp_key_file = path;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'n' },
		{ "udp", required_argument, NULL, 'u' },
		{ "source", required_argument, NULL, 's' },
		{ "hz", required_argument, NULL, 'z' },
		{ "pmu-counters", required_argument, NULL, 'P' },
		{ "stats", no_argument, NULL, 'S' },
		{ "net", required_argument, NULL, 'N' },
		{ "cmdline", required_argument, NULL, 'K' },
		{ "udp-key", required_argument, NULL, 'k' },
		{ "udp-insecure", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *commands[KSIM_MAX_COMMANDS];
	struct ksim_config cfg;
	bool stats = false, insecure = false;
	int opt, status;

	ksim_config_defaults(&cfg);
	cfg.in_fd = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
		case 'u':
		case 'z':
		case 'P':
			if (parse_number_option(opt, optarg, &cfg) != 0)
				return KSIM_EXIT_USAGE;
			break;
		case 's':
			if (parse_source(optarg, &cfg.source) != 0)
				return KSIM_EXIT_USAGE;
			break;
		case 'S':
			stats = true;
			break;
		case 'N':
			if (parse_net(optarg, &cfg) != 0)
				return KSIM_EXIT_USAGE;
			break;
		case 'K':
			cfg.cmdline = optarg;
			break;
		case 'k':
			cfg.udp_key_file = optarg;
			break;
		case 'i':
			insecure = true;
			break;
		case 'c':
			if (cfg.ncommands == KSIM_MAX_COMMANDS) {
				fprintf(stderr, "ksim: at most %d -c commands\n",
					KSIM_MAX_COMMANDS);
				return KSIM_EXIT_USAGE;
			}
			commands[cfg.ncommands++] = optarg;
			break;
		case 'h':
			usage();
			return 0;
		case 'V':
			version();
			return 0;
		default:
			return bad_option(opt, argv, opts);
		}
	}
	if (optind < argc) {
		char what[160];

		snprintf(what, sizeof(what), "unexpected argument %.100s", argv[optind]);
		return usage_error(what);
	}
	if (insecure && cfg.udp_key_file)
		return usage_error("--udp-key and --udp-insecure exclude each other");
	if (key_default(&cfg, insecure) != 0)
		return KSIM_EXIT_START;
	cfg.commands = commands;
	cfg.exit_on_eof = cfg.udp_port < 0;
	if (ksim_start(&cfg) != 0)
		return KSIM_EXIT_START;
	if (cfg.udp_port >= 0) {
		fprintf(stderr, "udp shell on 127.0.0.1:%u%s\n", ksim_udp_port(),
			cfg.udp_key_file ? ", authenticated (HMAC-SHA256)" : "");
		if (!cfg.udp_key_file)
			fprintf(stderr, "UDP shell unauthenticated (--udp-insecure): any host that can forge an allowed address can use it\n");
		else
			fprintf(stderr, "udp shell key %s\n", cfg.udp_key_file);
	}
	status = ksim_wait(0);
	if (stats)
		print_stats();
	print_unclaimed();
	/* The CPU threads are still running: leave without running exit
	 * handlers under them. */
	fflush(stdout);
	fflush(stderr);
	_exit(status);
}
