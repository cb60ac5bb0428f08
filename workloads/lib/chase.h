/* SPDX-License-Identifier: GPL-2.0-only
 *
 * chase.h - pointer chasing for load-to-use latency (the multichase method).
 *
 * The buffer is cut into elements of `stride` bytes; each element holds one
 * pointer in its first word, so a hop touches exactly one cache line.  The
 * elements are visited in a random order inside windows of `window_bytes`
 * (every element of a window before the next window; the windows themselves
 * in random order), and the visit order is closed into one cycle over the
 * whole buffer.  A window of >= 64 pages keeps TLB misses rare while the
 * random order inside it defeats next-line and stream prefetchers; a stride
 * of >= 128 B keeps the adjacent-line prefetcher from pairing hops.
 */
#ifndef PN_CHASE_H
#define PN_CHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

#define PN_CHASE_MIN_STRIDE 128

struct pn_chase {
	char *buf;	     /* not owned */
	size_t bytes;	     /* used part of buf: nelems * stride */
	size_t stride;	     /* bytes between elements (one pointer each) */
	size_t nelems;	     /* elements in the cycle */
	size_t window_elems; /* elements per window (the last window may be short) */
	void *start;	     /* first element of the cycle */
};

/*
 * Lay a single-cycle chase into buf[0, bytes).  stride is a power of two
 * >= sizeof(void *) (callers measuring memory use >= PN_CHASE_MIN_STRIDE);
 * window_bytes a multiple of stride (0 = the whole buffer is one window).
 * seed makes the permutation reproducible.  Returns 0, -EINVAL for bad
 * geometry (fewer than 2 elements, stride not a power of two, ...).
 */
int pn_chase_build(struct pn_chase *c, void *buf, size_t bytes, size_t stride, size_t window_bytes,
		   uint64_t seed);

/* Follow `hops` pointers from *pos; returns where it stopped (the next start). */
void *pn_chase_walk(void *pos, uint64_t hops);

/*
 * Timed samples: samples[i] = ns per hop of one run of `hops` hops, timed
 * with CLOCK_MONOTONIC_RAW.  The walk continues from sample to sample.
 * Returns 0 or -errno.
 */
int pn_chase_sample(struct pn_chase *c, uint64_t hops, double *samples, size_t nsamples);

/* Hops that take about target_ns (at least 1024), measured on this chase. */
uint64_t pn_chase_calibrate(struct pn_chase *c, uint64_t target_ns);

/*
 * One measurement: calibrate samples of about sample_ms, flush the buffer
 * from the caches, take nsamples (>= 2) and summarise all but the first
 * (a warm-up) into st.  Returns 0 or -errno.
 */
struct pn_lat_stats;
int pn_chase_measure(struct pn_chase *c, size_t nsamples, uint64_t sample_ms,
		     struct pn_lat_stats *st);

/* Median ns per hop of a chase over a private buffer of `bytes` (a cache
 * reference: 16 KiB is L1-resident), measured like pn_chase_measure(). */
int pn_chase_reference_ns(size_t bytes, size_t nsamples, uint64_t sample_ms, double *ns);

/* Write back and invalidate [buf, buf+bytes) from the CPU caches (clflush on
 * x86, dc civac on arm64).  -EOPNOTSUPP elsewhere. */
int pn_cache_flush(const void *buf, size_t bytes);

/*
 * Summary of samples (sorts v), ns per hop.  min is the best sample, the
 * figure google/multichase prints by default; mean is the average of the
 * samples (equal hops each, so total time over total hops), what
 * `multichase -a` and Intel MLC's idle latency print; median is pnbench's
 * headline.  On a host where other tenants' memory traffic comes and goes,
 * median and mean follow that traffic and min does not (docs/benchmarks.md).
 */
struct pn_lat_stats {
	double min_ns, median_ns, mean_ns, p99_ns, max_ns;
	size_t n;
};
void pn_lat_stats(double *v, size_t n, struct pn_lat_stats *s);

/* Median over best sample beyond which a measurement is called disturbed (other
 * memory traffic on the host; the latency workload says so in its notes). */
#define PN_LAT_DISTURBED 1.25
bool pn_lat_disturbed(const struct pn_lat_stats *s);

/* Last-level cache size of the CPU the caller runs on (the largest unified
 * or data cache in /sys/devices/system/cpu/cpuN/cache, through the sysroot;
 * cpu < 0 = cpu0; on the live system without those directories, the largest
 * cache glibc reads from CPUID).  Returns 0 and *bytes, or -ENOENT. */
int pn_llc_bytes(int cpu, uint64_t *bytes);

/*
 * What is known of the hardware prefetchers of `cpu`, for the results: on
 * Intel, MSR 0x1A4 (bits 0-3 set = L2 stream, L2 adjacent line, L1 next
 * line, L1 IP prefetcher disabled) when /dev/cpu/N/msr is readable (root,
 * the msr module); otherwise why it is unknown.  The chase does not need
 * them off: its random windows defeat them (multichase).
 */
void pn_prefetch_state(int cpu, char *buf, size_t len);

/* Monotonic raw clock in ns (unaffected by NTP slewing). */
uint64_t pn_now_raw_ns(void);

#endif /* PN_CHASE_H */
