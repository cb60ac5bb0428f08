// SPDX-License-Identifier: GPL-2.0-only
/*
 * pagemap.c - PFN -> node from the sysfs memory blocks, and a census of a
 * process's pages from /proc/PID/pagemap.  See pagemap.h for the contracts.
 *
 * pagemap entry (Documentation/admin-guide/mm/pagemap.rst): bit 63 present,
 * bit 62 swapped, bits 0-54 the PFN when present (0 without CAP_SYS_ADMIN).
 * A memory block N covers physical addresses [N, N + 1) x block_size_bytes;
 * sysfs links it from the node that holds it as nodeK/memoryN.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pagemap.h"
#include "procfs.h"

#define MEM_DIR	 "/sys/devices/system/memory"
#define NODE_DIR "/sys/devices/system/node"

#define PM_PRESENT  (1ULL << 63)
#define PM_SWAPPED  (1ULL << 62)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define PM_CHUNK    4096 /* entries per pread: 32 KiB */

/*
 * PAGEMAP_SCAN (Linux 6.7): the populated regions of a range in one call,
 * so that a census does not read 8 bytes for every page of a huge sparse
 * reservation (sanitizer shadow, allocator arenas).  The uapi headers of
 * Debian 12 predate it: the ABI is copied from include/uapi/linux/fs.h.
 */
#ifndef PAGEMAP_SCAN
struct page_region {
	uint64_t start, end, categories;
};
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN	_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#endif
#define SCAN_REGIONS 256

struct blk {
	uint64_t block;
	int node;
};

struct blist {
	size_t n, cap;
	struct blk *v;
};

static int blk_cmp(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->block < y->block ? -1 : x->block > y->block;
}

/* "<prefix><decimal>" exactly; -1 otherwise. */
static int64_t name_num(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *end;
	unsigned long long v;

	if (strncmp(name, prefix, pl) != 0 || name[pl] < '0' || name[pl] > '9')
		return -1;
	errno = 0;
	v = strtoull(name + pl, &end, 10);
	if (errno || *end || v > INT64_MAX)
		return -1;
	return (int64_t)v;
}

/* The memoryN links of nodeK. */
static int scan_node(int node, struct blist *l)
{
	char rel[64], path[4096];
	struct dirent *de;
	DIR *d;
	int ret;

	snprintf(rel, sizeof(rel), NODE_DIR "/node%d", node);
	ret = pn_path(path, sizeof(path), rel);
	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int64_t b = name_num(de->d_name, "memory");

		if (b < 0)
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->v = pn_xrealloc(l->v, l->cap * sizeof(*l->v));
		}
		l->v[l->n++] = (struct blk){ .block = (uint64_t)b, .node = node };
	}
	closedir(d);
	return 0;
}

static int scan_nodes(struct blist *l)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int ret = pn_path(path, sizeof(path), NODE_DIR);

	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && !ret) {
		int64_t n = name_num(de->d_name, "node");

		if (n >= 0 && n < PN_MAX_NODES)
			ret = scan_node((int)n, l);
	}
	closedir(d);
	return ret;
}

/* Sorted blocks -> runs of consecutive blocks on one node. */
static int build_runs(struct pn_pfnmap *m, struct blist *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), blk_cmp);
	for (size_t i = 0; i < l->n; i++) {
		struct pn_pfnmap_run *r = m->nruns ? &m->runs[m->nruns - 1] : NULL;

		if (i && l->v[i].block == l->v[i - 1].block)
			return pn_error(-EINVAL,
					"%s" MEM_DIR "/memory%llu: linked from node%d and node%d",
					pn_sysroot(), (unsigned long long)l->v[i].block,
					l->v[i - 1].node, l->v[i].node);
		if (r && r->node == l->v[i].node && r->first_block + r->nblocks == l->v[i].block) {
			r->nblocks++;
			continue;
		}
		m->runs = pn_xrealloc(m->runs, (m->nruns + 1) * sizeof(*m->runs));
		m->runs[m->nruns++] = (struct pn_pfnmap_run){
			.first_block = l->v[i].block,
			.nblocks = 1,
			.node = l->v[i].node,
		};
	}
	m->nblocks = l->n;
	return 0;
}

void pn_pfnmap_free(struct pn_pfnmap *m)
{
	free(m->runs);
	memset(m, 0, sizeof(*m));
}

int pn_pfnmap_load(struct pn_pfnmap *m)
{
	struct blist l = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	uint64_t bs;
	int ret;

	pn_pfnmap_free(m);
	ret = pn_read_u64(MEM_DIR "/block_size_bytes", &bs, true);
	if (ret)
		return ret;
	if (page <= 0 || bs < (uint64_t)page || (bs & (bs - 1)))
		return pn_error(-EINVAL,
				"%s" MEM_DIR "/block_size_bytes: %#llx is not a block size",
				pn_sysroot(), (unsigned long long)bs);
	ret = scan_nodes(&l);
	if (!ret) {
		m->block_bytes = bs;
		m->page_bytes = (uint64_t)page;
		ret = build_runs(m, &l);
	}
	free(l.v);
	if (ret)
		pn_pfnmap_free(m);
	return ret;
}

int pn_pfnmap_node(const struct pn_pfnmap *m, uint64_t pfn)
{
	size_t lo = 0, hi = m->nruns;
	uint64_t block;

	if (!m->nruns)
		return -1;
	block = pfn / (m->block_bytes / m->page_bytes);
	while (lo < hi) { /* the last run starting at or before block */
		size_t mid = lo + (hi - lo) / 2;

		if (m->runs[mid].first_block <= block)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || block - m->runs[lo - 1].first_block >= m->runs[lo - 1].nblocks)
		return -1;
	return m->runs[lo - 1].node;
}

