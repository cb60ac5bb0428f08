// SPDX-License-Identifier: GPL-2.0-only
/*
 * verdict.c - verdict v0.
 *
 * For a private node, any growth of used memory during a phase that the
 * workloads' verified explicit pages do not explain is a general allocation
 * that landed on the device.  Kinds come from nodeN/meminfo; explicit pages
 * are anonymous, so they are netted out of the anon kind.  Counters are
 * folded with /proc/sys/vm/stat_refresh before each snapshot when we are
 * root; otherwise each item may be off by the per-CPU threshold.
 */
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "verdict.h"

const char *const pn_kind_names[PN_NKINDS] = {
	"anon", "file", "slab", "kernel_stack", "page_tables", "hugetlb", "other",
};

static int64_t pos(int64_t v)
{
	return v > 0 ? v : 0;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

void pn_node_delta_sample(struct pn_node_delta *d, const struct pn_nodemem *m)
{
	struct pn_nodemem *p = &d->peak;

	if (!d->have_peak) {
		*p = *m;
		d->have_peak = true;
		return;
	}
	p->used = max64(p->used, m->used);
	p->anon = max64(p->anon, m->anon);
	p->file = max64(p->file, m->file);
	p->slab = max64(p->slab, m->slab);
	p->kernel_stack = max64(p->kernel_stack, m->kernel_stack);
	p->page_tables =
		max64(p->page_tables + p->sec_page_tables, m->page_tables + m->sec_page_tables);
	p->sec_page_tables = 0;
	p->hugetlb = max64(p->hugetlb, m->hugetlb);
	p->other = max64(p->other, m->other);
}

/* Growth by kind from a to b, in pages. */
static void growth(const struct pn_nodemem *a, const struct pn_nodemem *b, int64_t ps,
		   int64_t *used, int64_t kinds[PN_NKINDS])
{
	*used = (b->used - a->used) / ps;
	kinds[PN_KIND_ANON] = (b->anon - a->anon) / ps;
	kinds[PN_KIND_FILE] = (b->file - a->file) / ps;
	kinds[PN_KIND_SLAB] = (b->slab - a->slab) / ps;
	kinds[PN_KIND_KERNEL_STACK] = (b->kernel_stack - a->kernel_stack) / ps;
	kinds[PN_KIND_PAGE_TABLES] =
		(b->page_tables + b->sec_page_tables - a->page_tables - a->sec_page_tables) / ps;
	kinds[PN_KIND_HUGETLB] = (b->hugetlb - a->hugetlb) / ps;
	kinds[PN_KIND_OTHER] = (b->other - a->other) / ps;
}

void pn_node_delta_compute(struct pn_node_delta *d, long page_size)
{
	const struct pn_nodemem *a = &d->before, *b = &d->after;
	int64_t ps = page_size > 0 ? page_size : 4096;
	int64_t peak_kinds[PN_NKINDS] = { 0 };

	growth(a, b, ps, &d->used_growth_pages, d->growth_pages);
	d->general_pages = pos(d->used_growth_pages - d->explained_pages);
	for (int k = 0; k < PN_NKINDS; k++)
		d->general_by_kind[k] = pos(d->growth_pages[k]);
	d->general_by_kind[PN_KIND_ANON] = pos(d->growth_pages[PN_KIND_ANON] - d->explained_pages);

	d->peak_used_growth_pages = 0;
	if (d->have_peak) {
		growth(a, &d->peak, ps, &d->peak_used_growth_pages, peak_kinds);
		d->general_pages = max64(d->general_pages,
					 pos(d->peak_used_growth_pages - d->explained_pages));
		for (int k = 0; k < PN_NKINDS; k++)
			d->general_by_kind[k] = max64(d->general_by_kind[k], pos(peak_kinds[k]));
		d->general_by_kind[PN_KIND_ANON] =
			max64(d->general_by_kind[PN_KIND_ANON],
			      pos(peak_kinds[PN_KIND_ANON] - d->explained_pages));
	}

	d->numa_hit_delta = b->numa_hit - a->numa_hit;
	d->numa_miss_delta = b->numa_miss - a->numa_miss;
	d->numa_foreign_delta = b->numa_foreign - a->numa_foreign;
	d->private_fallback_delta = (a->numa_private_fallback >= 0 && b->numa_private_fallback >= 0)
					    ? b->numa_private_fallback - a->numa_private_fallback
					    : 0;
}

static cJSON *mem_json(const struct pn_nodemem *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "total_bytes", (double)m->total);
	cJSON_AddNumberToObject(o, "used_bytes", (double)m->used);
	cJSON_AddNumberToObject(o, "anon_bytes", (double)m->anon);
	cJSON_AddNumberToObject(o, "file_bytes", (double)m->file);
	cJSON_AddNumberToObject(o, "slab_bytes", (double)m->slab);
	cJSON_AddNumberToObject(o, "kernel_stack_bytes", (double)m->kernel_stack);
	cJSON_AddNumberToObject(o, "page_tables_bytes",
				(double)(m->page_tables + m->sec_page_tables));
	cJSON_AddNumberToObject(o, "hugetlb_bytes", (double)m->hugetlb);
	cJSON_AddNumberToObject(o, "other_bytes", (double)m->other);
	cJSON_AddNumberToObject(o, "numa_hit", (double)m->numa_hit);
	cJSON_AddNumberToObject(o, "numa_miss", (double)m->numa_miss);
	cJSON_AddNumberToObject(o, "numa_foreign", (double)m->numa_foreign);
	return o;
}

cJSON *pn_node_delta_to_json(const struct pn_node_delta *d)
{
	cJSON *o = cJSON_CreateObject(), *g, *k;

	cJSON_AddStringToObject(o, "role", d->is_private ? "private" : "dram");
	cJSON_AddItemToObject(o, "before", mem_json(&d->before));
	cJSON_AddItemToObject(o, "after", mem_json(&d->after));
	cJSON_AddNumberToObject(o, "used_growth_pages", (double)d->used_growth_pages);
	cJSON_AddNumberToObject(o, "peak_used_growth_pages", (double)d->peak_used_growth_pages);
	k = cJSON_AddObjectToObject(o, "growth_pages");
	for (int i = 0; i < PN_NKINDS; i++)
		cJSON_AddNumberToObject(k, pn_kind_names[i], (double)d->growth_pages[i]);
	cJSON_AddNumberToObject(o, "explained_pages", (double)d->explained_pages);
	g = cJSON_AddObjectToObject(o, "general_pages");
	cJSON_AddNumberToObject(g, "total", (double)d->general_pages);
	for (int i = 0; i < PN_NKINDS; i++)
		cJSON_AddNumberToObject(g, pn_kind_names[i], (double)d->general_by_kind[i]);
	cJSON_AddNumberToObject(o, "numa_hit_delta", (double)d->numa_hit_delta);
	cJSON_AddNumberToObject(o, "numa_miss_delta", (double)d->numa_miss_delta);
	cJSON_AddNumberToObject(o, "numa_foreign_delta", (double)d->numa_foreign_delta);
	cJSON_AddNumberToObject(o, "private_fallback_delta", (double)d->private_fallback_delta);
	return o;
}
