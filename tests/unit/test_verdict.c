// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_verdict.c - the one exit code: how a run ended and what it judged,
 * in the documented order (core/runner/verdict.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/runner/run_int.h"

static int code_of(struct pn_verdict_in in, const char *want_result)
{
	const char *result = NULL;
	int code = pn_verdict_code(&in, &result);

	assert_non_null(result);
	if (strcmp(result, want_result) != 0)
		fail_msg("result %s, expected %s", result, want_result);
	return code;
}

static void test_order(void **state)
{
	(void)state;
	/* the user's signal: interrupted, whatever else happened */
	assert_int_equal(
		code_of((struct pn_verdict_in){ .signal = 2, .leak = true, .checks_failed = true },
			"interrupted"),
		130);
	assert_int_equal(
		code_of((struct pn_verdict_in){ .signal = 15, .judged = true }, "interrupted"),
		143);
	/* a leak found wins over a failed run and over "nothing ran" */
	assert_int_equal(
		code_of((struct pn_verdict_in){ .leak = true, .run_failed = true }, "fail"),
		PN_EXIT_VERDICT);
	assert_int_equal(
		code_of((struct pn_verdict_in){ .leak = true, .nothing_ran = true, .judged = true },
			"fail"),
		PN_EXIT_VERDICT);
	/* a failed run wins over failed checks and inconclusive sources */
	assert_int_equal(code_of((struct pn_verdict_in){ .run_failed = true,
							 .checks_failed = true,
							 .inconclusive = true },
				 "error"),
			 PN_EXIT_ERROR);
	assert_int_equal(code_of((struct pn_verdict_in){ .checks_failed = true,
							 .inconclusive = true,
							 .judged = true },
				 "fail"),
			 PN_EXIT_VERDICT);
	/* a failed source is never a pass */
	assert_int_equal(code_of((struct pn_verdict_in){ .inconclusive = true, .judged = true },
				 "inconclusive"),
			 PN_EXIT_INCONCLUSIVE);
	assert_int_equal(
		code_of((struct pn_verdict_in){ .inconclusive = true, .nothing_ran = true },
			"inconclusive"),
		PN_EXIT_INCONCLUSIVE);
	assert_int_equal(code_of((struct pn_verdict_in){ .nothing_ran = true, .judged = true },
				 "not_applicable"),
			 PN_EXIT_SKIP);
	assert_int_equal(code_of((struct pn_verdict_in){ 0 }, "not_applicable"), PN_EXIT_SKIP);
	assert_int_equal(code_of((struct pn_verdict_in){ .judged = true }, "pass"), PN_EXIT_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
