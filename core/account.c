// SPDX-License-Identifier: GPL-2.0-only
/*
 * account.c - exact per-node accounting of a phase (account.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
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

/* What one pass over /proc/zoneinfo says of a node, pages. */
struct zsum {
	int64_t managed, free, pcp, anon, file, slab, kstack_kb, pt, zspages;
	bool seen;
};

struct zctx {
	const struct pn_nodeset *nodes;
	struct zsum *z; /* indexed by node id */
};

static int zone_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct zctx *c = arg;
	struct zsum *z;
	static const struct {
		const char *key;
		size_t off;
		bool per_node;
	} keys[] = {
		{ "managed", offsetof(struct zsum, managed), false },
		{ "free", offsetof(struct zsum, free), false },
		{ "pcp_count", offsetof(struct zsum, pcp), false },
		{ "nr_anon_pages", offsetof(struct zsum, anon), true },
		{ "nr_file_pages", offsetof(struct zsum, file), true },
		{ "nr_slab_reclaimable", offsetof(struct zsum, slab), true },
		{ "nr_slab_unreclaimable", offsetof(struct zsum, slab), true },
		{ "nr_kernel_stack", offsetof(struct zsum, kstack_kb), true },
		{ "nr_page_table_pages", offsetof(struct zsum, pt), true },
		{ "nr_sec_page_table_pages", offsetof(struct zsum, pt), true },
	};

	if (node < 0 || node >= PN_MAX_NODES || !pn_nodeset_test(c->nodes, node))
		return 0;
	z = &c->z[node];
	z->seen = true;
	for (size_t i = 0; i < PN_ARRAY_SIZE(keys); i++) {
		if (strcmp(key, keys[i].key) != 0 ||
		    keys[i].per_node != (strcmp(zone, "node") == 0))
			continue;
		*(int64_t *)((char *)z + keys[i].off) += val;
		break;
	}
	return 0;
}

/* One buffer for every reader (the runner and its sampler thread). */
static pthread_mutex_t zbuf_lock = PTHREAD_MUTEX_INITIALIZER;
static char *zbuf;
static size_t zcap;

static int read_zoneinfo(const struct pn_nodeset *nodes, struct zsum *z)
{
	struct zctx c = { nodes, z };
	ssize_t n;
	int ret;

	pthread_mutex_lock(&zbuf_lock);
	if (!zbuf) {
		zcap = 1 << 16;
		zbuf = pn_xmalloc(zcap);
	}
	for (;;) {
		n = pn_read_text("/proc/zoneinfo", zbuf, zcap);
		if (n < 0 || (size_t)n + 1 < zcap)
			break;
		zcap *= 2; /* it filled the buffer: it may be cut short */
		zbuf = pn_xrealloc(zbuf, zcap);
	}
	memset(z, 0, PN_MAX_NODES * sizeof(*z));
	ret = n < 0 ? (int)n : pn_parse_zoneinfo(zbuf, zone_cb, &c);
	pthread_mutex_unlock(&zbuf_lock);
	return ret;
}

/* One reading of every node in the set from a single zoneinfo pass, so that
 * free pages, per-CPU pages and the kinds are taken together. */
static int read_once(const struct pn_nodeset *nodes, bool refresh, struct zsum *z,
		     struct pn_node_read *out)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t t;
	int n, i = 0, ret;

	if (refresh)
		pn_stat_refresh();
	t = pn_now_ns();
	ret = read_zoneinfo(nodes, z);
	if (ret)
		return ret;
	pn_nodeset_for_each (n, nodes) {
		struct pn_node_read *r = &out[i++];
		int64_t huge = 0, sum = 0;

		if (!z[n].seen)
			return pn_error(-ENOENT, "/proc/zoneinfo has no zone of node %d", n);
		pn_node_hugetlb_bytes(n, 0, &huge);
		memset(r, 0, sizeof(*r));
		r->t_ns = t;
		r->pcp = z[n].pcp;
		r->used = z[n].managed - z[n].free - z[n].pcp;
		r->kinds[PN_KIND_ANON] = z[n].anon;
		r->kinds[PN_KIND_FILE] = z[n].file;
		r->kinds[PN_KIND_SLAB] = z[n].slab;
		r->kinds[PN_KIND_KERNEL_STACK] = z[n].kstack_kb * 1024 / (ps > 0 ? ps : 4096);
		r->kinds[PN_KIND_PAGE_TABLES] = z[n].pt;
		r->kinds[PN_KIND_HUGETLB] = huge / (ps > 0 ? ps : 4096);
		for (int k = 0; k < PN_KIND_OTHER; k++)
			sum += r->kinds[k];
		r->kinds[PN_KIND_OTHER] = r->used - sum;
	}
	return 0;
}

