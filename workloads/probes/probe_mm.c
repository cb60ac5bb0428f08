// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_mm.c - leak probes of the memory-management paths that pick a node:
 * hugetlb pools (global spreading over N_MEMORY, per-node writes), page
 * migration to a named node (move_pages, migrate_pages), MADV_COLLAPSE
 * target-node selection, demotion from reclaim and DAMON migrate_cold.
 * Kernel paths are those of Linux 6.12 (see the table in probe_table.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "probe_int.h"

#define PAGE_BYTES    4096UL
#define HPAGE_BYTES   (2UL << 20)
#define HUGE_2M	      "hugepages/hugepages-2048kB/nr_hugepages"
#define MPOL_MF_MOVE_ (1 << 1)
#define MPOL_DEFAULT_ 0
#define MPOL_BIND_    2
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* ---- hugetlb ---- */

static int node_huge(int node, uint64_t *val)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/" HUGE_2M, node);
	return pn_read_u64(rel, val, false);
}

static int set_node_huge(int node, uint64_t val)
{
	char rel[160], v[32];

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/" HUGE_2M, node);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
	return pn_write_text(rel, v);
}

int pn_probe_hugetlb_supported(const struct pn_probe_env *env, char *why, size_t len)
{
	int n;

	if (!pn_exists("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"))
		return snprintf(why, len, "no 2 MiB hugetlb pool (CONFIG_HUGETLBFS)"), -ENOTSUP;
	pn_nodeset_for_each (n, &env->dev_nodes) {
		uint64_t v;

		if (node_huge(n, &v))
			return snprintf(why, len, "node%d has no hugepages directory", n), -ENOTSUP;
	}
	return 0;
}

/* Global nr_hugepages: alloc_pool_huge_folio() over node_states[N_MEMORY]. */
int pn_probe_hugetlb_spread(const struct pn_probe_env *env, const struct pn_probe_params *p,
			    struct pn_probe_out *out)
{
	const char *g = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages";
	uint64_t old, now, want, before[PN_PROBE_MAX_NODES] = { 0 }, after;
	int n, nodes = pn_nodeset_count(&env->dev_nodes) + 1, err;
	char v[32];

	if ((err = pn_read_u64(g, &old, false)))
		return err;
	pn_nodeset_for_each (n, &env->dev_nodes)
		node_huge(n, &before[n]);
	want = old + (uint64_t)p->count * (uint64_t)nodes;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)want);
	err = pn_write_text(g, v);
	if (err)
		pn_probe_refused(out, err);
	else
		out->triggered++;
	pn_read_u64(g, &now, false);
	pn_nodeset_for_each (n, &env->dev_nodes) {
		if (!node_huge(n, &after))
			out->pages[n] = (int64_t)(after - before[n]) * 512;
	}
	pn_probe_note(out, "nr_hugepages %llu -> %llu (asked +%u per node of N_MEMORY)",
		      (unsigned long long)old, (unsigned long long)now, p->count);
	/* released in reverse: the global count first, then any node left off */
	pn_nodeset_for_each (n, &env->dev_nodes) {
		char rel[160];

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/" HUGE_2M, n);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)before[n]);
		pn_probe_hold_write(out, rel, v);
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)old);
	pn_probe_hold_write(out, g, v);
	out->source = "nodeN/hugepages/hugepages-2048kB/nr_hugepages delta x 512";
	return 0;
}

/* nodeN/.../nr_hugepages: __nr_hugepages_store_common(nid) -> __GFP_THISNODE. */
int pn_probe_hugetlb_node(const struct pn_probe_env *env, const struct pn_probe_params *p,
			  struct pn_probe_out *out)
{
	int n;

