// SPDX-License-Identifier: GPL-2.0-only
/*
 * When a node's reading counts (account.c pn_node_read_set()): the per-CPU
 * list lines of /proc/zoneinfo, and captured stat_refresh + zoneinfo
 * passes of the stock reference guest replayed through the sysroot while
 * node 1's per-CPU lists give back 4096 freed pages
 * (tests/fixtures/pcp-decay-6.12, capture/capture-pcp-decay.sh).
 *
 * Linked with -Wl,--wrap=pn_stat_refresh: a "refresh" puts the next
 * captured pass in place of <sysroot>/proc/zoneinfo, as the kernel's pass
 * would change what the file says.
 */
#include <errno.h>
#include <inttypes.h>
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

#include "core/runner/account.h"
#include "fixture.h"
#include "core/sys/procfs.h"

/* ---- the per-CPU lines ---- */

struct pcprec {
	int n;
	struct {
		int node, cpu;
		char zone[16];
		int64_t count, high, batch;
	} e[64];
	int64_t zone_sum[8][8]; /* "pcp_count" per node and zone, in file order */
	int nzone[8];
};

static int pr_zone_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct pcprec *r = arg;

	(void)zone;
	if (!strcmp(key, "pcp_count") && node < 8 && r->nzone[node] < 8)
		r->zone_sum[node][r->nzone[node]++] = val;
	return 0;
}

static int pr_pcp_cb(void *arg, int node, const char *zone, const struct pn_pcp *p)
{
	struct pcprec *r = arg;

	if (r->n >= 64)
		return -ENOSPC;
	r->e[r->n].node = node;
	r->e[r->n].cpu = p->cpu;
	snprintf(r->e[r->n].zone, sizeof(r->e[0].zone), "%s", zone);
	r->e[r->n].count = p->count;
	r->e[r->n].high = p->high;
	r->e[r->n].batch = p->batch;
	r->n++;
	return 0;
}

static char *slurp_cmd(const char *cmd, size_t *len)
{
	FILE *f = popen(cmd, "r");
	size_t cap = 1 << 20, n = 0, got;
	char *b = pn_xmalloc(cap);

	assert_non_null(f);
	while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			cap *= 2;
			b = pn_xrealloc(b, cap);
		}
	}
	b[n] = '\0';
	if (pclose(f) != 0) {
		print_error("%s failed\n", cmd);
		fail();
	}
	if (len)
		*len = n;
	return b;
}

/* The pageset of one CPU of one zone; fails the test if there is none. */
static struct pn_pcp find(const struct pcprec *r, int node, const char *zone, int cpu)
{
	struct pn_pcp p = { .cpu = -1 };

	for (int i = 0; i < r->n; i++)
		if (r->e[i].node == node && r->e[i].cpu == cpu && !strcmp(r->e[i].zone, zone))
			return (struct pn_pcp){ cpu, r->e[i].count, r->e[i].high, r->e[i].batch };
	print_error("no pageset of node %d zone %s cpu %d\n", node, zone, cpu);
	fail();
	return p;
}

/* 6.1/6.12 print count, high, batch per CPU; 6.18 adds high_min/high_max. */
static void test_pcp_lines(void **state)
{
	struct pcprec *r = calloc(1, sizeof(*r));
	const char *dir = getenv("PN_FIXTURES") ? getenv("PN_FIXTURES") : "tests/fixtures";
	char cmd[4096];
	struct pn_pcp e;
	char *b;

	(void)state;
	snprintf(cmd, sizeof(cmd), "cat %s/qemu-sparse-0-2-5/proc/zoneinfo", dir);
	b = slurp_cmd(cmd, NULL);
	assert_int_equal(pn_parse_zoneinfo_pcp(b, pr_zone_cb, pr_pcp_cb, r), 0);
	e = find(r, 0, "DMA32", 0);
	assert_int_equal(e.count, 481);
	assert_int_equal(e.high, 7118);
	assert_int_equal(e.batch, 63);
	/* the CPUs' lists add up to the zone's pcp_count (DMA: 0, DMA32: 794) */
	assert_int_equal(r->zone_sum[0][1], 794);
	assert_int_equal(e.count + find(r, 0, "DMA32", 1).count, 794);
	e = find(r, 2, "DMA32", 1);
	assert_int_equal(e.count, 2073);
	assert_int_equal(e.high, 3243);
	assert_int_equal(e.batch, 31);
	free(b);
	memset(r, 0, sizeof(*r));
	snprintf(cmd, sizeof(cmd), "cat %s/laptop-1node/proc/zoneinfo", dir);
	b = slurp_cmd(cmd, NULL);
	assert_int_equal(pn_parse_zoneinfo_pcp(b, pr_zone_cb, pr_pcp_cb, r), 0);
	e = find(r, 0, "Normal", 1);
	assert_int_equal(e.count, 11746);
	assert_int_equal(e.high, 14203);
	assert_int_equal(e.batch, 63);
	free(b);
	/* a CPU id out of range */
	memset(r, 0, sizeof(*r));
	assert_int_equal(pn_parse_zoneinfo_pcp("Node 0, zone Normal\n  pagesets\n    cpu: -1\n",
					       pr_zone_cb, pr_pcp_cb, r),
			 -EINVAL);
	free(r);
}

