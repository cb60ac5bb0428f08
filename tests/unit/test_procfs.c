// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_procfs.c - the /proc and /sys parsers against captured trees
 * (tests/fixtures/<machine>/) and against malformed input; pn_nodemem_read()
 * through the sysroot.  pn_file and the collectors' counter-file fast path:
 * test_cfile.c.
 *
 * Expected numbers are the ones in the captured files (see
 * tests/fixtures/README.md); run from the repository root, or set
 * PN_FIXTURES to the fixtures directory.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "core/sys/cfile.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"

#define KB(x) ((int64_t)(x)*1024)

static const char *fixtures(void)
{
	const char *d = getenv("PN_FIXTURES");

	return d ? d : "tests/fixtures";
}

static void use_tree(const char *name)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", fixtures(), name);
	if (access(p, R_OK)) {
		print_error("fixture tree %s missing (run from the repository root or set "
			    "PN_FIXTURES)\n",
			    p);
		fail();
	}
	pn_sysroot_set(p);
}

/* Read a fixture file (relative to the fixtures dir) into a malloc'd string. */
static char *slurp(const char *rel)
{
	char p[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(p, sizeof(p), "%s/%s", fixtures(), rel);
	f = fopen(p, "r");
	if (!f) {
		print_error("%s: %s\n", p, strerror(errno));
		fail();
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* ---- a key -> value recorder for the kv callbacks ---- */

struct kvrec {
	int n;
	char keys[512][64];
	int64_t vals[512];
};

static int rec_cb(void *arg, const char *key, int64_t val)
{
	struct kvrec *r = arg;

	if (r->n >= 512)
		return -ENOSPC;
	snprintf(r->keys[r->n], sizeof(r->keys[0]), "%s", key);
	r->vals[r->n++] = val;
	return 0;
}

static int64_t rec_get(const struct kvrec *r, const char *key)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->keys[i], key))
			return r->vals[i];
	print_error("key %s not reported\n", key);
	fail();
	return 0;
}

/* ---- pn_parse_kv ---- */

static void test_kv_basic(void **state)
{
	struct kvrec r = { 0 };

	(void)state;
	assert_int_equal(pn_parse_kv("a 1\nb_2 -2\n\nc 18446744073709551615", rec_cb, &r), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.keys[1], "b_2");
	assert_int_equal(r.vals[0], 1);
	assert_int_equal(r.vals[1], -2);
	/* %lu of a counter that went negative reads back as -1 */
	assert_int_equal(r.vals[2], -1);
}

static void test_kv_limits(void **state)
{
	struct kvrec r = { 0 };

	(void)state;
	assert_int_equal(
		pn_parse_kv("a -9223372036854775808\nb 9223372036854775807\r\n", rec_cb, &r), 0);
	assert_true(r.vals[0] == INT64_MIN);
	assert_true(r.vals[1] == INT64_MAX);
	assert_int_equal(pn_parse_kv("a -9223372036854775809\n", rec_cb, &r), -EINVAL);
	assert_int_equal(pn_parse_kv("a 18446744073709551616\n", rec_cb, &r), -EINVAL);
}

static void test_kv_malformed(void **state)
{
	static const char *const bad[] = {
		"a\n",
		"a b\n",
		"a 1 2\n",
		" 1\n",
		"a 1x\n",
		"a -\n",
		"a=1 2\n",
		"a 0x10\n",
		"numa_hit 99999999999999999999999\n",
		"a 1\nb\n",
		"a 1\n\x01 2\n",
		"-a 1\n",
		"a1234567890123456789012345678901234567890123456789012345678901234567890 1\n",
	};
	struct kvrec r;

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		memset(&r, 0, sizeof(r));
		if (pn_parse_kv(bad[i], rec_cb, &r) != -EINVAL) {
			print_error("accepted: \"%s\"\n", bad[i]);
			fail();
		}
	}
	assert_int_equal(pn_parse_kv(NULL, rec_cb, &r), -EINVAL);
	assert_int_equal(pn_parse_kv("", rec_cb, &r), 0);
}

static int stop_at_b(void *arg, const char *key, int64_t val)
{
	int *calls = arg;

	(void)val;
	(*calls)++;
	return strcmp(key, "b") ? 0 : 7;
}

static void test_kv_stop(void **state)
{
	int calls = 0;

	(void)state;
	assert_int_equal(pn_parse_kv("a 1\nb 2\nc 3\n", stop_at_b, &calls), 7);
	assert_int_equal(calls, 2);
}

