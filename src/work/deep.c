/* SPDX-License-Identifier: BSD-2-Clause */
/* `deep`: one task spinning at the bottom of a call chain of a known
 * number of frames (`work start deep 40`), so that a profile's depth=
 * can be seen to cut it where it says. */
#include "work/work.h"

#define DEEP_DEFAULT_FRAMES 40
#define DEEP_MAX_FRAMES 64
#define DEEP_SPIN_ITERS 200000

static unsigned deep_frames = DEEP_DEFAULT_FRAMES;

__attribute__((noinline)) void deep_leaf(void)
{
	for (volatile unsigned i = 0; i < DEEP_SPIN_ITERS; i++)
		;
}

/* @n frames of itself above the leaf.  The addition after the call keeps
 * it from being a tail call, so every level keeps its frame. */
__attribute__((noinline)) unsigned deep_down(unsigned n)
{
	if (n <= 1) {
		deep_leaf();
		return 1;
	}
	return deep_down(n - 1) + 1;
}

static void deep_run(void)
{
	/* The leaf and deep_frames - 1 levels of deep_down(). */
	while (!work_should_stop())
		deep_down(deep_frames - 1);
}

static void deep_set_frames(unsigned frames)
{
	deep_frames = frames;
}

const struct workload work_deep = {
	.name = "deep",
	.summary = "one task spinning in deep_leaf at the bottom of a chain of FRAMES (default 40)",
	.run = deep_run,
	.param = "frames",
	.param_min = 2,
	.param_max = DEEP_MAX_FRAMES,
	.param_default = DEEP_DEFAULT_FRAMES,
	.set_param = deep_set_frames,
};
