// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfring.c - tracepoints on every CPU through libperf, their rings read in
 * place (collectors/perf/perfrec.c merges them).  See perfring.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "perfring.h"
#include "core/lib/pn.h"

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

/*
 * The leading fields of libperf's struct perf_mmap (internal/mmap.h; the
 * same since libperf's first release, and this libperf is the pinned 6.12
 * one make deps builds): where the ring is mapped and its data mask.
 * map_rings() checks them against the ring's own control page before use.
 */
struct libperf_mmap_lead {
	void *base;
	int mask;
};

struct pn_perfring {
	struct perf_evlist *el;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	size_t nev, nrings;
	struct perf_evsel **ev;
	struct perf_mmap **maps;
	struct pn_ringview *views;	   /* per ring */
	struct perf_event_mmap_page **ctl; /* per ring: head, tail */
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

/*
 * Map every page of a ring's data area now: the kernel maps them one fault
 * at a time on first touch, and in this VM a fault costs microseconds, which
 * the reader paid during its first lap around each ring (8 MiB: 2048 faults)
 * in the middle of the run.  One madvise where the kernel has
 * MADV_POPULATE_READ (5.14), else a read of every page.
 */
static void prefault(unsigned char *data, uint64_t size)
{
	uint64_t page = (uint64_t)getpagesize();
	volatile unsigned char sink = 0;

#ifdef MADV_POPULATE_READ
	if (!madvise(data, size, MADV_POPULATE_READ))
		return;
#endif
	for (uint64_t off = 0; off < size; off += page)
		sink ^= data[off];
	(void)sink;
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
	pr->views = pn_xcalloc(pr->nrings ? pr->nrings : 1, sizeof(*pr->views));
	pr->ctl = pn_xcalloc(pr->nrings ? pr->nrings : 1,
			     sizeof(*pr->ctl)); // NOLINT(bugprone-sizeof-expression)
	for (i = 0; i < pr->nrings; i++) {
		const struct libperf_mmap_lead *l = (const void *)pr->maps[i];
		struct perf_event_mmap_page *pc = l->base;
		uint64_t size = (uint64_t)(unsigned)l->mask + 1, page = (uint64_t)getpagesize();

		if (!pc || (uintptr_t)pc % page || size != pages * page ||
		    (pc->data_offset && pc->data_offset != page) ||
		    (pc->data_size && pc->data_size != size))
			return pn_error(-EPROTO, "perf: libperf's ring layout is not the one "
						 "this reader knows (rebuild libperf: make deps)");
		pr->ctl[i] = pc;
		pr->views[i].data = (const unsigned char *)pc + page;
		pr->views[i].size = size;
		pr->views[i].tail = __atomic_load_n(&pc->data_tail, __ATOMIC_ACQUIRE);
		pr->views[i].bounce = pn_xmalloc(PN_PERFREC_MAX);
		prefault((unsigned char *)pc + page, size);
	}
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

int pn_perfring_read(struct pn_perfring *pr, uint64_t limit, pn_perfring_fn fn, void *arg,
		     struct pn_perfmerge_stats *st)
{
	int ret;

	/* the head once per ring and round: the writer stores it after every
	 * record, and loading it per record (libperf's reader) bounced its
	 * cache line between the CPUs all the time */
	for (size_t i = 0; i < pr->nrings; i++)
		pr->views[i].head = __atomic_load_n(&pr->ctl[i]->data_head, __ATOMIC_ACQUIRE);
	ret = pn_perfmerge(pr->views, pr->nrings, limit, fn, arg, st);
	/* the space of what was handed over goes back to the writer once (a
	 * release: every read of it is done) */
	for (size_t i = 0; i < pr->nrings; i++)
		__atomic_store_n(&pr->ctl[i]->data_tail, pr->views[i].tail, __ATOMIC_RELEASE);
	return ret;
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
	for (size_t i = 0; pr->views && i < pr->nrings; i++)
		free(pr->views[i].bounce);
	free(pr->views);
	free(pr->ctl);
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
int pn_perfring_read(struct pn_perfring *pr, uint64_t limit, pn_perfring_fn fn, void *arg,
		     struct pn_perfmerge_stats *st)
{
	(void)pr, (void)limit, (void)fn, (void)arg, (void)st;
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