static void test_kv_fixtures(void **state)
{
	struct kvrec r = { 0 };
	char *b;

	(void)state;
	b = slurp("laptop-1node/proc/vmstat");
	assert_int_equal(pn_parse_kv(b, rec_cb, &r), 0);
	assert_int_equal(r.n, 192);
	assert_int_equal(rec_get(&r, "pgalloc_normal"), 52113303);
	assert_int_equal(rec_get(&r, "nr_free_pages"), 1424403);
	free(b);

	memset(&r, 0, sizeof(r));
	b = slurp("qemu-sparse-0-2-5/sys/devices/system/node/node5/numastat");
	assert_int_equal(pn_parse_kv(b, rec_cb, &r), 0);
	assert_int_equal(r.n, 6);
	assert_int_equal(rec_get(&r, "numa_hit"), 1104);
	assert_int_equal(rec_get(&r, "other_node"), 1104);
	assert_int_equal(rec_get(&r, "local_node"), 0);
	free(b);

	memset(&r, 0, sizeof(r));
	b = slurp("qemu-3node-memonly/sys/devices/system/node/node1/vmstat");
	assert_int_equal(pn_parse_kv(b, rec_cb, &r), 0);
	assert_int_equal(rec_get(&r, "nr_free_pages"), 114222);
	free(b);

	b = slurp("malformed/files/vmstat-garbage");
	assert_int_equal(pn_parse_kv(b, rec_cb, &r), -EINVAL);
	free(b);
	b = slurp("malformed/files/numastat-overflow");
	assert_int_equal(pn_parse_kv(b, rec_cb, &r), -EINVAL);
	free(b);
}

/* ---- meminfo ---- */

static void test_node_meminfo_fixtures(void **state)
{
	struct kvrec r = { 0 };
	char *b;

	(void)state;
	b = slurp("qemu-sparse-0-2-5/sys/devices/system/node/node5/meminfo");
	assert_int_equal(pn_parse_node_meminfo(b, 5, rec_cb, &r), 0);
	assert_int_equal(r.n, 36);
	assert_int_equal(rec_get(&r, "MemTotal"), KB(515740));
	assert_int_equal(rec_get(&r, "MemUsed"), KB(6788));
	assert_int_equal(rec_get(&r, "Active(anon)"), 0);
	assert_int_equal(rec_get(&r, "HugePages_Total"), 0); /* a count, not bytes */
	/* the lines name node 5: any other node is a mismatch */
	assert_int_equal(pn_parse_node_meminfo(b, 2, rec_cb, &r), -EINVAL);
	free(b);

	memset(&r, 0, sizeof(r));
	b = slurp("malformed/files/node0-meminfo-crlf");
	assert_int_equal(pn_parse_node_meminfo(b, 0, rec_cb, &r), 0);
	assert_int_equal(rec_get(&r, "MemTotal"), KB(8480584));
	assert_int_equal(rec_get(&r, "Slab"), KB(712952));
	free(b);

	b = slurp("malformed/bad-node-meminfo/sys/devices/system/node/node0/meminfo");
	assert_int_equal(pn_parse_node_meminfo(b, 0, rec_cb, &r), -EINVAL);
	free(b);
}

static void test_meminfo_malformed(void **state)
{
	static const char *const bad[] = {
		"MemTotal 12 kB\n",
		"MemTotal: kB\n",
		"MemTotal: 12 MB\n",
		"MemTotal: 12 kB x\n",
		"MemTotal: 9223372036854775807 kB\n", /* bytes overflow int64 */
		": 12\n",
		"Node 0 MemTotal: 12 kB\n",
	};
	static const char *const badnode[] = {
		"MemTotal: 12 kB\n",	   "Node MemTotal: 12 kB\n",  "Node 0x MemTotal: 1 kB\n",
		"Node 00MemTotal: 1 kB\n", "Node 1 MemTotal: 1 kB\n",
	};
	struct kvrec r;

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		memset(&r, 0, sizeof(r));
		if (pn_parse_meminfo(bad[i], rec_cb, &r) != -EINVAL) {
			print_error("meminfo accepted: \"%s\"\n", bad[i]);
			fail();
		}
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(badnode); i++) {
		memset(&r, 0, sizeof(r));
		if (pn_parse_node_meminfo(badnode[i], 0, rec_cb, &r) != -EINVAL) {
			print_error("node meminfo accepted: \"%s\"\n", badnode[i]);
			fail();
		}
	}
	assert_int_equal(pn_parse_node_meminfo("Node 0 A: 1 kB\n", -1, rec_cb, &r), -EINVAL);
	assert_int_equal(pn_parse_node_meminfo("Node 0 A: 1 kB\n", PN_MAX_NODES, rec_cb, &r),
			 -EINVAL);
	memset(&r, 0, sizeof(r));
	/* no space after the colon (ShadowCallStack:%8lu with 8 digits) */
	assert_int_equal(pn_parse_node_meminfo("Node 3 ShadowCallStack:12345678 kB", 3, rec_cb, &r),
			 0);
	assert_int_equal(r.vals[0], KB(12345678));
}

