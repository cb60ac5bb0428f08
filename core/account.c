// SPDX-License-Identifier: GPL-2.0-only
/*
 * account.c - exact per-node accounting of a phase (account.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "account.h"
#include "pn.h"

const char *const pn_kind_names[PN_NKINDS] = {
	"anon", "file", "slab", "kernel_stack", "page_tables", "hugetlb", "other",
};

void pn_node_read_from(const struct pn_nodemem *m, int64_t pcp_pages, long page_size,
		       struct pn_node_read *out)
{
	int64_t ps = page_size > 0 ? page_size : 4096, sum = 0;

	out->pcp = pcp_pages;
	out->used = m->used / ps - pcp_pages;
	out->kinds[PN_KIND_ANON] = m->anon / ps;
	out->kinds[PN_KIND_FILE] = m->file / ps;
	out->kinds[PN_KIND_SLAB] = m->slab / ps;
	out->kinds[PN_KIND_KERNEL_STACK] = m->kernel_stack / ps;
	out->kinds[PN_KIND_PAGE_TABLES] = (m->page_tables + m->sec_page_tables) / ps;
	out->kinds[PN_KIND_HUGETLB] = m->hugetlb / ps;
	for (int k = 0; k < PN_KIND_OTHER; k++)
		sum += out->kinds[k];
	out->kinds[PN_KIND_OTHER] = out->used - sum;
}

struct pcp_ctx {
	const struct pn_nodeset *nodes;
	int64_t *pcp; /* indexed by node id */
};

static int pcp_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct pcp_ctx *c = arg;

	(void)zone;
	if (!strcmp(key, "pcp_count") && node >= 0 && node < PN_MAX_NODES &&
	    pn_nodeset_test(c->nodes, node))
		c->pcp[node] += val;
	return 0;
}

static int read_pcp(const struct pn_nodeset *nodes, int64_t *pcp)
{
	static __thread char *buf;
	static __thread size_t cap;
	struct pcp_ctx c = { nodes, pcp };
	ssize_t n;

	if (!buf) {
		cap = 1 << 16;
		buf = pn_xmalloc(cap);
	}
	for (;;) {
		n = pn_read_text("/proc/zoneinfo", buf, cap);
		if (n < 0)
			return (int)n;
		if ((size_t)n + 1 < cap)
			break;
		cap *= 2; /* it filled the buffer: it may be cut short */
		buf = pn_xrealloc(buf, cap);
	}
	return pn_parse_zoneinfo(buf, pcp_cb, &c);
}

int pn_node_read_set(const struct pn_nodeset *nodes, bool refresh, struct pn_node_read *out,
		     struct pn_nodemem *mem)
{
	int64_t *pcp = pn_xcalloc(PN_MAX_NODES, sizeof(*pcp));
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t t = pn_now_ns();
	int n, i = 0, ret;

	if (refresh)
		pn_stat_refresh();
	ret = read_pcp(nodes, pcp);
	if (ret)
		pn_debug("zoneinfo: %s: per-CPU free pages not subtracted", strerror(-ret));
	pn_nodeset_for_each (n, nodes) {
		struct pn_nodemem m;
		int r = pn_nodemem_read(n, &m);

		if (r && !ret)
			ret = r;
		if (r)
			memset(&m, 0, sizeof(m));
		pn_node_read_from(&m, pcp[n], ps, &out[i]);
		out[i].t_ns = t;
		if (mem)
			mem[i] = m;
		i++;
	}
	free(pcp);
	return ret;
}

void pn_node_acct_sample(struct pn_node_acct *a, const struct pn_node_read *r)
{
	if (a->nsamples == a->capsamples) {
		a->capsamples = a->capsamples ? a->capsamples * 2 : 64;
		a->samples = pn_xrealloc(a->samples, a->capsamples * sizeof(*a->samples));
	}
	a->samples[a->nsamples++] = *r;
}

void pn_general_at(const struct pn_node_read *before, const struct pn_node_read *now,
		   int64_t explained, struct pn_general *g)
{
	g->total = g->net = 0;
	for (int k = 0; k < PN_NKINDS; k++) {
		int64_t d = now->kinds[k] - before->kinds[k];

		if (k == PN_KIND_ANON)
			d -= explained;
		g->net += d;
		/* A kind that shrank cannot hide one that grew. */
		g->by_kind[k] = d > 0 ? d : 0;
		g->total += g->by_kind[k];
	}
	g->t_ns = now->t_ns;
	g->at_peak = false;
}

