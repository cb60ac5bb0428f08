// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_perf_acct.c - page accounting from a replayed event stream: explicit
 * by the private gfp bit, by a workload's pid and by what it forked; general
 * pages by kind (gfp decoded through the series' format) and process; pages
 * freed again within the phase (also a split higher-order page freed piece
 * by piece); frees of unknown pages; pages on no known node make the node
 * inconclusive, and so do lost events; series events counted.
 */
#include <cjson/cJSON.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "collectors/perf/pgacct.h"
#include "perftest.h"
#include "core/sys/pfnnode.h"

static uint64_t now_t;

static void ev(struct pn_pgacct *a, uint8_t kind, uint32_t pid, int node, uint64_t pfn,
	       uint8_t order, uint64_t gfp)
{
	struct pn_pgev e = { .time_ns = ++now_t,
			     .pfn = pfn,
			     .gfp = gfp,
			     .pid = pid,
			     .cpu = 1,
			     .node = node,
			     .aux = 1,
			     .kind = kind,
			     .order = order };

	pn_pgacct_apply(a, &e);
}

static const cJSON *node_details(const struct pn_event_report *rep, int i)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(rep->details, "private_nodes");

	return cJSON_GetArrayItem(arr, i);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_non_null(v);
	return cJSON_GetNumberValue(v);
}

static void load_gfp(struct pn_tp *tp, struct pn_tpflags *gfp, struct pn_tpflags *skip)
{
	char dir[4096];
	struct tep_event *e;

	fixture(dir, sizeof(dir), "tracefs-series");
	assert_int_equal(pn_tp_init(tp), 0);
	assert_int_equal(pn_tp_load(tp, dir, "kmem", "mm_page_alloc", &e), 0);
	assert_int_equal(pn_tp_flags(e, "gfp_flags", gfp), 0);
	assert_int_equal(pn_tp_load(tp, dir, "kmem", "mm_private_skip", &e), 0);
	assert_int_equal(pn_tp_flags(e, "reason", skip), 0);
}

static void phase_one(struct pn_pgacct *a)
{
	ev(a, PN_PGEV_ALLOC, 100, 2, 1000, 0, 0x140cca);
	ev(a, PN_PGEV_ALLOC, 100, 2, 1004, 2, 0x140cca);
	ev(a, PN_PGEV_ALLOC, 500, 2, 2000, 0, 0x140cca);	 /* the workload */
	ev(a, PN_PGEV_ALLOC, 700, 2, 3000, 0, 0x140cca | 0x200); /* __GFP_PRIVATE */
	ev(a, PN_PGEV_FORK, 501, -1, 500, 0, 0);		 /* 500 forks 501 */
	ev(a, PN_PGEV_ALLOC, 501, 2, 2001, 0, 0x140cca);
	ev(a, PN_PGEV_ALLOC, 100, 0, 5, 0, 0xcc0);
	ev(a, PN_PGEV_FREE, 0, 2, 1000, 0, 0);
	ev(a, PN_PGEV_FREE, 0, 2, 1005, 0, 0); /* a piece of the order-2 page */
	ev(a, PN_PGEV_FREE, 0, 2, 9999, 0, 0); /* allocated before we looked */
	ev(a, PN_PGEV_ALLOC, 100, PN_PFNNODE_UNKNOWN, 1ULL << 40, 0, 0xcc0);
	ev(a, PN_PGEV_ALLOC, 100, 0, UINT64_MAX, 0, 0xcc0); /* failed */
	{
		struct pn_pgev pa = { .time_ns = ++now_t,
				      .kind = PN_PGEV_PRIV_ALLOC,
				      .node = 2,
				      .aux = 2,
				      .order = 1 };
		struct pn_pgev ps = {
			.time_ns = ++now_t, .kind = PN_PGEV_PRIV_SKIP, .node = 2, .gfp = 6
		};

		pn_pgacct_apply(a, &pa);
		pn_pgacct_apply(a, &ps);
		pn_pgacct_apply(a, &ps);
	}
}

static void check_kinds(const cJSON *n)
{
	const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(n, "by_kind"), *k;
	int seen = 0;

	cJSON_ArrayForEach (k, kinds) {
		const char *cls = cJSON_GetStringValue(cJSON_GetObjectItem(k, "class"));
		const char *gfp = cJSON_GetStringValue(cJSON_GetObjectItem(k, "gfp"));

		if (!strcmp(cls, "general") && num(k, "order") == 2) {
			assert_string_equal(gfp, "GFP_HIGHUSER_MOVABLE|__GFP_COMP");
			assert_int_equal(num(k, "pages"), 4);
			seen++;
		}
		if (strstr(gfp, "__GFP_PRIVATE")) {
			assert_string_equal(cls, "explicit");
			seen++;
		}
	}
	assert_int_equal(seen, 2);
}

