/* SPDX-License-Identifier: BSD-2-Clause */
/* The one way a Check suite binary runs: every test forked (Check's
 * default), the exit status telling the automake harness pass or fail. */
#ifndef KPROF_TESTS_CHECK_MAIN_H
#define KPROF_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int check_run_mode(Suite *s, enum fork_status fork)
{
	SRunner *sr = srunner_create(s);
	int failed;

	if (fork != CK_FORK_GETENV)
		srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

static inline int check_run(Suite *s)
{
	return check_run_mode(s, CK_FORK_GETENV);
}

/* For suites whose every test starts a simulated machine (threads,
 * timers, counters): each must run in a child of its own, whatever
 * CK_FORK says. */
static inline int check_run_forked(Suite *s)
{
	return check_run_mode(s, CK_FORK);
}

#endif
