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
 *  - pn_perfmerge(): the records of several rings read in place and handed
 *    over in global time order up to a limit (perf's "finished round":
 *    everything stamped before the start of the last read round has been
 *    written to its ring, so it can be processed in order); what is newer
 *    stays in its ring for the next round.  Pure; collectors/perf/perfrec.c.
 *  - struct pn_perfring (libperf): a perf_evlist of tracepoints, one ring per
 *    CPU (libperf redirects every event of a CPU into one ring), enable,
 *    poll, read (the head once per ring and round, the tail published once:
 *    libperf's per-record reader loads the head every record), per-event /
 *    per-CPU counts with PERF_FORMAT_LOST.  collectors/perf/perfring.c.
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

/* fn sees each record with the index of its ring; non-zero stops a read. */
typedef int (*pn_perfring_fn)(void *arg, size_t ring, const struct pn_perfrec *r);

/* ---- reading rings in place, merged in time order ---- */

/* The largest record (header.size is 16 bits): a record that wraps around a
 * ring's end is copied into a bounce buffer this big. */
#define PN_PERFREC_MAX 65536

/*
 * One ring buffer's data area as the reader sees it: data[size] (a power of
 * two), records in [tail, head) (free-running byte positions, as in
 * perf_event_mmap_page).  The merge advances tail past what it handed over;
 * the caller publishes it.  bounce (PN_PERFREC_MAX bytes) holds a record
 * that wraps around the end; cur and have are the merge's own.
 */
struct pn_ringview {
	const unsigned char *data;
	uint64_t size, tail, head;
	unsigned char *bounce;
	struct pn_perfrec cur; /* the parsed record at tail, when have */
	uint32_t cur_size;
	bool have;
};

struct pn_perfmerge_stats {
	uint64_t last_ts;      /* the newest timestamp handed over */
	uint64_t out_of_order; /* timed records older than one already handed over */
	uint64_t records;      /* handed over */
};

/*
 * Hand the records of views v[0..n) to fn in global time order, each ring's
 * own order kept, up to limit: a ring stops at its first record stamped at
 * or after limit (it stays in the ring for the next round; UINT64_MAX: take
 * everything).  Records without a timestamp go when they reach the front.
 * A record that fails to parse is handed over with type 0; one whose size
 * is impossible ends that ring's round at head (the rest is unreadable).
 * Nothing is copied except a record that wraps around its ring's end.
 * fn's non-zero return stops the merge and is returned.
 */
int pn_perfmerge(struct pn_ringview *v, size_t n, uint64_t limit, pn_perfring_fn fn, void *arg,
		 struct pn_perfmerge_stats *st);

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
/* Read every ring up to its current head in one merged round
 * (pn_perfmerge() with limit), then hand the space back.  Returns 0, fn's
 * non-zero return, or -errno. */
int pn_perfring_read(struct pn_perfring *pr, uint64_t limit, pn_perfring_fn fn, void *arg,
		     struct pn_perfmerge_stats *st);
/* Kernel counts of event ev on ring's CPU: events that fired and samples
 * lost (PERF_FORMAT_LOST), and the event's id (as in PERF_RECORD_LOST). */
int pn_perfring_counts(struct pn_perfring *pr, size_t ev, size_t ring, uint64_t *count,
		       uint64_t *lost, uint64_t *id);
/* Set (or with "" clear) the kernel-side filter of event ev on every CPU;
 * may be called while the events are enabled. */
int pn_perfring_filter(struct pn_perfring *pr, size_t ev, const char *filter);
void pn_perfring_close(struct pn_perfring *pr);

#endif /* PN_PERFRING_H */
