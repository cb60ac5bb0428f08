// SPDX-License-Identifier: GPL-2.0-only
/*
 * chase.c - the single-cycle windowed pointer chase, its timing, the cache
 * flush and the LLC size (see chase.h for the method).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "chase.h"

/* splitmix64: small, fast, good enough to shuffle with. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias. */
static size_t rng_below(uint64_t *s, size_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = rng_next(s);
	while (v >= lim);
	return (size_t)(v % n);
}

static void shuffle(size_t *v, size_t n, uint64_t *s)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_below(s, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

int pn_chase_build(struct pn_chase *c, void *buf, size_t bytes, size_t stride, size_t window_bytes,
		   uint64_t seed)
{
	size_t n, w, nwin, k = 0, *order, *wins;
	uint64_t s = seed;

	memset(c, 0, sizeof(*c));
	if (!buf || stride < sizeof(void *) || (stride & (stride - 1)) ||
	    ((uintptr_t)buf & (sizeof(void *) - 1)))
		return -EINVAL;
	n = bytes / stride;
	if (n < 2)
		return -EINVAL;
	if (window_bytes % stride)
		return -EINVAL;
	w = window_bytes ? window_bytes / stride : n;
	if (w > n)
		w = n;
	nwin = (n + w - 1) / w;
	order = malloc(n * sizeof(*order));
	wins = malloc(nwin * sizeof(*wins));
	if (!order || !wins) {
		free(order);
		free(wins);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nwin; i++)
		wins[i] = i;
	shuffle(wins, nwin, &s);
	/* Visit order: every element of a window, shuffled, then the next window. */
	for (size_t i = 0; i < nwin; i++) {
		size_t first = wins[i] * w, len = first + w <= n ? w : n - first;

		for (size_t j = 0; j < len; j++)
			order[k + j] = first + j;
		shuffle(order + k, len, &s);
		k += len;
	}
	/* Close the visit order into one cycle. */
	for (size_t i = 0; i < n; i++) {
		char *from = (char *)buf + order[i] * stride;
		char *to = (char *)buf + order[(i + 1) % n] * stride;

		memcpy(from, &to, sizeof(to));
	}
	c->buf = buf;
	c->bytes = n * stride;
	c->stride = stride;
	c->nelems = n;
	c->window_elems = w;
	c->start = (char *)buf + order[0] * stride;
	free(order);
	free(wins);
	return 0;
}

void *pn_chase_walk(void *pos, uint64_t hops)
{
	void *volatile *p = pos;

	/* Every load depends on the one before: nothing can overlap them. */
	for (; hops >= 8; hops -= 8) {
		p = (void *volatile *)*p;
		p = (void *volatile *)*p;
		p = (void *volatile *)*p;
		p = (void *volatile *)*p;
		p = (void *volatile *)*p;
		p = (void *volatile *)*p;
		p = (void *volatile *)*p;
		p = (void *volatile *)*p;
	}
	while (hops--)
		p = (void *volatile *)*p;
	return (void *)p;
}

uint64_t pn_now_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int pn_chase_sample(struct pn_chase *c, uint64_t hops, double *samples, size_t nsamples)
{
	void *pos = c->start;

	if (!c->buf || !hops)
		return -EINVAL;
	for (size_t i = 0; i < nsamples; i++) {
		uint64_t t0 = pn_now_raw_ns(), t1;

		pos = pn_chase_walk(pos, hops);
		t1 = pn_now_raw_ns();
		samples[i] = (double)(t1 - t0) / (double)hops;
	}
	c->start = pos;
	return 0;
}

uint64_t pn_chase_calibrate(struct pn_chase *c, uint64_t target_ns)
{
	uint64_t hops = 1024, t0, dt;

	for (;;) {
		t0 = pn_now_raw_ns();
		c->start = pn_chase_walk(c->start, hops);
		dt = pn_now_raw_ns() - t0;
		if (dt >= target_ns / 8 || hops >= (1ULL << 40))
			break;
		hops *= 2;
	}
	if (!dt)
		return hops;
	hops = (uint64_t)((double)hops * (double)target_ns / (double)dt);
	return hops < 1024 ? 1024 : hops;
}

int pn_cache_flush(const void *buf, size_t bytes)
{
#if defined(__x86_64__) || defined(__i386__)
	const char *p = (const char *)buf - ((uintptr_t)buf & 63);

	for (; p < (const char *)buf + bytes; p += 64)
		__asm__ volatile("clflush (%0)" : : "r"(p) : "memory");
	__asm__ volatile("mfence" : : : "memory");
	return 0;
#elif defined(__aarch64__)
	const char *p = (const char *)buf - ((uintptr_t)buf & 63);

	for (; p < (const char *)buf + bytes; p += 64)
		__asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
	__asm__ volatile("dsb ish" : : : "memory");
	return 0;
#else
	(void)buf;
	(void)bytes;
	return -EOPNOTSUPP;
#endif
}

void pn_lat_stats(double *v, size_t n, struct pn_lat_stats *s)
{
	double sum = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	s->n = n;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean_ns = sum / (double)n;
	s->p99_ns = pn_percentile(v, n, 99.0); /* sorts v */
	s->median_ns = pn_median(v, n);
	s->min_ns = v[0];
	s->max_ns = v[n - 1];
}

bool pn_lat_disturbed(const struct pn_lat_stats *s)
{
	return s->n && s->min_ns > 0 && s->median_ns > PN_LAT_DISTURBED * s->min_ns;
}

int pn_chase_measure(struct pn_chase *c, size_t nsamples, uint64_t sample_ms,
		     struct pn_lat_stats *st)
{
	double *s;
	uint64_t hops;
	int ret;

	if (nsamples < 2)
		return -EINVAL;
	s = pn_xcalloc(nsamples, sizeof(double));
	hops = pn_chase_calibrate(c, sample_ms * 1000000ULL);
	pn_cache_flush(c->buf, c->bytes); /* -EOPNOTSUPP: the dropped sample warms up */
	ret = pn_chase_sample(c, hops, s, nsamples);
	if (!ret)
		pn_lat_stats(s + 1, nsamples - 1, st);
	free(s);
	return ret;
}

int pn_chase_reference_ns(size_t bytes, size_t nsamples, uint64_t sample_ms, double *ns)
{
	char *buf = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
	struct pn_chase c;
	struct pn_lat_stats st = { 0 };
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = pn_chase_build(&c, buf, bytes, PN_CHASE_MIN_STRIDE, 0, 1);
	if (!ret)
		ret = pn_chase_measure(&c, nsamples, sample_ms, &st);
	if (!ret)
		*ns = st.median_ns;
	free(buf);
	return ret;
}

void pn_prefetch_state(int cpu, char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	uint64_t v = 0;
	char path[64];
	int fd;

	__cpuid(0, a, b, c, d);
	if (b != 0x756e6547 || d != 0x49656e69 || c != 0x6c65746e) { /* "GenuineIntel" */
		snprintf(buf, len, "not controlled (not an Intel CPU: no MSR 0x1A4)");
		return;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu < 0 ? 0 : cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &v, sizeof(v), 0x1a4) != (ssize_t)sizeof(v))
		snprintf(buf, len, "unknown (%s unreadable: root and the msr module needed)", path);
	else
		snprintf(buf, len, "MSR 0x1A4 = %#llx (%s)", (unsigned long long)v,
			 (v & 0xf) == 0	    ? "all four on"
			 : (v & 0xf) == 0xf ? "all four off"
					    : "some off");
	if (fd >= 0)
		close(fd);
#else
	(void)cpu;
	snprintf(buf, len, "not controlled (no known prefetcher control here)");
#endif
}

