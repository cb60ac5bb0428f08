// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_latency.c - the latency workload on this host, in-process, through
 * its own option table: the matrix, bandwidth and loaded-latency tables are
 * filled with positive, sensibly ordered figures (a buffer of 4x the LLC is
 * slower than the 16 KiB L1 reference measured in the same run; figures are
 * printed, never compared with absolute times), every buffer is on its node
 * and in the census; the loaded curve's zero-load point is the idle
 * measurement itself, and its injection delays throttle the load (bandwidth
 * falls as the delay grows); bad options are config errors.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"
#include "workloads/lib/latload.h"
#include "wltest.h"

extern const struct pn_workload pn_workload_latency;

static const struct pn_workload *W = &pn_workload_latency;
static struct pn_topology topo;

static void ctx_init(struct wlt *c, const char *json)
{
	wlt_init(c, W, json, "0", NULL, &topo);
	c->w.max_mem_share = 0.5;
}

/* Cell `col` of row `row` as a number (NAN for null). */
static double cell(const cJSON *t, int row, const char *col)
{
	const cJSON *c, *r = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "rows"), row);
	int i = 0;

	cJSON_ArrayForEach (c, cJSON_GetObjectItem(t, "columns")) {
		if (!strcmp(cJSON_GetObjectItem(c, "name")->valuestring, col)) {
			const cJSON *v = cJSON_GetArrayItem(r, i);

			return cJSON_IsNumber(v) ? v->valuedouble : NAN;
		}
		i++;
	}
	fail_msg("column %s missing", col);
	return NAN;
}

static int nrows(const cJSON *t)
{
	return cJSON_GetArraySize(cJSON_GetObjectItem(t, "rows"));
}

/*
 * The loaded curve of a 2-delay run ("0,100000"): the zero-load row is the
 * idle cell (one condition, one figure: they once disagreed, 203 vs 283 ns);
 * then 1, 2, 4, ... load threads at delay 0; then every load thread at
 * delay 100000, whose bandwidth is far below the full-load one (a ratio, no
 * absolute time).
 */
static void check_loaded(const cJSON *ld, const cJSON *m)
{
	int n = nrows(ld), cpus = 0, last;

	for (int i = 0; i < n; i++)
		printf("loaded: %g threads, delay %g: %.3f GB/s, median %.1f ns\n",
		       cell(ld, i, "load_threads"), cell(ld, i, "delay"), cell(ld, i, "load_gbps"),
		       cell(ld, i, "latency_median"));
	assert_true(n >= 1);
	assert_true(cell(ld, 0, "load_threads") == 0 && cell(ld, 0, "delay") == 0);
	assert_true(cell(ld, 0, "latency_median") == cell(m, 0, "latency_median"));
	assert_true(cell(ld, 0, "latency_min") == cell(m, 0, "latency_min"));
	for (int i = 1; i < n; i++)
		if (cell(ld, i, "delay") == 0)
			cpus = (int)cell(ld, i, "load_threads");
	if (n == 1) /* one usable CPU: no load threads, only the zero-load point */
		return;
	last = n - 1;
	assert_true(cpus >= 1 && cell(ld, last, "delay") == 100000);
	assert_true(cell(ld, last, "load_threads") == cpus);
	for (int i = 1; i < n; i++)
		assert_true(cell(ld, i, "load_gbps") > 0 && cell(ld, i, "latency_median") > 0);
	assert_true(cell(ld, last - 1, "load_gbps") > 10 * cell(ld, last, "load_gbps"));
}

