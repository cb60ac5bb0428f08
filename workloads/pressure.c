// SPDX-License-Identifier: GPL-2.0-only
/*
 * pressure.c - general memory pressure, to run beside explicit workloads.
 *
 * These are the general allocations that must never land on a private node.
 * Each kind is chosen by `kinds` and sized from MemAvailable:
 *   anon            anonymous memory (anon_share), faulted in and re-touched
 *                   by `threads` threads pinned to different CPUs (memhog)
 *   thp             the same memory with MADV_HUGEPAGE, THP "always" and
 *                   khugepaged scanning every 100 ms (knobs)
 *   numa_balancing  kernel.numa_balancing=1 (knob) while the threads touch
 *   pagecache       files of pagecache_share on a real filesystem (a
 *                   loop-mounted image, or `device`), written, dropped from
 *                   the cache and re-read every round, verified byte by byte
 *   slab            trees of small files (dentries, inodes), a new tree per
 *                   round and the previous one removed
 *   sockets         AF_UNIX socket pairs and pipes with data queued
 *   compaction      /proc/sys/vm/compact_memory written every compact_interval
 *   reclaim         its own cgroup's memory.high (v2) set below the working
 *                   set: anon + slab + reclaim_share of the page cache
 * Every kind reports what it did (bytes, files, sockets, compaction runs,
 * vmstat deltas such as numa_pte_updates): which pressure was active.
 *
 * A background instance runs until the runner stops it (or `duration`); a
 * foreground one runs `duration`, or one round when that is 0.  setup() (in
 * the runner) makes the filesystem, teardown() in the runner removes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/api/placement.h"
#include "core/sys/procfs.h"
#include "workloads/lib/pkinds.h"
#include "workloads/lib/scratchfs.h"
#include "workloads/lib/stress.h"
#include "core/api/workload.h"

#define ANON_KINDS  (PN_PK_BIT(PN_PK_ANON) | PN_PK_BIT(PN_PK_THP) | PN_PK_BIT(PN_PK_NUMA))
#define FS_KINDS    (PN_PK_BIT(PN_PK_PAGECACHE) | PN_PK_BIT(PN_PK_SLAB))
#define HUGE_BYTES  (2u << 20)
#define PC_FILE_MAX (16u << 20)

/* vmstat counters whose deltas say what the kernel did under the pressure */
static const char *const vm_keys[] = {
	"numa_pte_updates",	   "numa_hint_faults", "numa_pages_migrated",
	"pgmigrate_success",	   "compact_stall",    "compact_success",
	"compact_migrate_scanned", "thp_fault_alloc",  "thp_collapse_alloc",
	"pgscan_kswapd",	   "pgscan_direct",    "pgsteal_kswapd",
	"pgsteal_direct",	   "pswpout",	       "zswpout",
	"workingset_refault_file",
};
#define NVM PN_ARRAY_SIZE(vm_keys)

static const char *const fstypes[] = { "ext4", "ext3", "ext2", NULL };
static int check_kinds(const char *s, char *why, size_t whylen);

static const struct pn_opt pressure_opts[] = {
	{ "kinds", PN_OPT_STRING, "anon,pagecache,slab,sockets",
	  "comma list of anon, thp, numa_balancing, pagecache, slab, sockets, compaction, "
	  "reclaim, or all",
	  NULL, 0, 0, check_kinds },
	{ "anon_share", PN_OPT_DOUBLE, "0.05", "anonymous memory, share of MemAvailable", NULL, 0,
	  0.9 },
	{ "pagecache_share", PN_OPT_DOUBLE, "0.05", "page cache files, share of MemAvailable", NULL,
	  0, 0.9 },
	{ "files", PN_OPT_INT, "4096", "small files per slab tree", NULL, 1, 4194304 },
	{ "depth", PN_OPT_INT, "8", "nested directories above every 64 files", NULL, 1, 64 },
	{ "sockets", PN_OPT_INT, "256", "AF_UNIX sockets (in pairs)", NULL, 0, 1048576 },
	{ "pipes", PN_OPT_INT, "64", "pipes", NULL, 0, 1048576 },
	{ "queue_bytes", PN_OPT_SIZE, "4K", "data queued in each socket pair and pipe", NULL, 0,
	  65536 },
	{ "threads", PN_OPT_INT, "0", "threads touching the anon memory, 0 = one per CPU", NULL, 0,
	  64 },
	{ "duration", PN_OPT_DURATION, "0",
	  "how long to run (at least one round); 0 = until stopped (background) or one round "
	  "(foreground)",
	  NULL, 0, 86400000 },
	{ "compact_interval", PN_OPT_DURATION, "1s", "kind compaction: time between runs", NULL, 1,
	  3600000 },
	{ "reclaim_share", PN_OPT_DOUBLE, "0.5",
	  "kind reclaim: share of the page cache memory.high leaves room for", NULL, 0, 1 },
	{ "device", PN_OPT_STRING, "",
	  "scratch block device for the files (its contents are destroyed); \"\" = an image", NULL,
	  0, 0 },
	{ "image_dir", PN_OPT_STRING, "/var/tmp", "where the filesystem image is made", NULL, 0,
	  0 },
	{ "fstype", PN_OPT_ENUM, "ext4", "filesystem made on the image or device (mke2fs)", fstypes,
	  0, 0 },
	{ "max_mem_share", PN_OPT_DOUBLE, "0.5",
	  "refuse sizes above this share of MemAvailable, in [0.01, 0.9]", NULL, 0.01, 0.9 },
	{ NULL },
};

