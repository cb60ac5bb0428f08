// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_explicit.c - the explicit-allocation workload on the running kernel:
 * setup/run/teardown through its own option table, page placement verified
 * with move_pages(2), error paths, and the stop request.
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
#include <cjson/cJSON.h>
#include <numa.h>

#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"
#include "wltest.h"

extern const struct pn_workload pn_workload_explicit;

static const struct pn_workload *W = &pn_workload_explicit;
static struct pn_topology topo;
static bool have_topo;
static size_t psz;

/* Memory nodes this process may allocate on; returns how many, fills ids. */
static int memory_nodes(int *ids, int max)
{
	int n = 0;

	if (numa_available() < 0)
		return 0;
	for (int i = 0; i <= numa_max_node() && n < max; i++)
		if (numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)i))
			ids[n++] = i;
	return n;
}

static int need_nodes(int want, int *ids)
{
	int n = memory_nodes(ids, want);

	if (n < want) {
		print_message("SKIP: needs >= %d memory node%s, this machine has %d\n", want,
			      want == 1 ? "" : "s", n);
		skip();
	}
	return n;
}

static void ctx_init(struct wlt *c, const char *json, const char *dram, const char *priv)
{
	wlt_init(c, W, json, dram, priv, have_topo ? &topo : NULL);
}

/* The value of an unlabelled metric in the result tree, and its unit. */
static const cJSON *metric(const struct pn_res *r, const char *name)
{
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItem(r->root, "metrics"))
		if (!strcmp(cJSON_GetObjectItem(m, "name")->valuestring, name))
			return m;
	fail_msg("metric %s missing", name);
	return NULL;
}

static double mval(const struct pn_res *r, const char *name)
{
	return cJSON_GetObjectItem(metric(r, name), "value")->valuedouble;
}

static const char *munit(const struct pn_res *r, const char *name)
{
	return cJSON_GetObjectItem(metric(r, name), "unit")->valuestring;
}

/* Resident pages of this process (/proc/self/statm, second field). */
static long resident_pages(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &size, &res), 2);
	fclose(f);
	return res;
}

static void test_option_table(void **state)
{
	static const struct {
		const char *name, *def;
		enum pn_opt_type type;
	} want[] = {
		{ "size", "64M", PN_OPT_SIZE },	      { "chunk", "2M", PN_OPT_SIZE },
		{ "nodes", "private", PN_OPT_NODES }, { "policy", "bind", PN_OPT_ENUM },
		{ "touch", "true", PN_OPT_BOOL },     { "fault", "populate", PN_OPT_ENUM },
		{ "verify", "true", PN_OPT_BOOL },    { "max_mem_share", "0.5", PN_OPT_DOUBLE },
	};

	(void)state;
	assert_string_equal(W->name, "explicit");
	assert_non_null(W->run);
	for (size_t i = 0; i < PN_ARRAY_SIZE(want); i++) {
		const struct pn_opt *o = W->opts;

		while (o->name && strcmp(o->name, want[i].name) != 0)
			o++;
		assert_non_null(o->name);
		assert_string_equal(o->def, want[i].def);
		assert_int_equal(o->type, want[i].type);
	}
}

static void test_supported(void **state)
{
	struct pn_roles roles;
	struct pn_env env = { .roles = &roles };
	char why[256] = "";

	(void)state;
	memset(&roles, 0, sizeof(roles));
	assert_true(pn_workload_supported(W, &env, why, sizeof(why)) != 0);
	assert_true(strlen(why) > 10);
	if (numa_available() < 0) {
		print_message("SKIP: NUMA is not available here\n");
		skip();
	}
	pn_nodeset_set(&roles.dram_nodes, 0);
	assert_int_equal(pn_workload_supported(W, &env, why, sizeof(why)), 0);
}

