/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * probe.h - leak probes: user-triggerable kernel paths that allocate on an
 * explicitly named node or on every node of a node-state mask.
 *
 * The LSFMM+BPF 2026 argument is that dropping device nodes from the
 * fallback zonelists ("isolate") is not enough, because kernel code allocates
 * with explicit node ids (alloc_pages_node(), kmalloc_node(), vmalloc_node(),
 * __GFP_THISNODE) or on every node of a mask (for_each_online_node(),
 * for_each_node_state(N_MEMORY)).  Each probe here drives one such path from
 * user space (root) against the device nodes and measures, as exactly as the
 * path allows, how many pages landed on each of them.  On a kernel with
 * private-node support every probe must measure 0.
 *
 * The library has no dependency on the runner: workloads/probes.c wraps it
 * for pnbench, tests/tools/pn-probes.c drives it standalone (in guests).
 * Every /proc and /sys path goes through the sysroot (pn.h), so supported()
 * can be replayed against captured trees.
 */
#ifndef PN_PROBE_H
#define PN_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

/* Node ids a probe measures (device nodes are small ids in practice). */
#define PN_PROBE_MAX_NODES 64

/*
 * What kind of kernel path a probe drives (the "kind" column of the results).
 * Every probe is a node path: an explicit node id (demotion's is the target
 * memory tiers pick, next_demotion_node()) or a per-node loop.  Dropping a
 * node from the fallback lists ("isolate", kernel-series/CONTRACT.md) leaves
 * all of them reaching it, demotion included; only private nodes give 0.
 */
enum pn_probe_kind {
	PN_PROBE_NODE_PATH,
};
const char *pn_probe_kind_name(enum pn_probe_kind k);

/* The machine as a probe sees it. */
struct pn_probe_env {
	struct pn_nodeset dev_nodes; /* device nodes to probe (the private role) */
	int home_node;		     /* an ordinary node for the probe's own memory */
	bool is_root;
};

/* Per-probe parameters (option "<probe>_count"/"size" in the workload). */
struct pn_probe_params {
	unsigned int count;	/* objects, pages or huge pages per device node (0 = default) */
	unsigned int settle_ms; /* DAMON/kswapd waits (0 = default) */
};

/* What a probe holds until pn_probe_release(): the objects it made the
 * kernel allocate stay allocated, so that whoever accounts around the probe
 * (the runner, the standalone driver) sees them. */
enum pn_undo_type {
	PN_UNDO_CLOSE,	/* close(fd) */
	PN_UNDO_MUNMAP, /* munmap(addr, len) */
	PN_UNDO_RMDIR,	/* rmdir(sysroot + path) */
	PN_UNDO_WRITE,	/* write val to sysroot + path (restore a knob) */
	PN_UNDO_KILL,	/* SIGKILL and reap a child holding memory */
};
struct pn_probe_undo {
	enum pn_undo_type type;
	int fd; /* CLOSE; pid for KILL */
	void *addr;
	size_t len;
	char *path, *val; /* owned */
};

/* What a probe measured.  pages[n] is the exact measure of pages the
 * kernel path put on node n (see source); -1 = not measured for n. */
struct pn_probe_out {
	int64_t pages[PN_PROBE_MAX_NODES];
	uint64_t triggered; /* trigger operations that the kernel accepted */
	uint64_t refused;   /* trigger operations that the kernel refused (errno) */
	int first_errno;    /* errno of the first refusal, 0 if none */
	const char *source; /* how pages[] were measured */
	char note[512];	    /* what happened, for humans */
	bool skipped;	    /* could not run (why in note) */
	/* Growth of used memory (MemTotal - MemFree) of each device node from
	 * before the trigger to after it, objects still held: the inexact
	 * whole-node view beside pages[] (-1 = not measured). */
	int64_t used_delta[PN_PROBE_MAX_NODES];
	/* Pages the probe itself placed on a node on purpose and holds (the
	 * source pages of madv_collapse): explicit, not a leak.  A runner that
	 * accounts around the probe must count them as explained. */
	int64_t explicit_pages[PN_PROBE_MAX_NODES];
	struct pn_probe_undo *undo; /* what pn_probe_release() undoes, in reverse */
	size_t nundo;
};

struct pn_probe {
	const char *name;
	const char *subsys;
	const char *kpath;	    /* file:function of the allocation path (6.12) */
	const char *trigger;	    /* what user space does */
	const char *private_expect; /* what a correct private-node kernel does */
	const char *cleanup;
	enum pn_probe_kind kind;
	bool needs_normal;	    /* only reaches ZONE_NORMAL device memory */
	unsigned int default_count; /* see pn_probe_params.count */
	/* Files the probe writes and restores itself, ';'-separated, "%d" =
	 * each device node (see pn_probe_knobs()); NULL = none. */
	const char *knobs;
	/* 0 if it can run here, else -errno with the reason in why. */
	int (*supported)(const struct pn_probe_env *env, char *why, size_t whylen);
	/* Run against every node of env->dev_nodes; fills out.  Returns 0 when
	 * the probe ran (leak or not), -errno on a failure of the probe itself. */
	int (*run)(const struct pn_probe_env *env, const struct pn_probe_params *p,
		   struct pn_probe_out *out);
};

