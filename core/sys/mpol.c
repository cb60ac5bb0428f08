// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpol.c - interleave node math (Linux 6.12 mm/mempolicy.c:
 * get_vma_policy(), interleave_nid(), weighted_interleave_nid()) and the
 * weighted-interleave weights in sysfs.  See mpol.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numa.h>
#include <numaif.h>

#include "mpol.h"

int pn_mpol_ilmap_init(struct pn_mpol_ilmap *m, const struct pn_nodeset *nodes,
		       const unsigned int *weights)
{
	int n;

	m->nnodes = 0;
	m->total = 0;
	pn_nodeset_for_each (n, nodes) {
		unsigned int w = weights ? weights[n] : 1;

		m->node[m->nnodes] = n;
		m->weight[m->nnodes] = w ? w : 1;
		m->total += m->weight[m->nnodes];
		m->nnodes++;
	}
	return m->nnodes ? 0 : -EINVAL;
}

int pn_mpol_ilmap_nid(const struct pn_mpol_ilmap *m, uint64_t ilx)
{
	uint64_t target;
	int i = 0;

	if (!m->nnodes)
		return -1;
	target = ilx % m->total;
	while (target >= m->weight[i]) {
		target -= m->weight[i];
		i++;
	}
	return m->node[i];
}

uint64_t pn_mpol_ilx_anon(uint64_t vm_start, uint64_t addr, unsigned int order,
			  unsigned int page_shift)
{
	uint64_t pgoff = vm_start >> page_shift;

	return (pgoff >> order) + ((addr - vm_start) >> (page_shift + order));
}

static unsigned int page_shift_of(size_t page_bytes)
{
	unsigned int s = 0;

	while (((size_t)1 << s) < page_bytes)
		s++;
	return s;
}

static void count_page(struct pn_mpol_ilcmp *out, size_t i, int want, int got)
{
	out->pages++;
	if (want >= 0 && want < PN_MAX_NODES)
		out->expected[want]++;
	if (got < 0 || got >= PN_MAX_NODES) {
		out->unverified++;
		return;
	}
	out->actual[got]++;
	if (got == want) {
		out->matched++;
		return;
	}
	out->mismatched++;
	if (out->first_mismatch < 0) {
		out->first_mismatch = (int64_t)i;
		out->first_expected = want;
		out->first_actual = got;
	}
}

/* Is the block [i, i + n) wholly on node `want`? */
static bool block_on(const int *status, size_t i, size_t n, int want)
{
	for (size_t k = 0; k < n; k++)
		if (status[i + k] != want)
			return false;
	return true;
}

void pn_mpol_ilmap_compare(const struct pn_mpol_ilmap *m, uint64_t vm_start, size_t page_bytes,
			   unsigned int folio_order, const int *status, size_t npages,
			   struct pn_mpol_ilcmp *out)
{
	unsigned int shift = page_shift_of(page_bytes);
	size_t fpages = (size_t)1 << folio_order;
	size_t i = 0;

	if (!out->pages && !out->matched && !out->mismatched)
		out->first_mismatch = -1;
	while (i < npages) {
		uint64_t addr = vm_start + ((uint64_t)i << shift);
		bool aligned = folio_order && !(addr & (((uint64_t)fpages << shift) - 1));

		if (aligned && i + fpages <= npages) {
			int want = pn_mpol_ilmap_nid(
				m, pn_mpol_ilx_anon(vm_start, addr, folio_order, shift));

			if (block_on(status, i, fpages, want)) {
				for (size_t k = 0; k < fpages; k++)
					count_page(out, i + k, want, status[i + k]);
				out->folio_blocks++;
				i += fpages;
				continue;
			}
		}
		count_page(out, i, pn_mpol_ilmap_nid(m, pn_mpol_ilx_anon(vm_start, addr, 0, shift)),
			   status[i]);
		i++;
	}
}

#define QUERY_BATCH 1024

int pn_mpol_query(const void *addr, size_t npages, size_t page_bytes, int *status)
{
	void *pages[QUERY_BATCH];

	for (size_t done = 0; done < npages;) {
		unsigned long n = 0;

		while (n < QUERY_BATCH && done + n < npages) {
			pages[n] = (void *)((const char *)addr + (done + n) * page_bytes);
			n++;
		}
		/* nodes == NULL: query only; pid 0 = this process. */
		if (numa_move_pages(0, n, pages, NULL, status + done, 0) < 0)
			return pn_error(-errno, "mpol: move_pages(%lu pages at %p): %s", n,
					pages[0], strerror(errno));
		done += n;
	}
	return 0;
}

int pn_mpol_wil_probe(struct pn_nodeset *have)
{
	char rel[128];

	pn_nodeset_zero(have);
	if (!pn_exists(PN_WIL_DIR))
		return -ENOENT;
	for (int n = 0; n < PN_MAX_NODES; n++) {
		snprintf(rel, sizeof(rel), PN_WIL_DIR "/node%d", n);
		if (pn_exists(rel))
			pn_nodeset_set(have, n);
	}
	return 0;
}

int pn_mpol_wil_auto_path(char *rel, size_t len)
{
	static const char *const names[] = { "auto", "__auto_type" };

	for (size_t i = 0; i < PN_ARRAY_SIZE(names); i++) {
		snprintf(rel, len, PN_WIL_DIR "/%s", names[i]);
		if (pn_exists(rel))
			return 0;
	}
	rel[0] = '\0';
	return -ENOENT;
}

int pn_mpol_wil_read(int node, unsigned int *weight)
{
	char rel[128];
	uint64_t v;
	int ret;

	snprintf(rel, sizeof(rel), PN_WIL_DIR "/node%d", node);
	ret = pn_read_u64(rel, &v, false);
	if (ret)
		return ret;
	if (v > 255)
		return -ERANGE;
	*weight = (unsigned int)v;
	return 0;
}

int pn_mpol_wil_parse(const char *s, const struct pn_nodeset *nodes, unsigned int *weights,
		      char *why, size_t whylen)
{
	int want = pn_nodeset_count(nodes), got = 0, n = pn_nodeset_next(nodes, -1);
	const char *p = s;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v < 1 || v > 255 || (*end && *end != ',')) {
			snprintf(why, whylen,
				 "\"%s\": weights are integers 1..255, comma separated", s);
			return -EINVAL;
		}
		if (++got > want)
			break;
		weights[n] = (unsigned int)v;
		n = pn_nodeset_next(nodes, n);
		p = *end ? end + 1 : end;
	}
	if (got != want) {
		snprintf(why, whylen,
			 "\"%s\" gives %d weight%s for %d node%s (one per node, in "
			 "node-id order)",
			 s, got, got == 1 ? "" : "s", want, want == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}
