// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_verdict.c - the one exit code: how a run ended and what it judged,
 * in the documented order (core/runner/verdict.c); and the verdict built
 * from the state the phases record (struct pn_verdict_state): the checks
 * and their failures, the worst reading of a node and its description.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

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

/* A finished run on no machine: private node 1, threshold 0, no events. */
struct judged {
	struct run r;
	struct pn_config c;
	struct pn_run_opts o;
	char why[PN_MAX_NODES][320];
};

static void judged_init(struct judged *j)
{
	memset(j, 0, sizeof(*j));
	j->r.o = &j->o;
	j->r.c0 = &j->c;
	j->c.max_misplaced_pages = -1;
	j->r.counters_why = j->why;
	j->r.root = cJSON_CreateObject();
	j->r.finished = true;
	j->r.ran_workloads = 1;
	snprintf(j->r.events_why, sizeof(j->r.events_why), "turned off by --no-events");
	pn_nodeset_set(&j->r.roles.private_nodes, 1);
	for (int n = 0; n < PN_MAX_NODES; n++)
		j->r.worst_general[n] = j->r.worst_events[n] = -1;
}

static void judged_free(struct judged *j)
{
	cJSON_Delete(j->r.root);
	pn_verdict_state_free(&j->r.vs);
}

static const cJSON *at(const cJSON *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k)) : cJSON_GetObjectItem(o, k);
	if (!o)
		fail_msg("no %s in the verdict", path);
	return o;
}

static void assert_str_at(const cJSON *o, const char *path, const char *want)
{
	const cJSON *v = at(o, path);

	assert_true(cJSON_IsString(v));
	assert_string_equal(v->valuestring, want);
}

static void test_checks_recorded(void **state)
{
	struct pn_verdict_at a0 = { 0, 0, "fill" }, a1 = { 2, 1, "drain" };
	struct judged j;
	const cJSON *v, *reasons;
	char *text;

	(void)state;
	judged_init(&j);
	pn_nodeset_zero(&j.r.roles.private_nodes);
	assert_int_equal(pn_results_judge(&j.r), PN_EXIT_SKIP); /* nothing judged */
	pn_verdict_record_check(&j.r.vs, &a0, "explicit", "placed", "== 4", "4", true);
	assert_int_equal(pn_results_judge(&j.r), PN_EXIT_PASS); /* a check is a judgement */
	pn_verdict_record_check(&j.r.vs, &a1, "explicit", "freed", "<= 0 pages", "3 pages", false);
	pn_verdict_record_check(&j.r.vs, &a1, "--exec", "command exit status", "exit 0", "signal 9",
				false);
	assert_int_equal(pn_results_judge(&j.r), PN_EXIT_VERDICT);
	v = cJSON_GetObjectItem(j.r.root, "verdict");
	assert_int_equal(at(v, "checks.total")->valueint, 3);
	assert_int_equal(at(v, "checks.passed")->valueint, 1);
	assert_int_equal(at(v, "checks.failed")->valueint, 2);
	assert_int_equal(cJSON_GetArraySize(at(v, "checks.failures")), 2);
	assert_int_equal(at(v, "checks.failures.0.point")->valueint, 2);
	assert_int_equal(at(v, "checks.failures.0.iteration")->valueint, 1);
	assert_str_at(v, "checks.failures.0.phase", "drain");
	assert_str_at(v, "checks.failures.0.workload", "explicit");
	assert_str_at(v, "checks.failures.0.name", "freed");
	assert_str_at(v, "checks.failures.0.expected", "<= 0 pages");
	assert_str_at(v, "checks.failures.0.observed", "3 pages");
	assert_str_at(v, "checks.failures.1.workload", "--exec");
	assert_str_at(v, "checks.failures.1.observed", "signal 9");
	assert_str_at(v, "result", "fail");
	reasons = at(v, "reasons");
	text = cJSON_PrintUnformatted(reasons);
	if (!strstr(text, "2 check(s) failed (verdict.checks.failures)"))
		fail_msg("reasons: %s", text);
	cJSON_free(text);
	judged_free(&j);
}

static void test_worst_recorded(void **state)
{
	struct pn_verdict_at a = { 0, 0, "a" }, b = { 0, 1, "b" }, c = { 1, 0, "c" };
	struct pn_general g5 = { .total = 5, .by_kind = { [PN_KIND_ANON] = 5 } };
	struct pn_general g9 = { .total = 9,
				 .at_peak = true,
				 .by_kind = { [PN_KIND_ANON] = 4, [PN_KIND_FILE] = 5 } };
	struct pn_general g9c = { .total = 9, .by_kind = { [PN_KIND_SLAB] = 9 } };
	struct pn_general neg = { .total = -3 };
	const char *press[] = { "anon", "pagecache" };
	struct judged j;
	const cJSON *v, *w;
	char *text;

	(void)state;
	judged_init(&j);
	pn_verdict_record_reading(&j.r.vs, &a, 1, &neg, NULL, 0);
	assert_false(j.r.vs.worst[1].set); /* no general pages: no worst */
	pn_verdict_record_reading(&j.r.vs, &a, 1, &g5, NULL, 0);
	pn_verdict_record_reading(&j.r.vs, &b, 1, &g9, press, 2);
	pn_verdict_record_reading(&j.r.vs, &c, 1, &g9c, NULL, 0); /* a tie: the first stays */
	pn_verdict_record_reading(&j.r.vs, &c, 1, &g5, NULL, 0);
	pn_verdict_record_reading(&j.r.vs, &c, 0, &g9c, NULL, 0); /* another node */
	j.r.worst_general[1] = 9;
	assert_int_equal(pn_results_judge(&j.r), PN_EXIT_VERDICT);
	v = cJSON_GetObjectItem(j.r.root, "verdict");
	w = at(v, "nodes.1.worst");
	assert_int_equal(at(w, "point")->valueint, 0);
	assert_int_equal(at(w, "iteration")->valueint, 1);
	assert_str_at(w, "phase", "b");
	assert_int_equal(at(w, "general_pages")->valueint, 9);
	assert_str_at(w, "moment", "peak");
	assert_int_equal(at(w, "kinds.anon")->valueint, 4);
	assert_int_equal(at(w, "kinds.file")->valueint, 5);
	assert_null(cJSON_GetObjectItem(at(w, "kinds"), "slab")); /* kinds with pages only */
	assert_int_equal(cJSON_GetArraySize(at(w, "pressure_active")), 2);
	assert_str_at(w, "pressure_active.1", "pagecache");
	text = cJSON_PrintUnformatted(at(v, "reasons"));
	if (!strstr(text, "9 pages by the counters (threshold 0); worst in phase \\\"b\\\" "
			  "(point 0, iteration 1): anon 4 file 5; pressure active: anon pagecache"))
		fail_msg("reasons: %s", text);
	cJSON_free(text);
	assert_true(j.r.vs.worst[0].set);
	judged_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_checks_recorded),
		cmocka_unit_test(test_worst_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