static void test_meminfo_fixture(void **state)
{
	struct kvrec r = { 0 };
	char *b = slurp("qemu-3node-memonly/proc/meminfo");

	(void)state;
	assert_int_equal(pn_parse_meminfo(b, rec_cb, &r), 0);
	assert_int_equal(rec_get(&r, "MemAvailable"), KB(1833976));
	assert_int_equal(rec_get(&r, "Hugepagesize"), KB(2048));
	free(b);
}

/* ---- zoneinfo ---- */

struct zrec {
	int n;
	struct {
		int node;
		char zone[32];
		char key[64];
		int64_t val;
	} e[4096];
};

static int zrec_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct zrec *r = arg;

	if (r->n >= 4096)
		return -ENOSPC;
	r->e[r->n].node = node;
	snprintf(r->e[r->n].zone, sizeof(r->e[0].zone), "%s", zone);
	snprintf(r->e[r->n].key, sizeof(r->e[0].key), "%s", key);
	r->e[r->n++].val = val;
	return 0;
}

static int64_t zget(const struct zrec *r, int node, const char *zone, const char *key)
{
	int found = 0;
	int64_t v = 0;

	for (int i = 0; i < r->n; i++)
		if (r->e[i].node == node && !strcmp(r->e[i].zone, zone) &&
		    !strcmp(r->e[i].key, key)) {
			v = r->e[i].val;
			found++;
		}
	if (found != 1) {
		print_error("node %d zone %s key %s reported %d times\n", node, zone, key, found);
		fail();
	}
	return v;
}

static bool zhas_node(const struct zrec *r, int node)
{
	for (int i = 0; i < r->n; i++)
		if (r->e[i].node == node)
			return true;
	return false;
}

static void test_zoneinfo_sparse(void **state)
{
	struct zrec *r = calloc(1, sizeof(*r));
	char *b = slurp("qemu-sparse-0-2-5/proc/zoneinfo");

	(void)state;
	assert_int_equal(pn_parse_zoneinfo(b, zrec_cb, r), 0);
	assert_int_equal(zget(r, 5, "DMA32", "free"), 127238);
	assert_int_equal(zget(r, 5, "DMA32", "min"), 5775);
	assert_int_equal(zget(r, 5, "DMA32", "low"), 7218);
	assert_int_equal(zget(r, 5, "DMA32", "high"), 8661);
	assert_int_equal(zget(r, 5, "DMA32", "spanned"), 131040);
	assert_int_equal(zget(r, 5, "DMA32", "present"), 131040);
	assert_int_equal(zget(r, 5, "DMA32", "managed"), 128935);
	assert_int_equal(zget(r, 5, "DMA32", "pcp_count"), 433);
	assert_int_equal(zget(r, 2, "DMA32", "pcp_count"), 2196);
	assert_int_equal(zget(r, 0, "DMA32", "pcp_count"), 794);
	assert_int_equal(zget(r, 5, "Normal", "present"), 0);
	assert_int_equal(zget(r, 5, "Normal", "pcp_count"), 0); /* unpopulated: no pagesets */
	/* the per-node stats block is reported as zone "node", once per node */
	assert_int_equal(zget(r, 5, "node", "nr_inactive_anon"), 0);
	assert_true(zget(r, 0, "node", "nr_file_pages") > 0);
	assert_false(zhas_node(r, 1));
	free(b);
	free(r);
}