/* ---- replayed passes ---- */

#define MAXPASS 256

static struct replay {
	char *text;		   /* the whole capture, split in place */
	const char *pass[MAXPASS]; /* each pass's zoneinfo */
	char part[MAXPASS][8];
	int npass;
	char root[64];	/* the sysroot */
	int next, last; /* the pass the next refresh installs; the last one there is */
	int refreshes;
} rp;

int __wrap_pn_stat_refresh(void);
int __wrap_pn_stat_refresh(void)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/zoneinfo", rp.root);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(rp.pass[rp.next], f);
	fclose(f);
	if (rp.next < rp.last)
		rp.next++;
	rp.refreshes++;
	return 0;
}

static int setup_replay(void **state)
{
	const char *dir = getenv("PN_FIXTURES") ? getenv("PN_FIXTURES") : "tests/fixtures";
	char cmd[4096], *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "xz -dc %s/pcp-decay-6.12/zoneinfo.seq.xz", dir);
	rp.text = slurp_cmd(cmd, NULL);
	for (p = rp.text; p && *p;) {
		char *nl;

		if (strncmp(p, "=== ", 4) == 0) {
			assert_true(rp.npass < MAXPASS);
			assert_int_equal(sscanf(p, "=== %7s pass", rp.part[rp.npass]), 1);
			nl = strchr(p, '\n');
			assert_non_null(nl);
			if (rp.npass > 0)
				p[-1] = '\0'; /* end the previous pass */
			rp.pass[rp.npass++] = nl + 1;
			p = nl + 1;
			continue;
		}
		nl = strchr(p, '\n');
		p = nl ? nl + 1 : NULL;
	}
	assert_true(rp.npass > 20);
	snprintf(rp.root, sizeof(rp.root), "/tmp/pnbench-settle.XXXXXX");
	assert_non_null(mkdtemp(rp.root));
	snprintf(cmd, sizeof(cmd), "%s/proc", rp.root);
	assert_int_equal(mkdir(cmd, 0755), 0);
	pn_sysroot_set(rp.root);
	return 0;
}

static int teardown_replay(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rp.root);
	if (system(cmd) != 0)
		return -1;
	free(rp.text);
	return 0;
}

/* Node 1 as one pass says it: used pages, and its per-CPU counts. */
struct pass_view {
	int64_t managed, free, pcp;
	int64_t cpu[16];
	int ncpu;
};

static int pv_zone_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct pass_view *v = arg;

	if (node != 1 || !strcmp(zone, "node"))
		return 0;
	if (!strcmp(key, "managed"))
		v->managed += val;
	else if (!strcmp(key, "free"))
		v->free += val;
	else if (!strcmp(key, "pcp_count"))
		v->pcp += val;
	return 0;
}

static int pv_pcp_cb(void *arg, int node, const char *zone, const struct pn_pcp *p)
{
	struct pass_view *v = arg;

	(void)zone;
	if (node == 1 && v->ncpu < 16)
		v->cpu[v->ncpu++] = p->count;
	return 0;
}

static struct pass_view view(int i)
{
	struct pass_view v;

	memset(&v, 0, sizeof(v));
	assert_int_equal(pn_parse_zoneinfo_pcp(rp.pass[i], pv_zone_cb, pv_pcp_cb, &v), 0);
	return v;
}

static int64_t used_at(int i)
{
	struct pass_view v = view(i);

	return v.managed - v.free - v.pcp;
}

static bool lists_moved(int a, int b)
{
	struct pass_view x = view(a), y = view(b);

	return x.ncpu != y.ncpu || memcmp(x.cpu, y.cpu, sizeof(x.cpu)) != 0;
}

