// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_exhaust.c - the exhaust workload on the running kernel: sizing from
 * the nodes' MemTotal behind the memory guard, the spill curve and census on
 * real pages, the fallback-counter table, and a child that dies mid-run
 * (its curve and census come back through the shared records, and
 * outcome() judges how it ended).  Spilling needs a second node: on one node
 * the curve must show no spill at all.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>
#include <numa.h>

#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"
#include "wltest.h"

extern const struct pn_workload pn_workload_exhaust;

static const struct pn_workload *W = &pn_workload_exhaust;
static struct pn_topology topo;
static bool have_topo;
static size_t psz;

static void ctx_init(struct wlt *c, const char *json)
{
	wlt_init(c, W, json, "0", NULL, &topo);
}

static void need_node0(void)
{
	if (numa_available() < 0 || !have_topo || !pn_topology_node(&topo, 0)) {
		print_message("SKIP: needs NUMA and node 0\n");
		skip();
	}
}

static void test_option_table(void **state)
{
	static const char *const names[] = { "size",  "over",	"chunk",
					     "nodes", "policy", "max_mem_share" };

	(void)state;
	assert_string_equal(W->name, "exhaust");
	assert_non_null(W->outcome);
	for (size_t i = 0; i < PN_ARRAY_SIZE(names); i++) {
		const struct pn_opt *o = W->opts;

		while (o->name && strcmp(o->name, names[i]) != 0)
			o++;
		assert_non_null(o->name);
	}
}

/* size 0 = MemTotal of the nodes + over: on this host's node 0 that is more
 * than the guard allows, and setup says so instead of OOMing the machine. */
static void test_auto_size_guarded(void **state)
{
	struct wlt c;

	(void)state;
	need_node0();
	ctx_init(&c, "{\"nodes\":\"0\",\"policy\":\"preferred\"}");
	assert_int_equal(W->setup(&c.w), -ENOMEM);
	wlt_fini(&c, false);
}

/* Real pages, one node: every chunk on node 0, no spill, census exact. */
static void test_curve_one_node(void **state)
{
	struct wlt c;
	const struct pn_res *r;
	const cJSON *curve, *row;
	uint64_t pages = (8u << 20) / psz;

	(void)state;
	need_node0();
	ctx_init(&c, "{\"nodes\":\"0\",\"size\":\"8M\",\"chunk\":\"1M\",\"policy\":\"preferred\"}");
	r = &c.w.res;
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(c.w.mem_bytes, 8u << 20);
	assert_int_equal(W->run(&c.w), 0);
	assert_true(r->verified);
	assert_int_equal(r->explicit_pages, pages);
	assert_int_equal(r->placed_pages[0], pages);
	assert_int_equal(r->misplaced_pages, 0);
	curve = cJSON_GetObjectItem(wlt_table(r, "spill_curve"), "rows");
	assert_int_equal(cJSON_GetArraySize(curve), 8);
	cJSON_ArrayForEach (row, curve) {
		assert_int_equal(cJSON_GetArrayItem(row, 2)->valueint, 0); /* node */
		assert_int_equal(cJSON_GetArrayItem(row, 3)->valueint, (1 << 20) / (int)psz);
		assert_int_equal(cJSON_GetArrayItem(row, 4)->valueint, 0); /* elsewhere */
		assert_true(cJSON_GetArrayItem(row, 6)->valuedouble > 0);  /* fault_ns */
	}
	assert_int_equal(
		cJSON_GetArraySize(cJSON_GetObjectItem(wlt_table(r, "spill_order"), "rows")), 1);
	assert_true(cJSON_GetArraySize(
			    cJSON_GetObjectItem(wlt_table(r, "fallback_counters"), "rows")) >= 1);
	assert_true(wlt_mval(r, "spill_at_bytes", NULL, NULL) == -1.0);
	assert_true(wlt_mval(r, "spilled_pages", NULL, NULL) == 0.0);
	assert_true(wlt_mval(r, "chunk_latency_p50_ns", "spill", "before") > 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(wlt_check(r, "no spill while"), "pass")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(wlt_check(r, "every page verified"), "pass")));
	wlt_fini(&c, false);
}

/* A strict bind whose child dies mid-run (SIGALRM here, an OOM kill in a
 * cgroup in the integration test): the parent reports the recorded curve,
 * a census that includes the chunk in flight, and the outcome check. */