static bool same_reading(const struct pn_node_read *a, const struct pn_node_read *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].used != b[i].used ||
		    memcmp(a[i].kinds, b[i].kinds, sizeof(a[i].kinds)) != 0)
			return false;
	return true;
}

int pn_node_read_set(const struct pn_nodeset *nodes, bool refresh, int tries,
		     struct pn_node_read *out, struct pn_nodemem *mem)
{
	int cnt = pn_nodeset_count(nodes), n, i = 0, ret;
	struct zsum *z = pn_xcalloc(PN_MAX_NODES, sizeof(*z));
	struct pn_node_read *prev = pn_xcalloc((size_t)cnt + 1, sizeof(*prev));

	/*
	 * stat_refresh folds the per-CPU counter deltas, but the same pass also
	 * lets per-CPU free lists shrink, whose frees are new deltas: a node
	 * that was busy a moment ago reads a few pages off.  Read until two
	 * readings agree (the lists settled), at most `tries` times.
	 */
	ret = read_once(nodes, refresh, z, out);
	for (int t = 1; !ret && t < tries; t++) {
		memcpy(prev, out, (size_t)cnt * sizeof(*out));
		ret = read_once(nodes, refresh, z, out);
		if (!ret && same_reading(prev, out, cnt))
			break;
		if (t == tries - 1)
			for (int k = 0; k < cnt; k++)
				out[k].unsettled = true;
	}
	free(prev);
	free(z);
	if (ret || !mem)
		return ret;
	pn_nodeset_for_each (n, nodes) {
		int r = pn_nodemem_read(n, &mem[i]);

		if (r && !ret)
			ret = r;
		i++;
	}
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
	int64_t d[PN_NKINDS], rest;

	g->total = 0;
	g->net = -explained;
	for (int k = 0; k < PN_NKINDS; k++) {
		d[k] = now->kinds[k] - before->kinds[k];
		g->net += d[k];
	}
	/*
	 * Explicit pages are anonymous.  Those not mapped yet at this moment (a
	 * huge page is allocated and cleared before it is mapped) are still in
	 * "other": what anon does not explain is netted from other, never from
	 * another kind.
	 */
	rest = explained - (d[PN_KIND_ANON] > 0 ? d[PN_KIND_ANON] : 0);
	d[PN_KIND_ANON] -= explained;
	if (rest > 0 && d[PN_KIND_OTHER] > 0)
		d[PN_KIND_OTHER] -= rest < d[PN_KIND_OTHER] ? rest : d[PN_KIND_OTHER];
	for (int k = 0; k < PN_NKINDS; k++) {
		/* A kind that shrank cannot hide one that grew. */
		g->by_kind[k] = d[k] > 0 ? d[k] : 0;
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
	a->unsettled_samples = 0;
	for (size_t i = 0; i < a->nsamples; i++) {
		struct pn_general g;

		/* A reading that kept changing over every try is no measurement:
		 * per-CPU lists were moving pages meanwhile.  The end reading
		 * (and the event collector) still count. */
		if (a->samples[i].unsettled) {
			a->unsettled_samples++;
			continue;
		}
		pn_general_at(&a->before, &a->samples[i],
			      a->explained_pages + a->explained_freed_pages, &g);
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

	int64_t total_pages = m->total / (ps > 0 ? ps : 4096);

	cJSON_AddNumberToObject(o, "total_pages", (double)total_pages);
	cJSON_AddNumberToObject(o, "used_pages", (double)r->used);
	cJSON_AddNumberToObject(o, "pcp_pages", (double)r->pcp);
	cJSON_AddBoolToObject(o, "settled", !r->unsettled);
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
	cJSON_AddNumberToObject(o, "explained_freed_pages", (double)a->explained_freed_pages);
	cJSON_AddNumberToObject(o, "samples", (double)a->nsamples);
	cJSON_AddNumberToObject(o, "samples_unsettled", (double)a->unsettled_samples);
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