static const struct pn_metric_decl pressure_metrics[] = {
	{ "active", PN_UNIT_NONE, PN_BETTER_NONE, PN_AGG_MAX, "1 if the kind ran (label kind)" },
	{ "bytes", PN_UNIT_BYTES, PN_BETTER_NONE, PN_AGG_LAST,
	  "bytes held at the end (label kind)" },
	{ "bytes_written", PN_UNIT_BYTES, PN_BETTER_NONE, PN_AGG_SUM, "page cache bytes written" },
	{ "bytes_read", PN_UNIT_BYTES, PN_BETTER_NONE, PN_AGG_SUM, "page cache bytes re-read" },
	{ "bad_bytes", PN_UNIT_BYTES, PN_BETTER_LOWER, PN_AGG_MAX, "re-read bytes that differ" },
	{ "rounds", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM, "rounds of file and tree work" },
	{ "pages_touched", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_SUM, "anon pages re-touched" },
	{ "files_created", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM, "label kind" },
	{ "files_removed", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM, "label kind" },
	{ "dirs_created", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM, NULL },
	{ "dirs_removed", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM, NULL },
	{ "sockets", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_LAST, "sockets held open" },
	{ "pipes", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_LAST, "pipes held open" },
	{ "bytes_queued", PN_UNIT_BYTES, PN_BETTER_NONE, PN_AGG_LAST,
	  "in socket and pipe buffers" },
	{ "compaction_runs", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM,
	  "compact_memory writes completed" },
	{ "compaction_started", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM,
	  "compact_memory writes begun (the last one is cut short at the end)" },
	{ "memory_high_bytes", PN_UNIT_BYTES, PN_BETTER_NONE, PN_AGG_LAST,
	  "its cgroup's memory.high" },
	{ "memory_high_events", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM,
	  "memory.events high: times the cgroup went over memory.high" },
	{ "vmstat_delta", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_SUM,
	  "/proc/vmstat growth during run() (label counter)" },
	{ "duration_ns", PN_UNIT_NS, PN_BETTER_NONE, PN_AGG_MEDIAN, "time run() ran" },
	{ NULL },
};

struct pressure_priv {
	unsigned kinds;
	size_t page_bytes;
	uint64_t anon_bytes, pc_bytes, tree_files, nsockets, npipes, queue_bytes;
	uint64_t duration_ms, compact_ms;
	uint64_t general_bytes; /* MemAvailable less the private nodes' free memory */
	unsigned depth, nthreads;
	size_t pc_nfiles;
	double reclaim_share;
	struct pn_scratch_fs fs;
	/* child state */
	struct pn_memhog hog;
	uint64_t touched_pages;
	struct pn_fds fds;
	struct pn_ticker compact;
	unsigned tree_gen; /* the tree that stands: t<tree_gen-1> */
	uint64_t end_ns;   /* duration's end, 0 = none */
	bool cut;	   /* a round was cut short by the end */
	/* what it did */
	uint64_t pc_held, pc_written, pc_read, pc_bad, rounds, high_bytes;
	struct pn_tree_stats made, removed;
	int64_t vm0[NVM], high0;
};

