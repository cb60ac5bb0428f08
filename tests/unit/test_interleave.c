// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_interleave.c - the interleave node walk (core/sys/mpol.c) on synthetic
 * node sets and fake move_pages results, the weights directory through the
 * sysroot, and the interleave workload on the running kernel (its exact
 * per-page map checked on real pages; multi-node parts skip with a reason).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>
#include <numa.h>

#include "core/sys/mpol.h"
#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"
#include "wltest.h"

extern const struct pn_workload pn_workload_interleave;

static const struct pn_workload *W = &pn_workload_interleave;
static struct pn_topology topo;
static bool have_topo;
static size_t psz;

static void set_of(struct pn_nodeset *s, const char *list)
{
	assert_int_equal(pn_nodeset_parse(s, list), 0);
}

/* MPOL_INTERLEAVE: one page per node, node-id order, sparse ids kept. */
static void test_walk_plain(void **state)
{
	static struct pn_mpol_ilmap m;
	struct pn_nodeset s;
	static const int want[] = { 0, 2, 5, 0, 2, 5, 0 };

	(void)state;
	set_of(&s, "5,0,2");
	assert_int_equal(pn_mpol_ilmap_init(&m, &s, NULL), 0);
	assert_int_equal(m.total, 3);
	for (size_t i = 0; i < PN_ARRAY_SIZE(want); i++)
		assert_int_equal(pn_mpol_ilmap_nid(&m, i), want[i]);
	assert_int_equal(pn_mpol_ilmap_nid(&m, 3000000001ULL), 2); /* 3000000001 % 3 = 1: node 2 */
}

/* Weighted: runs of w pages per node; a weight of 0 counts as 1 (6.12). */
static void test_walk_weighted(void **state)
{
	static struct pn_mpol_ilmap m;
	static unsigned int w[PN_MAX_NODES];
	struct pn_nodeset s;
	static const int want31[] = { 1, 1, 1, 2, 1, 1, 1, 2 };
	static const int want_sparse[] = { 0, 0, 2, 5, 5, 5, 0 };

	(void)state;
	set_of(&s, "1-2");
	w[1] = 3;
	w[2] = 1;
	assert_int_equal(pn_mpol_ilmap_init(&m, &s, w), 0);
	assert_int_equal(m.total, 4);
	for (size_t i = 0; i < PN_ARRAY_SIZE(want31); i++)
		assert_int_equal(pn_mpol_ilmap_nid(&m, i), want31[i]);
	memset(w, 0, sizeof(w));
	set_of(&s, "0,2,5");
	w[0] = 2;
	w[2] = 0; /* the kernel's "unset" */
	w[5] = 3;
	assert_int_equal(pn_mpol_ilmap_init(&m, &s, w), 0);
	assert_int_equal(m.total, 6);
	for (size_t i = 0; i < PN_ARRAY_SIZE(want_sparse); i++)
		assert_int_equal(pn_mpol_ilmap_nid(&m, i), want_sparse[i]);
	pn_nodeset_zero(&s);
	assert_int_equal(pn_mpol_ilmap_init(&m, &s, w), -EINVAL);
	assert_int_equal(pn_mpol_ilmap_nid(&m, 0), -1);
}

/* The index of get_vma_policy() for private anonymous mappings. */
static void test_ilx(void **state)
{
	(void)state;
	/* order 0: the virtual page number, wherever the VMA starts */
	assert_int_equal(pn_mpol_ilx_anon(0x7f0000001000ULL, 0x7f0000005000ULL, 0, 12),
			 0x7f0000005000ULL >> 12);
	/* order 9 in a 2 MiB-aligned VMA: the folio number */
	assert_int_equal(pn_mpol_ilx_anon(0x7f0000000000ULL, 0x7f0000600000ULL, 9, 12),
			 0x7f0000600000ULL >> 21);
	/* an unaligned VMA: pgoff >> order plus folios from the start */
	assert_int_equal(pn_mpol_ilx_anon(0x7f0000001000ULL, 0x7f0000201000ULL, 9, 12),
			 (0x7f0000001000ULL >> 12 >> 9) + 1);
}

