/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * knob.h - global kernel knobs a phase sets and the runner restores.
 *
 * A knob is named by an alias or a path:
 *   sysctl names   "kernel.numa_balancing", "vm.compaction_proactiveness"
 *                  -> /proc/sys/kernel/numa_balancing ...
 *   thp.enabled, thp.defrag, thp.khugepaged.<file>
 *                  -> /sys/kernel/mm/transparent_hugepage/...
 *   weighted_interleave.<node>
 *                  -> /sys/kernel/mm/mempolicy/weighted_interleave/node<node>
 *   zswap.<param>  -> /sys/module/zswap/parameters/<param>
 *   private_node.<node>.<attr>
 *                  -> /sys/devices/system/node/node<node>/private/<attr>
 *                  (the reference series' per-node opt-ins)
 *   an absolute path under /proc/sys, /sys/kernel/mm or /sys/module.
 * Setting one reads and keeps its old value first (for "[always] madvise
 * never" files, the bracketed choice); pn_knobs_restore() writes the old
 * values back in reverse order.  The runner restores after every phase,
 * after an error and after SIGINT/SIGTERM.
 */
#ifndef PN_KNOB_H
#define PN_KNOB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct cJSON;

struct pn_knob {
	char key[128];
	char path[PATH_MAX];
	char old[256];
	char val[256];
	bool changed;  /* the new value was written */
	bool restored; /* the old value was written back */
	char error[192];
	char now[256];		  /* what the knob read right after our write */
	char changed_behind[256]; /* at restore it read this instead ("" = as we left it) */
};

struct pn_knobs {
	size_t n, cap;
	struct pn_knob *k;
};

/* Map an alias or path to a path; -EINVAL (with a message in why) if neither. */
int pn_knob_path(const char *key, char *path, size_t len, char *why, size_t whylen);
/*
 * The allow-list of knobs a config may set (configs are code run as root):
 * vm.*, kernel.numa_balancing*, thp.*, weighted_interleave.*, zswap.*,
 * private_node.<N>.<attr> and the files under /sys/kernel/mm/{numa,
 * hugepages,ksm}.  pn_knob_allow() adds a key or path (--allow-knob).
 * Workloads' own knobs are code and are not checked.
 */
void pn_knob_allow(const char *name);
bool pn_knob_allowed(const char *key, const char *path);
/* The allow-list as a config error names it. */
#define PN_KNOB_ALLOW_TEXT                                                                         \
	"vm.*, kernel.numa_balancing*, thp.*, weighted_interleave.*, zswap.*, private_node.*, "    \
	"/sys/kernel/mm/{numa,hugepages,ksm}"
/* The first control character of a knob value, or NULL: with one, a second
 * assignment could ride past the kernel's parser ("5\nkernel.x=1"). */
const char *pn_knob_control_char(const char *value);
/* Set key to value, remembering the old value; -errno with the reason logged. */
int pn_knobs_set(struct pn_knobs *ks, const char *key, const char *value);
/* Restore every changed knob, newest first; returns 0 or the first -errno.
 * A knob that no longer reads what the run wrote was changed behind its
 * back: changed_behind says what it read instead (and a warning). */
int pn_knobs_restore(struct pn_knobs *ks);
/* [{key, path, old, new, restored, error?, changed_behind?}] */
struct cJSON *pn_knobs_json(const struct pn_knobs *ks);
void pn_knobs_free(struct pn_knobs *ks);

#endif /* PN_KNOB_H */