	pn_nodeset_for_each (n, &env->dev_nodes) {
		uint64_t before, after;
		int err = node_huge(n, &before);
		char rel[160], v[32];

		if (err)
			continue;
		err = set_node_huge(n, before + p->count);
		if (err)
			pn_probe_refused(out, err);
		else
			out->triggered++;
		if (!node_huge(n, &after))
			out->pages[n] = (int64_t)(after - before) * 512;
		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/" HUGE_2M, n);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)before);
		pn_probe_hold_write(out, rel, v);
	}
	out->source = "nodeN/hugepages/hugepages-2048kB/nr_hugepages delta x 512";
	return 0;
}

/* ---- migration ---- */

static void *map_touched(size_t bytes, bool thp_ok)
{
	char *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (a == MAP_FAILED)
		return NULL;
	if (!thp_ok)
		madvise(a, bytes, MADV_NOHUGEPAGE);
	for (i = 0; i < bytes; i += PAGE_BYTES)
		a[i] = (char)(i / PAGE_BYTES + 1);
	return a;
}

/*
 * Node n's mempolicy opt-in (a sysfs attribute in the kernel series v2,
 * debugfs before it) held at val while a probe runs: *old gets what it was
 * ("" when the kernel has no such file: stock).  optin_restore() puts it back.
 */
static void optin_hold(int n, const char *val, char *rel, size_t rlen, char *old, size_t olen)
{
	snprintf(rel, rlen, "/sys/devices/system/node/node%d/private/mempolicy", n);
	if (!pn_exists(rel))
		snprintf(rel, rlen, "/sys/kernel/debug/private_node/node%d/mempolicy", n);
	old[0] = '\0';
	if (pn_exists(rel) && pn_probe_swap_text(rel, val, old, olen))
		old[0] = '\0';
}

static void optin_restore(const char *rel, const char *old)
{
	if (old[0])
		pn_write_text(rel, old);
}

/* move_pages(2) of every page of [a, a+bytes) to node; returns pages moved there. */
static long move_all(void *a, size_t bytes, int node)
{
	size_t n = bytes / PAGE_BYTES, i;
	void **ptrs = pn_xcalloc(n, sizeof(*ptrs));
	int *nodes = pn_xcalloc(n, sizeof(*nodes)), *status = pn_xcalloc(n, sizeof(*status));
	long rc, moved = 0;

	for (i = 0; i < n; i++)
		ptrs[i] = (char *)a + i * PAGE_BYTES, nodes[i] = node;
	rc = syscall(SYS_move_pages, 0, (unsigned long)n, ptrs, nodes, status, MPOL_MF_MOVE_);
	if (rc < 0)
		moved = -errno;
	for (i = 0; rc >= 0 && i < n; i++)
		moved += status[i] == node;
	free(ptrs);
	free(nodes);
	free(status);
	return moved;
}

int pn_probe_move_pages(const struct pn_probe_env *env, const struct pn_probe_params *p,
			struct pn_probe_out *out)
{
	size_t bytes = (size_t)p->count * PAGE_BYTES;
	int n;

	pn_nodeset_for_each (n, &env->dev_nodes) {
		void *a = map_touched(bytes, false);
		char rel[96], old[8];
		long moved;

		if (!a)
			return -errno;
		pn_probe_hold_map(out, a, bytes);
		/* after the user's opt-in a move there is an explicit request the
		 * kernel serves; the probe asks as a program that was never let in */
		optin_hold(n, "0", rel, sizeof(rel), old, sizeof(old));
		moved = move_all(a, bytes, n);
		optin_restore(rel, old);
		if (moved < 0)
			pn_probe_refused(out, (int)moved);
		else
			out->triggered++;
		out->pages[n] = 0;
		pn_probe_census(a, bytes, out->pages, NULL);
	}
	out->source = "move_pages(2) census of the probe's buffer";
	return 0;
}

static long sys_migrate(int from, int to)
{
	unsigned long old[PN_PROBE_MAX_NODES / 64] = { 0 }, new[PN_PROBE_MAX_NODES / 64] = { 0 };

	old[from / 64] |= 1UL << (from % 64);
	new[to / 64] |= 1UL << (to % 64);
	return syscall(SYS_migrate_pages, 0, (unsigned long)PN_PROBE_MAX_NODES + 1, old, new);
}

