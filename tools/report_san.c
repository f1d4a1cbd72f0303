/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-report runs once, on one set of files, and leaves what it
 * allocated to exit: under --enable-sanitizers (KP_SAN_FOR_BUILD) that is
 * not a leak worth a failing test, so LeakSanitizer's report at exit is
 * off for it alone.  AddressSanitizer and UBSan still stop it on the
 * first overflow, use after free or undefined behaviour.  kprof-collect,
 * which runs for days, keeps the leak check.  Without the sanitizers
 * nothing calls this. */

const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
