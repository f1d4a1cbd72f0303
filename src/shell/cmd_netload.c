/* SPDX-License-Identifier: BSD-2-Clause */
/* netload: UDP load in iperf 2's format (net/netload.h). */
#include "lib/out.h"
#include "net/net.h"
#include "net/netload.h"
#include "shell/commands.h"
#include "shell/netload_args.h"
#include "shell/shell.h"

int cmd_netload(struct shell_ctx *sh, int argc, char **argv)
{
	struct netload_args a;

	if (netload_args_parse(argc, argv, &a, sh->out) < 0)
		return SHELL_CMD_FAILED;
	/* A forged source could aim the load at a victim. */
	if (a.send && shell_refuse_unauthenticated(sh, "netload send"))
		return SHELL_CMD_FAILED;
	if (!net_is_up()) {
		/* Say how to get one: a user who asked for load has none. */
		out_puts(sh->out, "netload: the network is down (no device): give ksim one with "
			 "--net PORT:PEERPORT, or boot the kernel with a virtio-net device "
			 "(make run, kprof-qemu)\n");
		return SHELL_CMD_FAILED;
	}
	if ((a.send ? netload_send(sh->out, &a) : netload_recv(sh->out, &a)) < 0)
		return SHELL_CMD_FAILED;
	return 0;
}