static int pressure_supported(const struct pn_env *env, char *why, size_t whylen)
{
	if (env && !env->is_root) {
		snprintf(why, whylen, "needs root (mounts a scratch filesystem, sets knobs)");
		return -EPERM;
	}
	return 0;
}

/* The option's load-time check (params.h): the config error names its path. */
static int check_kinds(const char *s, char *why, size_t whylen)
{
	unsigned kinds;

	return pn_pkinds_parse(s, &kinds, why, whylen);
}

static int parse_kinds(const char *s, unsigned *kinds)
{
	char why[256];

	if (pn_pkinds_parse(s, kinds, why, sizeof(why)))
		return pn_error(-EINVAL, "workload pressure: kinds: %s", why);
	return 0;
}

/* Knobs and kernel features a kind needs; -EOPNOTSUPP says which is missing. */
static int ask_knobs(struct pn_wl *w, const struct pressure_priv *p)
{
	uint64_t swap = 0;
	int ret = 0;

	if (p->kinds & PN_PK_BIT(PN_PK_NUMA)) {
		if (!pn_exists("/proc/sys/kernel/numa_balancing"))
			return pn_error(-EOPNOTSUPP, "workload pressure: kinds numa_balancing: "
						     "no /proc/sys/kernel/numa_balancing here "
						     "(CONFIG_NUMA_BALANCING)");
		ret = pn_wl_knob(w, "kernel.numa_balancing", "1");
	}
	if (!ret && (p->kinds & PN_PK_BIT(PN_PK_THP))) {
		if (!pn_exists("/sys/kernel/mm/transparent_hugepage/enabled"))
			return pn_error(-EOPNOTSUPP, "workload pressure: kinds thp: no "
						     "transparent_hugepage in sysfs");
		ret = pn_wl_knob(w, "thp.enabled", "always");
		if (!ret)
			ret = pn_wl_knob(w, "thp.defrag", "defer+madvise");
		if (!ret)
			ret = pn_wl_knob(w, "thp.khugepaged.scan_sleep_millisecs", "100");
		if (!ret)
			ret = pn_wl_knob(w, "thp.khugepaged.pages_to_scan", "4096");
	}
	/* reclaim: swap out through zswap where both are there */
	if (!ret && (p->kinds & PN_PK_BIT(PN_PK_RECLAIM)) && !pn_swap_total(&swap) && swap &&
	    pn_exists("/sys/module/zswap/parameters/enabled"))
		ret = pn_wl_knob(w, "zswap.enabled", "Y");
	if (!ret && (p->kinds & PN_PK_BIT(PN_PK_COMPACTION)) &&
	    !pn_exists("/proc/sys/vm/compact_memory"))
		return pn_error(-EOPNOTSUPP, "workload pressure: kinds compaction: no "
					     "/proc/sys/vm/compact_memory (CONFIG_COMPACTION)");
	return ret;
}

/* Sizes from MemAvailable and the options; what the filesystem must hold. */
static int plan(struct pn_wl *w, struct pressure_priv *p, uint64_t *fs_bytes)
{
	double anon_share = pn_param_double(&w->params, "anon_share");
	double pc_share = pn_param_double(&w->params, "pagecache_share");
	uint64_t avail, ndirs;
	int ret = pn_general_available(w->topo, &p->general_bytes, &avail);

	if (ret)
		return pn_error(ret, "workload pressure: cannot read MemAvailable");
	avail += p->general_bytes; /* the same bytes on every kernel */
	if ((p->kinds & ANON_KINDS) && anon_share <= 0.0)
		return pn_error(-EINVAL, "workload pressure: anon_share must be > 0 for kinds "
					 "anon, thp and numa_balancing");
	if ((p->kinds & PN_PK_BIT(PN_PK_PAGECACHE)) && pc_share <= 0.0)
		return pn_error(-EINVAL, "workload pressure: pagecache_share must be > 0 for kind "
					 "pagecache");
	if (p->kinds & ANON_KINDS) {
		p->anon_bytes = (uint64_t)(anon_share * (double)avail) / HUGE_BYTES * HUGE_BYTES;
		if (p->anon_bytes < HUGE_BYTES)
			p->anon_bytes = HUGE_BYTES;
	}
	if (p->kinds & PN_PK_BIT(PN_PK_PAGECACHE)) {
		p->pc_bytes = (uint64_t)(pc_share * (double)avail) / p->page_bytes * p->page_bytes;
		if (p->pc_bytes < p->page_bytes)
			p->pc_bytes = p->page_bytes;
		p->pc_nfiles = (size_t)((p->pc_bytes + PC_FILE_MAX - 1) / PC_FILE_MAX);
	}
	if (!(p->kinds & PN_PK_BIT(PN_PK_SLAB)))
		p->tree_files = 0;
	if (!(p->kinds & PN_PK_BIT(PN_PK_SOCKETS)))
		p->nsockets = p->npipes = 0;
	ndirs = (p->tree_files + 63) / 64 * p->depth;
	/* two trees stand while one replaces the other; 16 KiB per inode */
	*fs_bytes =
		p->pc_bytes + p->pc_bytes / 8 + 2 * (p->tree_files + ndirs) * 16384 + (64u << 20);
	w->mem_bytes = p->anon_bytes + p->pc_bytes + 2 * (p->tree_files + ndirs) * 2048 +
		       p->nsockets * (p->queue_bytes + 4096) + p->npipes * (p->queue_bytes + 8192);
	return 0;
}