/* Fake move_pages results: the exact map, a flipped page, unknown pages. */
static void test_compare_pages(void **state)
{
	static struct pn_mpol_ilmap m;
	static struct pn_mpol_ilcmp c;
	static unsigned int w[PN_MAX_NODES];
	struct pn_nodeset s;
	uint64_t start = 0x7f0000000000ULL + 5ULL * 4096; /* vpn % 4 == 1 */
	int st[64];

	(void)state;
	set_of(&s, "1-2");
	w[1] = 3;
	w[2] = 1;
	assert_int_equal(pn_mpol_ilmap_init(&m, &s, w), 0);
	for (int i = 0; i < 64; i++)
		st[i] = pn_mpol_ilmap_nid(&m, (start >> 12) + (uint64_t)i);
	assert_int_equal(st[0], 1);
	assert_int_equal(st[2], 2); /* vpn % 4 == 3 */
	memset(&c, 0, sizeof(c));
	pn_mpol_ilmap_compare(&m, start, 4096, 0, st, 64, &c);
	assert_int_equal(c.pages, 64);
	assert_int_equal(c.matched, 64);
	assert_int_equal(c.mismatched, 0);
	assert_int_equal(c.expected[1], 48);
	assert_int_equal(c.expected[2], 16);
	assert_int_equal(c.actual[1], 48);
	assert_int_equal(c.first_mismatch, -1);

	st[10] = st[10] == 1 ? 2 : 1; /* one page on the wrong node */
	st[20] = -14;		      /* -EFAULT: the kernel could not tell */
	memset(&c, 0, sizeof(c));
	pn_mpol_ilmap_compare(&m, start, 4096, 0, st, 64, &c);
	assert_int_equal(c.matched, 62);
	assert_int_equal(c.mismatched, 1);
	assert_int_equal(c.unverified, 1);
	assert_int_equal(c.first_mismatch, 10);
	assert_int_equal(c.first_actual, st[10]);
	assert_int_equal(c.first_expected, st[10] == 1 ? 2 : 1);
	/* A ratio check would pass this; the exact one does not: 3:1 by count
	 * but shifted by one page. */
	for (int i = 0; i < 64; i++)
		st[i] = pn_mpol_ilmap_nid(&m, (start >> 12) + (uint64_t)i + 1);
	memset(&c, 0, sizeof(c));
	pn_mpol_ilmap_compare(&m, start, 4096, 0, st, 64, &c);
	assert_int_equal(c.actual[1], 48);
	assert_true(c.mismatched > 0);
}

/* THP: whole blocks on their folio's node count as folios; a block that
 * fell back to small pages is compared page by page. */
static void test_compare_folios(void **state)
{
	static struct pn_mpol_ilmap m;
	static struct pn_mpol_ilcmp c;
	struct pn_nodeset s;
	uint64_t start = 0x7f0000000000ULL; /* 2 MiB aligned */
	size_t n = (size_t)4 * 512;
	int *st = calloc(n, sizeof(*st));

	(void)state;
	assert_non_null(st);
	set_of(&s, "1-2");
	assert_int_equal(pn_mpol_ilmap_init(&m, &s, NULL), 0);
	for (size_t b = 0; b < 4; b++)
		for (size_t k = 0; k < 512; k++)
			st[b * 512 + k] = pn_mpol_ilmap_nid(&m, (start >> 21) + b);
	/* block 2 fell back to 4 KiB pages: the per-page walk */
	for (size_t k = 0; k < 512; k++)
		st[(size_t)2 * 512 + k] =
			pn_mpol_ilmap_nid(&m, ((start + 2 * 0x200000ULL) >> 12) + k);
	memset(&c, 0, sizeof(c));
	pn_mpol_ilmap_compare(&m, start, 4096, 9, st, n, &c);
	assert_int_equal(c.folio_blocks, 3);
	assert_int_equal(c.matched, n);
	assert_int_equal(c.mismatched, 0);
	assert_int_equal(c.expected[1] + c.expected[2], n);
	/* a folio on the wrong node: every page of it mismatches */
	for (size_t k = 0; k < 512; k++)
		st[k] = st[k] == 1 ? 2 : 1;
	memset(&c, 0, sizeof(c));
	pn_mpol_ilmap_compare(&m, start, 4096, 9, st, n, &c);
	assert_int_equal(c.folio_blocks, 2);
	assert_int_equal(c.mismatched, 256); /* the per-page walk agrees on half */
	assert_int_equal(c.first_mismatch, 0);
	free(st);
}

static void test_parse_weights(void **state)
{
	static unsigned int w[PN_MAX_NODES];
	struct pn_nodeset s;
	char why[256];

	(void)state;
	set_of(&s, "1,2");
	assert_int_equal(pn_mpol_wil_parse("3,1", &s, w, why, sizeof(why)), 0);
	assert_int_equal(w[1], 3);
	assert_int_equal(w[2], 1);
	assert_int_equal(pn_mpol_wil_parse("3", &s, w, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "1 weight for 2 nodes"));
	assert_int_equal(pn_mpol_wil_parse("3,1,1", &s, w, why, sizeof(why)), -EINVAL);
	assert_int_equal(pn_mpol_wil_parse("0,1", &s, w, why, sizeof(why)), -EINVAL);
	assert_int_equal(pn_mpol_wil_parse("256,1", &s, w, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "1..255"));
	assert_int_equal(pn_mpol_wil_parse("3;1", &s, w, why, sizeof(why)), -EINVAL);
	assert_int_equal(pn_mpol_wil_parse("", &s, w, why, sizeof(why)), -EINVAL);
}

