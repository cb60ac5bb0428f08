// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfring.c - perf records, time-ordered merge, libperf rings.  See perfring.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfring.h"
#include "pn.h"

/* ---- records ---- */

struct cursor {
	const unsigned char *p, *end;
};

static int take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -EINVAL;
	memcpy(out, c->p, n);
	c->p += n;
	return 0;
}

/* sample_id trailer of a non-SAMPLE record: TID, TIME, CPU of our sample_type */
static int sample_id(struct cursor *c, struct pn_perfrec *r)
{
	uint32_t u[2];

	if (take(c, u, 8))
		return -EINVAL;
	r->pid = u[0];
	r->tid = u[1];
	if (take(c, &r->time_ns, 8) || take(c, u, 8))
		return -EINVAL;
	r->cpu = u[0];
	r->has_sample_id = true;
	return 0;
}

static int parse_sample(struct cursor *c, struct pn_perfrec *r)
{
	uint32_t u[2];

	if (take(c, u, 8))
		return -EINVAL;
	r->pid = u[0];
	r->tid = u[1];
	if (take(c, &r->time_ns, 8) || take(c, u, 8))
		return -EINVAL;
	r->cpu = u[0];
	if (take(c, &r->raw_size, 4) || (size_t)(c->end - c->p) < r->raw_size)
		return -EINVAL;
	r->raw = c->p;
	return 0;
}

static int parse_comm(struct cursor *c, struct pn_perfrec *r)
{
	uint32_t u[2];
	const void *nul;

	if (take(c, u, 8))
		return -EINVAL;
	r->pid = u[0];
	r->tid = u[1];
	nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	if (!nul)
		return -EINVAL;
	r->comm = (const char *)c->p;
	return 0;
}

int pn_perfrec_parse(const void *buf, size_t len, struct pn_perfrec *r)
{
	struct perf_event_header h;
	struct cursor c = { buf, (const unsigned char *)buf + len };
	uint32_t u[4];

	memset(r, 0, sizeof(*r));
	if (take(&c, &h, sizeof(h)) || h.size < sizeof(h) || h.size > len)
		return -EINVAL;
	c.end = (const unsigned char *)buf + h.size;
	r->type = h.type;
	switch (h.type) {
	case PERF_RECORD_SAMPLE: return parse_sample(&c, r);
	case PERF_RECORD_LOST:
		if (take(&c, &r->id, 8) || take(&c, &r->lost, 8))
			return -EINVAL;
		return sample_id(&c, r);
	case PERF_RECORD_LOST_SAMPLES:
		if (take(&c, &r->lost, 8))
			return -EINVAL;
		return sample_id(&c, r);
	case PERF_RECORD_COMM: return parse_comm(&c, r);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (take(&c, u, 16) || take(&c, &r->time_ns, 8))
			return -EINVAL;
		r->pid = u[0];
		r->ppid = u[1];
		r->tid = u[2];
		return 0;
	default: return 0;
	}
}

/* ---- ordered merge ---- */

void pn_perford_init(struct pn_perford *o, size_t nrings, size_t item_size)
{
	memset(o, 0, sizeof(*o));
	o->nq = nrings;
	o->item_size = item_size;
	o->q = pn_xcalloc(nrings ? nrings : 1, sizeof(*o->q));
}

void pn_perford_free(struct pn_perford *o)
{
	for (size_t i = 0; i < o->nq; i++)
		free(o->q[i].items);
	free(o->q);
	memset(o, 0, sizeof(*o));
}

void *pn_perford_push(struct pn_perford *o, size_t ring)
{
	struct pn_perfq *q = &o->q[ring];

	if (q->n == q->cap) {
		if (q->head) { /* compact before growing */
			memmove(q->items, q->items + q->head * o->item_size,
				(q->n - q->head) * o->item_size);
			q->n -= q->head;
			q->head = 0;
		}
		if (q->n == q->cap) {
			q->cap = q->cap ? q->cap * 2 : 4096;
			q->items = pn_xrealloc(q->items, q->cap * o->item_size);
		}
	}
	return q->items + q->n++ * o->item_size;
}

void pn_perford_unpush(struct pn_perford *o, size_t ring)
{
	struct pn_perfq *q = &o->q[ring];

	if (q->n > q->head)
		q->n--;
}

static uint64_t head_ts(const struct pn_perford *o, const struct pn_perfq *q)
{
	uint64_t ts;

	memcpy(&ts, q->items + q->head * o->item_size, sizeof(ts));
	return ts;
}

size_t pn_perford_flush(struct pn_perford *o, uint64_t limit, pn_perford_fn fn, void *arg)
{
	size_t done = 0;

	for (;;) {
		struct pn_perfq *best = NULL;
		uint64_t bts = UINT64_MAX;

		/* Linear scan: one ring per CPU, and few CPUs here. */
		for (size_t i = 0; i < o->nq; i++) {
			struct pn_perfq *q = &o->q[i];
			uint64_t ts;

			if (q->head == q->n)
				continue;
			ts = head_ts(o, q);
			if (ts < limit && (!best || ts < bts)) {
				best = q;
				bts = ts;
			}
		}
		if (!best)
			break;
		if (bts < o->last_ts)
			o->out_of_order++;
		else
			o->last_ts = bts;
		fn(arg, best->items + best->head * o->item_size);
		if (++best->head == best->n)
			best->head = best->n = 0;
		done++;
	}
	return done;
}

