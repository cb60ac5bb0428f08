/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procfs.h - parsers of /proc and /sys counter files, and per-node memory
 * snapshots.
 *
 * The parsers are pure functions over a NUL-terminated buffer (so they can be
 * fuzzed and fed captured files); they never trust the input: malformed lines
 * give -EINVAL (never a crash, never a silent partial result).
 */
#ifndef PN_PROCFS_H
#define PN_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/lib/pn.h"

#define PN_PROCFS_KEY_MAX  64 /* longest key the parsers accept, with NUL */
#define PN_PROCFS_ZONE_MAX 32 /* longest zone name, with NUL */

/* Parse [-]digits at p (see procfs.c for the number rules); returns the end
 * or NULL when p holds no number or it overflows. */
const char *pn_procfs_parse_num(const char *p, int64_t *val);

/* Called once per counter; return non-zero to stop (that value is returned). */
typedef int (*pn_kv_cb)(void *arg, const char *key, int64_t val);

/* "key value" lines: /proc/vmstat, nodeN/vmstat, nodeN/numastat. */
int pn_parse_kv(const char *buf, pn_kv_cb cb, void *arg);

/* nodeN/meminfo: "Node 0 MemTotal:  16318988 kB".  Values with "kB" are
 * reported in BYTES; HugePages_* counts are reported as they are.  A line for
 * another node than `node` is -EINVAL. */
int pn_parse_node_meminfo(const char *buf, int node, pn_kv_cb cb, void *arg);

/* /proc/meminfo: "MemAvailable:  1234 kB" -> bytes. */
int pn_parse_meminfo(const char *buf, pn_kv_cb cb, void *arg);

/* /proc/zoneinfo: one call per (node, zone, key).  Keys are the per-zone
 * items ("pages free" is reported as "free", plus "min", "low", "high",
 * "spanned", "present", "managed", "cma", "start_pfn" and the nr_* zone
 * items); the per-node "per-node stats" block is reported with zone "node";
 * per-CPU pageset lines are summed into zone key "pcp_count". */
typedef int (*pn_zone_cb)(void *arg, int node, const char *zone, const char *key, int64_t val);
int pn_parse_zoneinfo(const char *buf, pn_zone_cb cb, void *arg);

/* One CPU's per-CPU free list of a zone ("pagesets" in /proc/zoneinfo):
 * pages on it, its current high mark and batch; -1 where the kernel printed
 * none.  (6.12 prints no high_min/high_max: the floor high decays to is not
 * visible there.) */
struct pn_pcp {
	int cpu;
	int64_t count, high, batch;
};
typedef int (*pn_pcp_cb)(void *arg, int node, const char *zone, const struct pn_pcp *pcp);
/* pn_parse_zoneinfo(), and pcb (if not NULL) once per CPU of every populated
 * zone, after that CPU's lines and before the zone's "pcp_count". */
int pn_parse_zoneinfo_pcp(const char *buf, pn_zone_cb cb, pn_pcp_cb pcb, void *arg);

/* Memory of one node, bytes, from nodeN/meminfo + numastat + vmstat. */
struct pn_nodemem {
	int node;
	int64_t total, free, used;
	int64_t anon, file, shmem, slab, slab_reclaimable, slab_unreclaimable;
	int64_t kernel_stack, page_tables, sec_page_tables, hugetlb;
	int64_t zspages, iommu; /* 0 where the kernel lacks them */
	int64_t other;		/* used minus every kind above (file includes shmem) */
	/* numastat, events (calls, not pages) */
	int64_t numa_hit, numa_miss, numa_foreign, interleave_hit, local_node, other_node;
	/* numa_private_fallback from nodeN/vmstat, -1 if the kernel lacks it */
	int64_t numa_private_fallback;
};

/* Bytes in node's hugetlb pools (every page size); huge_total is the
 * HugePages_Total of its meminfo for the fallback, or -1. */
int pn_node_hugetlb_bytes(int node, int64_t huge_total, int64_t *bytes);

/* Read a snapshot of node `node` through the sysroot. */
int pn_nodemem_read(int node, struct pn_nodemem *m);

/* Ask the kernel to fold per-CPU counter deltas (/proc/sys/vm/stat_refresh,
 * root only).  Returns 0, or -errno when unavailable (callers note that the
 * snapshot may be off by up to threshold x CPUs pages per item). */
int pn_stat_refresh(void);

/* The nodes whose memory counters are worth sampling: online &
 * (has_memory | has_private_memory) from /sys/devices/system/node, through
 * the sysroot.  Without has_memory (old kernels) every online node.  -ENOENT
 * (logged) if the set is empty or node/online is missing. */
int pn_nodes_with_memory(struct pn_nodeset *out);