static void mkfile(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Probe the directory: which node files exist (sparse), and their values. */
static void test_probe_sysroot(void **state)
{
	char root[] = "/tmp/pn-wil.XXXXXX", cmd[128], rel[128];
	struct pn_nodeset have, want;
	unsigned int v = 0;

	(void)state;
	assert_non_null(mkdtemp(root));
	pn_sysroot_set(root);
	assert_int_equal(pn_mpol_wil_probe(&have), -ENOENT);
	mkfile(root, PN_WIL_DIR "/node0", "1\n");
	mkfile(root, PN_WIL_DIR "/node2", "7\n");
	mkfile(root, PN_WIL_DIR "/node5", "300\n");
	assert_int_equal(pn_mpol_wil_probe(&have), 0);
	set_of(&want, "0,2,5");
	assert_true(pn_nodeset_equal(&have, &want));
	assert_int_equal(pn_mpol_wil_read(2, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(pn_mpol_wil_read(5, &v), -ERANGE);
	assert_true(pn_mpol_wil_read(1, &v) < 0);
	/* the automatic mode's file under either of its names, "auto" first */
	assert_int_equal(pn_mpol_wil_auto_path(rel, sizeof(rel)), -ENOENT);
	mkfile(root, PN_WIL_DIR "/__auto_type", "true\n");
	assert_int_equal(pn_mpol_wil_auto_path(rel, sizeof(rel)), 0);
	assert_string_equal(rel, PN_WIL_DIR "/__auto_type");
	mkfile(root, PN_WIL_DIR "/auto", "true\n");
	assert_int_equal(pn_mpol_wil_auto_path(rel, sizeof(rel)), 0);
	assert_string_equal(rel, PN_WIL_DIR "/auto");
	pn_sysroot_set(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* ---------------------------------------------------- the workload, live */

static void ctx_init(struct wlt *c, const char *json)
{
	wlt_init(c, W, json, "0", NULL, have_topo ? &topo : NULL);
}

static bool all_checks_pass(const struct pn_res *r, int *n)
{
	const cJSON *c;

	*n = 0;
	cJSON_ArrayForEach (c, cJSON_GetObjectItem(r->root, "checks")) {
		(*n)++;
		if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "pass")))
			return false;
	}
	return true;
}

static void need_node0(void)
{
	if (numa_available() < 0 || !have_topo || !pn_topology_node(&topo, 0)) {
		print_message("SKIP: needs NUMA and node 0\n");
		skip();
	}
}

/* Real pages on node 0: the exact map (trivial with one node, but every
 * page is queried and compared), the census, the per-node table. */
static void run_one(const char *policy, bool thp, const char *fault)
{
	struct wlt c;
	char json[256];
	const struct pn_res *r;
	uint64_t pages = (8u << 20) / psz;
	int nchecks;

	snprintf(json, sizeof(json),
		 "{\"size\":\"8M\",\"nodes\":\"0\",\"policy\":\"%s\",\"thp\":%s,\"fault\":\"%s\"}",
		 policy, thp ? "true" : "false", fault);
	ctx_init(&c, json);
	r = &c.w.res;
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(c.w.nknobs, 0); /* weights "": the kernel's own */
	assert_int_equal(c.w.mem_bytes, 8u << 20);
	assert_int_equal(W->run(&c.w), 0);
	assert_true(r->verified);
	assert_int_equal(r->explicit_pages, pages);
	assert_int_equal(r->placed_pages[0], pages);
	assert_int_equal(r->misplaced_pages, 0);
	assert_true(wlt_mval(r, "exact_match_pages", "node", NULL) == (double)pages);
	assert_true(wlt_mval(r, "mismatched_pages", "node", NULL) == 0);
	assert_true(wlt_mval(r, "expected_pages", "node", "0") == (double)pages);
	assert_true(wlt_mval(r, "deviation_pages", "node", "0") == 0);
	assert_true(wlt_mval(r, "fault_throughput", "node", NULL) > 0);
	assert_true(wlt_mval(r, "fault_throughput", "node", "0") > 0);
	assert_true(all_checks_pass(r, &nchecks));
	assert_int_equal(nchecks, 1);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r->root, "tables")), 1);
	/* the note says which fault-in path was timed */
	assert_true(wlt_note_has(r, strcmp(fault, "write") ? "fault-in: MADV_POPULATE_WRITE"
							   : "fault-in: one write per page"));
	wlt_fini(&c, false);
}

