// SPDX-License-Identifier: GPL-2.0-only
/*
 * nodebuf.c - node-bound measurement buffers (see nodebuf.h).
 *
 * The policy is MPOL_BIND to one node, given before the first touch, so a
 * full node makes the fault fail (SIGBUS for hugetlb, OOM in the cgroup for
 * base pages) rather than silently measure another node; the census then
 * proves where the pages are.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include "nodebuf.h"

#define HUGE_2M	     (2UL << 20)
#define VERIFY_BATCH 1024

const char *pn_huge_name(enum pn_huge h)
{
	switch (h) {
	case PN_HUGE_NONE: return "none";
	case PN_HUGE_AUTO: return "auto";
	case PN_HUGE_THP: return "thp";
	case PN_HUGE_HUGETLB: return "hugetlb";
	}
	return "?";
}

void pn_thp_mode(char *buf, size_t len)
{
	char raw[256], *l, *r;

	buf[0] = '\0';
	if (pn_read_text("/sys/kernel/mm/transparent_hugepage/enabled", raw, sizeof(raw)) < 0)
		return;
	l = strchr(raw, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!l || !r)
		return;
	*r = '\0';
	snprintf(buf, len, "%s", l + 1);
}

static uint64_t free_hugetlb_pages(int node)
{
	char rel[160];
	uint64_t v = 0;

	snprintf(rel, sizeof(rel),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/free_hugepages", node);
	if (pn_read_u64(rel, &v, false))
		return 0;
	return v;
}

static enum pn_huge resolve_huge(enum pn_huge want, int node, size_t bytes)
{
	char thp[32];

	if (want != PN_HUGE_AUTO)
		return want;
	if (free_hugetlb_pages(node) >= bytes / HUGE_2M)
		return PN_HUGE_HUGETLB;
	pn_thp_mode(thp, sizeof(thp));
	if (*thp && strcmp(thp, "never") != 0)
		return PN_HUGE_THP;
	return PN_HUGE_NONE;
}

/* An anonymous mapping of len bytes aligned to 2 MiB (THP can back it whole). */
static void *map_aligned(size_t len)
{
	size_t over = len + HUGE_2M, head;
	char *a = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED)
		return NULL;
	head = (HUGE_2M - ((uintptr_t)a & (HUGE_2M - 1))) & (HUGE_2M - 1);
	if (head)
		munmap(a, head);
	munmap(a + head + len, over - head - len); /* over - head - len >= 1 page */
	return a + head;
}

static int bind_node(void *addr, size_t len, int node)
{
	unsigned long mask[PN_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };

	if (node < 0 || node >= PN_MAX_NODES)
		return -EINVAL;
	mask[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
	if (mbind(addr, len, MPOL_BIND, mask, PN_MAX_NODES + 1, 0))
		return -errno;
	return 0;
}

int pn_nodebuf_alloc(struct pn_nodebuf *b, int node, size_t bytes, enum pn_huge want)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = (bytes + HUGE_2M - 1) & ~(HUGE_2M - 1);
	enum pn_huge h = resolve_huge(want, node, len);
	void *a = NULL;
	int ret;

	memset(b, 0, sizeof(*b));
	b->first_other_node = -1;
	if (!bytes)
		return -EINVAL;
	if (h == PN_HUGE_HUGETLB) {
		a = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0);
		if (a == MAP_FAILED)
			return pn_error(-errno, "nodebuf: hugetlb mmap of %zu bytes: %s", len,
					strerror(errno));
	} else {
		a = map_aligned(len);
		if (!a)
			return pn_error(-errno, "nodebuf: mmap of %zu bytes: %s", len,
					strerror(errno));
		if (h == PN_HUGE_THP && madvise(a, len, MADV_HUGEPAGE))
			h = PN_HUGE_NONE; /* THP compiled out: recorded as none */
		if (h == PN_HUGE_NONE)
			madvise(a, len, MADV_NOHUGEPAGE);
	}
	ret = bind_node(a, len, node);
	if (ret) {
		munmap(a, len);
		return pn_error(ret, "nodebuf: mbind(MPOL_BIND, node %d): %s", node,
				strerror(-ret));
	}
	b->addr = a;
	b->bytes = len;
	b->node = node;
	b->huge = h;
	for (size_t off = 0; off < len; off += (size_t)psz)
		((volatile char *)a)[off] = 1;
	return 0;
}

/* AnonHugePages of the smaps entry that starts at addr (this process, live). */
static uint64_t smaps_thp_bytes(const void *addr)
{
	char line[512], want[32];
	uint64_t kb = 0;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)(uintptr_t)addr);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		/* Mapping headers start with a lower-case hex address, keys with
		 * an upper-case letter ("AnonHugePages:"). */
		if (isxdigit((unsigned char)line[0]) && !isupper((unsigned char)line[0]))
			in = !strncmp(line, want, strlen(want));
		else if (in && sscanf(line, "AnonHugePages: %llu kB", &v) == 1)
			kb += v;
	}
	fclose(f);
	return kb * 1024;
}

int pn_nodebuf_verify(struct pn_nodebuf *b)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *pages[VERIFY_BATCH];
	int status[VERIFY_BATCH];
	size_t off = 0;

	b->pages_on_node = b->pages_elsewhere = b->pages_unverified = 0;
	b->first_other_node = -1;
	while (off < b->bytes) {
		unsigned long n = 0;

		for (; n < VERIFY_BATCH && off < b->bytes; off += (size_t)psz)
			pages[n++] = (char *)b->addr + off;
		if (numa_move_pages(0, n, pages, NULL, status, 0) < 0)
			return pn_error(-errno, "nodebuf: move_pages: %s", strerror(errno));
		for (unsigned long i = 0; i < n; i++) {
			if (status[i] < 0) {
				b->pages_unverified++;
			} else if (status[i] == b->node) {
				b->pages_on_node++;
			} else {
				b->pages_elsewhere++;
				if (b->first_other_node < 0)
					b->first_other_node = status[i];
			}
		}
	}
	b->base_pages = b->bytes / (size_t)psz;
	b->thp_bytes = b->huge == PN_HUGE_THP ? smaps_thp_bytes(b->addr) : 0;
	return 0;
}

void pn_nodebuf_describe(const struct pn_nodebuf *b, char *buf, size_t len)
{
	if (b->huge == PN_HUGE_THP && b->bytes)
		snprintf(buf, len, "thp (%.0f%% of the buffer)",
			 100.0 * (double)b->thp_bytes / (double)b->bytes);
	else
		snprintf(buf, len, "%s", pn_huge_name(b->huge));
}

void pn_nodebuf_free(struct pn_nodebuf *b)
{
	if (b->addr)
		munmap(b->addr, b->bytes);
	b->addr = NULL;
	b->bytes = 0;
}