static void test_child_dies(void **state)
{
	struct wlt c;
	const struct pn_res *r;
	struct pn_outcome o = { .end = PN_END_SIGNAL, .signal = SIGALRM };
	int status = 0;
	pid_t pid;

	(void)state;
	need_node0();
	ctx_init(&c, "{\"nodes\":\"0\",\"size\":\"512M\",\"chunk\":\"2M\",\"policy\":\"bind\"}");
	r = &c.w.res;
	assert_int_equal(W->setup(&c.w), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct itimerval it = { .it_value = { 0, 30000 } };

		setitimer(ITIMER_REAL, &it, NULL);
		W->run(&c.w);
		pause(); /* finished first: wait for the alarm anyway */
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGALRM);
	W->outcome(&c.w, &o);
	assert_true(cJSON_IsTrue(
		cJSON_GetObjectItem(wlt_check(r, "strict bind beyond capacity"), "pass")));
	assert_non_null(wlt_check(r, "host unharmed"));
	if (wlt_note_has(r, "shared records")) {
		int rows = cJSON_GetArraySize(
			cJSON_GetObjectItem(wlt_table(r, "spill_curve"), "rows"));

		assert_true(r->verified);
		assert_true(r->explicit_pages >= (uint64_t)rows * ((2u << 20) / psz));
		assert_int_equal(r->placed_pages[0], r->explicit_pages);
		assert_int_equal(r->misplaced_pages, 0);
	}
	wlt_fini(&c, false);
}

/* A strict bind that ended normally passes only with 0 pages elsewhere. */
static void test_bind_ok(void **state)
{
	struct wlt c;
	struct pn_outcome o = { .end = PN_END_OK };

	(void)state;
	need_node0();
	ctx_init(&c, "{\"nodes\":\"0\",\"size\":\"4M\",\"policy\":\"bind\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	W->outcome(&c.w, &o);
	assert_true(cJSON_IsTrue(
		cJSON_GetObjectItem(wlt_check(&c.w.res, "strict bind: pages off"), "pass")));
	/* ended normally below capacity: no beyond-capacity check */
	assert_null(wlt_check(&c.w.res, "strict bind beyond capacity"));
	wlt_fini(&c, false);
}

/* One setup on node 0 as if it held 8 MiB; returns the leaf's memory.max. */
static uint64_t max_for(const char *json, uint64_t preset)
{
	struct pn_node_info *ni = (struct pn_node_info *)pn_topology_node(&topo, 0);
	uint64_t saved = ni->mem_total_bytes, got;
	struct wlt c;

	ni->mem_total_bytes = 8u << 20;
	ctx_init(&c, json);
	c.w.memory_max = preset; /* what the config gave */
	assert_int_equal(W->setup(&c.w), 0);
	got = c.w.memory_max;
	wlt_fini(&c, false);
	ni->mem_total_bytes = saved;
	return got;
}

/* A strict bind beyond capacity gets a bounded cgroup by itself (request +
 * 64 MiB); the config's memory.max wins; other policies and a bind within
 * capacity get none. */
static void test_strict_bind_bounded(void **state)
{
	(void)state;
	need_node0();
	assert_int_equal(max_for("{\"nodes\":\"0\",\"size\":\"16M\",\"policy\":\"bind\"}", 0),
			 (16u << 20) + (64u << 20));
	assert_int_equal(
		max_for("{\"nodes\":\"0\",\"size\":\"16M\",\"policy\":\"bind\"}", 32u << 20),
		32u << 20);
	assert_int_equal(max_for("{\"nodes\":\"0\",\"size\":\"16M\",\"policy\":\"preferred\"}", 0),
			 0);
	assert_int_equal(max_for("{\"nodes\":\"0\",\"size\":\"4M\",\"policy\":\"bind\"}", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_table),   cmocka_unit_test(test_auto_size_guarded),
		cmocka_unit_test(test_curve_one_node), cmocka_unit_test(test_child_dies),
		cmocka_unit_test(test_bind_ok),	       cmocka_unit_test(test_strict_bind_bounded),
	};
	int ret;

	psz = (size_t)sysconf(_SC_PAGESIZE);
	pn_log_level = PN_LOG_QUIET;
	pn_sysroot_set(NULL);
	have_topo = pn_topology_load(&topo) == 0;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	if (have_topo)
		pn_topology_free(&topo);
	return ret;
}