static int first_of(const char *part)
{
	for (int i = 0; i < rp.npass; i++)
		if (!strcmp(rp.part[i], part))
			return i;
	print_error("the capture has no part \"%s\"\n", part);
	fail();
	return -1;
}

/* Node 1's true use: what the passes say once its lists stopped moving
 * (the "end" part, 8 s later), and what they said before the leak. */
static int64_t truth(void)
{
	int last = rp.npass - 1, base = first_of("base");
	int64_t t = used_at(last);

	/* the capture is what it claims: quiet at both ends, the same use */
	assert_false(lists_moved(last - 1, last));
	assert_int_equal(used_at(last - 1), t);
	assert_false(lists_moved(base + 10, base + 11));
	assert_int_equal(used_at(base + 11), t);
	return t;
}

/* Replay from pass `from` (each refresh installs the next pass; the last
 * one stays); node 1 read with at most `passes` passes. */
static struct pn_node_read replay_from(int from, int passes)
{
	struct pn_nodeset one;
	struct pn_node_read r;

	rp.next = from;
	rp.last = rp.npass - 1;
	rp.refreshes = 0;
	memset(&one, 0, sizeof(one));
	pn_nodeset_set(&one, 1);
	assert_int_equal(pn_node_read_set(&one, true, passes, &r, NULL), 0);
	assert_int_equal(rp.refreshes, r.unsettled ? passes : r.passes);
	return r;
}

/*
 * Right after the free, from every pass of the capture on: a reading that
 * counts is node 1's true use, to the page; one that never settled says
 * so.  (Two successive passes that each left the same number of freed list
 * pages unfolded agree with each other: a rule of "two readings agree"
 * takes them, and reads that many pages too many.)
 */
static void test_replay_every_start(void **state)
{
	int64_t t = truth();
	int from = first_of("leak"), wrong = 0;

	(void)state;
	for (int s = from; s < rp.npass; s++) {
		struct pn_node_read r = replay_from(s, PN_SETTLE_PASSES_PRIVATE);
		struct pn_node_read q = replay_from(s, PN_SETTLE_PASSES_SAMPLE);

		bool r_ok = !r.unsettled && r.used == t && r.pcp_moved == 0;
		bool q_ok = q.unsettled || (q.used == t && q.pcp_moved == 0);

		if (!r_ok || !q_ok) {
			print_error("from pass %d: %s %" PRId64
				    " pages (%d passes), sample %s %" PRId64 ", truth %" PRId64
				    "\n",
				    s, r.unsettled ? "unsettled" : "settled", r.used, r.passes,
				    q.unsettled ? "unsettled" : "settled", q.used, t);
			wrong++;
		}
		assert_int_equal(r.kinds[PN_KIND_OTHER] + r.kinds[PN_KIND_ANON] +
					 r.kinds[PN_KIND_FILE] + r.kinds[PN_KIND_SLAB] +
					 r.kinds[PN_KIND_KERNEL_STACK] +
					 r.kinds[PN_KIND_PAGE_TABLES] + r.kinds[PN_KIND_HUGETLB],
				 r.used);
	}
	assert_int_equal(wrong, 0);
}

/* The capture itself: the lists did decay pass after pass, and some pass
 * pairs agree on used pages while the lists moved (what fooled the rule
 * of two agreeing readings). */
static void test_capture_shows_decay(void **state)
{
	int from = first_of("leak"), moved = 0, fooled = 0;

	(void)state;
	for (int i = from + 1; i < first_of("end"); i++) {
		moved += lists_moved(i - 1, i);
		fooled += lists_moved(i - 1, i) && used_at(i - 1) == used_at(i) &&
			  used_at(i) != used_at(rp.npass - 1);
	}
	print_message("leak part: %d passes moved list pages, %d agreed while off\n", moved,
		      fooled);
	assert_true(moved >= 10);
	assert_true(fooled >= 1);
}

/* Quiet from the start: two passes. */
static void test_replay_quiet(void **state)
{
	struct pn_node_read r = replay_from(first_of("base"), PN_SETTLE_PASSES_PRIVATE);

	(void)state;
	assert_false(r.unsettled);
	assert_int_equal(r.passes, 2);
	assert_int_equal(r.used, truth());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcp_lines),
		cmocka_unit_test(test_capture_shows_decay),
		cmocka_unit_test(test_replay_quiet),
		cmocka_unit_test(test_replay_every_start),
	};

	return cmocka_run_group_tests(tests, setup_replay, teardown_replay);
}