static int pressure_setup(struct pn_wl *w)
{
	struct pressure_priv *p = pn_xcalloc(1, sizeof(*p));
	double share = pn_param_double(&w->params, "max_mem_share");
	long psz = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t fs_bytes = 0;
	int ret;

	w->priv = p;
	p->page_bytes = psz > 0 ? (size_t)psz : 4096;
	p->tree_files = (uint64_t)pn_param_int(&w->params, "files");
	p->depth = (unsigned)pn_param_int(&w->params, "depth");
	p->nsockets = (uint64_t)pn_param_int(&w->params, "sockets");
	p->npipes = (uint64_t)pn_param_int(&w->params, "pipes");
	p->queue_bytes = pn_param_size(&w->params, "queue_bytes");
	p->nthreads = (unsigned)pn_param_int(&w->params, "threads");
	if (!p->nthreads)
		p->nthreads = ncpu > 0 ? (unsigned)(ncpu < 64 ? ncpu : 64) : 1;
	p->duration_ms = pn_param_duration_ms(&w->params, "duration");
	p->compact_ms = pn_param_duration_ms(&w->params, "compact_interval");
	p->reclaim_share = pn_param_double(&w->params, "reclaim_share");
	ret = parse_kinds(pn_param_str(&w->params, "kinds"), &p->kinds);
	if (!ret)
		ret = plan(w, p, &fs_bytes);
	if (ret)
		return ret;
	if (w->max_mem_share > 0.0 && w->max_mem_share < share)
		share = w->max_mem_share;
	ret = pn_mem_guard(w->mem_bytes, share, "workload pressure: anon_share + pagecache_share");
	/* On private nodes' kernels MemAvailable counts their free memory; what
	 * cannot be reclaimed must fit in what general allocations can use. */
	if (!ret && p->anon_bytes > (uint64_t)(share * (double)p->general_bytes))
		ret = pn_error(-ENOMEM,
			       "workload pressure: anon_share: %llu MiB of anonymous memory is "
			       "over %.0f%% of the %llu MiB general allocations can use "
			       "(MemAvailable less the private nodes' free memory)",
			       (unsigned long long)(p->anon_bytes >> 20), share * 100,
			       (unsigned long long)(p->general_bytes >> 20));
	w->general_anon_bytes = p->anon_bytes;
	if (!ret)
		ret = ask_knobs(w, p);
	if (!ret && (p->kinds & FS_KINDS))
		ret = pn_scratch_fs_make(&p->fs, pn_param_str(&w->params, "device"),
					 pn_param_str(&w->params, "image_dir"), fs_bytes,
					 pn_param_str(&w->params, "fstype"));
	return ret;
}

/* ------------------------------------------------------------- child */

/* Time to end: the runner or a signal asked, or the duration is over (after
 * the first round, so that every kind has run once). */
static bool ending(const struct pn_wl *w)
{
	const struct pressure_priv *p = w->priv;

	return pn_wl_should_stop(w) || (p->rounds && p->end_ns && pn_now_ns() >= p->end_ns);
}