struct migrate_arg {
	const struct pn_probe_env *env;
	size_t bytes;
	int node;
};

/* Child: its memory at home, then migrate_pages(2) of all of it to the node. */
static int migrate_child(void *arg, int64_t *pages)
{
	const struct migrate_arg *m = arg;
	void *a = map_touched(m->bytes, false);

	if (!a)
		return -ENOMEM;
	move_all(a, m->bytes, m->env->home_node);
	if (sys_migrate(m->env->home_node, m->node) < 0)
		return -errno;
	pages[m->node] = 0;
	return pn_probe_census(a, m->bytes, pages, NULL);
}

int pn_probe_migrate_pages(const struct pn_probe_env *env, const struct pn_probe_params *p,
			   struct pn_probe_out *out)
{
	int n;

	pn_nodeset_for_each (n, &env->dev_nodes) {
		struct migrate_arg m = { env, (size_t)p->count * PAGE_BYTES, n };
		char rel[96], old[8];
		int err;

		optin_hold(n, "0", rel, sizeof(rel), old, sizeof(old)); /* as move_pages */
		err = pn_probe_child(out, NULL, migrate_child, &m, out->pages);
		optin_restore(rel, old);

		if (err) {
			pn_probe_refused(out, err);
			out->pages[n] = 0;
		} else {
			out->triggered++;
		}
	}
	out->source = "move_pages(2) census, in a child, of its buffer after migrate_pages(2)";
	return 0;
}

/* ---- MADV_COLLAPSE ---- */

/* Is the page at addr part of a THP?  /proc/self/pagemap + /proc/kpageflags. */
static bool page_is_thp(void *addr)
{
	uint64_t ent = 0, flags = 0;
	int pm = pn_open("/proc/self/pagemap", O_RDONLY),
	    kf = pn_open("/proc/kpageflags", O_RDONLY);
	bool thp = false;

	if (pm >= 0 && kf >= 0 &&
	    pread(pm, &ent, 8, (off_t)((uintptr_t)addr / PAGE_BYTES * 8)) == 8 && (ent >> 63) &&
	    pread(kf, &flags, 8, (off_t)((ent & ((1ULL << 55) - 1)) * 8)) == 8)
		thp = (flags >> 22) & 1; /* KPF_THP */
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return thp;
}

/*
 * Fault the 512 source pages of [a, a+2M) on node n: mbind(MPOL_BIND) for
 * the faults, then the default policy again, so that the collapse runs
 * without one.  A private-node kernel accepts the binding only for a node
 * that opted in to mempolicy: opt in for the placement alone (debugfs
 * private_node/nodeN/mempolicy), never for the collapse.  Returns the
 * pages that are on n.
 */
static long place_source(char *a, int n)
{
	unsigned long mask[PN_PROBE_MAX_NODES / 64] = { 0 };
	int64_t pages[PN_PROBE_MAX_NODES] = { 0 };
	char rel[96], old[8];
	size_t i;

	optin_hold(n, "1", rel, sizeof(rel), old, sizeof(old));
	mask[n / 64] |= 1UL << (n % 64);
	if (syscall(SYS_mbind, a, HPAGE_BYTES, MPOL_BIND_, mask, PN_PROBE_MAX_NODES + 1, 0) == 0) {
		for (i = 0; i < HPAGE_BYTES; i += PAGE_BYTES)
			a[i] = 1;
		syscall(SYS_mbind, a, HPAGE_BYTES, MPOL_DEFAULT_, NULL, 0, 0);
	}
	optin_restore(rel, old);
	for (i = 0; i < HPAGE_BYTES; i += PAGE_BYTES)
		a[i] = 1; /* faults the pages mbind refused, at home */
	if (pn_probe_census(a, HPAGE_BYTES, pages, NULL) == 0 &&
	    pages[n] < (int64_t)(HPAGE_BYTES / PAGE_BYTES))
		move_all(a, HPAGE_BYTES, n); /* the second way there (stock, isolate) */
	memset(pages, 0, sizeof(pages));
	pn_probe_census(a, HPAGE_BYTES, pages, NULL);
	return (long)pages[n];
}