extern const struct pn_probe pn_probes[];
extern const size_t pn_nprobes;
const struct pn_probe *pn_probe_find(const char *name);

/*
 * Why a probe would not run here (root, subsystem, device node, movable-only
 * memory), or 0.  Checks the generic conditions, then probe->supported().
 */
int pn_probe_supported(const struct pn_probe *probe, const struct pn_probe_env *env, char *why,
		       size_t whylen);

/*
 * The files probe writes (and restores on release), with their current
 * values: fn(ctx, path, value) for each that exists.  A runner that
 * registers them as knobs restores them even when the probe's process dies
 * before its release.
 */
void pn_probe_knobs(const struct pn_probe *probe, const struct pn_probe_env *env,
		    void (*fn)(void *ctx, const char *path, const char *value), void *ctx);

/* Run one probe (out is cleared first, pages[] set to -1 outside dev_nodes).
 * What the probe made the kernel allocate is still held on return; call
 * pn_probe_release(out) after measuring (also after an error). */
int pn_probe_run(const struct pn_probe *probe, const struct pn_probe_env *env,
		 const struct pn_probe_params *p, struct pn_probe_out *out);
/* Undo what the probe holds (reverse order) and free the undo list. */
void pn_probe_release(struct pn_probe_out *out);

/* Holders used by the probes (probe_util.c). */
void pn_probe_hold_fd(struct pn_probe_out *out, int fd);
void pn_probe_hold_map(struct pn_probe_out *out, void *addr, size_t len);
void pn_probe_hold_rmdir(struct pn_probe_out *out, const char *path);
void pn_probe_hold_write(struct pn_probe_out *out, const char *path, const char *val);
/*
 * Run fn(arg, pages) in a child process (joining cgroup cg first when cg is
 * not NULL) that keeps its memory until release.  pages[] (PN_PROBE_MAX_NODES
 * entries, shared) is what fn measured.  Returns 0, or -errno when the child
 * failed before it reported.
 */
int pn_probe_child(struct pn_probe_out *out, const char *cg, int (*fn)(void *arg, int64_t *pages),
		   void *arg, int64_t *pages);

/* ---- helpers shared by the probe files (probe_util.c) ---- */

/* Pages of node memory in ZONE_NORMAL/DMA32 (managed, /proc/zoneinfo); -errno. */
int64_t pn_probe_node_kernel_pages(int node);

/* Per-node pages of vmalloc areas (/proc/vmallocinfo "N<n>=<pages>").  A
 * snapshot keeps every area's start address; the delta counts only areas
 * that appeared after the snapshot. */
struct pn_vmalloc_snap {
	uint64_t *starts;
	size_t n;
};
int pn_vmalloc_snap(struct pn_vmalloc_snap *s);
/* pages[] += pages per node of areas new since s (nodes < PN_PROBE_MAX_NODES). */
int pn_vmalloc_new_pages(const struct pn_vmalloc_snap *s, int64_t *pages);
void pn_vmalloc_snap_free(struct pn_vmalloc_snap *s);

/* Per-node objects of every slab cache (/sys/kernel/slab/<cache>/objects,
 * "N N0=.. N1=..", CONFIG_SLUB_DEBUG), to count the object bytes a probe
 * adds on a node even when they fit into slabs that already exist. */
struct pn_slab_snap {
	struct pn_slab_cache *c;
	size_t n;
};
int pn_slab_snap(struct pn_slab_snap *s);
/* bytes[n] += (objects now - objects at snap) x object_size, per node. */
int pn_slab_new_bytes(const struct pn_slab_snap *s, int64_t *bytes);
void pn_slab_snap_free(struct pn_slab_snap *s);

/* Per-node slab bytes (nodeN/vmstat nr_slab_{un,}reclaimable pages x 4096). */
int pn_node_slab_bytes(int node, int64_t *bytes);

/* Per-node free-page counter (nodeN/meminfo MemFree, pages). */
int pn_node_free_pages(int node, int64_t *pages);
int pn_node_total_pages(int node, int64_t *pages);

/* move_pages(2) census of [addr, addr+len): pages per node into pages[]. */
int pn_probe_census(void *addr, size_t len, int64_t *pages, uint64_t *unmapped);

/* Write an integer/string to a file under the sysroot, reading the old
 * value into old (if old != NULL) first. */
int pn_probe_swap_text(const char *rel, const char *val, char *old, size_t oldlen);

/* A cgroup v2 directory under the root for a probe: creates
 * /sys/fs/cgroup/pnprobe-<tag>-<pid>, enabling ctrl ("memory", "hugetlb")
 * in the root's subtree_control when needed. path gets the sysroot-relative
 * directory. */
int pn_probe_cgroup_make(const char *tag, const char *ctrl, char *path, size_t len);
int pn_probe_cgroup_rmdir(const char *path);

void pn_probe_note(struct pn_probe_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pn_probe_refused(struct pn_probe_out *out, int err);

#endif /* PN_PROBE_H */