/* A tree is finished unless the runner or a signal stops it: the one that
 * stands at the end is whole. */
static bool wl_stop(const void *arg)
{
	return pn_wl_should_stop(arg);
}

/* memory.high of its own leaf (cgroup v2) below the working set. */
static void reclaim_start(struct pn_wl *w, struct pressure_priv *p)
{
	char rel[PATH_MAX + 16], val[32];
	uint64_t high;

	if (!w->cgroup_path) {
		pn_res_note(&w->res, "kind reclaim: no cgroup leaf, memory.high not set");
		return;
	}
	snprintf(rel, sizeof(rel), "%s/memory.high", w->cgroup_path);
	if (!pn_exists(rel)) {
		pn_res_note(&w->res, "kind reclaim: %s has no memory.high (cgroup v1)",
			    w->cgroup_path);
		return;
	}
	high = p->anon_bytes + p->made.files * 4096 + (64u << 20) +
	       (uint64_t)((double)p->pc_bytes * p->reclaim_share);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)high);
	if (pn_write_text(rel, val)) {
		pn_res_note(&w->res, "kind reclaim: cannot write %s", rel);
		return;
	}
	p->high_bytes = high;
	snprintf(rel, sizeof(rel), "%s/memory.events", w->cgroup_path);
	if (pn_kv_file_get(rel, "high", &p->high0))
		p->high0 = -1;
}

static int pagecache_round(struct pn_wl *w, struct pressure_priv *p)
{
	char path[PATH_MAX + 32];
	int ret = 0;

	for (size_t i = 0; i < p->pc_nfiles && !ret; i++) {
		uint64_t off = (uint64_t)i * PC_FILE_MAX, n, wr, rd, bad;
		uint64_t seed = p->rounds << 32 | i;

		if (ending(w)) {
			p->cut = true;
			break;
		}
		n = p->pc_bytes - off < PC_FILE_MAX ? p->pc_bytes - off : PC_FILE_MAX;
		snprintf(path, sizeof(path), "%s/pc%zu", p->fs.mnt, i);
		ret = pn_file_fill(path, n, seed, &wr);
		p->pc_written += wr;
		if (!ret && off + n > p->pc_held)
			p->pc_held = off + n; /* files stay from round to round */
		if (!ret)
			ret = pn_file_verify(path, n, seed, true, &rd, &bad);
		if (!ret) {
			p->pc_read += rd;
			p->pc_bad += bad;
		}
	}
	return ret;
}

/* A new tree, then the previous one removed: one whole tree stands at the
 * end (or the first one, cut short). */
static int slab_round(struct pn_wl *w, struct pressure_priv *p)
{
	struct pn_tree_stats s;
	char root[PATH_MAX + 32];
	int ret;

	snprintf(root, sizeof(root), "%s/t%u", p->fs.mnt, p->tree_gen);
	ret = pn_tree_make(root, p->tree_files, p->depth, 64, wl_stop, w, &s);
	p->made.files += s.files;
	p->made.dirs += s.dirs;
	p->cut |= s.files < p->tree_files;
	/* Cut short by a stop: the previous whole tree stays, this one goes. */
	if (!ret && s.files < p->tree_files && p->tree_gen)
		ret = pn_tree_remove(root, &s);
	else if (!ret && ++p->tree_gen >= 2) {
		snprintf(root, sizeof(root), "%s/t%u", p->fs.mnt, p->tree_gen - 2);
		ret = pn_tree_remove(root, &s);
	} else
		return ret;
	p->removed.files += s.files;
	p->removed.dirs += s.dirs;
	return ret;
}

static int rounds(struct pn_wl *w, struct pressure_priv *p, uint64_t t0)
{
	bool forever = !p->duration_ms && w->background;
	struct timespec idle = { 0, 20000000L };
	int ret = 0;

	p->end_ns = p->duration_ms ? t0 + p->duration_ms * 1000000ULL : 0;
	do {
		if (p->kinds & PN_PK_BIT(PN_PK_PAGECACHE))
			ret = pagecache_round(w, p);
		if (!ret && (p->kinds & PN_PK_BIT(PN_PK_SLAB)) && !ending(w))
			ret = slab_round(w, p);
		if (ret)
			break;
		p->rounds++;
		if (!(p->kinds & FS_KINDS))
			nanosleep(&idle, NULL); /* nothing to do but let the threads touch */
	} while (!ending(w) && (forever || p->end_ns));
	return ret;
}