static void collapse_on(int n, struct pn_probe_out *out)
{
	char *raw = mmap(NULL, 2 * HPAGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	char *a;
	long placed;

	out->pages[n] = 0;
	if (raw == MAP_FAILED) {
		pn_probe_refused(out, -errno);
		return;
	}
	a = raw + ((HPAGE_BYTES - (uintptr_t)raw % HPAGE_BYTES) % HPAGE_BYTES);
	madvise(a, HPAGE_BYTES, MADV_NOHUGEPAGE);
	placed = place_source(a, n);
	if (placed < (long)(HPAGE_BYTES / PAGE_BYTES)) {
		pn_probe_note(out, "node%d: only %ld/512 source pages could be placed there", n,
			      placed < 0 ? 0 : placed);
		goto out;
	}
	madvise(a, HPAGE_BYTES, MADV_HUGEPAGE);
	if (madvise(a, HPAGE_BYTES, MADV_COLLAPSE)) {
		pn_probe_refused(out, -errno);
		pn_probe_note(out, "node%d: MADV_COLLAPSE: %s", n, strerror(errno));
	} else {
		out->triggered++;
	}
	{
		int64_t pages[PN_PROBE_MAX_NODES] = { 0 };
		bool thp = page_is_thp(a);

		pn_probe_census(a, HPAGE_BYTES, pages, NULL);
		pn_probe_note(out, "node%d: after MADV_COLLAPSE %s, %lld/512 pages on the node", n,
			      thp ? "a THP" : "small pages", (long long)pages[n]);
		/* a THP there is the leak; small pages are the ones placed on purpose */
		if (thp)
			out->pages[n] = pages[n];
		else
			out->explicit_pages[n] += pages[n];
	}
out:
	pn_probe_hold_map(out, raw, 2 * HPAGE_BYTES);
}

int pn_probe_collapse_supported(const struct pn_probe_env *env, char *why, size_t len)
{
	(void)env;
	if (!pn_exists("/sys/kernel/mm/transparent_hugepage/enabled"))
		return snprintf(why, len, "no THP (CONFIG_TRANSPARENT_HUGEPAGE)"), -ENOTSUP;
	if (!pn_exists("/proc/kpageflags"))
		return snprintf(why, len, "no /proc/kpageflags (CONFIG_PROC_PAGE_MONITOR)"),
		       -ENOTSUP;
	return 0;
}

int pn_probe_collapse(const struct pn_probe_env *env, const struct pn_probe_params *p,
		      struct pn_probe_out *out)
{
	int n;

	(void)p;
	pn_nodeset_for_each (n, &env->dev_nodes)
		collapse_on(n, out);
	out->source = "THP (kpageflags) after MADV_COLLAPSE, move_pages(2) census";
	return 0;
}

/* ---- demotion ---- */

int pn_probe_demotion_supported(const struct pn_probe_env *env, char *why, size_t len)
{
	(void)env;
	if (!pn_exists("/sys/kernel/mm/numa/demotion_enabled"))
		return snprintf(why, len, "no /sys/kernel/mm/numa/demotion_enabled"), -ENOTSUP;
	return pn_probe_cgroup_supported("memory", why, len);
}

struct demote_arg {
	const char *cg;
	size_t bytes;
};

/* Child (in its own memcg): faults and cools its memory, reclaims its
 * cgroup, counts where the pages went. */
static int demote_child(void *arg, int64_t *pages)
{
	const char *cg = ((struct demote_arg *)arg)->cg;
	size_t bytes = ((struct demote_arg *)arg)->bytes;
	char rel[300], v[32];
	void *a = map_touched(bytes, false);

	if (!a)
		return -ENOMEM;
	madvise(a, bytes, MADV_COLD);
	snprintf(rel, sizeof(rel), "%s/memory.reclaim", cg);
	snprintf(v, sizeof(v), "%zu", bytes);
	pn_write_text(rel, v); /* -EAGAIN when not all of it could be reclaimed */
	return pn_probe_census(a, bytes, pages, NULL);
}

int pn_probe_demotion(const struct pn_probe_env *env, const struct pn_probe_params *p,
		      struct pn_probe_out *out)
{
	const char *knob = "/sys/kernel/mm/numa/demotion_enabled";
	size_t bytes = (size_t)p->count * PAGE_BYTES;
	struct demote_arg arg;
	char cg[256], old[16] = "";
	int err, n;

	err = pn_probe_cgroup_make("demote", "memory", cg, sizeof(cg));
	if (err)
		return err;
	pn_probe_hold_rmdir(out, cg);
	err = pn_probe_swap_text(knob, "1", old, sizeof(old));
	if (err)
		return err;
	pn_probe_hold_write(out, knob, old[0] ? old : "0");
	arg.cg = cg;
	arg.bytes = bytes;
	pn_nodeset_for_each (n, &env->dev_nodes)
		out->pages[n] = 0;
	err = pn_probe_child(out, cg, demote_child, &arg, out->pages);
	if (err)
		pn_probe_refused(out, err);
	else
		out->triggered++;
	pn_probe_note(out, "%zu KiB faulted at home, MADV_COLD, memory.reclaim", bytes / 1024);
	out->source = "move_pages(2) census of the reclaimed buffer (in the child)";
	return 0;
}

/* ---- DAMON migrate_cold ---- */

#define DAMON "/sys/kernel/mm/damon/admin/kdamonds"
#define DCTX  DAMON "/0/contexts/0"

int pn_probe_damon_supported(const struct pn_probe_env *env, char *why, size_t len)
{
	char buf[64] = "";

	(void)env;
	if (!pn_exists(DAMON "/nr_kdamonds"))
		return snprintf(why, len, "no DAMON sysfs (CONFIG_DAMON_SYSFS)"), -ENOTSUP;
	if (!pn_exists("/sys/kernel/mm/damon/admin") ||
	    pn_read_text(DAMON "/nr_kdamonds", buf, sizeof(buf)) < 0)
		return snprintf(why, len, "DAMON sysfs not readable"), -EACCES;
	if (atoi(buf) != 0)
		return snprintf(why, len, "DAMON is in use (%d kdamonds)", atoi(buf)), -EBUSY;
	return 0;
}

/* Physical range [lo, hi) of the buffer's pages (pagemap, root). */
static int buffer_phys(void *a, size_t bytes, uint64_t *lo, uint64_t *hi)
{
	int fd = pn_open("/proc/self/pagemap", O_RDONLY);
	size_t i;

	if (fd < 0)
		return fd;
	*lo = UINT64_MAX, *hi = 0;
	for (i = 0; i < bytes; i += PAGE_BYTES) {
		uint64_t e, pfn;

		if (pread(fd, &e, 8, (off_t)(((uintptr_t)a + i) / PAGE_BYTES * 8)) != 8 ||
		    !(e >> 63))
			continue;
		pfn = e & ((1ULL << 55) - 1);
		if (pfn * PAGE_BYTES < *lo)
			*lo = pfn * PAGE_BYTES;
		if ((pfn + 1) * PAGE_BYTES > *hi)
			*hi = (pfn + 1) * PAGE_BYTES;
	}
	close(fd);
	return *hi && *hi > *lo ? 0 : -ENOENT;
}

/* One kdamond, paddr, one region, one migrate_cold scheme with a quota. */
static int damon_setup(uint64_t lo, uint64_t hi, int node, size_t quota)
{
	char v[5][32];
	const struct {
		const char *rel, *val;
	} w[] = {
		{ DAMON "/nr_kdamonds", "1" },
		{ DAMON "/0/contexts/nr_contexts", "1" },
		{ DCTX "/operations", "paddr" },
		{ DCTX "/targets/nr_targets", "1" },
		{ DCTX "/targets/0/regions/nr_regions", "1" },
		{ DCTX "/targets/0/regions/0/start", v[0] },
		{ DCTX "/targets/0/regions/0/end", v[1] },
		{ DCTX "/schemes/nr_schemes", "1" },
		{ DCTX "/schemes/0/action", "migrate_cold" },
		/* the access-pattern ranges default to [0, 0]: match every region */
		{ DCTX "/schemes/0/access_pattern/sz/max", "18446744073709551615" },
		{ DCTX "/schemes/0/access_pattern/nr_accesses/max", "4294967295" },
		{ DCTX "/schemes/0/access_pattern/age/max", "4294967295" },
		{ DCTX "/schemes/0/target_nid", v[2] },
		{ DCTX "/schemes/0/quotas/bytes", v[3] },
		{ DCTX "/schemes/0/quotas/reset_interval_ms", v[4] },
		{ DAMON "/0/state", "on" },
	};
	size_t i;

	snprintf(v[0], 32, "%llu", (unsigned long long)lo);
	snprintf(v[1], 32, "%llu", (unsigned long long)hi);
	snprintf(v[2], 32, "%d", node);
	snprintf(v[3], 32, "%zu", quota);
	snprintf(v[4], 32, "%d", 60000);
	for (i = 0; i < PN_ARRAY_SIZE(w); i++) {
		int err = pn_write_text(w[i].rel, w[i].val);

		if (err)
			return pn_error(err, "probe damon: %s <- %s: %s", w[i].rel, w[i].val,
					strerror(-err));
	}
	return 0;
}

static void damon_on(int n, const struct pn_probe_env *env, const struct pn_probe_params *p,
		     struct pn_probe_out *out)
{
	size_t bytes = (size_t)p->count * PAGE_BYTES;
	void *a = map_touched(bytes, false);
	uint64_t lo, hi, applied = 0;
	int64_t census[PN_PROBE_MAX_NODES] = { 0 };
	int err;

	if (!a) {
		pn_probe_refused(out, -errno);
		return;
	}
	move_all(a, bytes, env->home_node);
	err = buffer_phys(a, bytes, &lo, &hi);
	if (!err)
		err = damon_setup(lo, hi, n, bytes);
	if (err) {
		pn_probe_refused(out, err);
	} else {
		out->triggered++;
		usleep(p->settle_ms * 1000U);
		pn_write_text(DAMON "/0/state", "update_schemes_stats");
		pn_read_u64(DCTX "/schemes/0/stats/sz_applied", &applied, false);
	}
	pn_write_text(DAMON "/0/state", "off");
	pn_write_text(DAMON "/nr_kdamonds", "0");
	pn_probe_census(a, bytes, census, NULL);
	/*
	 * Where the buffer's pages are, not sz_applied: DAMON counts a folio
	 * migrated wherever its new page came from, and a target allocation
	 * refused on node n falls back along n's zonelist (to DRAM).
	 */
	out->pages[n] = census[n];
	pn_probe_note(out,
		      "node%d: %lld/%u buffer pages there; DAMON applied %llu KiB (migrated, to "
		      "any node)",
		      n, (long long)census[n], p->count, (unsigned long long)applied / 1024);
	pn_probe_hold_map(out, a, bytes);
}

int pn_probe_damon(const struct pn_probe_env *env, const struct pn_probe_params *p,
		   struct pn_probe_out *out)
{
	int n;

	pn_nodeset_for_each (n, &env->dev_nodes)
		damon_on(n, env, p, out);
	out->source = "move_pages(2) census of the buffer DAMON migrated";
	return 0;
}
