/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup.h - one memory cgroup leaf per workload, under a run-scoped parent.
 *
 * A few small functions over cgroup files, in the manner of the kernel's
 * selftests/cgroup/cgroup_util.c: find the memory hierarchy, make the run's
 * parent, make a leaf, enter it, set limits, read memory.numa_stat and the
 * OOM-kill count, remove it.  cgroup v2 with the memory controller is used
 * where the machine has it; otherwise the v1 memory hierarchy (hybrid
 * hosts); otherwise none, with the reason.  Every path goes through the
 * sysroot (pn_path), so tests can replay trees.
 */
#ifndef PN_CGROUP_H
#define PN_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pn_cgroup_root {
	int version;	     /* 2, 1, or 0 = no memory cgroups here */
	char base[PATH_MAX]; /* the run's parent, relative to the sysroot */
	char reason[256];    /* why version is 0, or how the base was chosen */
};

/* Find the memory hierarchy and create <hierarchy>/<name> (v2: under the
 * hierarchy's root, with +memory in subtree_control; v1: under our own
 * memory cgroup).  Returns 0 with version 0 and a reason when cgroups are
 * not usable: the caller runs workloads without them and says so. */
int pn_cgroup_setup(struct pn_cgroup_root *cr, const char *name);
/* Remove the run's parent (its leaves must be gone). */
void pn_cgroup_teardown(struct pn_cgroup_root *cr);

/* Create leaf <base>/<name>; path receives its relative path. */
int pn_cgroup_leaf(const struct pn_cgroup_root *cr, const char *name, char *path, size_t len);
/* Move the calling process into the leaf. */
int pn_cgroup_enter(const char *path);
/* memory.max (v2) / memory.limit_in_bytes (v1); high is v2 only (-EOPNOTSUPP on v1). */
int pn_cgroup_set_max(const struct pn_cgroup_root *cr, const char *path, uint64_t bytes);
int pn_cgroup_set_high(const struct pn_cgroup_root *cr, const char *path, uint64_t bytes);
/* OOM kills inside the leaf so far (memory.events / memory.oom_control). */
int pn_cgroup_oom_kills(const struct pn_cgroup_root *cr, const char *path, int64_t *kills);
/* Remove the leaf, waiting briefly while it still holds exiting tasks. */
int pn_cgroup_remove(const char *path);
/* The processes in the leaf (its cgroup.procs): the first max pids into
 * pids; returns how many it lists (may be more than max) or -errno. */
int pn_cgroup_procs(const char *path, pid_t *pids, size_t max);
/* Send sig to every process in the cgroup; returns how many it listed or
 * -errno.  SIGKILL writes cgroup.kill where the kernel has it (v2: no pid
 * can be reused or forked past it); elsewhere pid by pid from cgroup.procs
 * (never pid 1 or the caller), so the caller repeats until pn_cgroup_procs()
 * says the cgroup is empty. */
int pn_cgroup_signal(const char *path, int sig);

/* Kinds of memory.numa_stat that the accounting uses, in pages. */
enum pn_cgroup_kind {
	PN_CGROUP_ANON,
	PN_CGROUP_FILE,
	PN_CGROUP_KERNEL_STACK,
	PN_CGROUP_PAGETABLES,
	PN_CGROUP_SLAB,
	PN_CGROUP_SHMEM,
	PN_CGROUP_UNEVICTABLE,
	PN_CGROUP_NKINDS
};
extern const char *const pn_cgroup_kind_names[PN_CGROUP_NKINDS];

/* One node's numa_stat, pages; have[k] false where the file has no such line
 * or no N<node>= entry for it (a kernel that leaves a node out is visible). */
struct pn_cgroup_node {
	int64_t pages[PN_CGROUP_NKINDS];
	bool have[PN_CGROUP_NKINDS];
	bool node_listed; /* some line had an N<node>= entry */
};

/*
 * Parse memory.numa_stat text (v2: "anon N0=<bytes> N1=<bytes>"; v1:
 * "anon=<pages> N0=<pages> ...") for one node into out, in pages.
 * -EINVAL on a malformed line.
 */
int pn_cgroup_parse_numa_stat(const char *buf, int version, int node, long page_size,
			      struct pn_cgroup_node *out);
int pn_cgroup_numa_stat(const struct pn_cgroup_root *cr, const char *path, int node,
			struct pn_cgroup_node *out);

#endif /* PN_CGROUP_H */
