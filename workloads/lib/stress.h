/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stress.h - building blocks of general memory pressure (workloads/pressure.c):
 * a scratch filesystem for real page cache, files written and verified by
 * pattern, directory trees for dentries and inodes, sockets and pipes with
 * queued data, and /proc/vmstat deltas.
 *
 * Every function returns 0 or -errno with the reason logged (pn_error).
 */
#ifndef PN_STRESS_H
#define PN_STRESS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Anonymous memory, memhog style: mapped, faulted in page by page (until
 * stop says so), then re-touched by nthreads threads, thread i pinned to
 * CPU i % ncpu, each starting at its own slice and walking the whole
 * region, so that every page is touched from several CPUs (NUMA hinting
 * faults); they pause 1 ms every 1024 pages, leaving the CPUs to the rest
 * of the workload.  The memory stays mapped after pn_memhog_stop().
 */
struct pn_memhog_thread;
typedef bool (*pn_stop_fn)(const void *arg);
struct pn_memhog {
	char *addr;
	size_t bytes, page_bytes;
	uint64_t faulted_bytes;
	unsigned nthreads, nstarted;
	struct pn_memhog_thread *t;
	volatile int stop;
	pn_stop_fn stopfn;
	const void *arg;
};
int pn_memhog_start(struct pn_memhog *h, size_t bytes, bool thp, unsigned nthreads, pn_stop_fn stop,
		    const void *arg);
/* Join the threads; returns the pages they touched. */
uint64_t pn_memhog_stop(struct pn_memhog *h);
/* Stop, unmap, free; safe on a zeroed struct and twice. */
void pn_memhog_free(struct pn_memhog *h);

/*
 * Write `bytes` of a pattern derived from seed to path (created or
 * truncated) and fsync it; *written gets the bytes written.  Reading it back
 * with pn_file_verify() and the same seed finds every byte.
 */
int pn_file_fill(const char *path, uint64_t bytes, uint64_t seed, uint64_t *written);
/* Drop the file's cached pages (fadvise DONTNEED after fdatasync) so that a
 * read goes to the device, then read it all: *read bytes read, *bad bytes
 * that differ from the pattern (or are missing). */
int pn_file_verify(const char *path, uint64_t bytes, uint64_t seed, bool drop, uint64_t *read,
		   uint64_t *bad);

/*
 * A tree of small files under root (created): `files` files of file_bytes
 * each, 64 per leaf directory, every leaf at the end of a chain of `depth`
 * nested directories.  Stops early (with what it made, returning 0) when
 * stop(arg) says so; stop may be NULL.
 */
struct pn_tree_stats {
	uint64_t files, dirs, bytes;
};
int pn_tree_make(const char *root, uint64_t files, unsigned depth, size_t file_bytes,
		 pn_stop_fn stop, const void *arg, struct pn_tree_stats *made);
/* Remove root and everything below it; counts what it removed. */
int pn_tree_remove(const char *root, struct pn_tree_stats *removed);

/* Open file descriptors held for their kernel memory. */
struct pn_fds {
	int *fd;
	size_t n, cap;
	uint64_t queued_bytes; /* data written into socket and pipe buffers */
	uint64_t sockets, pipes;
};
/* nsockets AF_UNIX stream sockets (in pairs) with bytes_each queued on one
 * end of each pair, and npipes pipes with bytes_each queued (at most one
 * pipe buffer).  Raises RLIMIT_NOFILE as far as the hard limit allows;
 * -EMFILE when even that is too low. */
int pn_fds_sockets(struct pn_fds *f, uint64_t nsockets, size_t bytes_each);
int pn_fds_pipes(struct pn_fds *f, uint64_t npipes, size_t bytes_each);
void pn_fds_close(struct pn_fds *f);

/*
 * A helper process that writes text to a file (through the sysroot) every
 * interval_ms, e.g. "1" to /proc/sys/vm/compact_memory: such writes block
 * for as long as the kernel works, so they run beside the caller, and
 * pn_ticker_stop() ends one in progress at once (SIGKILL; compaction checks
 * for fatal signals).  started/done count writes begun and completed.
 */
struct pn_ticker {
	pid_t pid;
	volatile uint64_t *counts; /* shared: [0] started, [1] completed */
	uint64_t started, done;	   /* copied at stop */
};
int pn_ticker_start(struct pn_ticker *t, const char *rel, const char *text, uint64_t interval_ms);
void pn_ticker_stop(struct pn_ticker *t);

/*
 * MemAvailable as general allocations see it: on a kernel with private
 * memory nodes (has_private_memory), their free memory is counted in
 * MemAvailable, but no general allocation can have it, so it is taken out
 * (*private_free_bytes says how much).  t may be NULL (plain MemAvailable).
 */
struct pn_topology;
int pn_general_available(const struct pn_topology *t, uint64_t *bytes,
			 uint64_t *private_free_bytes);
/* SwapTotal of /proc/meminfo, bytes. */
int pn_swap_total(uint64_t *bytes);

/* /proc/vmstat counters by name: vals[i] = value of keys[i], -1 if absent. */
int pn_vmstat_read(const char *const *keys, size_t n, int64_t *vals);
/* Report each counter's growth since before[] (from pn_vmstat_read) as
 * metric `metric` labelled counter=<key>; counters absent either time are
 * left out. */
struct pn_res;
int pn_vmstat_report(struct pn_res *r, const char *metric, const char *const *keys, size_t n,
		     const int64_t *before);
/* One key of a "key value" file (memory.events, memory.stat ...); -ENOENT if absent. */
int pn_kv_file_get(const char *rel, const char *key, int64_t *val);

#endif /* PN_STRESS_H */