void pn_node_acct_compute(struct pn_node_acct *a)
{
	const struct pn_nodemem *b = &a->before_mem, *e = &a->after_mem;

	a->used_growth_pages = a->after.used - a->before.used;
	for (int k = 0; k < PN_NKINDS; k++)
		a->growth[k] = a->after.kinds[k] - a->before.kinds[k];
	pn_general_at(&a->before, &a->after, a->explained_pages, &a->end);
	a->peak = a->end;
	for (size_t i = 0; i < a->nsamples; i++) {
		struct pn_general g;

		pn_general_at(&a->before, &a->samples[i], a->explained_pages, &g);
		if (g.total > a->peak.total) {
			a->peak = g;
			a->peak.at_peak = true;
		}
	}
	a->general = a->peak.total > a->end.total ? a->peak : a->end;
	a->numa_hit_delta = e->numa_hit - b->numa_hit;
	a->numa_miss_delta = e->numa_miss - b->numa_miss;
	a->numa_foreign_delta = e->numa_foreign - b->numa_foreign;
	a->private_fallback_delta = (b->numa_private_fallback >= 0 && e->numa_private_fallback >= 0)
					    ? e->numa_private_fallback - b->numa_private_fallback
					    : 0;
}

static cJSON *read_json(const struct pn_node_read *r, const struct pn_nodemem *m)
{
	cJSON *o = cJSON_CreateObject(), *k = cJSON_AddObjectToObject(o, "kinds");
	long ps = sysconf(_SC_PAGESIZE);

	cJSON_AddNumberToObject(o, "total_pages", (double)(m->total / (ps > 0 ? ps : 4096)));
	cJSON_AddNumberToObject(o, "used_pages", (double)r->used);
	cJSON_AddNumberToObject(o, "pcp_pages", (double)r->pcp);
	for (int i = 0; i < PN_NKINDS; i++)
		cJSON_AddNumberToObject(k, pn_kind_names[i], (double)r->kinds[i]);
	cJSON_AddNumberToObject(o, "numa_hit", (double)m->numa_hit);
	cJSON_AddNumberToObject(o, "numa_miss", (double)m->numa_miss);
	cJSON_AddNumberToObject(o, "numa_foreign", (double)m->numa_foreign);
	return o;
}

static cJSON *general_json(const struct pn_general *g, const struct pn_node_read *before)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "total", (double)g->total);
	cJSON_AddNumberToObject(o, "net_pages", (double)g->net);
	for (int i = 0; i < PN_NKINDS; i++)
		cJSON_AddNumberToObject(o, pn_kind_names[i], (double)g->by_kind[i]);
	cJSON_AddStringToObject(o, "moment", g->at_peak ? "peak" : "end");
	cJSON_AddNumberToObject(o, "t_ns", (double)(g->t_ns - before->t_ns));
	return o;
}

cJSON *pn_node_acct_json(const struct pn_node_acct *a)
{
	cJSON *o = cJSON_CreateObject(), *k;

	cJSON_AddStringToObject(o, "role", a->is_private ? "private" : "dram");
	cJSON_AddItemToObject(o, "before", read_json(&a->before, &a->before_mem));
	cJSON_AddItemToObject(o, "after", read_json(&a->after, &a->after_mem));
	cJSON_AddNumberToObject(o, "used_growth_pages", (double)a->used_growth_pages);
	k = cJSON_AddObjectToObject(o, "growth_pages");
	for (int i = 0; i < PN_NKINDS; i++)
		cJSON_AddNumberToObject(k, pn_kind_names[i], (double)a->growth[i]);
	cJSON_AddNumberToObject(o, "explained_pages", (double)a->explained_pages);
	cJSON_AddNumberToObject(o, "samples", (double)a->nsamples);
	cJSON_AddItemToObject(o, "general_pages", general_json(&a->general, &a->before));
	cJSON_AddItemToObject(o, "general_end", general_json(&a->end, &a->before));
	cJSON_AddItemToObject(o, "general_peak", general_json(&a->peak, &a->before));
	cJSON_AddNumberToObject(o, "numa_hit_delta", (double)a->numa_hit_delta);
	cJSON_AddNumberToObject(o, "numa_miss_delta", (double)a->numa_miss_delta);
	cJSON_AddNumberToObject(o, "numa_foreign_delta", (double)a->numa_foreign_delta);
	cJSON_AddNumberToObject(o, "private_fallback_delta", (double)a->private_fallback_delta);
	return o;
}

void pn_node_acct_free(struct pn_node_acct *a)
{
	free(a->samples);
	a->samples = NULL;
	a->nsamples = a->capsamples = 0;
}