size_t pn_perford_queued(const struct pn_perford *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nq; i++)
		n += o->q[i].n - o->q[i].head;
	return n;
}

/* ---- libperf ---- */
#ifdef PN_HAVE_LIBPERF
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

/* Internal to libperf (evsel.c), hidden from the .so but in libperf.a:
 * perf_evsel__delete() does not free what perf_evlist__mmap() allocated. */
void perf_evsel__free_id(struct perf_evsel *evsel);
/* Likewise internal: PERF_EVENT_IOC_SET_FILTER on every fd of the evsel. */
int perf_evsel__apply_filter(struct perf_evsel *evsel, const char *filter);

struct pn_perfring {
	struct perf_evlist *el;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	size_t nev, nrings;
	struct perf_evsel **ev;
	struct perf_mmap **maps;
};

static int libperf_log(enum libperf_print_level level, const char *fmt, va_list ap)
{
	if (level <= LIBPERF_WARN && pn_log_level >= PN_LOG_DEBUG) {
		fputs("pnbench: libperf: ", stderr);
		return vfprintf(stderr, fmt, ap);
	}
	return 0;
}

static void libperf_once(void)
{
	libperf_init(libperf_log);
}

static void fill_attr(struct perf_event_attr *a, uint64_t id, const struct pn_perfring_cfg *cfg,
		      bool first)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = id;
	a->sample_period = 1;
	a->sample_type = PN_PERF_SAMPLE_TYPE;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC; /* comparable with pn_now_ns() */
	a->watermark = 1;
	a->wakeup_watermark = cfg->wakeup_bytes ? cfg->wakeup_bytes : 1;
	if (first && cfg->comm_task) {
		a->comm = 1;
		a->task = 1;
	}
}

static int map_rings(struct pn_perfring *pr, size_t pages)
{
	struct perf_mmap *m;
	size_t i = 0;
	int ret = perf_evlist__mmap(pr->el, (int)pages);

	if (ret)
		return ret < 0 ? ret : -ENOMEM;
	pr->nrings = 0;
	perf_evlist__for_each_mmap(pr->el, m, false) pr->nrings++;
	/* an array of pointers */
	pr->maps = pn_xcalloc(pr->nrings ? pr->nrings : 1,
			      sizeof(*pr->maps)); // NOLINT(bugprone-sizeof-expression)
	perf_evlist__for_each_mmap(pr->el, m, false) pr->maps[i++] = m;
	return 0;
}

int pn_perfring_open(struct pn_perfring **out, const uint64_t *ids, size_t n,
		     const struct pn_perfring_cfg *cfg)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct pn_perfring *pr;
	int ret;

	if (!n || !cfg->ring_pages || (cfg->ring_pages & (cfg->ring_pages - 1)))
		return -EINVAL;
	pthread_once(&once, libperf_once);
	pr = pn_xcalloc(1, sizeof(*pr));
	pr->el = perf_evlist__new();
	pr->cpus = perf_cpu_map__new_online_cpus();
	pr->threads = perf_thread_map__new_dummy();
	pr->ev = pn_xcalloc(n, sizeof(*pr->ev)); // NOLINT(bugprone-sizeof-expression)
	if (!pr->el || !pr->cpus || !pr->threads) {
		ret = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		struct perf_event_attr a;

		fill_attr(&a, ids[i], cfg, i == 0);
		pr->ev[i] = perf_evsel__new(&a);
		if (!pr->ev[i]) {
			ret = -ENOMEM;
			goto fail;
		}
		perf_evlist__add(pr->el, pr->ev[i]);
		pr->nev++;
	}
	perf_evlist__set_maps(pr->el, pr->cpus, pr->threads);
	ret = perf_evlist__open(pr->el);
	if (ret) {
		ret = ret < 0 ? ret : -EINVAL;
		goto fail;
	}
	ret = map_rings(pr, cfg->ring_pages);
	if (ret)
		goto fail;
	*out = pr;
	return 0;
fail:
	pn_perfring_close(pr);
	return ret;
}

int pn_perfring_enable(struct pn_perfring *pr)
{
	perf_evlist__enable(pr->el);
	return 0;
}

int pn_perfring_disable(struct pn_perfring *pr)
{
	perf_evlist__disable(pr->el);
	return 0;
}

size_t pn_perfring_nrings(const struct pn_perfring *pr)
{
	return pr->nrings;
}

int pn_perfring_ring_cpu(const struct pn_perfring *pr, size_t ring)
{
	/* perf_evlist__mmap() makes one ring per CPU of the map, in map order */
	return perf_cpu_map__cpu(pr->cpus, (int)ring).cpu;
}