static void report_counts(struct pn_wl *w, struct pressure_priv *p)
{
	for (unsigned k = 0; k < PN_PK_N; k++) {
		char lab[48];

		snprintf(lab, sizeof(lab), "kind=%s", pn_pkind_names[k]);
		pn_wl_metric(w, "active", lab, (p->kinds & PN_PK_BIT(k)) ? 1.0 : 0.0);
	}
	if (p->kinds & ANON_KINDS) {
		pn_wl_metric(w, "bytes", "kind=anon", (double)p->hog.faulted_bytes);
		pn_wl_metric(w, "pages_touched", "kind=anon", (double)p->touched_pages);
	}
	if (p->kinds & PN_PK_BIT(PN_PK_PAGECACHE)) {
		pn_wl_metric(w, "bytes", "kind=pagecache", (double)p->pc_held);
		pn_wl_metric(w, "bytes_written", "kind=pagecache", (double)p->pc_written);
		pn_wl_metric(w, "bytes_read", "kind=pagecache", (double)p->pc_read);
		pn_wl_metric(w, "bad_bytes", "kind=pagecache", (double)p->pc_bad);
	}
	if (p->kinds & PN_PK_BIT(PN_PK_SLAB)) {
		pn_wl_metric(w, "files_created", "kind=slab", (double)p->made.files);
		pn_wl_metric(w, "files_removed", "kind=slab", (double)p->removed.files);
		pn_wl_metric(w, "dirs_created", "kind=slab", (double)p->made.dirs);
		pn_wl_metric(w, "dirs_removed", "kind=slab", (double)p->removed.dirs);
	}
	if (p->kinds & PN_PK_BIT(PN_PK_SOCKETS)) {
		pn_wl_metric(w, "sockets", "kind=sockets", (double)p->fds.sockets);
		pn_wl_metric(w, "pipes", "kind=sockets", (double)p->fds.pipes);
		pn_wl_metric(w, "bytes_queued", "kind=sockets", (double)p->fds.queued_bytes);
	}
	if (p->kinds & PN_PK_BIT(PN_PK_COMPACTION)) {
		pn_wl_metric(w, "compaction_runs", "kind=compaction", (double)p->compact.done);
		pn_wl_metric(w, "compaction_started", "kind=compaction",
			     (double)p->compact.started);
	}
	pn_wl_metric(w, "rounds", NULL, (double)p->rounds);
}

static void report_kernel(struct pn_wl *w, struct pressure_priv *p)
{
	uint64_t swap = 0;

	if ((p->kinds & PN_PK_BIT(PN_PK_RECLAIM)) && !pn_swap_total(&swap) && !swap)
		pn_res_note(&w->res,
			    "kind reclaim: no swap here, only page cache can be reclaimed");
	if (p->high_bytes) {
		char rel[PATH_MAX + 16];
		int64_t h1 = -1;

		pn_wl_metric(w, "memory_high_bytes", "kind=reclaim", (double)p->high_bytes);
		snprintf(rel, sizeof(rel), "%s/memory.events", w->cgroup_path);
		if (p->high0 >= 0 && !pn_kv_file_get(rel, "high", &h1))
			pn_wl_metric(w, "memory_high_events", "kind=reclaim",
				     (double)(h1 - p->high0));
	}
	pn_vmstat_report(&w->res, "vmstat_delta", vm_keys, NVM, p->vm0);
}

/* Checks on what it did: the data came back, the trees were as planned. */
static void report_checks(struct pn_wl *w, const struct pressure_priv *p, bool stopped)
{
	struct pn_res *r = &w->res;

	if ((p->kinds & PN_PK_BIT(PN_PK_PAGECACHE)) && p->pc_written) {
		pn_res_check_eq(r, "page cache: bytes re-read = bytes written",
				(int64_t)p->pc_written, (int64_t)p->pc_read, "bytes");
		pn_res_check_eq(r, "page cache: re-read bytes that differ", 0, (int64_t)p->pc_bad,
				"bytes");
	}
	if ((p->kinds & PN_PK_BIT(PN_PK_SLAB)) && !stopped && p->tree_gen)
		pn_res_check_eq(r, "slab: files created = files per tree x trees",
				(int64_t)(p->tree_files * p->tree_gen), (int64_t)p->made.files,
				"files");
	if ((p->kinds & PN_PK_BIT(PN_PK_SLAB)) && p->tree_gen > 1 && !stopped)
		pn_res_check_eq(r, "slab: files removed = files of the replaced trees",
				(int64_t)(p->tree_files * (p->tree_gen - 1)),
				(int64_t)p->removed.files, "files");
	if (p->kinds & PN_PK_BIT(PN_PK_SOCKETS))
		pn_res_check_eq(r, "sockets and pipes held open",
				(int64_t)((p->nsockets + 1) / 2 * 2 + p->npipes),
				(int64_t)(p->fds.sockets + p->fds.pipes), "");
}