static void test_zoneinfo_laptop(void **state)
{
	struct zrec *r = calloc(1, sizeof(*r));
	char *b = slurp("laptop-1node/proc/zoneinfo");

	(void)state;
	assert_int_equal(pn_parse_zoneinfo(b, zrec_cb, r), 0);
	assert_int_equal(zget(r, 0, "Normal", "managed"), 1343488);
	assert_int_equal(zget(r, 0, "Normal", "spanned"), 5505024);
	assert_int_equal(zget(r, 0, "Normal", "free"), 647745);
	assert_int_equal(zget(r, 0, "Normal", "pcp_count"), 28420);
	assert_int_equal(zget(r, 0, "DMA", "start_pfn"), 1);
	assert_int_equal(zget(r, 0, "Movable", "min"), 32);
	free(b);
	free(r);
}

static void test_zoneinfo_malformed(void **state)
{
	static const char *const bad[] = {
		"  pages free 5\n", /* before any Node header */
		"Node x, zone Normal\n",
		"Node 0 zone Normal\n",
		"Node 0, zone\n",
		"Node 5000, zone Normal\n", /* >= PN_MAX_NODES */
		"Node 0, zone Normal\n  pages free\n",
		"Node 0, zone Normal\n        protection: (0, 1\n",
		"Node 0, zone Normal\n        protection: 0, 1)\n",
		"Node 0, zone Normal\n      nr_free_pages 1 2\n",
		"Node 0, zone Normal\n  pagesets\n    cpu 0 1\n",
		/* pcp sum overflows */
		"Node 0, zone Normal\n  pagesets\n count: 9223372036854775807\n count: 1\n",
		"Node 0, zone Normal\n  vm stats threshold: x\n",
		"Node 0, zone Normal\n      nr_free_pages 99999999999999999999\n",
	};
	struct zrec *r = calloc(1, sizeof(*r));
	char *b;

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		r->n = 0;
		if (pn_parse_zoneinfo(bad[i], zrec_cb, r) != -EINVAL) {
			print_error("zoneinfo accepted: \"%s\"\n", bad[i]);
			fail();
		}
	}
	b = slurp("malformed/files/zoneinfo-truncated");
	assert_int_equal(pn_parse_zoneinfo(b, zrec_cb, r), -EINVAL);
	free(b);
	b = slurp("malformed/files/zoneinfo-orphan-line");
	assert_int_equal(pn_parse_zoneinfo(b, zrec_cb, r), -EINVAL);
	free(b);
	assert_int_equal(pn_parse_zoneinfo(NULL, zrec_cb, r), -EINVAL);
	r->n = 0;
	assert_int_equal(pn_parse_zoneinfo("", zrec_cb, r), 0);
	assert_int_equal(r->n, 0);
	free(r);
}

/* ---- pn_nodemem_read and friends, through the sysroot ---- */

static void test_nodemem_laptop(void **state)
{
	struct pn_nodemem m;

	(void)state;
	use_tree("laptop-1node");
	assert_int_equal(pn_nodemem_read(0, &m), 0);
	assert_int_equal(m.node, 0);
	assert_int_equal(m.total, KB(8480584));
	assert_int_equal(m.free, KB(5695408));
	assert_int_equal(m.used, KB(2785176));
	assert_int_equal(m.anon, KB(552048));
	assert_int_equal(m.file, KB(1373320));
	assert_int_equal(m.shmem, KB(9568));
	assert_int_equal(m.slab, KB(712952));
	assert_int_equal(m.kernel_stack, KB(2496));
	assert_int_equal(m.page_tables, KB(7972));
	assert_int_equal(m.hugetlb, 0);
	/* 2785176 - (552048 + 1373320 + 712952 + 2496 + 7972) kB: shmem is in file */
	assert_int_equal(m.other, KB(136388));
	assert_int_equal(m.numa_hit, 50426141);
	assert_int_equal(m.interleave_hit, 66653);
	assert_int_equal(m.numa_private_fallback, -1); /* stock kernel */
	assert_int_equal(pn_nodemem_read(1, &m), -ENOENT);
	assert_int_equal(pn_nodemem_read(-1, &m), -EINVAL);
}

