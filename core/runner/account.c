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
#include "core/lib/pn.h"

const char *const pn_kind_names[PN_NKINDS] = {
	"anon", "file", "slab", "kernel_stack", "page_tables", "hugetlb", "other",
};

void pn_node_read_from(const struct pn_nodemem *m, int64_t pcp_pages, long page_size,
		       struct pn_node_read *out)
{
	int64_t ps = page_size > 0 ? page_size : 4096, sum = 0;

	out->pcp = pcp_pages;
	out->passes = 1;
	out->pcp_moved = -1;
	out->unsettled = false;
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
	int64_t managed, free, pcp, anon, file, slab, kstack_kb, pt;
	int64_t *cpu_pcp; /* every CPU's list count, zone by zone, in file order */
	size_t ncpu_pcp, cap_cpu_pcp;
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

static int pcp_cb(void *arg, int node, const char *zone, const struct pn_pcp *pcp)
{
	struct zctx *c = arg;
	struct zsum *z;

	(void)zone;
	if (node < 0 || node >= PN_MAX_NODES || !pn_nodeset_test(c->nodes, node))
		return 0;
	z = &c->z[node];
	if (z->ncpu_pcp == z->cap_cpu_pcp) {
		z->cap_cpu_pcp = z->cap_cpu_pcp ? z->cap_cpu_pcp * 2 : 16;
		z->cpu_pcp = pn_xrealloc(z->cpu_pcp, z->cap_cpu_pcp * sizeof(*z->cpu_pcp));
	}
	z->cpu_pcp[z->ncpu_pcp++] = pcp->count;
	return 0;
}

/* Forget a reading but keep the per-CPU buffers. */
static void zsum_reset(struct zsum *z)
{
	int64_t *keep = z->cpu_pcp;
	size_t cap = z->cap_cpu_pcp;

	memset(z, 0, sizeof(*z));
	z->cpu_pcp = keep;
	z->cap_cpu_pcp = cap;
}

static void zsum_free(struct zsum *z)
{
	for (int n = 0; n < PN_MAX_NODES; n++)
		free(z[n].cpu_pcp);
	free(z);
}

/* One buffer for every reader (the runner and its sampler thread). */
static pthread_mutex_t zbuf_lock = PTHREAD_MUTEX_INITIALIZER;
static char *zbuf;
static size_t zcap;

static int read_zoneinfo(const struct pn_nodeset *nodes, struct zsum *z)
{
	struct zctx c = { nodes, z };
	ssize_t n;
	int ret, node;

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
	pn_nodeset_for_each (node, nodes)
		zsum_reset(&z[node]);
	ret = n < 0 ? (int)n : pn_parse_zoneinfo_pcp(zbuf, zone_cb, pcp_cb, &c);
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
	if (ret && !*pn_last_error())
		return pn_error(ret, "%s/proc/zoneinfo: %s", pn_sysroot(),
				ret == -EINVAL ? "does not parse" : strerror(-ret));
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

static bool same_reading(const struct pn_node_read *a, const struct pn_node_read *b)
{
	return a->used == b->used && memcmp(a->kinds, b->kinds, sizeof(a->kinds)) == 0;
}

/* Pages that went on or off the node's per-CPU lists between two passes
 * (every CPU's list of every zone; a CPU that came or went counts whole). */
static int64_t pcp_moved(const struct zsum *a, const struct zsum *b)
{
	int64_t moved = 0;
	size_t n = a->ncpu_pcp > b->ncpu_pcp ? a->ncpu_pcp : b->ncpu_pcp;

	for (size_t i = 0; i < n; i++) {
		int64_t x = i < a->ncpu_pcp ? a->cpu_pcp[i] : 0;
		int64_t y = i < b->ncpu_pcp ? b->cpu_pcp[i] : 0;

		moved += x > y ? x - y : y - x;
	}
	if (a->ncpu_pcp != b->ncpu_pcp && moved == 0)
		moved = 1; /* the layout changed: no agreement */
	return moved;
}

int pn_node_read_set(const struct pn_nodeset *nodes, bool refresh, int passes,
		     struct pn_node_read *out, struct pn_nodemem *mem)
{
	int cnt = pn_nodeset_count(nodes), left = cnt, n, i, ret = 0;
	struct zsum *z[2] = { pn_xcalloc(PN_MAX_NODES, sizeof(*z[0])),
			      pn_xcalloc(PN_MAX_NODES, sizeof(*z[1])) };
	struct pn_node_read *cur = pn_xcalloc((size_t)cnt + 1, sizeof(*cur));
	bool *done = pn_xcalloc((size_t)cnt + 1, sizeof(*done));

	/*
	 * stat_refresh folds each CPU's counter deltas, then lets that CPU's
	 * free lists decay (decay_pcp_high(), and drain_zone_pages() for a
	 * remote node): those frees are new, unfolded NR_FREE_PAGES deltas, so
	 * a reading after a pass that freed list pages counts them as used.
	 * A node's reading is exact when the pass before it moved no page on
	 * or off any of its per-CPU lists; it is settled when, besides, it
	 * agrees with the reading before.  Read until every node settled, at
	 * most `passes` times; each node keeps its first settled reading.
	 */
	for (int t = 0; t < passes && left > 0; t++) {
		struct zsum *now = z[t & 1], *prev = z[!(t & 1)];

		ret = read_once(nodes, refresh, now, cur);
		if (ret)
			break;
		i = 0;
		pn_nodeset_for_each (n, nodes) {
			int64_t moved = t ? pcp_moved(&prev[n], &now[n]) : -1;
			bool agree = t && moved == 0 && same_reading(&out[i], &cur[i]);

			if (!done[i]) {
				out[i] = cur[i];
				out[i].passes = t + 1;
				out[i].pcp_moved = moved;
				done[i] = agree;
				left -= agree;
			}
			i++;
		}
	}
	for (i = 0; i < cnt; i++)
		out[i].unsettled = !done[i];
	free(done);
	free(cur);
	zsum_free(z[0]);
	zsum_free(z[1]);
	if (ret || !mem)
		return ret;
	i = 0;
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
		   int64_t explained, const int64_t *explained_kind, struct pn_general *g)
{
	int64_t d[PN_NKINDS], rest;

	g->total = 0;
	g->net = -explained;
	for (int k = 0; k < PN_NKINDS; k++) {
		d[k] = now->kinds[k] - before->kinds[k];
		g->net += d[k];
	}
	/* Pages of a known kind explain growth of that kind only (what is
	 * left over is not moved to another kind). */
	for (int k = 0; explained_kind && k < PN_NKINDS; k++) {
		int64_t e = explained_kind[k] < explained ? explained_kind[k] : explained;

		if (e <= 0)
			continue;
		explained -= e;
		d[k] -= e;
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
	pn_general_at(&a->before, &a->after, a->explained_pages, a->explained_kind_pages, &a->end);
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
			      a->explained_pages + a->explained_freed_pages,
			      a->explained_kind_pages, &g);
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
	cJSON_AddBoolToObject(o, "readable", !r->failed);
	cJSON_AddBoolToObject(o, "settled", !r->unsettled && !r->failed);
	cJSON_AddNumberToObject(o, "passes", r->passes);
	if (r->pcp_moved >= 0)
		cJSON_AddNumberToObject(o, "pcp_moved_pages", (double)r->pcp_moved);
	else
		cJSON_AddNullToObject(o, "pcp_moved_pages");
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
	k = cJSON_AddObjectToObject(o, "explained_kind_pages");
	for (int i = 0; i < PN_NKINDS; i++)
		if (a->explained_kind_pages[i])
			cJSON_AddNumberToObject(k, pn_kind_names[i],
						(double)a->explained_kind_pages[i]);
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