static int pressure_run(struct pn_wl *w)
{
	struct pressure_priv *p = w->priv;
	uint64_t t0 = pn_now_ns();
	int ret = 0;

	if (pn_vmstat_read(vm_keys, NVM, p->vm0))
		for (size_t i = 0; i < NVM; i++)
			p->vm0[i] = -1;
	if (p->kinds & PN_PK_BIT(PN_PK_RECLAIM))
		reclaim_start(w, p);
	if (p->kinds & ANON_KINDS)
		ret = pn_memhog_start(&p->hog, p->anon_bytes, p->kinds & PN_PK_BIT(PN_PK_THP),
				      p->nthreads, wl_stop, w);
	if (!ret && p->nsockets)
		ret = pn_fds_sockets(&p->fds, p->nsockets, p->queue_bytes);
	if (!ret && p->npipes)
		ret = pn_fds_pipes(&p->fds, p->npipes, p->queue_bytes);
	if (!ret && (p->kinds & PN_PK_BIT(PN_PK_COMPACTION)))
		ret = pn_ticker_start(&p->compact, "/proc/sys/vm/compact_memory", "1",
				      p->compact_ms);
	if (!ret)
		ret = rounds(w, p, t0);
	pn_ticker_stop(&p->compact);
	p->touched_pages = pn_memhog_stop(&p->hog);
	report_counts(w, p);
	report_kernel(w, p);
	report_checks(w, p, p->cut);
	pn_wl_metric(w, "duration_ns", NULL, (double)(pn_now_ns() - t0));
	if (p->fs.mounted)
		pn_res_note(&w->res, "files on %s (%s on %s%s)", p->fs.mnt, p->fs.fstype, p->fs.dev,
			    p->fs.direct_io ? ", loop with direct I/O" : "");
	if (!ret && pn_should_stop())
		ret = -EINTR; /* a signal, not the runner's normal stop */
	return ret;
}

/* Undo run(): idempotent, so the runner's copy (which never ran) is a no-op. */
static void release_run(struct pressure_priv *p)
{
	char root[PATH_MAX + 32];
	struct pn_tree_stats s;

	pn_ticker_stop(&p->compact);
	pn_memhog_free(&p->hog);
	pn_fds_close(&p->fds);
	if (!p->fs.mounted)
		return;
	for (unsigned g = p->tree_gen >= 2 ? p->tree_gen - 2 : 0; g < p->tree_gen; g++) {
		snprintf(root, sizeof(root), "%s/t%u", p->fs.mnt, g);
		(void)pn_tree_remove(root, &s);
	}
	p->tree_gen = 0;
	for (size_t i = 0; i < p->pc_nfiles; i++) {
		snprintf(root, sizeof(root), "%s/pc%zu", p->fs.mnt, i);
		(void)unlink(root);
	}
}

static void pressure_teardown(struct pn_wl *w)
{
	struct pressure_priv *p = w->priv;

	if (!p)
		return;
	release_run(p);
	if (w->in_child)
		return; /* the runner's teardown removes the filesystem */
	pn_scratch_fs_remove(&p->fs);
	free(p);
	w->priv = NULL;
}

const struct pn_workload pn_workload_pressure = {
	.name = "pressure",
	.summary = "general memory pressure (anon, THP, NUMA balancing, page cache, slab, "
		   "sockets, compaction, reclaim) that must stay off private nodes",
	.opts = pressure_opts,
	.metrics = pressure_metrics,
	.supported = pressure_supported,
	.setup = pressure_setup,
	.run = pressure_run,
	.teardown = pressure_teardown,
};
