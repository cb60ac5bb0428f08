// SPDX-License-Identifier: GPL-2.0-only
/*
 * pfnnode.c - pfn -> node from the sysfs memory-block layout.  See pfnnode.h.
 *
 * The layout is read from the nodeN/memoryM links (one readdir per node),
 * so a reload costs a handful of syscalls and can run every second.  The
 * one map of the tree: the perf collector's page accounting and the
 * pagemap census (pagemap.c) both look pfns up here.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pfnnode.h"
#include "core/lib/pn.h"

#define MEM_DIR	 "/sys/devices/system/memory"
#define NODE_DIR "/sys/devices/system/node"

struct blk {
	uint64_t id;
	int node;
};

static int cmp_blk(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Parse "<prefix><decimal>" exactly; -1 if the name is something else. */
static long long name_num(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *end;
	long long v;

	if (strncmp(name, prefix, pl) != 0 || name[pl] < '0' || name[pl] > '9')
		return -1;
	errno = 0;
	v = strtoll(name + pl, &end, 10);
	if (errno || *end || v < 0)
		return -1;
	return v;
}

/* Append every memoryM link of node dir `rel` to *b. */
static int add_node_blocks(const char *rel, int node, struct blk **b, size_t *n, size_t *cap)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int ret = pn_path(path, sizeof(path), rel);

	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long long id = name_num(de->d_name, "memory");

		if (id < 0)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*b = pn_xrealloc(*b, *cap * sizeof(**b));
		}
		(*b)[*n].id = (uint64_t)id;
		(*b)[(*n)++].node = node;
	}
	closedir(d);
	return 0;
}

static int read_blocks(struct blk **out, size_t *nout)
{
	char rel[64];
	struct pn_nodeset nodes;
	struct blk *b = NULL;
	size_t n = 0, cap = 0;
	int node, ret = pn_nodeset_read_dir(NODE_DIR, &nodes);

	if (ret)
		return ret;
	pn_nodeset_for_each (node, &nodes) {
		snprintf(rel, sizeof(rel), NODE_DIR "/node%d", node);
		ret = add_node_blocks(rel, node, &b, &n, &cap);
		if (ret == -ENOENT) /* the node went away while we listed */
			ret = 0;
		if (ret)
			break;
	}
	if (ret) {
		free(b);
		return ret;
	}
	if (n)
		qsort(b, n, sizeof(*b), cmp_blk);
	*out = b;
	*nout = n;
	return 0;
}

/* Sorted blocks -> merged ranges; a block listed under two nodes is -EINVAL. */
static int build_ranges(const struct blk *b, size_t n, uint64_t bp, struct pn_pfnrange **out,
			size_t *nout)
{
	struct pn_pfnrange *r = pn_xcalloc(n ? n : 1, sizeof(*r));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (i && b[i].id == b[i - 1].id) {
			free(r);
			return pn_error(-EINVAL,
					"%s" MEM_DIR "/memory%llu: linked from node%d and node%d",
					pn_sysroot(), (unsigned long long)b[i].id, b[i - 1].node,
					b[i].node);
		}
		if (b[i].id > UINT64_MAX / bp - 1) {
			free(r);
			return pn_error(-EINVAL, "pfnnode: memory block %llu out of range",
					(unsigned long long)b[i].id);
		}
		uint64_t s = b[i].id * bp;

		if (k && r[k - 1].node == b[i].node && r[k - 1].end_pfn == s) {
			r[k - 1].end_pfn = s + bp;
			continue;
		}
		r[k].start_pfn = s;
		r[k].end_pfn = s + bp;
		r[k++].node = b[i].node;
	}
	*out = r;
	*nout = k;
	return 0;
}

static int load_into(struct pn_pfnnode *m)
{
	uint64_t bs, page = m->page_bytes ? m->page_bytes : (uint64_t)sysconf(_SC_PAGESIZE);
	struct blk *b = NULL;
	size_t n = 0;
	int ret = pn_read_u64(MEM_DIR "/block_size_bytes", &bs, true);

	if (ret)
		return ret;
	/* the kernel's block size is a power of two, a multiple of the page */
	if (!page || bs < page || bs % page || (bs & (bs - 1)))
		return pn_error(-EINVAL,
				"%s" MEM_DIR "/block_size_bytes: %#llx is not a block size "
				"(page size %llu)",
				pn_sysroot(), (unsigned long long)bs, (unsigned long long)page);
	ret = read_blocks(&b, &n);
	if (ret)
		return ret;
	m->block_pages = bs / page;
	m->page_bytes = page;
	m->nblocks = n;
	ret = build_ranges(b, n, m->block_pages, &m->r, &m->n);
	free(b);
	return ret;
}

int pn_pfnnode_load(struct pn_pfnnode *m)
{
	uint64_t page = m->page_bytes;
	int ret;

	pn_pfnnode_free(m);
	m->page_bytes = page;
	ret = load_into(m);
	if (ret)
		pn_pfnnode_free(m);
	return ret;
}

int pn_pfnnode_refresh(struct pn_pfnnode *m)
{
	struct pn_pfnnode fresh = { .page_bytes = m->page_bytes };
	int ret = load_into(&fresh);

	if (ret) {
		free(fresh.r);
		return ret;
	}
	if (fresh.n == m->n && fresh.block_pages == m->block_pages &&
	    (!m->n || !memcmp(fresh.r, m->r, m->n * sizeof(*m->r)))) {
		free(fresh.r);
		return 0;
	}
	fresh.generation = m->generation + 1;
	free(m->r);
	*m = fresh;
	return 1;
}

const struct pn_pfnrange *pn_pfnnode_find(const struct pn_pfnnode *m, uint64_t pfn)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pfn < m->r[mid].start_pfn)
			hi = mid;
		else if (pfn >= m->r[mid].end_pfn)
			lo = mid + 1;
		else
			return &m->r[mid];
	}
	return NULL;
}

int pn_pfnnode_lookup(const struct pn_pfnnode *m, uint64_t pfn)
{
	const struct pn_pfnrange *r = pn_pfnnode_find(m, pfn);

	return r ? r->node : PN_PFNNODE_UNKNOWN;
}

int pn_pfnnode_filter(const struct pn_pfnnode *m, const struct pn_nodeset *keep, const char *field,
		      char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		int w;

		if (pn_nodeset_test(keep, m->r[i].node))
			continue;
		w = snprintf(buf + off, len - off, "%s!(%s >= 0x%llx && %s < 0x%llx)",
			     off ? " && " : "", field, (unsigned long long)m->r[i].start_pfn, field,
			     (unsigned long long)m->r[i].end_pfn);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
	}
	return (int)off;
}

void pn_pfnnode_free(struct pn_pfnnode *m)
{
	free(m->r);
	memset(m, 0, sizeof(*m));
}
