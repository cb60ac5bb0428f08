// SPDX-License-Identifier: GPL-2.0-only
/*
 * membw.c - bandwidth kernels and their threads (see membw.h).
 *
 * The kernels use 16-byte GCC vector types (one SSE2 or NEON register;
 * wider types without -mavx are lowered through the stack), so they do not
 * depend on the auto-vectoriser's mood.  Each
 * thread works on its own slice in 256 KiB chunks and polls the stop flag
 * between chunks (4 KiB ones under an injection delay); only whole chunks
 * are counted.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define HAVE_NT 1
#else
#define HAVE_NT 0
#endif

#include "chase.h"
#include "membw.h"

#define CHUNK (256UL << 10)

typedef uint64_t v2u __attribute__((vector_size(16), aligned(16)));
typedef double v2d __attribute__((vector_size(16), aligned(16)));

static const char *const kind_names[PN_BW_NKINDS] = { "read", "write", "write_nt", "copy",
						      "triad" };

const char *pn_bw_kind_name(enum pn_bw_kind k)
{
	return k < PN_BW_NKINDS ? kind_names[k] : "?";
}

int pn_bw_kind_parse(const char *s, enum pn_bw_kind *k)
{
	for (int i = 0; i < PN_BW_NKINDS; i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (enum pn_bw_kind)i;
			return 0;
		}
	return -EINVAL;
}

int pn_bw_kinds_parse(const char *list, bool on[PN_BW_NKINDS])
{
	char buf[256], *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum pn_bw_kind k;

		if (pn_bw_kind_parse(t, &k))
			return -EINVAL;
		on[k] = true;
	}
	return 0;
}

int pn_node_values_parse(const char *s, double v[PN_MAX_NODES])
{
	while (*s) {
		char *end;
		long node = strtol(s, &end, 10);
		double x;

		if (end == s || *end != '=' || node < 0 || node >= PN_MAX_NODES)
			return -EINVAL;
		x = strtod(end + 1, &end);
		if (!(x > 0) || (*end && *end != ','))
			return -EINVAL;
		v[node] = x;
		s = *end ? end + 1 : end;
	}
	return 0;
}

unsigned pn_bw_arrays(enum pn_bw_kind k)
{
	return k == PN_BW_COPY ? 2 : k == PN_BW_TRIAD ? 3 : 1;
}

bool pn_bw_nt_native(void)
{
	return HAVE_NT;
}

/* Counted bytes per byte of slice. */
static uint64_t kind_factor(enum pn_bw_kind k)
{
	return k == PN_BW_COPY ? 2 : k == PN_BW_TRIAD ? 3 : 1;
}

static uint64_t k_read(const void *a, size_t n)
{
	const v2u *p = (const v2u *)a;
	v2u s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };

	for (size_t i = 0; i + 3 < n / sizeof(v2u); i += 4) {
		s0 += p[i];
		s1 += p[i + 1];
		s2 += p[i + 2];
		s3 += p[i + 3];
	}
	s0 += s1 + s2 + s3;
	return s0[0] + s0[1];
}

static void k_write(void *a, size_t n, uint64_t v)
{
	v2u *p = (v2u *)a, x = { v, v };

	for (size_t i = 0; i < n / sizeof(v2u); i++)
		p[i] = x;
}

static void k_write_nt(void *a, size_t n, uint64_t v)
{
#if HAVE_NT
	__m128i x = _mm_set1_epi64x((long long)v), *p = (__m128i *)a;

	for (size_t i = 0; i + 3 < n / sizeof(__m128i); i += 4) {
		_mm_stream_si128(p + i, x);
		_mm_stream_si128(p + i + 1, x);
		_mm_stream_si128(p + i + 2, x);
		_mm_stream_si128(p + i + 3, x);
	}
	_mm_sfence();
#else
	k_write(a, n, v);
#endif
}

static void k_copy(void *dst, const void *src, size_t n)
{
	v2u *d = (v2u *)dst;
	const v2u *s = (const v2u *)src;

	for (size_t i = 0; i < n / sizeof(v2u); i++)
		d[i] = s[i];
}

static void k_triad(void *a, const void *b, const void *c, size_t n)
{
	v2d *x = (v2d *)a, q = { 3.0, 3.0 };
	const v2d *y = (const v2d *)b, *z = (const v2d *)c;

	for (size_t i = 0; i < n / sizeof(v2d); i++)
		x[i] = y[i] + q * z[i];
}

struct worker {
	struct pn_bw_load *l;
	pthread_t tid;
	int cpu;
	size_t off, len; /* slice */
	uint64_t bytes, ns, sink;
	int err;
};

struct pn_bw_load {
	struct pn_bw_job job;
	atomic_int ready, go, stop;
	uint64_t t_go, t_end;
	int nthreads;
	struct worker w[];
};

static void run_chunk(const struct pn_bw_job *j, struct worker *w, size_t off, size_t n)
{
	switch (j->kind) {
	case PN_BW_READ: w->sink += k_read(j->arr[0] + off, n); break;
	case PN_BW_WRITE: k_write(j->arr[0] + off, n, w->sink++); break;
	case PN_BW_WRITE_NT: k_write_nt(j->arr[0] + off, n, w->sink++); break;
	case PN_BW_COPY: k_copy(j->arr[0] + off, j->arr[1] + off, n); break;
	case PN_BW_TRIAD: k_triad(j->arr[0] + off, j->arr[1] + off, j->arr[2] + off, n); break;
	case PN_BW_NKINDS: break;
	}
}