/* "32K", "1024K", "8M" as the kernel writes cache sizes. */
static int parse_cache_size(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K': v <<= 10; break;
	case 'M': v <<= 20; break;
	case 'G': v <<= 30; break;
	default: break;
	}
	*bytes = v;
	return v ? 0 : -EINVAL;
}

/*
 * The live system without cache directories in sysfs (some hypervisors'
 * guests): the largest cache level glibc reads from CPUID.  Never for a
 * replayed sysroot, whose CPU is not this one.
 */
static uint64_t llc_from_cpuid(void)
{
	static const int names[] = { _SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE,
				     _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL1_DCACHE_SIZE };

	for (size_t i = 0; i < PN_ARRAY_SIZE(names); i++) {
		long v = sysconf(names[i]);

		if (v > 0)
			return (uint64_t)v;
	}
	return 0;
}

int pn_llc_bytes(int cpu, uint64_t *bytes)
{
	uint64_t best = 0;
	int best_level = 0;

	for (int i = 0; i < 16; i++) {
		char rel[128], buf[64];
		uint64_t sz, lvl;

		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/cache/index%d/type",
			 cpu < 0 ? 0 : cpu, i);
		if (pn_read_text(rel, buf, sizeof(buf)) < 0)
			break;
		if (!strncmp(buf, "Instruction", 11))
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
			 cpu < 0 ? 0 : cpu, i);
		if (pn_read_u64(rel, &lvl, false))
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
			 cpu < 0 ? 0 : cpu, i);
		if (pn_read_text(rel, buf, sizeof(buf)) < 0 || parse_cache_size(buf, &sz))
			continue;
		if ((int)lvl > best_level || ((int)lvl == best_level && sz > best)) {
			best_level = (int)lvl;
			best = sz;
		}
	}
	if (!best && !pn_sysroot()[0])
		best = llc_from_cpuid();
	if (!best)
		return -ENOENT;
	*bytes = best;
	return 0;
}
