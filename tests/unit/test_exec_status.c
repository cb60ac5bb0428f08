// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_exec_status.c - run --exit-status (core/runner/exec_status.c): which
 * exit code wins, the command's or the verdict's, and what run.json's
 * verdict says about it; and the reason core/sys/perfproc.c gives when the
 * command's software events cannot be counted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "core/runner/exec_stat.h"
#include "core/sys/perfproc.h"

/* A run whose command ran len times with these statuses (-1: it did not
 * end on its own). */
static void setup_run(struct run *r, struct pn_run_opts *o, struct pn_exec_log *l,
		      struct pn_exec_run *runs, const int *status, size_t len)
{
	memset(r, 0, sizeof(*r));
	memset(l, 0, sizeof(*l));
	r->o = o;
	r->exec_log = l;
	l->runs = runs;
	l->n = l->cap = len;
	for (size_t i = 0; i < len; i++) {
		memset(&runs[i], 0, sizeof(runs[i]));
		runs[i].started = true;
		runs[i].exited = status[i] >= 0;
		runs[i].status = status[i] >= 0 ? status[i] : 0;
	}
}

static int judge(struct run *r, int code, cJSON **v)
{
	*v = cJSON_CreateObject();
	return pn_exec_exit_status(r, *v, code);
}

static const char *from(const cJSON *v)
{
	const cJSON *f = cJSON_GetObjectItem(v, "exit_code_from");

	return cJSON_IsString(f) ? f->valuestring : "(none)";
}

static void test_without_option(void **state)
{
	struct pn_run_opts o = { 0 };
	struct pn_exec_run runs[1];
	struct pn_exec_log l;
	struct run r;
	cJSON *v;

	(void)state;
	setup_run(&r, &o, &l, runs, (const int[]){ 7 }, 1);
	assert_int_equal(judge(&r, PN_EXIT_ERROR, &v), PN_EXIT_ERROR);
	assert_null(cJSON_GetObjectItem(v, "exit_code_from"));
	assert_null(cJSON_GetObjectItem(v, "verdict_exit_code"));
	cJSON_Delete(v);
}

static void test_command_status(void **state)
{
	struct pn_run_opts o = { .exit_status = true };
	struct pn_exec_run runs[3];
	struct pn_exec_log l;
	struct run r;
	cJSON *v;

	(void)state;
	/* -r 3: the first status that is not 0 */
	setup_run(&r, &o, &l, runs, (const int[]){ 0, 7, 2 }, 3);
	assert_int_equal(judge(&r, PN_EXIT_ERROR, &v), 7);
	assert_string_equal(from(v), "command");
	assert_int_equal(cJSON_GetObjectItem(v, "verdict_exit_code")->valueint, PN_EXIT_ERROR);
	cJSON_Delete(v);
	/* all 0: 0 even when the verdict failed (a leak stays in run.json) */
	setup_run(&r, &o, &l, runs, (const int[]){ 0, 0 }, 2);
	assert_int_equal(judge(&r, PN_EXIT_VERDICT, &v), 0);
	assert_int_equal(cJSON_GetObjectItem(v, "verdict_exit_code")->valueint, PN_EXIT_VERDICT);
	cJSON_Delete(v);
	/* killed by SIGUSR1: 128 + 10, as the shell reports it */
	setup_run(&r, &o, &l, runs, (const int[]){ 138 }, 1);
	assert_int_equal(judge(&r, PN_EXIT_ERROR, &v), 138);
	cJSON_Delete(v);
	/* a run that did not end on its own: the run failed */
	setup_run(&r, &o, &l, runs, (const int[]){ 0, -1 }, 2);
	assert_int_equal(judge(&r, PN_EXIT_PASS, &v), PN_EXIT_ERROR);
	cJSON_Delete(v);
}

static void test_pnbench_wins(void **state)
{
	struct pn_run_opts o = { .exit_status = true };
	struct pn_exec_run runs[1];
	struct pn_exec_log l;
	struct run r;
	cJSON *v;

	(void)state;
	/* pnbench interrupted: its own 128+N */
	setup_run(&r, &o, &l, runs, (const int[]){ 7 }, 1);
	r.stop_signal = 2;
	assert_int_equal(judge(&r, 130, &v), 130);
	assert_string_equal(from(v), "verdict");
	cJSON_Delete(v);
	/* the run failed on its own (a phase, run.json) */
	setup_run(&r, &o, &l, runs, (const int[]){ 7 }, 1);
	r.run_error = true;
	assert_int_equal(judge(&r, PN_EXIT_ERROR, &v), PN_EXIT_ERROR);
	assert_string_equal(from(v), "verdict");
	cJSON_Delete(v);
	/* the command never ran */
	setup_run(&r, &o, &l, runs, NULL, 0);
	r.exec_log = NULL;
	assert_int_equal(judge(&r, PN_EXIT_ERROR, &v), PN_EXIT_ERROR);
	assert_string_equal(from(v), "verdict");
	cJSON_Delete(v);
}

static void test_perf_why(void **state)
{
	char b[256];

	(void)state;
	assert_non_null(strstr(pn_perf_proc_why(-ENOSYS, b, sizeof(b)), "without libperf"));
	pn_perf_proc_why(-EACCES, b, sizeof(b));
	assert_non_null(strstr(b, "perf_event_open refused (EACCES; kernel.perf_event_paranoid"));
	assert_non_null(strstr(pn_perf_proc_why(-EPERM, b, sizeof(b)), "refused (EPERM"));
	assert_non_null(strstr(pn_perf_proc_why(-ENOENT, b, sizeof(b)), "no software events"));
	assert_non_null(strstr(pn_perf_proc_why(-EMFILE, b, sizeof(b)), strerror(EMFILE)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without_option),
		cmocka_unit_test(test_command_status),
		cmocka_unit_test(test_pnbench_wins),
		cmocka_unit_test(test_perf_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