static void test_matrix_on_this_host(void **state)
{
	struct wlt c;
	const cJSON *m, *bw, *chk;
	double med, l1;

	(void)state;
	ctx_init(&c, "{\"targets\": \"0\", \"initiators\": \"0\", \"samples\": 6, "
		     "\"sample_ms\": \"10ms\", \"bw_ms\": \"50ms\", \"bw_kernels\": "
		     "\"read,write_nt,triad\", \"theoretical_gbps\": \"0=100\", "
		     "\"delays\": \"0,100000\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_true(c.w.mem_bytes >= 4 * 64ULL << 20);
	assert_int_equal(W->run(&c.w), 0);
	m = wlt_table(&c.w.res, "latency_matrix");
	assert_int_equal(nrows(m), 1);
	med = cell(m, 0, "latency_median");
	l1 = cell(m, 0, "l1_reference");
	printf("latency 0->0: min %.1f / median %.1f / p99 %.1f ns; L1 reference %.2f ns; "
	       "ratio %.0f\n",
	       cell(m, 0, "latency_min"), med, cell(m, 0, "latency_p99"), l1, med / l1);
	assert_true(l1 > 0 && cell(m, 0, "latency_min") > 0);
	assert_true(cell(m, 0, "latency_min") <= med && med <= cell(m, 0, "latency_p99"));
	assert_true(cell(m, 0, "latency_min") <= cell(m, 0, "latency_mean"));
	assert_true(med > 2 * l1);
	assert_true(cell(m, 0, "ratio_to_local") == 1.0);
	bw = wlt_table(&c.w.res, "bandwidth");
	assert_true(nrows(bw) >= 3);
	for (int i = 0; i < nrows(bw); i++) {
		assert_true(cell(bw, i, "gbps") > 0);
		assert_true(fabs(cell(bw, i, "share") - cell(bw, i, "gbps")) < 1e-9); /* of 100 */
	}
	check_loaded(wlt_table(&c.w.res, "loaded_latency"), m);
	/* census: 4 buffers (chase + 3 arrays), every page on node 0 */
	assert_true(c.w.res.verified);
	assert_true(c.w.res.explicit_pages > 0);
	assert_int_equal(c.w.res.placed_pages[0], c.w.res.explicit_pages);
	assert_int_equal(c.w.res.misplaced_pages, 0);
	cJSON_ArrayForEach (chk, cJSON_GetObjectItem(c.w.res.root, "checks"))
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(chk, "pass")));
	wlt_fini(&c, false);
}

static void test_bad_options(void **state)
{
	static const char *const bad[] = {
		"{\"stride\": 192}",
		"{\"bw_kernels\": \"read,stream\"}",
		"{\"theoretical_gbps\": \"0:38\"}",
		"{\"theoretical_gbps\": \"0=-1\"}",
		"{\"load_kernel\": \"memcpy\"}",
		"{\"initiators\": \"x\"}",
		"{\"initiators\": \"7\"}",
		"{\"targets\": \"9\"}",
		"{\"bw_threads\": \"0\"}",
		"{\"delays\": \"0,x\"}",
		"{\"delays\": \"0,\"}",
		"{\"delays\": \"-5\"}",
		"{\"delays\": \"20000000\"}",
	};

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		struct wlt c;

		ctx_init(&c, bad[i]);
		assert_int_equal(W->setup(&c.w), -EINVAL);
		wlt_fini(&c, false);
	}
}

/* The delays list: MLC's -d values in order; "" is full load only. */
static void test_delays_parse(void **state)
{
	uint32_t d[PN_LATLOAD_MAX_DELAYS];
	char many[256] = "0";

	(void)state;
	assert_int_equal(pn_latload_delays_parse("0,50,20000", d, PN_LATLOAD_MAX_DELAYS), 3);
	assert_true(d[0] == 0 && d[1] == 50 && d[2] == 20000);
	assert_int_equal(pn_latload_delays_parse("", d, PN_LATLOAD_MAX_DELAYS), 1);
	assert_int_equal(d[0], 0);
	assert_int_equal(pn_latload_delays_parse("10000000", d, 1), 1);
	for (int i = 1; i <= PN_LATLOAD_MAX_DELAYS; i++) /* one too many */
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ",%d", i);
	assert_int_equal(pn_latload_delays_parse(many, d, PN_LATLOAD_MAX_DELAYS), -EINVAL);
	assert_int_equal(pn_latload_delays_parse("5,,6", d, PN_LATLOAD_MAX_DELAYS), -EINVAL);
	assert_int_equal(pn_latload_delays_parse(" 5", d, PN_LATLOAD_MAX_DELAYS), -EINVAL);
	assert_int_equal(pn_latload_delays_parse("10000001", d, PN_LATLOAD_MAX_DELAYS), -EINVAL);
}

static int group_setup(void **state)
{
	(void)state;
	pn_sysroot_set("");
	return pn_topology_load(&topo);
}

static int group_teardown(void **state)
{
	(void)state;
	pn_topology_free(&topo);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_on_this_host),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_delays_parse),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
