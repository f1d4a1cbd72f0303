/* ksim: the simulated machine as a program.
 *
 *   ksim [--cpus N] [--udp PORT] [--source auto|pmu|tick] [--hz HZ]
 *        [--stats] [--net PORT:PEERPORT] [--cmdline WORDS] [--udp-key FILE]
 *        [-c CMD]...
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/ksim.h"

#define KSIM_MAX_COMMANDS 64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ksim [--cpus N] [--udp PORT] [--source auto|pmu|tick] [--hz HZ]\n"
		"            [--stats] [--net PORT:PEERPORT] [--cmdline WORDS]\n"
		"            [--udp-key FILE] [-c CMD]...\n"
		"  --cpus N       simulated CPUs, 1-16 (default 4)\n"
		"  --udp PORT     serve the UDP shell on 127.0.0.1:PORT (0: any free port)\n"
		"  --source S     profiler samples: auto (the counter when it counts),\n"
		"                 pmu (the counter or nothing), tick (SIGPROF only)\n"
		"  --hz HZ        tick rate per CPU (default 100)\n"
		"  --stats        print each CPU's signal counters at the end\n"
		"  --net P:PEER   network device: Ethernet frames in UDP datagrams,\n"
		"                 received on 127.0.0.1:P, sent to 127.0.0.1:PEER\n"
		"  --cmdline W    the kernel command line (key=value words)\n"
		"  --udp-key FILE the UDP shells' key, 16-64 bytes in hex: requests must\n"
		"                 be authenticated (tools/kshell -k FILE speaks it)\n"
		"  -c CMD         run CMD in the shell; repeatable; exit after the last\n"
		"Without -c, commands come from stdin; its end exits unless --udp.\n"
		"KSIM_PERF_REFUSE=1 acts as if perf_event_open were refused.\n");
}

static int parse_uint(const char *opt, const char *s, unsigned long max,
		      unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 10);
	if (!*s || *end || *v > max) {
		fprintf(stderr, "ksim: %s must be a number 0-%lu (got %s)\n", opt,
			max, s);
		return -1;
	}
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'n' },
		{ "udp", required_argument, NULL, 'u' },
		{ "source", required_argument, NULL, 's' },
		{ "hz", required_argument, NULL, 'z' },
		{ "stats", no_argument, NULL, 'S' },
		{ "net", required_argument, NULL, 'N' },
		{ "cmdline", required_argument, NULL, 'K' },
		{ "udp-key", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *commands[KSIM_MAX_COMMANDS];
	struct ksim_config cfg;
	bool stats = false;
	unsigned long v;
	int opt, status;

	ksim_config_defaults(&cfg);
	cfg.in_fd = 0;
	while ((opt = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (parse_uint("--cpus", optarg, 16, &v) != 0)
				return 2;
			cfg.cpus = (unsigned)v;
			break;
		case 'u':
			if (parse_uint("--udp", optarg, 65535, &v) != 0)
				return 2;
			cfg.udp_port = (int)v;
			break;
		case 's':
			if (parse_source(optarg, &cfg.source) != 0)
				return 2;
			break;
		case 'z':
			if (parse_uint("--hz", optarg, 100000, &v) != 0)
				return 2;
			cfg.hz = (unsigned)v;
			break;
		case 'S':
			stats = true;
			break;
		case 'N':
			if (parse_net(optarg, &cfg) != 0)
				return 2;
			break;
		case 'K':
			cfg.cmdline = optarg;
			break;
		case 'k':
			cfg.udp_key_file = optarg;
			break;
		case 'c':
			if (cfg.ncommands == KSIM_MAX_COMMANDS) {
				fprintf(stderr, "ksim: at most %d -c commands\n",
					KSIM_MAX_COMMANDS);
				return 2;
			}
			commands[cfg.ncommands++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ksim: unexpected argument %s\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	cfg.commands = commands;
	cfg.exit_on_eof = cfg.udp_port < 0;
	if (ksim_start(&cfg) != 0)
		return 1;
	if (cfg.udp_port >= 0) {
		fprintf(stderr, "udp shell on 127.0.0.1:%u%s\n", ksim_udp_port(),
			cfg.udp_key_file ? ", authenticated (HMAC-SHA256)" : "");
		if (!cfg.udp_key_file)
			fprintf(stderr, "UDP shell unauthenticated: any host that can forge an allowed address can use it\n");
	}
	status = ksim_wait(0);
	if (stats)
		print_stats();
	print_unclaimed();
	/* The CPU threads are still running: leave without running exit
	 * handlers under them. */
	fflush(stderr);
	_exit(status);
}
