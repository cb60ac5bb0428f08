/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfring.h - tracepoints on every online CPU through libperf, their ring
 * buffers, the records in them, and putting several rings back in time
 * order.
 *
 * Three layers, usable alone:
 *  - pn_perfrec_parse(): one raw perf record (SAMPLE with
 *    PN_PERF_SAMPLE_TYPE, LOST, LOST_SAMPLES, COMM, FORK/EXIT, all with
 *    sample_id_all) into struct pn_perfrec, bounds-checked against the
 *    record's own size and the buffer: a truncated record is -EINVAL, never
 *    a read past its end.  Pure; fuzzed by tests/fuzz/fuzz_perfsample.c.
 *  - struct pn_perford: per-ring FIFOs of fixed-size items that begin with a
 *    u64 timestamp, flushed in global time order up to a limit (perf's
 *    "finished round": everything stamped before the start of the last read
 *    round has been written to its ring, so it can be processed in order).
 *  - struct pn_perfring (libperf): a perf_evlist of tracepoints, one ring per
 *    CPU (libperf redirects every event of a CPU into one ring), enable,
 *    poll, read, per-event/per-CPU counts with PERF_FORMAT_LOST.
 *    Without libperf at build time pn_perfring_open() returns -ENOSYS.
 */
#ifndef PN_PERFRING_H
#define PN_PERFRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* The sample layout this module reads. */
#define PN_PERF_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

struct pn_perfrec {
	uint32_t type; /* PERF_RECORD_* */
	uint32_t pid, tid, cpu;
	uint64_t time_ns;
	const unsigned char *raw; /* SAMPLE: the tracepoint's entry, raw_size bytes */
	uint32_t raw_size;
	uint64_t id, lost;  /* LOST (id, lost), LOST_SAMPLES (lost) */
	uint32_t ppid;	    /* FORK/EXIT: parent pid */
	const char *comm;   /* COMM: NUL-terminated inside the record */
	bool has_sample_id; /* pid/tid/cpu/time valid for a non-SAMPLE record */
};

/* Parse the record at buf (len bytes available).  Records of other types
 * are returned with only type set.  -EINVAL if truncated or inconsistent. */
int pn_perfrec_parse(const void *buf, size_t len, struct pn_perfrec *r);

/* ---- time-ordered merge of per-ring item streams ---- */
struct pn_perfq {
	unsigned char *items;
	size_t head, n, cap; /* items[head .. n) are queued */
};
struct pn_perford {
	size_t nq, item_size;
	struct pn_perfq *q;
	uint64_t out_of_order; /* items stamped earlier than one already flushed */
	uint64_t last_ts;
};
/* item_size >= 8; each item starts with its u64 timestamp. */
void pn_perford_init(struct pn_perford *o, size_t nrings, size_t item_size);
void pn_perford_free(struct pn_perford *o);
/* A slot at the tail of ring's queue for the caller to fill (valid until the
 * next push or flush). */
void *pn_perford_push(struct pn_perford *o, size_t ring);
/* Drop the slot returned by the last push (the record was not wanted). */
void pn_perford_unpush(struct pn_perford *o, size_t ring);
/* Hand every queued item with timestamp < limit to fn in time order
 * (UINT64_MAX: everything).  Returns how many were handed over. */
typedef void (*pn_perford_fn)(void *arg, const void *item);
size_t pn_perford_flush(struct pn_perford *o, uint64_t limit, pn_perford_fn fn, void *arg);
size_t pn_perford_queued(const struct pn_perford *o);

/* ---- libperf ---- */
struct pn_perfring;

struct pn_perfring_cfg {
	size_t ring_pages;     /* data pages per CPU, power of two */
	uint32_t wakeup_bytes; /* wake the reader when this much is in a ring */
	bool comm_task;	       /* also COMM and FORK/EXIT records (first event only) */
};

/* Open tracepoints ids[0..n) on every online CPU, mmap their rings.  The
 * events start disabled.  -EACCES/-EPERM when perf_event_paranoid or
 * capabilities refuse, -ENOSYS without libperf. */
int pn_perfring_open(struct pn_perfring **out, const uint64_t *ids, size_t n,
		     const struct pn_perfring_cfg *cfg);
int pn_perfring_enable(struct pn_perfring *pr);
int pn_perfring_disable(struct pn_perfring *pr);
size_t pn_perfring_nrings(const struct pn_perfring *pr);
int pn_perfring_ring_cpu(const struct pn_perfring *pr, size_t ring); /* CPU number */
/* Wait up to timeout_ms for a ring to pass its watermark. */
int pn_perfring_poll(struct pn_perfring *pr, int timeout_ms);
/* Read every ring once; fn sees each record with its ring index.  fn may
 * return non-zero to stop (returned).  Returns 0 or -errno. */
typedef int (*pn_perfring_fn)(void *arg, size_t ring, const struct pn_perfrec *r);
int pn_perfring_read(struct pn_perfring *pr, pn_perfring_fn fn, void *arg);
/* Kernel counts of event ev on ring's CPU: events that fired and samples
 * lost (PERF_FORMAT_LOST), and the event's id (as in PERF_RECORD_LOST). */
int pn_perfring_counts(struct pn_perfring *pr, size_t ev, size_t ring, uint64_t *count,
		       uint64_t *lost, uint64_t *id);
/* Set (or with "" clear) the kernel-side filter of event ev on every CPU;
 * may be called while the events are enabled. */
int pn_perfring_filter(struct pn_perfring *pr, size_t ev, const char *filter);
void pn_perfring_close(struct pn_perfring *pr);

#endif /* PN_PERFRING_H */