static void test_bind_node(void **state)
{
	struct wlt c;
	int ids[1] = { 0 };
	char json[128];
	const struct pn_res *r;
	uint64_t pages = (8u << 20) / psz;
	long before, mapped, after;

	(void)state;
	need_nodes(1, ids);
	snprintf(json, sizeof(json),
		 "{\"size\":\"8M\",\"chunk\":\"1M\",\"nodes\":\"%d\","
		 "\"policy\":\"bind\"}",
		 ids[0]);
	ctx_init(&c, json, "0", "");
	r = &c.w.res;
	before = resident_pages();
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	mapped = resident_pages();
	assert_true(r->verified);
	assert_int_equal(r->explicit_pages, pages);
	assert_int_equal(r->intended_pages, pages);
	assert_int_equal(r->placed_pages[ids[0]], pages);
	assert_int_equal(r->misplaced_pages, 0);
	assert_int_equal(r->unverified_pages, 0);
	assert_true(mval(r, "alloc_fault_throughput") > 0);
	assert_true(mval(r, "chunk_latency_p50_ns") > 0);
	assert_true(mval(r, "chunk_latency_p99_ns") >= mval(r, "chunk_latency_p50_ns"));
	assert_true(mval(r, "chunk_latency_max_ns") >= mval(r, "chunk_latency_p99_ns"));
	assert_true(mval(r, "pages_total") == (double)pages);
	assert_string_equal(munit(r, "alloc_fault_throughput"), "bytes/s");
	assert_string_equal(munit(r, "chunk_latency_p99_ns"), "ns");
	/* one note: how the pages were faulted in (this kernel has populate) */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r->root, "notes")), 1);
	assert_true(wlt_note_has(r, "fault-in: MADV_POPULATE_WRITE"));
	/* The memory stays mapped after run() and teardown() frees it (a few
	 * pages of slack: the allocator and the sanitizers move RSS too). */
	assert_true(mapped - before >= (long)pages);
	wlt_fini(&c, false);
	after = resident_pages();
	assert_true(mapped - after >= (long)pages - 64);
}

static void test_preferred_first_node(void **state)
{
	struct wlt c;
	int ids[2] = { 0 }, n = memory_nodes(ids, 2);
	char json[160];
	uint64_t pages = (4u << 20) / psz;

	(void)state;
	need_nodes(1, ids);
	/* preferred names the first node of the set; with one node it is that one. */
	if (n >= 2)
		snprintf(json, sizeof(json),
			 "{\"size\":\"4M\",\"chunk\":\"512K\",\"nodes\":\"%d,%d\","
			 "\"policy\":\"preferred\"}",
			 ids[0], ids[1]);
	else
		snprintf(json, sizeof(json),
			 "{\"size\":\"4M\",\"chunk\":\"512K\",\"nodes\":\"%d\","
			 "\"policy\":\"preferred\"}",
			 ids[0]);
	ctx_init(&c, json, "0", "");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	assert_int_equal(c.w.res.placed_pages[ids[0]], pages);
	assert_int_equal(c.w.res.misplaced_pages, 0);
	wlt_fini(&c, false);
}

static void test_preferred_many(void **state)
{
	struct wlt c;
	int ids[1] = { 0 };
	char json[160];

	(void)state;
	need_nodes(1, ids);
	snprintf(json, sizeof(json),
		 "{\"size\":\"2M\",\"chunk\":\"1M\",\"nodes\":\"%d\","
		 "\"policy\":\"preferred_many\"}",
		 ids[0]);
	ctx_init(&c, json, "0", "");
	if (!numa_has_preferred_many()) {
		/* Kernel older than 5.15: a clear refusal, not a wrong policy. */
		assert_int_equal(W->setup(&c.w), -EOPNOTSUPP);
	} else {
		assert_int_equal(W->setup(&c.w), 0);
		assert_int_equal(W->run(&c.w), 0);
		assert_int_equal(c.w.res.intended_pages, (2u << 20) / psz);
		assert_int_equal(c.w.res.misplaced_pages, 0);
	}
	wlt_fini(&c, false);
}