/* /proc/meminfo MemAvailable in bytes, the private nodes' free memory
 * counted in: kernels that report PrivateFree (the reference series since
 * v2) leave it out of MemAvailable, older ones and stock kernels count it,
 * and callers subtract what general allocations cannot use themselves
 * (pn_general_available(), pn_mem_guard_except()).  Equal to the older
 * figure up to the private zones' reserves. */
int pn_mem_available(uint64_t *bytes);

/* ---- per-process files (procfs_maps.c) ---- */

/* Read a whole file of any size through the sysroot (seq_file files such as
 * numa_maps report st_size 0): *out is malloc'd, NUL-terminated, *len bytes
 * without the NUL; the caller frees it.  0 or -errno (*out NULL). */
int pn_read_all(const char *rel, char **out, size_t *len);
/* At most this much (a numa_maps of a process with a million VMAs); beyond
 * it -EFBIG, "... is larger than N bytes".  Only a regular file (a FIFO or
 * socket in a replayed tree: -EINVAL), and -EINTR past 1 MiB once a stop
 * was asked for. */
#define PN_READ_ALL_MAX_BYTES ((size_t)256 << 20)
/* pn_read_all() with its own limit (counter files: PN_FILE_MAX_BYTES). */
int pn_read_all_max(const char *rel, char **out, size_t *len, size_t max);
/* "/proc/PID/FILE", or "/proc/self/FILE" for pid 0 (the pid arguments below
 * take 0 for the calling process). */
void pn_proc_pid_path(char *buf, size_t len, pid_t pid, const char *file);

/*
 * /proc/PID/numa_maps summed over every VMA, in bytes.
 *
 * pn_parse_numa_maps() parses len bytes of buf (need not be NUL-terminated).
 * Every line must be a well-formed numa_maps line (see procfs_maps.c for the
 * grammar) and the text must end in '\n': a cut file (a partial read), a NUL
 * byte, a bad number, a node id >= PN_MAX_NODES, the same node twice in a
 * line, node counters without kernelpagesize_kB= (or the reverse), more
 * anon= pages than pages, or any sum overflowing 64 bits gives -EINVAL and
 * *out all zero: never a partial result.  Unknown key=N counters (later
 * kernels) are validated and ignored; the policy is not interpreted.
 * Pages are counted at the VMA's kernelpagesize_kB (4 kB, or the hugetlb
 * size), so node_bytes is exact.  No size limit; len 0 is an empty process.
 *
 * pn_numa_maps_read() reads /proc/PID/numa_maps through the sysroot
 * (pn_read_all()) and parses it: 0, -errno from open/read (-ENOENT: the
 * process is gone; -EACCES), or -EINVAL.
 */
struct pn_numa_maps {
	uint64_t node_bytes[PN_MAX_NODES]; /* per node, all kinds */
	struct pn_nodeset nodes;	   /* nodes that appear with N<node>= */
	uint64_t total_bytes;		   /* sum of node_bytes */
	uint64_t anon_bytes;		   /* anon= pages outside hugetlb VMAs */
	uint64_t file_bytes;		   /* pages of file= VMAs that are not anon= */
	uint64_t hugetlb_bytes;		   /* pages of "huge" (hugetlbfs) VMAs */
	uint64_t vmas;			   /* lines */
};
int pn_parse_numa_maps(const char *buf, size_t len, struct pn_numa_maps *out);
int pn_numa_maps_read(pid_t pid, struct pn_numa_maps *out);

/*
 * /proc/PID/maps: "start-end perms offset dev inode [path]" per VMA, in
 * address order.  pn_parse_maps() fills out->v (malloc'd, out->n entries;
 * free with pn_maps_free()); any malformed line, end <= start, overlapping
 * or unordered VMAs, a NUL byte or a missing final '\n' give -EINVAL and an
 * empty out.  pn_maps_read() reads /proc/PID/maps through the sysroot.
 */
#define PN_VMA_READ   1u
#define PN_VMA_WRITE  2u
#define PN_VMA_EXEC   4u
#define PN_VMA_SHARED 8u
struct pn_vma {
	uint64_t start, end; /* [start, end), bytes */
	uint64_t offset, inode;
	unsigned dev_major, dev_minor;
	unsigned prot; /* PN_VMA_* */
	char name[64]; /* path or "[heap]", "[vsyscall]" ...; truncated; "" if anonymous */
};
struct pn_maps {
	size_t n;
	struct pn_vma *v;
};
int pn_parse_maps(const char *buf, size_t len, struct pn_maps *out);
int pn_maps_read(pid_t pid, struct pn_maps *out);
void pn_maps_free(struct pn_maps *m);

#endif /* PN_PROCFS_H */