static void test_run_interleave(void **state)
{
	(void)state;
	need_node0();
	run_one("interleave", false, "populate");
	run_one("interleave", true, "populate");
	run_one("interleave", false, "write");
}

static void test_run_weighted(void **state)
{
	(void)state;
	need_node0();
	if (!pn_exists(PN_WIL_DIR)) {
		print_message("SKIP: %s missing (kernel before 6.9)\n", PN_WIL_DIR);
		skip();
	}
	run_one("weighted_interleave", false, "populate");
}

/* Weights become knobs (auto mode held off first where it exists); wrong
 * weights and weights without the weighted policy are config errors. */
static void test_weights_to_knobs(void **state)
{
	char autop[128];
	struct wlt c;

	(void)state;
	need_node0();
	if (!pn_exists(PN_WIL_DIR "/node0")) {
		print_message("SKIP: no %s/node0 here\n", PN_WIL_DIR);
		skip();
	}
	ctx_init(&c, "{\"size\":\"1M\",\"nodes\":\"0\",\"weights\":\"3\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_true(c.w.nknobs >= 1);
	assert_string_equal(c.w.knobs[c.w.nknobs - 1].key, "weighted_interleave.0");
	assert_string_equal(c.w.knobs[c.w.nknobs - 1].value, "3");
	if (!pn_mpol_wil_auto_path(autop, sizeof(autop))) {
		/* the mode is a knob too, set first so it is restored last */
		assert_string_equal(c.w.knobs[0].key, autop);
		assert_string_equal(c.w.knobs[0].value, "false");
	}
	wlt_fini(&c, false);
	ctx_init(&c, "{\"size\":\"1M\",\"nodes\":\"0\",\"weights\":\"3,1\"}");
	assert_int_equal(W->setup(&c.w), -EINVAL);
	wlt_fini(&c, false);
	ctx_init(&c,
		 "{\"size\":\"1M\",\"nodes\":\"0\",\"policy\":\"interleave\",\"weights\":\"3\"}");
	assert_int_equal(W->setup(&c.w), -EINVAL);
	wlt_fini(&c, false);
}

/* Two nodes (SKIPs on one): plain interleave over the first two memory
 * nodes, page for page; the guests test weighted 3:1 over device nodes. */
static void test_run_two_nodes(void **state)
{
	struct wlt c;
	char json[128];
	int a = -1, b = -1;

	(void)state;
	for (int i = 0; numa_available() >= 0 && i <= numa_max_node() && b < 0; i++)
		if (numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)i)) {
			if (a < 0)
				a = i;
			else
				b = i;
		}
	if (b < 0 || !have_topo) {
		print_message("SKIP: needs >= 2 memory nodes, this machine has %d (the guests "
			      "test 3:1 over two device nodes)\n",
			      a < 0 ? 0 : 1);
		skip();
	}
	snprintf(json, sizeof(json),
		 "{\"size\":\"8M\",\"nodes\":\"%d,%d\",\"policy\":"
		 "\"interleave\"}",
		 a, b);
	ctx_init(&c, json);
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	assert_true(wlt_mval(&c.w.res, "mismatched_pages", "node", NULL) == 0);
	assert_true(c.w.res.placed_pages[a] > 0 && c.w.res.placed_pages[b] > 0);
	wlt_fini(&c, false);
}

static void test_node_missing(void **state)
{
	struct wlt c;

	(void)state;
	if (!have_topo) {
		print_message("SKIP: no topology\n");
		skip();
	}
	ctx_init(&c, "{\"size\":\"1M\",\"nodes\":\"1000\",\"policy\":\"interleave\"}");
	assert_int_equal(W->setup(&c.w), -EINVAL);
	wlt_fini(&c, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_plain),
		cmocka_unit_test(test_walk_weighted),
		cmocka_unit_test(test_ilx),
		cmocka_unit_test(test_compare_pages),
		cmocka_unit_test(test_compare_folios),
		cmocka_unit_test(test_parse_weights),
		cmocka_unit_test(test_probe_sysroot),
		cmocka_unit_test(test_run_interleave),
		cmocka_unit_test(test_run_weighted),
		cmocka_unit_test(test_weights_to_knobs),
		cmocka_unit_test(test_run_two_nodes),
		cmocka_unit_test(test_node_missing),
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