static void test_interleave_two_nodes(void **state)
{
	struct wlt c;
	int ids[2] = { 0 };
	char json[160];
	uint64_t pages = (8u << 20) / psz;
	const struct pn_res *r;

	(void)state;
	need_nodes(2, ids);
	snprintf(json, sizeof(json),
		 "{\"size\":\"8M\",\"chunk\":\"1M\",\"nodes\":\"%d,%d\","
		 "\"policy\":\"interleave\"}",
		 ids[0], ids[1]);
	ctx_init(&c, json, "0", "");
	r = &c.w.res;
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	assert_int_equal(r->intended_pages, pages);
	assert_int_equal(r->misplaced_pages, 0);
	/* Interleave alternates page by page: close to half on each. */
	assert_true(r->placed_pages[ids[0]] > pages * 2 / 5);
	assert_true(r->placed_pages[ids[1]] > pages * 2 / 5);
	wlt_fini(&c, false);
}

static void test_node_does_not_exist(void **state)
{
	struct wlt c;
	char msg[1024];
	int ids[1] = { 0 };

	(void)state;
	need_nodes(1, ids);
	if (!have_topo) {
		print_message("SKIP: topology could not be loaded\n");
		skip();
	}
	/* Checked against the topology in setup. */
	ctx_init(&c, "{\"size\":\"1M\",\"chunk\":\"1M\",\"nodes\":\"1000\"}", "0", "");
	assert_int_equal(wlt_capture_stderr(W->setup, &c.w, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "node 1000 does not exist"));
	wlt_fini(&c, false);

	/* Without a topology the kernel refuses the policy: named with errno. */
	ctx_init(&c, "{\"size\":\"1M\",\"chunk\":\"1M\",\"nodes\":\"1000\"}", "0", "");
	c.w.topo = NULL;
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(wlt_capture_stderr(W->run, &c.w, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "mbind(policy bind, nodes 1000)"));
	assert_non_null(strstr(msg, "errno 22"));
	assert_int_equal(c.w.res.explicit_pages, 0);
	wlt_fini(&c, false);
}

static void test_default_nodes_need_private_role(void **state)
{
	struct wlt c;
	char msg[1024];

	(void)state;
	ctx_init(&c, "{\"size\":\"2M\"}", "0", "");
	assert_int_equal(wlt_capture_stderr(W->setup, &c.w, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "nodes \"private\" resolves to no node"));
	wlt_fini(&c, false);
}

static void test_mem_guard_refuses(void **state)
{
	struct wlt c;
	char msg[1024];
	int ids[1] = { 0 };

	(void)state;
	need_nodes(1, ids);
	ctx_init(&c, "{\"size\":\"64T\",\"chunk\":\"2M\",\"nodes\":\"0\"}", "0", "");
	assert_int_equal(wlt_capture_stderr(W->setup, &c.w, msg, sizeof(msg)), -ENOMEM);
	assert_non_null(strstr(msg, "MemAvailable"));
	wlt_fini(&c, false);
	/* A smaller share of the same machine refuses what a larger allows. */
	ctx_init(&c, "{\"size\":\"8M\",\"chunk\":\"2M\",\"nodes\":\"0\",\"max_mem_share\":0.9}",
		 "0", "");
	assert_int_equal(W->setup(&c.w), 0);
	wlt_fini(&c, false);
}

static void test_bad_params(void **state)
{
	static const char *const bad[] = {
		"{\"size\":\"1M\",\"chunk\":\"6K\"}", /* not whole pages */
		"{\"size\":\"1M\",\"chunk\":\"2M\"}", /* chunk > size */
	};
	struct wlt c;
	cJSON *in, *out = NULL;

	(void)state;
	if (psz != 4096) {
		print_message("SKIP: the cases assume 4 KiB pages, this machine has %zu\n", psz);
		skip();
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		ctx_init(&c, bad[i], "0", "0");
		assert_int_equal(W->setup(&c.w), -EINVAL);
		wlt_fini(&c, false);
	}
	/* A share of 0 is refused when the config is read, before any setup. */
	in = cJSON_Parse("{\"max_mem_share\":0}");
	assert_non_null(in);
	assert_int_equal(pn_params_resolve(W->opts, in, "test", "$.params", &out), -EINVAL);
	assert_null(out);
	cJSON_Delete(in);
}

