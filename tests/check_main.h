/* The one way a Check suite binary runs: every test forked (Check's
 * default), the exit status telling the automake harness pass or fail. */
#ifndef KPROF_TESTS_CHECK_MAIN_H
#define KPROF_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