static void test_phases(void **state)
{
	struct pn_tpflags gfp, skip;
	struct pn_pgacct_cfg cfg = { .private_gfp = 0x200, .nexamples = 1 };
	struct pn_phase_pid pids[] = { { 500, true, false, "explicit" },
				       { 600, false, true, "bg" } };
	struct pn_phase_ctx ctx = { "p1", 0, NULL, 2, pids };
	struct pn_event_report rep = { 0 };
	struct pn_pgacct *a;
	const cJSON *n;
	struct pn_tp tp;
	int64_t freed;

	(void)state;
	load_gfp(&tp, &gfp, &skip);
	cfg.gfp_names = &gfp;
	cfg.skip_reasons = &skip;
	pn_nodeset_zero(&cfg.private_nodes);
	pn_nodeset_set(&cfg.private_nodes, 2);
	assert_int_equal(pn_pgacct_new(&a, &cfg), 0);
	pn_pgacct_phase_begin(a, &ctx);
	phase_one(a);
	assert_int_equal(pn_pgacct_pid_pages(a, 2, 100, &freed), 5);
	assert_int_equal(freed, 2);
	assert_int_equal(pn_pgacct_phase_end(a, 0, &rep), 0);
	assert_int_equal(rep.nnodes, 1);
	assert_int_equal(rep.nodes[0].node, 2);
	assert_int_equal(rep.nodes[0].explicit_pages, 3);
	assert_int_equal(rep.nodes[0].general_alloc_pages, 5);
	assert_int_equal(rep.nodes[0].general_freed_pages, 2);
	assert_int_equal(rep.nodes[0].general_pages, 3);
	assert_int_equal(rep.nodes[0].net_pages, 8 - 3);
	assert_true(rep.nodes[0].inconclusive);			     /* a page on no known node */
	assert_int_equal(pn_pgacct_pid_pages(a, 2, 100, &freed), 0); /* counted from zero again */
	n = node_details(&rep, 0);
	assert_int_equal(num(n, "unmatched_free_pages"), 1);
	assert_int_equal(num(cJSON_GetObjectItem(n, "series"), "private_alloc_pages"), 2);
	assert_int_equal(
		num(cJSON_GetObjectItem(cJSON_GetObjectItem(n, "series"), "skips"), "gate"), 2);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(n, "examples")), 1);
	assert_int_equal(num(rep.details, "failed_allocs"), 1);
	assert_int_equal(num(rep.details, "unknown_node_pages"), 1);
	check_kinds(n);
	cJSON_Delete(rep.details);

	/* between the phases a general page lands on the node */
	ev(a, PN_PGEV_ALLOC, 100, 2, 4000, 0, 0x140cca);
	/* phase two: the rest of the split page is freed (not this phase's
	 * pages), nothing new on the node, but events were lost */
	ctx.phase = "p2";
	pn_pgacct_phase_begin(a, &ctx);
	for (uint64_t p = 1004; p < 1008; p++)
		if (p != 1005)
			ev(a, PN_PGEV_FREE, 0, 2, p, 0, 0);
	ev(a, PN_PGEV_FREE, 0, 2, 1004, 0, 0); /* already gone */
	assert_int_equal(pn_pgacct_phase_end(a, 5, &rep), 0);
	assert_int_equal(rep.nodes[0].general_alloc_pages, 0);
	assert_int_equal(rep.nodes[0].general_freed_pages, 0);
	assert_int_equal(rep.nodes[0].net_pages, -4);
	assert_int_equal(rep.nodes[0].lost_events, 5);
	assert_true(rep.nodes[0].inconclusive);
	n = node_details(&rep, 0);
	assert_int_equal(num(n, "before_phase_general_pages"), 1);
	assert_int_equal(num(n, "unmatched_free_pages"), 1);
	cJSON_Delete(rep.details);

	/* phase three: quiet, nothing lost -> conclusive, 0 */
	pn_pgacct_phase_begin(a, NULL);
	assert_int_equal(pn_pgacct_phase_end(a, 0, &rep), 0);
	assert_false(rep.nodes[0].inconclusive);
	assert_int_equal(rep.nodes[0].general_pages, 0);
	cJSON_Delete(rep.details);

	pn_pgacct_free(a);
	pn_tpflags_free(&gfp);
	pn_tpflags_free(&skip);
	pn_tp_free(&tp);
}

/* Many live pages: the table grows and deletes by backward shift. */
static void test_many_pages(void **state)
{
	struct pn_pgacct_cfg cfg = { 0 };
	struct pn_event_report rep = { 0 };
	struct pn_pgacct *a;
	const uint64_t n = 100000;

	(void)state;
	pn_nodeset_zero(&cfg.private_nodes);
	pn_nodeset_set(&cfg.private_nodes, 1);
	assert_int_equal(pn_pgacct_new(&a, &cfg), 0);
	pn_pgacct_phase_begin(a, NULL);
	for (uint64_t i = 0; i < n; i++)
		ev(a, PN_PGEV_ALLOC, 9, 1, i * 7919 % 1000003, 0, 0xcc0);
	for (uint64_t i = 0; i < n; i += 2)
		ev(a, PN_PGEV_FREE, 9, 1, i * 7919 % 1000003, 0, 0);
	assert_int_equal(pn_pgacct_phase_end(a, 0, &rep), 0);
	assert_int_equal(rep.nodes[0].general_alloc_pages, n);
	assert_int_equal(rep.nodes[0].general_freed_pages, n / 2);
	assert_int_equal(num(node_details(&rep, 0), "unmatched_free_pages"), 0);
	cJSON_Delete(rep.details);
	/* the other half is still found after all those deletions */
	pn_pgacct_phase_begin(a, NULL);
	for (uint64_t i = 1; i < n; i += 2)
		ev(a, PN_PGEV_FREE, 9, 1, i * 7919 % 1000003, 0, 0);
	assert_int_equal(pn_pgacct_phase_end(a, 0, &rep), 0);
	assert_int_equal(rep.nodes[0].net_pages, -(int64_t)(n / 2));
	assert_int_equal(num(node_details(&rep, 0), "unmatched_free_pages"), 0);
	assert_int_equal(num(node_details(&rep, 0), "before_phase_general_pages"), 0);
	cJSON_Delete(rep.details);
	pn_pgacct_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_many_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