/* The suite's limit (limits.max_mem_share) bounds the workload's own share. */
static void test_suite_limit_bounds_share(void **state)
{
	struct wlt c;

	(void)state;
	ctx_init(&c, "{\"size\":\"1G\",\"chunk\":\"1M\",\"nodes\":\"0\",\"max_mem_share\":0.9}",
		 "0", "");
	c.w.max_mem_share = 0.00001; /* a few hundred KiB of any real machine */
	assert_int_equal(W->setup(&c.w), -ENOMEM);
	wlt_fini(&c, false);
}

static void test_no_touch_is_unverified(void **state)
{
	struct wlt c;
	int ids[1] = { 0 };
	uint64_t pages = (2u << 20) / psz;

	(void)state;
	need_nodes(1, ids);
	ctx_init(&c, "{\"size\":\"2M\",\"chunk\":\"1M\",\"nodes\":\"0\",\"touch\":false}", "0", "");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	assert_true(c.w.res.verified);
	assert_int_equal(c.w.res.explicit_pages, pages);
	assert_int_equal(c.w.res.unverified_pages, pages);
	assert_int_equal(c.w.res.intended_pages, 0);
	assert_true(wlt_note_has(&c.w.res, "touch=false"));
	wlt_fini(&c, false);
}

/* fault=write: the page-fault path, the same placement, and it says so. */
static void test_fault_write(void **state)
{
	struct wlt c;
	int ids[1] = { 0 };
	uint64_t pages = (4u << 20) / psz;
	char json[160];

	(void)state;
	need_nodes(1, ids);
	snprintf(json, sizeof(json),
		 "{\"size\":\"4M\",\"chunk\":\"1M\",\"nodes\":\"%d\",\"fault\":\"write\"}", ids[0]);
	ctx_init(&c, json, "0", "");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	assert_int_equal(c.w.res.placed_pages[ids[0]], pages);
	assert_int_equal(c.w.res.unverified_pages, 0);
	assert_true(wlt_note_has(&c.w.res, "fault-in: one write per page"));
	assert_false(wlt_note_has(&c.w.res, "MADV_POPULATE_WRITE"));
	wlt_fini(&c, false);
}

static void test_stop(void **state)
{
	struct wlt c;
	volatile sig_atomic_t bg_stop = 1;
	int ids[1] = { 0 };

	(void)state;
	need_nodes(1, ids);
	/* A signal: the run ends before the first chunk and says so. */
	ctx_init(&c, "{\"size\":\"64M\",\"chunk\":\"1M\",\"nodes\":\"0\"}", "0", "");
	assert_int_equal(W->setup(&c.w), 0);
	pn_stop_signal = SIGINT;
	assert_int_equal(W->run(&c.w), -EINTR);
	pn_stop_signal = 0;
	assert_int_equal(c.w.res.explicit_pages, 0);
	assert_true(wlt_note_has(&c.w.res, "stopped after 0 of 64 chunks"));
	wlt_fini(&c, false);

	/* The runner ending a background workload is its normal end. */
	ctx_init(&c, "{\"size\":\"64M\",\"chunk\":\"1M\",\"nodes\":\"0\"}", "0", "");
	c.w.background = true;
	c.w.stop = &bg_stop;
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	assert_true(wlt_note_has(&c.w.res, "stopped after 0 of 64 chunks"));
	wlt_fini(&c, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_table),
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_bind_node),
		cmocka_unit_test(test_preferred_first_node),
		cmocka_unit_test(test_preferred_many),
		cmocka_unit_test(test_interleave_two_nodes),
		cmocka_unit_test(test_node_does_not_exist),
		cmocka_unit_test(test_default_nodes_need_private_role),
		cmocka_unit_test(test_mem_guard_refuses),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_suite_limit_bounds_share),
		cmocka_unit_test(test_no_touch_is_unverified),
		cmocka_unit_test(test_fault_write),
		cmocka_unit_test(test_stop),
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