void pn_bw_spin(uint32_t iters)
{
	for (uint32_t i = 0; i < iters; i++)
		__asm__ volatile("" : : "r"(i)); /* a loop the optimiser must keep */
}

/* A chunk line by line with the injection delay after each 64-byte line. */
static void run_chunk_delayed(const struct pn_bw_job *j, struct worker *w, size_t off, size_t n)
{
	for (size_t o = 0; o + 64 <= n; o += 64) {
		run_chunk(j, w, off + o, 64);
		pn_bw_spin(j->delay);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pn_bw_load *l = w->l;
	uint64_t t0, factor = kind_factor(l->job.kind);
	size_t pos = 0, chunk = l->job.delay ? 4096 : CHUNK; /* delayed: stop soon */

	if (w->cpu >= 0)
		w->err = pn_pin_thread(w->cpu);
	atomic_fetch_add(&l->ready, 1);
	while (!atomic_load_explicit(&l->go, memory_order_acquire))
		sched_yield();
	t0 = pn_now_raw_ns();
	while (!atomic_load_explicit(&l->stop, memory_order_relaxed)) {
		size_t n = w->len - pos < chunk ? w->len - pos : chunk;

		if (l->job.delay)
			run_chunk_delayed(&l->job, w, w->off + pos, n);
		else
			run_chunk(&l->job, w, w->off + pos, n);
		w->bytes += n * factor;
		pos += n;
		if (pos >= w->len)
			pos = 0;
	}
	w->ns = pn_now_raw_ns() - t0;
	return NULL;
}

int pn_bw_start(const struct pn_bw_job *j, struct pn_bw_load **out)
{
	struct pn_bw_load *l;
	size_t slice;
	int started = 0, ret = 0;

	*out = NULL;
	if (j->nthreads < 1 || j->nthreads > PN_BW_MAX_THREADS || j->kind >= PN_BW_NKINDS)
		return -EINVAL;
	for (unsigned i = 0; i < pn_bw_arrays(j->kind); i++)
		if (!j->arr[i] || ((uintptr_t)j->arr[i] & 63))
			return -EINVAL;
	/* Slices of whole 4 KiB pages, so no two threads share a line or page. */
	slice = (j->bytes / (size_t)j->nthreads) & ~(size_t)4095;
	if (slice < 4096)
		return -EINVAL;
	l = calloc(1, sizeof(*l) + (size_t)j->nthreads * sizeof(l->w[0]));
	if (!l)
		return -ENOMEM;
	l->job = *j;
	l->nthreads = j->nthreads;
	for (int i = 0; i < j->nthreads; i++) {
		struct worker *w = &l->w[i];

		w->l = l;
		w->cpu = j->cpus ? j->cpus[i] : -1;
		w->off = (size_t)i * slice;
		w->len = slice;
		ret = -pthread_create(&w->tid, NULL, worker_main, w);
		if (ret)
			break;
		started++;
	}
	while (atomic_load(&l->ready) < started)
		sched_yield();
	l->t_go = pn_now_raw_ns();
	atomic_store_explicit(&l->go, 1, memory_order_release);
	if (ret) {
		l->nthreads = started;
		pn_bw_stop(l, NULL);
		return ret;
	}
	*out = l;
	return 0;
}

int pn_bw_stop(struct pn_bw_load *l, struct pn_bw_result *r)
{
	double rate = 0;
	uint64_t bytes = 0;
	int err = 0;

	if (!l)
		return -EINVAL;
	atomic_store(&l->stop, 1);
	for (int i = 0; i < l->nthreads; i++) {
		struct worker *w = &l->w[i];

		pthread_join(w->tid, NULL);
		if (w->err && !err)
			err = w->err;
		bytes += w->bytes;
		if (w->ns)
			rate += (double)w->bytes * 1e9 / (double)w->ns;
	}
	l->t_end = pn_now_raw_ns();
	if (r) {
		r->bytes_per_sec = rate;
		r->bytes = bytes;
		r->wall_ns = l->t_end - l->t_go;
		r->nthreads = l->nthreads;
	}
	free(l);
	return err;
}

int pn_bw_measure(const struct pn_bw_job *j, uint64_t duration_ms, struct pn_bw_result *r)
{
	struct pn_bw_load *l;
	struct timespec ts = { (time_t)(duration_ms / 1000),
			       (long)(duration_ms % 1000) * 1000000L };
	int ret = pn_bw_start(j, &l);

	if (ret)
		return ret;
	while (nanosleep(&ts, &ts) && errno == EINTR && !pn_should_stop())
		;
	return pn_bw_stop(l, r);
}

int pn_pin_thread(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int pn_count_steps(int first, int max, int *v, int nv)
{
	int k = 0;

	if (first == 0 && k < nv)
		v[k++] = 0;
	for (int n = 1; n <= max && k < nv; n = n < max && 2 * n > max ? max : 2 * n)
		v[k++] = n;
	return k;
}

int pn_cpus_allowed(int *cpus, int n)
{
	cpu_set_t set;
	int k = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return n;
	for (int c = 0; c < n; c++)
		if (cpus[c] >= 0 && cpus[c] < CPU_SETSIZE && CPU_ISSET(cpus[c], &set))
			cpus[k++] = cpus[c];
	return k;
}

int pn_cpulist_parse(const char *s, int *cpus, int max)
{
	int n = 0;

	while (*s && isspace((unsigned char)*s))
		s++;
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int)c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n;
}
