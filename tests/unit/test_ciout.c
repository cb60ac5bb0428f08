// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ciout.c - the CI outputs (core/runner/out_*.c): each format's
 * escaping (quotes, <, &, newlines, controls, bytes that are not UTF-8),
 * OpenMetrics numbers, and the test cases a results tree gives -- checks,
 * skipped and failed workloads, the --exec status, each private node
 * (failed, inconclusive, not judged, pass only once the run is complete)
 * and the run's verdict -- as JUnit, TAP and OpenMetrics show them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "core/runner/out_ci.h"

#define FFFD "\xef\xbf\xbd"

/* What one escaping function writes for s. */
static char *esc(void (*fn)(FILE *, const char *), const char *s)
{
	static char *buf;
	size_t len = 0;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	fn(f, s);
	fclose(f);
	return buf;
}

static char *num(double v)
{
	static char *buf;
	size_t len = 0;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	pn_out_om_value(f, v);
	fclose(f);
	return buf;
}

static void test_xml(void **state)
{
	(void)state;
	assert_string_equal(esc(pn_out_xml, "a<b>&\"c\"'d'"),
			    "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
	/* kept in attributes: tab, LF, CR as character references */
	assert_string_equal(esc(pn_out_xml, "l1\nl2\tx\r"), "l1&#10;l2&#9;x&#13;");
	/* XML 1.0 has no other C0 control, nor U+FFFE / U+FFFF */
	assert_string_equal(esc(pn_out_xml, "a\x01"
					    "b\x1b"),
			    "a" FFFD "b" FFFD);
	assert_string_equal(esc(pn_out_xml, "\xef\xbf\xbe"), FFFD);
	/* well-formed UTF-8 passes through */
	assert_string_equal(esc(pn_out_xml, "µs \xe2\x82\xac \xf0\x9f\x98\x80"),
			    "µs \xe2\x82\xac \xf0\x9f\x98\x80");
	/* not UTF-8: a stray byte, a truncated sequence, an overlong form, a
	 * surrogate -- each byte that is not part of a sequence becomes U+FFFD */
	assert_string_equal(esc(pn_out_xml, "x\xffy"), "x" FFFD "y");
	assert_string_equal(esc(pn_out_xml, "\xe2\x82"), FFFD FFFD);
	assert_string_equal(esc(pn_out_xml, "\xc0\xaf"), FFFD FFFD);
	assert_string_equal(esc(pn_out_xml, "\xed\xa0\x80"), FFFD FFFD FFFD);
	assert_string_equal(esc(pn_out_xml, NULL), "");
}

static void test_om_label(void **state)
{
	(void)state;
	assert_string_equal(esc(pn_out_om_label, "a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
	assert_string_equal(esc(pn_out_om_label, "<&>\t'"), "<&>\t'");
	assert_string_equal(esc(pn_out_om_label, "cr\r\x01"), "cr" FFFD FFFD);
	assert_string_equal(esc(pn_out_om_label, "k\xfe"), "k" FFFD);
	assert_string_equal(esc(pn_out_om_label, "6.12.0-pn+"), "6.12.0-pn+");
}

static void test_tap_yaml(void **state)
{
	(void)state;
	/* one line; # would start a directive */
	assert_string_equal(esc(pn_out_tap_desc, "a # SKIP b\nc\\d"), "a \\# SKIP b c\\\\d");
	assert_string_equal(esc(pn_out_tap_desc, "\xff"), FFFD);
	assert_string_equal(esc(pn_out_yaml, "say \"hi\"\\\n\t\x02"),
			    "say \\\"hi\\\"\\\\\\n\\t\\x02");
	assert_string_equal(esc(pn_out_yaml, "\x80ok"), FFFD "ok");
}

static void test_om_value(void **state)
{
	(void)state;
	assert_string_equal(num(0), "0");
	assert_string_equal(num(4096), "4096");
	assert_string_equal(num(-3), "-3");
	assert_string_equal(num(0.5), "0.5");
	assert_string_equal(num(1.9479154997042341e9), "1947915499.7042341");
	assert_string_equal(num(1e300), "1.0000000000000001e+300");
	assert_string_equal(num(0.0 / 0.0), "NaN");
	assert_string_equal(num(1.0 / 0.0), "+Inf");
	assert_string_equal(num(-1.0 / 0.0), "-Inf");
}

/* A results tree with one of everything the cases distinguish. */
static const char tree[] =
	"{\"status\": {\"state\": \"complete\", \"reason\": null},"
	" \"started_at\": \"2026-12-05T07:14:40Z\","
	" \"config\": {\"name\": \"c\\\"fg\\n\"}, \"host\": {\"hostname\": \"h\"},"
	" \"kernel\": {\"release\": \"6.12.0-pn\"}, \"roles\": {\"private\": \"1-3,5\"},"
	" \"points\": [{\"index\": 0, \"matrix\": null, \"iterations\": [{\"index\": 0,"
	"  \"phases\": [{\"name\": \"p\", \"duration_ns\": 1500000000, \"workloads\": ["
	"   {\"workload\": \"explicit\", \"status\": \"ok\", \"checks\": ["
	"     {\"name\": \"every page\", \"expected\": \"== 4 pages\", \"observed\": \"4 pages\","
	"      \"pass\": true},"
	"     {\"name\": \"off <nodes> & co\", \"expected\": \"== 0\", \"observed\": "
	"\"\\\"3\\\"\\nx\","
	"      \"pass\": false}]},"
	"   {\"workload\": \"pressure\", \"status\": \"skipped\", \"reason\": \"needs root # x\"},"
	"   {\"workload\": \"latency\", \"status\": \"failed\", \"reason\": \"not started\"}],"
	"   \"exec\": {\"exit_code\": null, \"signal\": 9}}]}],"
	"  \"summary\": {\"metrics\": [{\"phase\": \"p\", \"workload_index\": 0,"
	"   \"workload\": \"explicit\", \"name\": \"bw\", \"labels\": {\"z\": \"1\", \"a\": 2},"
	"   \"unit\": \"bytes/s\", \"aggregate\": \"median\", \"value\": 2.5}]}}],"
	" \"verdict\": {\"thresholds\": {\"general_pages\": 0}, \"result\": \"fail\","
	"  \"exit_code\": 1, \"misplaced_pages\": 0,"
	"  \"checks\": {\"total\": 3, \"passed\": 1, \"failed\": 2},"
	"  \"reasons\": [\"general allocations on private node 2: 7 pages by the counters\","
	"               \"2 check(s) failed\"],"
	"  \"nodes\": {\"1\": {\"pass\": true, \"inconclusive\": false, \"general_pages_max\": 0},"
	"   \"2\": {\"pass\": false, \"inconclusive\": false, \"general_pages_max\": 7,"
	"         \"worst\": {\"kinds\": {\"slab\": 7}}},"
	"   \"3\": {\"pass\": true, \"inconclusive\": true, \"general_pages_max\": 0,"
	"         \"inconclusive_reason\": \"node 3: lost events\"}}}}";

static cJSON *load(const char *state)
{
	cJSON *root = cJSON_Parse(tree);

	assert_non_null(root);
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(root, "status"), "state",
				  cJSON_CreateString(state));
	return root;
}

static void test_cases(void **state)
{
	cJSON *root = load("complete");
	struct pn_out_cases cs;

	(void)state;
	pn_out_cases_build(root, &cs);
	/* 2 checks + 2 workloads without checks + exec + 4 nodes + verdict */
	assert_int_equal(cs.n, 10);
	assert_int_equal(cs.v[0].state, PN_CASE_PASS);
	assert_string_equal(cs.v[0].name, "p/0:explicit: every page");
	assert_int_equal(cs.v[1].state, PN_CASE_FAIL);
	assert_string_equal(cs.v[1].message, "expected == 0, observed \"3\"\nx");
	assert_int_equal(cs.v[2].state, PN_CASE_SKIP);
	assert_string_equal(cs.v[2].message, "needs root # x");
	assert_int_equal(cs.v[3].state, PN_CASE_ERROR);
	assert_int_equal(cs.v[4].state, PN_CASE_FAIL);
	assert_string_equal(cs.v[4].message, "expected exit 0, observed signal 9");
	assert_int_equal(cs.v[5].state, PN_CASE_PASS); /* node 1 */
	assert_int_equal(cs.v[6].state, PN_CASE_FAIL); /* node 2 */
	assert_string_equal(cs.v[6].message,
			    "general allocations on private node 2: 7 pages by the counters");
	assert_int_equal(cs.v[7].state, PN_CASE_INCONCLUSIVE); /* node 3 */
	assert_int_equal(cs.v[8].state, PN_CASE_SKIP);	       /* node 5: no reading */
	assert_int_equal(cs.v[9].state, PN_CASE_FAIL);	       /* the verdict */
	assert_int_equal(cs.passed + cs.failed + cs.errors + cs.skipped + cs.inconclusive, 10);
	pn_out_cases_free(&cs);
	cJSON_Delete(root);

	/* incomplete: node 1's "pass so far" is not a pass, the verdict an error */
	root = load("incomplete");
	pn_out_cases_build(root, &cs);
	assert_int_equal(cs.v[5].state, PN_CASE_INCONCLUSIVE);
	assert_non_null(strstr(cs.v[5].message, "the run is incomplete"));
	assert_int_equal(cs.v[6].state, PN_CASE_FAIL);
	assert_int_equal(cs.v[9].state, PN_CASE_ERROR);
	assert_int_equal(cs.passed, 1); /* the check that passed */
	pn_out_cases_free(&cs);
	cJSON_Delete(root);
}

static void test_junit(void **state)
{
	cJSON *root = load("complete");
	char *x = pn_out_junit(root);

	(void)state;
	assert_non_null(strstr(x, "<testsuites name=\"pnbench c&quot;fg&#10;\" tests=\"10\" "
				  "failures=\"4\" errors=\"1\">"));
	assert_non_null(strstr(x, "timestamp=\"2026-12-05T07:14:40\" tests=\"5\" failures=\"2\" "
				  "errors=\"1\" skipped=\"1\" time=\"1.500\""));
	assert_non_null(strstr(x, "name=\"p/0:explicit: off &lt;nodes&gt; &amp; co\""));
	assert_non_null(strstr(x, "<failure type=\"check\" message=\"expected == 0, observed "
				  "&quot;3&quot;&#10;x\">expected: == 0&#10;observed: "
				  "&quot;3&quot;&#10;x</failure>"));
	assert_non_null(strstr(x, "<skipped message=\"needs root # x\"/>"));
	assert_non_null(strstr(x, "<skipped message=\"inconclusive: node 3: lost events\"/>"));
	assert_non_null(strstr(x, "<error type=\"workload\" message=\"not started\">"));
	free(x);
	cJSON_Delete(root);
}

static void test_tap(void **state)
{
	cJSON *root = load("complete");
	char *t = pn_out_tap(root);

	(void)state;
	assert_true(!strncmp(t, "TAP version 13\n1..10\n", 21));
	assert_non_null(strstr(t, "\nok 1 - point 0 iteration 0: p/0:explicit: every page\n"));
	assert_non_null(strstr(t, "\nnot ok 2 - point 0 iteration 0: p/0:explicit: off <nodes> "
				  "& co\n  ---\n  verdict: fail\n  kind: check\n  message: "
				  "\"expected == 0, observed \\\"3\\\"\\nx\"\n"));
	assert_non_null(strstr(t, "\nok 3 - point 0 iteration 0: p/1:pressure: skipped "
				  "# SKIP needs root \\# x\n"));
	assert_non_null(strstr(t, "\nnot ok 8 - private node 3: general allocations "
				  "(inconclusive)\n"));
	assert_non_null(strstr(t, "\nnot ok 10 - verdict: fail\n"));
	free(t);
	cJSON_Delete(root);
}

static void test_openmetrics(void **state)
{
	cJSON *root = load("complete");
	char *m = pn_out_openmetrics(root);
	size_t len = strlen(m);

	(void)state;
	assert_true(len > 6 && !strcmp(m + len - 6, "# EOF\n"));
	assert_non_null(strstr(m, "\npnbench_verdict{config=\"c\\\"fg\\n\",node=\"1\","
				  "kernel=\"6.12.0-pn\"} 0\n"));
	assert_non_null(strstr(m, "node=\"2\",kernel=\"6.12.0-pn\"} 1\n"));
	assert_non_null(strstr(m, "node=\"3\",kernel=\"6.12.0-pn\"} 2\n"));
	assert_non_null(strstr(m, "node=\"5\",kernel=\"6.12.0-pn\"} 3\n"));
	assert_non_null(strstr(m, "node=\"2\",kind=\"slab\"} 7\n"));
	assert_null(strstr(m, "node=\"5\",kind=")); /* not judged: no figure */
	assert_non_null(strstr(m, "workload=\"explicit\",metric=\"bw\",labels=\"a=2,z=1\","
				  "unit=\"bytes/s\",better=\"\",aggregate=\"median\"} 2.5\n"));
	assert_non_null(strstr(m, "\npnbench_run_started_seconds{config=\"c\\\"fg\\n\"} "
				  "1796454880\n"));
	assert_non_null(strstr(m, "\npnbench_exit_code{config=\"c\\\"fg\\n\"} 1\n"));
	free(m);
	cJSON_Delete(root);

	root = load("incomplete");
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(root, "verdict"), "exit_code",
				  cJSON_CreateNull());
	m = pn_out_openmetrics(root);
	assert_non_null(strstr(m, "\npnbench_run_complete{config=\"c\\\"fg\\n\"} 0\n"));
	assert_null(strstr(m, "pnbench_exit_code{"));
	assert_non_null(strstr(m, "node=\"1\",kernel=\"6.12.0-pn\"} 2\n"));
	free(m);
	cJSON_Delete(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml),	 cmocka_unit_test(test_om_label),
		cmocka_unit_test(test_tap_yaml), cmocka_unit_test(test_om_value),
		cmocka_unit_test(test_cases),	 cmocka_unit_test(test_junit),
		cmocka_unit_test(test_tap),	 cmocka_unit_test(test_openmetrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