int pn_perfring_poll(struct pn_perfring *pr, int timeout_ms)
{
	int ret = perf_evlist__poll(pr->el, timeout_ms);

	return ret < 0 ? -errno : ret;
}

int pn_perfring_read(struct pn_perfring *pr, pn_perfring_fn fn, void *arg)
{
	for (size_t i = 0; i < pr->nrings; i++) {
		struct perf_mmap *m = pr->maps[i];
		union perf_event *e;
		int stop = 0;

		if (perf_mmap__read_init(m) < 0)
			continue; /* empty */
		/* Hand the space back every 256 records, not after each:
		 * consume() publishes the tail (a barrier and a store to the
		 * shared page) up to the last record read, and took a third of
		 * the reader's time when called per record. */
		for (unsigned n = 1; !stop && (e = perf_mmap__read_event(m)); n++) {
			struct pn_perfrec r;

			/* the ring was written by other CPUs: start loading the
			 * records a few ahead (a prefetch never faults, even past
			 * the end of the mapping) */
			__builtin_prefetch((const char *)e + 512);
			__builtin_prefetch((const char *)e + 576);
			if (pn_perfrec_parse(e, e->header.size, &r))
				r.type = 0; /* malformed: counted by fn as such */
			stop = fn(arg, i, &r);
			if (!(n % 256))
				perf_mmap__consume(m);
		}
		perf_mmap__consume(m);
		perf_mmap__read_done(m);
		if (stop)
			return stop;
	}
	return 0;
}

int pn_perfring_counts(struct pn_perfring *pr, size_t ev, size_t ring, uint64_t *count,
		       uint64_t *lost, uint64_t *id)
{
	struct perf_counts_values v;
	int ret;

	if (ev >= pr->nev || ring >= pr->nrings)
		return -EINVAL;
	memset(&v, 0, sizeof(v));
	ret = perf_evsel__read(pr->ev[ev], (int)ring, 0, &v);
	if (ret)
		return ret < 0 ? ret : -EIO;
	*count = v.val;
	*lost = v.lost;
	*id = v.id;
	return 0;
}

int pn_perfring_filter(struct pn_perfring *pr, size_t ev, const char *filter)
{
	int ret;

	if (ev >= pr->nev)
		return -EINVAL;
	/* the ioctl cannot remove a filter: "" becomes one that always holds
	 * (common_type is the event's id, never 0) */
	ret = perf_evsel__apply_filter(pr->ev[ev], *filter ? filter : "common_type != 0");
	return ret < 0 ? -errno : ret;
}

void pn_perfring_close(struct pn_perfring *pr)
{
	if (!pr)
		return;
	if (pr->el) {
		struct perf_evsel *ev;

		perf_evlist__munmap(pr->el);
		perf_evlist__close(pr->el);
		/* libperf 6.12's perf_evsel__delete() only frees the struct: drop
		 * the map references and ids each evsel took */
		perf_evlist__for_each_evsel(pr->el, ev)
		{
			perf_evsel__free_id(ev);
			perf_cpu_map__put(perf_evsel__cpus(ev));
			perf_thread_map__put(perf_evsel__threads(ev));
		}
		perf_evlist__delete(pr->el); /* deletes the evsels, drops the list's maps */
	}
	/* perf_evlist__set_maps took its own references; drop ours */
	perf_cpu_map__put(pr->cpus);
	perf_thread_map__put(pr->threads);
	free(pr->maps);
	free(pr->ev);
	free(pr);
}
#else
int pn_perfring_open(struct pn_perfring **out, const uint64_t *ids, size_t n,
		     const struct pn_perfring_cfg *cfg)
{
	(void)out, (void)ids, (void)n, (void)cfg;
	return -ENOSYS;
}
int pn_perfring_enable(struct pn_perfring *pr)
{
	(void)pr;
	return -ENOSYS;
}
int pn_perfring_disable(struct pn_perfring *pr)
{
	(void)pr;
	return -ENOSYS;
}
size_t pn_perfring_nrings(const struct pn_perfring *pr)
{
	(void)pr;
	return 0;
}
int pn_perfring_ring_cpu(const struct pn_perfring *pr, size_t ring)
{
	(void)pr, (void)ring;
	return -ENOSYS;
}
int pn_perfring_poll(struct pn_perfring *pr, int timeout_ms)
{
	(void)pr, (void)timeout_ms;
	return -ENOSYS;
}
int pn_perfring_read(struct pn_perfring *pr, pn_perfring_fn fn, void *arg)
{
	(void)pr, (void)fn, (void)arg;
	return -ENOSYS;
}
int pn_perfring_counts(struct pn_perfring *pr, size_t ev, size_t ring, uint64_t *count,
		       uint64_t *lost, uint64_t *id)
{
	(void)pr, (void)ev, (void)ring, (void)count, (void)lost, (void)id;
	return -ENOSYS;
}
int pn_perfring_filter(struct pn_perfring *pr, size_t ev, const char *filter)
{
	(void)pr, (void)ev, (void)filter;
	return -ENOSYS;
}
void pn_perfring_close(struct pn_perfring *pr)
{
	(void)pr;
}
#endif
