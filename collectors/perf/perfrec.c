// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfrec.c - perf records parsed, and several rings read in place and merged
 * in time order.  Pure: no libperf, fuzzed by tests/fuzz/fuzz_perfsample.c.
 * See perfring.h.
 */
#include <errno.h>
#include <string.h>

#include "perfring.h"

/* ---- records ---- */

/* bytes before the raw data of a SAMPLE: header, pid/tid, time, cpu/res, size */
#define SAMPLE_FIXED (8 + 8 + 8 + 8 + 4)
/* the sample_id trailer of a non-SAMPLE record: pid/tid, time, cpu/res */
#define SAMPLE_ID 24

static uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The trailer at the end of a record (size bytes): our sample_type's TID,
 * TIME, CPU.  body is what the record's own fields need before it. */
static int sample_id(const unsigned char *p, uint32_t size, uint32_t body, struct pn_perfrec *r)
{
	const unsigned char *t = p + size - SAMPLE_ID;

	if (size < body + SAMPLE_ID)
		return -EINVAL;
	r->pid = ld32(t);
	r->tid = ld32(t + 4);
	r->time_ns = ld64(t + 8);
	r->cpu = ld32(t + 16);
	r->has_sample_id = true;
	return 0;
}

/* The hot path: one bounds check for the fixed part, one for the raw data. */
static int parse_sample(const unsigned char *p, uint32_t size, struct pn_perfrec *r)
{
	if (size < SAMPLE_FIXED)
		return -EINVAL;
	r->pid = ld32(p + 8);
	r->tid = ld32(p + 12);
	r->time_ns = ld64(p + 16);
	r->cpu = ld32(p + 24);
	r->raw_size = ld32(p + 32);
	if (r->raw_size > size - SAMPLE_FIXED)
		return -EINVAL;
	r->raw = p + SAMPLE_FIXED;
	return 0;
}

static int parse_other(const unsigned char *p, uint32_t size, struct pn_perfrec *r)
{
	switch (r->type) {
	case PERF_RECORD_LOST:
		if (size < 8 + 16)
			return -EINVAL;
		r->id = ld64(p + 8);
		r->lost = ld64(p + 16);
		return sample_id(p, size, 8 + 16, r);
	case PERF_RECORD_LOST_SAMPLES:
		if (size < 8 + 8)
			return -EINVAL;
		r->lost = ld64(p + 8);
		return sample_id(p, size, 8 + 8, r);
	case PERF_RECORD_COMM:
		if (size < 8 + 8 || !memchr(p + 16, '\0', size - 16))
			return -EINVAL;
		r->pid = ld32(p + 8);
		r->tid = ld32(p + 12);
		r->comm = (const char *)p + 16;
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 8 + 16 + 8)
			return -EINVAL;
		r->pid = ld32(p + 8);
		r->ppid = ld32(p + 12);
		r->tid = ld32(p + 16);
		r->time_ns = ld64(p + 24);
		return 0;
	default: return 0;
	}
}

int pn_perfrec_parse(const void *buf, size_t len, struct pn_perfrec *r)
{
	const unsigned char *p = buf;
	struct perf_event_header h;

	memset(r, 0, sizeof(*r));
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size > len)
		return -EINVAL;
	r->type = h.type;
	if (h.type == PERF_RECORD_SAMPLE)
		return parse_sample(p, h.size, r);
	return parse_other(p, h.size, r);
}

/* ---- rings merged in place ---- */

/* Parse the record at v->tail into v->cur (v->have); false when the ring
 * has no complete record left. */
static bool load(struct pn_ringview *v)
{
	uint64_t avail = v->head - v->tail, mask = v->size - 1, off = v->tail & mask;
	const unsigned char *p = v->data + off;
	struct perf_event_header h;

	v->have = false;
	if (avail < sizeof(h) || v->head < v->tail)
		return false;
	/* the ring was written by another CPU: start loading the records a few
	 * ahead (a prefetch never faults, and the offsets stay in the ring),
	 * only what was written before head: a line the writer is still
	 * filling would be pulled away from it */
	if (avail >= 640) {
		__builtin_prefetch(v->data + ((off + 512) & mask));
		__builtin_prefetch(v->data + ((off + 576) & mask));
	}
	memcpy(&h, p, sizeof(h)); /* records are 8-aligned: a header never wraps */
	if (h.size < sizeof(h) || h.size > avail) {
		/* the writer never leaves this: the rest is unreadable */
		memset(&v->cur, 0, sizeof(v->cur));
		v->cur_size = (uint32_t)avail;
		return v->have = true;
	}
	if (off + h.size > v->size) { /* wraps around the end */
		size_t first = (size_t)(v->size - off);

		memcpy(v->bounce, p, first);
		memcpy(v->bounce + first, v->data, h.size - first);
		p = v->bounce;
	}
	if (h.type == PERF_RECORD_SAMPLE) {
		/* the hot path: no clearing; only what a SAMPLE carries is read */
		v->cur.type = h.type;
		v->cur.has_sample_id = false;
		if (parse_sample(p, h.size, &v->cur))
			memset(&v->cur, 0, sizeof(v->cur)); /* malformed: counted */
	} else if (pn_perfrec_parse(p, h.size, &v->cur)) {
		v->cur.type = 0; /* malformed: the callback counts it */
	}
	v->cur_size = h.size;
	return v->have = true;
}

/* The two earliest fronts below limit: *best (or n), and the second's time. */
static size_t pick(const struct pn_ringview *v, size_t n, uint64_t limit, uint64_t *second)
{
	size_t best = n;
	uint64_t bts = limit;

	*second = limit;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = v[i].cur.time_ns;

		if (!v[i].have || t >= limit)
			continue;
		if (best == n || t < bts) {
			*second = best == n ? limit : bts;
			best = i;
			bts = t;
		} else if (t < *second) {
			*second = t;
		}
	}
	return best;
}

int pn_perfmerge(struct pn_ringview *v, size_t n, uint64_t limit, pn_perfring_fn fn, void *arg,
		 struct pn_perfmerge_stats *st)
{
	for (size_t i = 0; i < n; i++)
		(void)load(&v[i]);
	for (;;) {
		uint64_t second;
		size_t b = pick(v, n, limit, &second);
		struct pn_ringview *r = &v[b];

		if (b == n)
			return 0;
		/* a run: this ring's records up to the next ring's front */
		do {
			uint64_t t = r->cur.time_ns;
			int stop;

			if (t) {
				if (t < st->last_ts)
					st->out_of_order++;
				else
					st->last_ts = t;
			}
			st->records++;
			stop = fn(arg, b, &r->cur);
			r->tail += r->cur_size;
			if (stop)
				return stop;
		} while (load(r) && r->cur.time_ns < limit && r->cur.time_ns <= second);
	}
}
