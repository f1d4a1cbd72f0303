/* SPDX-License-Identifier: BSD-2-Clause */
/* The one way a Check suite binary is built and runs: every test forked
 * (Check's default), the exit status telling the automake harness pass or
 * fail.  A suite may declare each test in its test case where it is
 * written (CHECK_TEST) and build itself from what was declared
 * (check_suite), as a boot key is declared next to its owner
 * (src/kernel/cmdline.h): no list of the tests to keep in step. */
#ifndef KPROF_TESTS_CHECK_MAIN_H
#define KPROF_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* A test and the test case it belongs to. */
struct check_test {
	const char *tcase;
	const TTest *test;
};

/* START_TEST for a suite that check_suite() builds: test @name in test
 * case @tcase, its body and END_TEST after it, as START_TEST's.  Only a
 * pointer goes into the section, so no sanitizer pads between entries. */
#define CHECK_TEST(tcase, name)						\
	static void name##_fn(int _i CK_ATTRIBUTE_UNUSED);		\
	static const TTest name##_ttest = {				\
		#name, name##_fn, __FILE__, __LINE__ };			\
	static const struct check_test name##_case = { tcase, &name##_ttest }; \
	static const struct check_test *const name##_entry		\
		__attribute__((used, section("kp_check_tests"),		\
			       aligned(sizeof(void *)))) = &name##_case;	\
	static void name##_fn(int _i CK_ATTRIBUTE_UNUSED)

/* The table's bounds, from the linker; weak: a suite without
 * CHECK_TEST links. */
extern const struct check_test *const __start_kp_check_tests[] __attribute__((weak));
extern const struct check_test *const __stop_kp_check_tests[] __attribute__((weak));

#define CHECK_CASES_MAX 16

/* Suite @name of every CHECK_TEST linked in: a test case for each name
 * in the order the file first uses it, its tests in the file's order,
 * each run after @setup (a checked fixture, in the test's own child;
 * NULL: none) and stopped after @timeout s (0: CK_DEFAULT_TIMEOUT's). */
static inline Suite *check_suite(const char *name, void (*setup)(void),
				 double timeout)
{
	size_t n = __start_kp_check_tests ?
		   (size_t)(__stop_kp_check_tests - __start_kp_check_tests) : 0;
	const struct check_test **t = calloc(n + 1, sizeof(*t));
	const char *names[CHECK_CASES_MAX];
	TCase *cases[CHECK_CASES_MAX];
	size_t ncases = 0;
	Suite *s = suite_create(name);

	if (!t)
		abort();
	/* The linker keeps no order the file had: back to the file's. */
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		for (; j > 0 && t[j - 1]->test->line > __start_kp_check_tests[i]->test->line; j--)
			t[j] = t[j - 1];
		t[j] = __start_kp_check_tests[i];
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = 0;

		while (c < ncases && strcmp(names[c], t[i]->tcase))
			c++;
		if (c == CHECK_CASES_MAX)
			abort();	/* raise CHECK_CASES_MAX */
		if (c == ncases) {
			names[c] = t[i]->tcase;
			cases[c] = tcase_create(t[i]->tcase);
			if (setup)
				tcase_add_checked_fixture(cases[c], setup, NULL);
			if (timeout > 0)
				tcase_set_timeout(cases[c], timeout);
			suite_add_tcase(s, cases[c]);
			ncases++;
		}
		tcase_add_test(cases[c], t[i]->test);
	}
	free(t);
	return s;
}

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
