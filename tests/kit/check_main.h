/* SPDX-License-Identifier: BSD-2-Clause */
/* The one way a Check suite binary is built and runs: every test forked
 * (Check's default), the exit status telling the automake harness pass or
 * fail.  Each test is declared in its test case where it is written
 * (CHECK_TEST, CHECK_LOOP_TEST), a case that needs its own fixture or
 * timeout says so once (CHECK_CASE), and the suite builds itself from
 * what was declared (check_suite), as a boot key is declared next to its
 * owner (src/kernel/cmdline.h): no list of the tests to keep in step. */
#ifndef KPROF_TESTS_CHECK_MAIN_H
#define KPROF_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A test, the test case it belongs to and the iterations it runs: _i
 * from @start to @end - 1 (one, 0, for a plain test). */
struct check_test {
	const char *tcase;
	const TTest *test;
	int start, end;
};

/* A test case's own fixture (run in the test's child) and timeout, in
 * place of the suite's. */
struct check_case {
	const char *name;
	void (*setup)(void);
	void (*teardown)(void);
	double timeout;
};

#define CHECK_CAT2(a, b) a##b
#define CHECK_CAT(a, b) CHECK_CAT2(a, b)

/* Only a pointer goes into a section, so no sanitizer pads between
 * entries. */
#define CHECK_SECTION(sect)						\
	__attribute__((used, section(sect), aligned(sizeof(void *))))

/* START_TEST for a suite that check_suite() builds: test @name in test
 * case @tcase run for _i = @start .. @end - 1, its body and END_TEST
 * after it, as START_TEST's.  @start and @end are constants. */
#define CHECK_LOOP_TEST(tcase, name, start, end)			\
	static void name##_fn(int _i CK_ATTRIBUTE_UNUSED);		\
	static const TTest name##_ttest = {				\
		#name, name##_fn, __FILE__, __LINE__ };			\
	static const struct check_test name##_case = {			\
		tcase, &name##_ttest, start, end };			\
	static const struct check_test *const name##_entry		\
		CHECK_SECTION("kp_check_tests") = &name##_case;		\
	static void name##_fn(int _i CK_ATTRIBUTE_UNUSED)

/* A test run once. */
#define CHECK_TEST(tcase, name) CHECK_LOOP_TEST(tcase, name, 0, 1)

/* Test case @tcase's fixture (@setup, @teardown: NULL for none) and its
 * timeout in seconds (0: CK_DEFAULT_TIMEOUT's), whatever the suite's. */
#define CHECK_CASE(tcase, setup, teardown, timeout)			\
	static const struct check_case CHECK_CAT(check_case_, __LINE__) = { \
		tcase, setup, teardown, timeout };			\
	static const struct check_case *const				\
		CHECK_CAT(check_case_entry_, __LINE__)			\
		CHECK_SECTION("kp_check_cases") =			\
		&CHECK_CAT(check_case_, __LINE__)

/* The tables' bounds, from the linker; weak: a suite without
 * CHECK_TEST or CHECK_CASE links. */
extern const struct check_test *const __start_kp_check_tests[] __attribute__((weak));
extern const struct check_test *const __stop_kp_check_tests[] __attribute__((weak));
extern const struct check_case *const __start_kp_check_cases[] __attribute__((weak));
extern const struct check_case *const __stop_kp_check_cases[] __attribute__((weak));

#define CHECK_CASES_MAX 16

/* Whether test @a stands before test @b in the sources. */
static inline int check_test_before(const struct check_test *a,
				    const struct check_test *b)
{
	int files = strcmp(a->test->file, b->test->file);

	return files ? files < 0 : a->test->line < b->test->line;
}

/* The CHECK_CASE of test case @name, or @dflt if it has none. */
static inline const struct check_case *
check_case_of(const char *name, const struct check_case *dflt)
{
	size_t n = __start_kp_check_cases ?
		   (size_t)(__stop_kp_check_cases - __start_kp_check_cases) : 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(__start_kp_check_cases[i]->name, name))
			return __start_kp_check_cases[i];
	return dflt;
}

/* A CHECK_CASE whose name no test uses (a typo) would leave its tests
 * without their fixture: the suite refuses to run. */
static inline void check_cases_all_used(const char *const *names, size_t ncases,
					const char *left_out)
{
	size_t n = __start_kp_check_cases ?
		   (size_t)(__stop_kp_check_cases - __start_kp_check_cases) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = __start_kp_check_cases[i]->name;
		size_t c = 0;

		while (c < ncases && strcmp(names[c], name))
			c++;
		if (c == ncases && !(left_out && !strcmp(name, left_out))) {
			fprintf(stderr, "CHECK_CASE(\"%s\"): no test in that case\n", name);
			abort();
		}
	}
}

static inline TCase *check_tcase_create(const char *name,
					const struct check_case *dflt)
{
	const struct check_case *c = check_case_of(name, dflt);
	TCase *tc = tcase_create(name);

	if (c->setup || c->teardown)
		tcase_add_checked_fixture(tc, c->setup, c->teardown);
	if (c->timeout > 0)
		tcase_set_timeout(tc, c->timeout);
	return tc;
}

/* Suite @name of every CHECK_TEST linked in but those of test case
 * @left_out (NULL: none): a test case for each name in the order the
 * sources first use it, its tests in the sources' order, each run after
 * its CHECK_CASE's fixture, or else @setup (a checked fixture, in the
 * test's own child; NULL: none), and stopped after its CHECK_CASE's
 * timeout, or else @timeout s (0: CK_DEFAULT_TIMEOUT's). */
static inline Suite *check_suite_without(const char *name, void (*setup)(void),
					 double timeout, const char *left_out)
{
	const struct check_case dflt = { name, setup, NULL, timeout };
	size_t n = __start_kp_check_tests ?
		   (size_t)(__stop_kp_check_tests - __start_kp_check_tests) : 0;
	const struct check_test **t = calloc(n + 1, sizeof(*t));
	const char *names[CHECK_CASES_MAX];
	TCase *cases[CHECK_CASES_MAX];
	size_t ncases = 0;
	Suite *s = suite_create(name);

	if (!t)
		abort();
	/* The linker keeps no order the sources had: back to theirs. */
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		for (; j > 0 && check_test_before(__start_kp_check_tests[i], t[j - 1]); j--)
			t[j] = t[j - 1];
		t[j] = __start_kp_check_tests[i];
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = 0;

		if (left_out && !strcmp(t[i]->tcase, left_out))
			continue;
		while (c < ncases && strcmp(names[c], t[i]->tcase))
			c++;
		if (c == CHECK_CASES_MAX)
			abort();	/* raise CHECK_CASES_MAX */
		if (c == ncases) {
			names[c] = t[i]->tcase;
			cases[c] = check_tcase_create(t[i]->tcase, &dflt);
			suite_add_tcase(s, cases[c]);
			ncases++;
		}
		tcase_add_loop_test(cases[c], t[i]->test, t[i]->start, t[i]->end);
	}
	free(t);
	check_cases_all_used(names, ncases, left_out);
	return s;
}

static inline Suite *check_suite(const char *name, void (*setup)(void),
				 double timeout)
{
	return check_suite_without(name, setup, timeout, NULL);
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
