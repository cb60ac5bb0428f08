// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cli.c - core/cli/cli.c: the command line's error convention.  A
 * command's error line names the command, the value returned is an exit code
 * of the table (an -errno never leaks into the exit status), and a message
 * may quote pn_last_error() without garbling it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/cli/cli.h"
#include "core/lib/pn.h"

/* Run pn_cli_error with stderr sent to a file; the file's text in out. */
static int error_to(char *out, size_t len, int code, const char *msg, const char *arg)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), rc;
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	rc = pn_cli_error(code, "%s: %s", msg, arg);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return rc;
}

static void test_names_the_command(void **state)
{
	char out[512];

	(void)state;
	pn_cli_set_command("collect");
	assert_string_equal(pn_cli_command(), "collect");
	assert_int_equal(
		error_to(out, sizeof(out), PN_EXIT_ERROR, "node 0", "cannot read its counters"),
		PN_EXIT_ERROR);
	assert_string_equal(out, "pnbench: error: collect: node 0: cannot read its counters\n");
	assert_string_equal(pn_last_error(), "collect: node 0: cannot read its counters");

	/* before main chose a command: no "CMD: " */
	pn_cli_set_command(NULL);
	assert_null(pn_cli_command());
	assert_int_equal(
		error_to(out, sizeof(out), PN_EXIT_USAGE, "--sysroot", "needs a directory"),
		PN_EXIT_USAGE);
	assert_string_equal(out, "pnbench: error: --sysroot: needs a directory\n");
}

static void test_exit_codes(void **state)
{
	char out[512];

	(void)state;
	pn_cli_set_command("run");
	for (int c = PN_EXIT_PASS; c <= PN_EXIT_INCONCLUSIVE; c++)
		assert_int_equal(pn_cli_exit_code(c), c);
	assert_int_equal(pn_cli_exit_code(128 + 2), 130);  /* SIGINT */
	assert_int_equal(pn_cli_exit_code(128 + 64), 192); /* the last real-time signal */
	/* an -errno, an unknown code, 128 alone, beyond the signals: "error" */
	assert_int_equal(pn_cli_exit_code(-EINVAL), PN_EXIT_ERROR);
	assert_int_equal(pn_cli_exit_code(-ENOENT), PN_EXIT_ERROR);
	assert_int_equal(pn_cli_exit_code(6), PN_EXIT_ERROR);
	assert_int_equal(pn_cli_exit_code(128), PN_EXIT_ERROR);
	assert_int_equal(pn_cli_exit_code(256), PN_EXIT_ERROR);
	/* -EINVAL passed by mistake is not exit 234 */
	assert_int_equal(error_to(out, sizeof(out), -EINVAL, "x", "y"), PN_EXIT_ERROR);
	assert_string_equal(out, "pnbench: error: run: x: y\n");
}

/* The message may quote the last error: pn_error writes that buffer. */
static void test_quotes_last_error(void **state)
{
	char out[512];

	(void)state;
	pn_cli_set_command("list");
	pn_log_level = PN_LOG_QUIET;
	pn_error(-ENOENT, "topology: /sys/devices/system/node is missing");
	pn_log_level = PN_LOG_INFO;
	assert_int_equal(error_to(out, sizeof(out), PN_EXIT_ERROR,
				  "this machine's topology cannot be read", pn_last_error()),
			 PN_EXIT_ERROR);
	assert_string_equal(out, "pnbench: error: list: this machine's topology cannot be read: "
				 "topology: /sys/devices/system/node is missing\n");
}

/* Quiet: nothing printed, the exit code and the last error all the same. */
static void test_quiet(void **state)
{
	char out[512];

	(void)state;
	pn_cli_set_command("collect");
	pn_log_level = PN_LOG_QUIET;
	assert_int_equal(error_to(out, sizeof(out), PN_EXIT_USAGE, "--count", "not a count"),
			 PN_EXIT_USAGE);
	pn_log_level = PN_LOG_INFO;
	assert_string_equal(out, "");
	assert_string_equal(pn_last_error(), "collect: --count: not a count");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_the_command),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_quotes_last_error),
		cmocka_unit_test(test_quiet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
