/* SPDX-License-Identifier: BSD-2-Clause */
/* netload's words: "recv PORT ms" or "send IP PORT ms [size] [rate]"
 * turned into the request net/netload.h runs. */
#ifndef KPROF_SHELL_NETLOAD_ARGS_H
#define KPROF_SHELL_NETLOAD_ARGS_H

struct netload_args;
struct out;

/* Parse @argc words of @argv (argv[0] is the command) into @a, filling
 * the defaults.  Returns 0, or -EINVAL after one line on @err. */
int netload_args_parse(int argc, char **argv, struct netload_args *a,
		       struct out *err);

#endif