static void test_nodemem_sparse(void **state)
{
	struct pn_nodeset s, want;
	struct pn_nodemem m;

	(void)state;
	use_tree("qemu-sparse-0-2-5");
	assert_int_equal(pn_nodes_with_memory(&s), 0);
	assert_int_equal(pn_nodeset_parse(&want, "0,2,5"), 0);
	assert_true(pn_nodeset_equal(&s, &want));

	assert_int_equal(pn_nodemem_read(5, &m), 0);
	assert_int_equal(m.total, KB(515740));
	assert_int_equal(m.used, KB(6788));
	assert_int_equal(m.slab, KB(1228));
	assert_int_equal(m.kernel_stack, KB(8));
	assert_int_equal(m.other, KB(6788 - 1228 - 8));
	assert_int_equal(m.numa_hit, 1104);
	assert_int_equal(m.other_node, 1104);
	assert_int_equal(pn_nodemem_read(2, &m), 0);
	assert_int_equal(m.total, KB(470660));
	/* ids 1, 3, 4 are possible but not online: nothing to read */
	assert_int_equal(pn_nodemem_read(1, &m), -ENOENT);
	assert_int_equal(pn_nodemem_read(4, &m), -ENOENT);
}

static void test_nodemem_3node(void **state)
{
	struct pn_nodeset s, want;
	struct pn_nodemem m;

	(void)state;
	use_tree("qemu-3node-memonly");
	assert_int_equal(pn_nodes_with_memory(&s), 0);
	assert_int_equal(pn_nodeset_parse(&want, "0-2"), 0);
	assert_true(pn_nodeset_equal(&s, &want));
	assert_int_equal(pn_nodemem_read(0, &m), 0);
	assert_int_equal(m.other, KB(27912 - 216 - 1976 - 13244 - 932 - 72));
	assert_int_equal(pn_nodemem_read(1, &m), 0);
	assert_int_equal(m.free, KB(456888));
	assert_int_equal(m.numa_hit, 1116);
}

static void test_nodemem_bad(void **state)
{
	struct pn_nodemem m;
	struct pn_nodeset s;

	(void)state;
	use_tree("malformed/bad-node-meminfo");
	assert_int_equal(pn_nodemem_read(0, &m), -EINVAL);
	use_tree("malformed/no-numa");
	assert_int_equal(pn_nodes_with_memory(&s), -ENOENT);
	assert_int_equal(pn_nodemem_read(0, &m), -ENOENT);
}

static void test_mem_available_and_refresh(void **state)
{
	uint64_t b = 0;

	(void)state;
	use_tree("qemu-3node-memonly");
	assert_int_equal(pn_mem_available(&b), 0);
	assert_int_equal(b, KB(1833976));
	use_tree("laptop-1node");
	assert_int_equal(pn_mem_available(&b), 0);
	assert_int_equal(b, KB(23619340));
	/* the trees hold no /proc/sys/vm/stat_refresh */
	assert_int_equal(pn_stat_refresh(), -ENOENT);
}

/* A kernel that reports PrivateFree leaves it out of MemAvailable: the
 * figure comes back with it counted in, as on kernels without the line. */
static void test_mem_available_private_free(void **state)
{
	char dir[] = "/tmp/pn-test-XXXXXX", p[256];
	static const char mi[] = "MemTotal:        900000 kB\nMemFree:         500000 kB\n"
				 "MemAvailable:    600000 kB\nPrivateTotal:    524288 kB\n"
				 "PrivateFree:     400000 kB\n";
	uint64_t b = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/proc", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/proc/meminfo", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fputs(mi, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	pn_sysroot_set(dir);
	assert_int_equal(pn_mem_available(&b), 0);
	assert_int_equal(b, KB(600000 + 400000));
	pn_sysroot_set(NULL);
	unlink(p);
	snprintf(p, sizeof(p), "%s/proc", dir);
	rmdir(p);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_basic),
		cmocka_unit_test(test_kv_limits),
		cmocka_unit_test(test_kv_malformed),
		cmocka_unit_test(test_kv_stop),
		cmocka_unit_test(test_kv_fixtures),
		cmocka_unit_test(test_node_meminfo_fixtures),
		cmocka_unit_test(test_meminfo_malformed),
		cmocka_unit_test(test_meminfo_fixture),
		cmocka_unit_test(test_zoneinfo_sparse),
		cmocka_unit_test(test_zoneinfo_laptop),
		cmocka_unit_test(test_zoneinfo_malformed),
		cmocka_unit_test(test_nodemem_laptop),
		cmocka_unit_test(test_nodemem_sparse),
		cmocka_unit_test(test_nodemem_3node),
		cmocka_unit_test(test_nodemem_bad),
		cmocka_unit_test(test_mem_available_and_refresh),
		cmocka_unit_test(test_mem_available_private_free),
	};

	pn_log_level = PN_LOG_QUIET; /* expected errors would clutter the output */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
