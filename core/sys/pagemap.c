// SPDX-License-Identifier: GPL-2.0-only
/*
 * pagemap.c - a census of a process's pages from /proc/PID/pagemap, each
 * present page's PFN mapped to its node by pfnnode.c.  See pagemap.h for the
 * contracts.
 *
 * pagemap entry (Documentation/admin-guide/mm/pagemap.rst): bit 63 present,
 * bit 62 swapped, bits 0-54 the PFN when present (0 without CAP_SYS_ADMIN).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pagemap.h"
#include "procfs.h"

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

/* ---- census ---- */

static int count_entries(const uint64_t *e, size_t n, const struct pn_pfnnode *m,
			 struct pn_census *out)
{
	for (size_t i = 0; i < n; i++) {
		int node;

		if (e[i] & PM_PRESENT) {
			uint64_t pfn = e[i] & PM_PFN_MASK;

			if (!pfn)
				return -EPERM; /* PFNs hidden: no CAP_SYS_ADMIN */
			out->present++;
			node = pn_pfnnode_lookup(m, pfn);
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
static int read_entries(int fd, uint64_t vpn, uint64_t end, const struct pn_pfnnode *m,
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
static int scan_range(int fd, uint64_t vpn, uint64_t end, const struct pn_pfnnode *m, uint64_t *buf,
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

static int census_range(int fd, const struct pn_range *r, const struct pn_pfnnode *m, uint64_t *buf,
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
			     const struct pn_pfnnode *m, struct pn_census *out)
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

int pn_pagemap_census(pid_t pid, const struct pn_pfnnode *m, struct pn_census *out)
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