/* ---- census ---- */

static int count_entries(const uint64_t *e, size_t n, const struct pn_pfnmap *m,
			 struct pn_census *out)
{
	for (size_t i = 0; i < n; i++) {
		int node;

		if (e[i] & PM_PRESENT) {
			uint64_t pfn = e[i] & PM_PFN_MASK;

			if (!pfn)
				return -EPERM; /* PFNs hidden: no CAP_SYS_ADMIN */
			out->present++;
			node = pn_pfnmap_node(m, pfn);
			if (node < 0)
				out->unknown_pfn++;
			else
				out->node_pages[node]++;
		} else if (e[i] & PM_SWAPPED) {
			out->swapped++;
		} else {
			out->none++;
		}
	}
	return 0;
}

/* Count the entries of pages [vpn, end); what pagemap does not return
 * (beyond TASK_SIZE) is unread. */
static int read_entries(int fd, uint64_t vpn, uint64_t end, const struct pn_pfnmap *m,
			uint64_t *buf, struct pn_census *out)
{
	while (vpn < end) {
		size_t want = end - vpn < PM_CHUNK ? (size_t)(end - vpn) : PM_CHUNK;
		ssize_t got = pread(fd, buf, want * 8, (off_t)(vpn * 8));
		int ret;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got % 8)
			return -EIO;
		if (got == 0) { /* beyond the end of user space */
			out->unread += end - vpn;
			return 0;
		}
		ret = count_entries(buf, (size_t)got / 8, m, out);
		if (ret)
			return ret;
		vpn += (uint64_t)got / 8;
	}
	return 0;
}

/*
 * With PAGEMAP_SCAN: entries are read only for the regions it reports
 * present or swapped; the rest of the range is none.  Returns -ENOTTY when
 * the kernel lacks it (the caller reads everything), -EFAULT/-EINVAL for a
 * range it refuses (above TASK_SIZE: the caller reads that range).
 */
static int scan_range(int fd, uint64_t vpn, uint64_t end, const struct pn_pfnmap *m, uint64_t *buf,
		      struct pn_census *out)
{
	struct page_region vec[SCAN_REGIONS];
	uint64_t pg = out->page_bytes, seen = 0;
	struct pm_scan_arg a = {
		.size = sizeof(a),
		.start = vpn * pg,
		.end = end * pg,
		.vec = (uintptr_t)vec,
		.vec_len = SCAN_REGIONS,
		.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
		.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
	};
	struct pn_census before = *out;

	while (a.start < a.end) {
		long n = ioctl(fd, PAGEMAP_SCAN, &a);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int ret = -errno;

			*out = before; /* the caller starts over */
			return ret;
		}
		for (long i = 0; i < n; i++) {
			int ret = read_entries(fd, vec[i].start / pg, vec[i].end / pg, m, buf, out);

			if (ret)
				return ret;
			seen += (vec[i].end - vec[i].start) / pg;
		}
		if (a.walk_end <= a.start)
			break;
		a.start = a.walk_end;
	}
	out->none += (end - vpn) - seen;
	return 0;
}

static int census_range(int fd, const struct pn_range *r, const struct pn_pfnmap *m, uint64_t *buf,
			bool *scan, struct pn_census *out)
{
	uint64_t pg = out->page_bytes, vpn = r->start / pg;
	uint64_t end = r->end / pg + (r->end % pg != 0);
	int ret;

	if (r->end < r->start)
		return -EINVAL;
	out->pages += end - vpn;
	if (*scan) {
		ret = scan_range(fd, vpn, end, m, buf, out);
		if (ret == -ENOTTY)
			*scan = false; /* not this kernel: read every entry from now on */
		if (ret != -ENOTTY && ret != -EFAULT && ret != -EINVAL)
			return ret;
	}
	return read_entries(fd, vpn, end, m, buf, out);
}

int pn_pagemap_census_ranges(pid_t pid, const struct pn_range *r, size_t n,
			     const struct pn_pfnmap *m, struct pn_census *out)
{
	char rel[64];
	uint64_t *buf;
	bool scan = true;
	int fd, ret = 0;

	memset(out, 0, sizeof(*out));
	pn_proc_pid_path(rel, sizeof(rel), pid, "pagemap");
	fd = pn_open(rel, O_RDONLY);
	if (fd < 0)
		return fd;
	out->page_bytes = m->page_bytes ? m->page_bytes : (uint64_t)sysconf(_SC_PAGESIZE);
	buf = pn_xmalloc(PM_CHUNK * sizeof(*buf));
	for (size_t i = 0; i < n && !ret; i++)
		ret = census_range(fd, &r[i], m, buf, &scan, out);
	free(buf);
	close(fd);
	if (ret)
		memset(out, 0, sizeof(*out));
	return ret;
}

int pn_pagemap_census(pid_t pid, const struct pn_pfnmap *m, struct pn_census *out)
{
	struct pn_maps maps;
	struct pn_range *r;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = pn_maps_read(pid, &maps);
	if (ret)
		return ret;
	r = pn_xcalloc(maps.n ? maps.n : 1, sizeof(*r));
	for (size_t i = 0; i < maps.n; i++)
		r[i] = (struct pn_range){ .start = maps.v[i].start, .end = maps.v[i].end };
	ret = pn_pagemap_census_ranges(pid, r, maps.n, m, out);
	free(r);
	pn_maps_free(&maps);
	return ret;
}
