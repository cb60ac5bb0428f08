// SPDX-License-Identifier: GPL-2.0-only
/*
 * chunkrec.c - the exhaust workload's per-chunk census (pages per node) and
 * what a run of chunks says.  See chunkrec.h.
 */
#include <stdio.h>

#include "chunkrec.h"

void pn_chunkrec_fill(struct pn_chunkrec *rec, const int *status, size_t npages)
{
	int nslots = 0;

	rec->pages = (uint32_t)npages;
	for (size_t i = 0; i < npages; i++) {
		int s = status[i], k;

		if (s < 0) {
			rec->unknown++;
			continue;
		}
		for (k = 0; k < nslots && rec->node[k] != s; k++)
			;
		if (k == nslots && nslots < PN_CHUNKREC_SLOTS) {
			rec->node[nslots++] = (int16_t)s;
			rec->on[k] = 0;
		}
		if (k < nslots)
			rec->on[k]++;
		else
			rec->other++;
	}
	for (int k = nslots; k < PN_CHUNKREC_SLOTS; k++)
		rec->node[k] = -1;
}

uint64_t pn_chunkrec_on(const struct pn_chunkrec *rec, const struct pn_nodeset *set)
{
	uint64_t on = 0;

	for (int k = 0; k < PN_CHUNKREC_SLOTS; k++)
		if (rec->node[k] >= 0 && pn_nodeset_test(set, rec->node[k]))
			on += rec->on[k];
	return on;
}

void pn_chunkrec_nodes_str(const struct pn_chunkrec *rec, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int k = 0; k < PN_CHUNKREC_SLOTS && rec->node[k] >= 0 && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%d:%u", k ? "," : "", rec->node[k],
				      rec->on[k]);
	if (rec->other && o < len)
		snprintf(buf + o, len - o, ",other:%u", rec->other);
}

int pn_chunkrec_dominant(const struct pn_chunkrec *rec)
{
	int best = -1;
	uint32_t most = 0;

	for (int k = 0; k < PN_CHUNKREC_SLOTS; k++)
		if (rec->node[k] >= 0 && rec->on[k] > most) {
			most = rec->on[k];
			best = rec->node[k];
		}
	return best;
}

uint64_t pn_chunkrec_spilled(const struct pn_chunkrec *recs, size_t n, const struct pn_nodeset *set)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += recs[i].pages - recs[i].unknown - pn_chunkrec_on(&recs[i], set);
	return s;
}

size_t pn_chunkrec_first_spill(const struct pn_chunkrec *recs, size_t n,
			       const struct pn_nodeset *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pn_chunkrec_on(&recs[i], set) < recs[i].pages - recs[i].unknown)
			break;
	return i;
}
