// SPDX-License-Identifier: GPL-2.0-only
/*
 * pageacct.c - page accounting from allocator events.  See pageacct.h.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pageacct.h"
#include "pfnnode.h"

#define MAX_ORDER_SEEN 11 /* buddy orders are < 11 on x86-64 (MAX_PAGE_ORDER 10) */
#define CLS_EXPLICIT   1
#define CLS_GENERAL    2

struct kind {
	uint64_t gfp;
	int32_t mt;
	uint8_t order, cls;
	int64_t pages, events;
};

struct pidacct {
	uint32_t pid;
	int64_t general_pages, explicit_pages, freed_pages, events;
};

struct reason {
	uint64_t reason;
	int64_t events;
};

/* one private node's phase */
struct pnode {
	int node;
	int64_t alloc_pages, free_pages, explicit_pages, general_alloc_pages, general_freed_pages;
	int64_t explicit_freed_pages, unmatched_free_pages, live_realloc_events;
	int64_t series_alloc_pages, series_fallback_pages, before_phase_general_pages;
	size_t nkinds, npids, nreasons, nex, capkinds, cappids;
	size_t last_kind, last_pid; /* consecutive events mostly repeat both */
	struct kind *kinds;
	struct pidacct *pids;
	struct reason *reasons;
	struct pn_pgev *ex;
};

/*
 * A live page on a private node.  Pages are kept in chunks of consecutive
 * pfns (a direct map per chunk: neighbouring pages share cache lines, and a
 * lookup is one load, where a hash over every page of a node missed the
 * cache on nearly every event); chunks are found through a small hash of
 * chunk ids with a one-entry cache.  cls 0 = not live.
 */
#define CHUNK_SHIFT 18 /* 2^18 entries of 8 bytes: one 2 MiB (huge) page */
#define CHUNK_PAGES (1u << CHUNK_SHIFT)
#define CHUNK_BYTES ((size_t)CHUNK_PAGES * sizeof(struct live))
#define CLS_PIECES  3 /* in a block's second slot: pages of it freed piecewise, in pid */
struct live {
	uint32_t pid;
	uint16_t seq;
	uint8_t order, cls;
};

struct chunk {
	uint64_t id; /* pfn >> CHUNK_SHIFT, + 1 (0 = empty slot) */
	struct live *pages;
};

struct comm {
	uint32_t pid;
	char name[16];
};

struct pn_pgacct {
	struct pn_pgacct_cfg cfg;
	int16_t slot[PN_MAX_NODES]; /* node -> index in nodes[], -1 */
	size_t nnodes;
	struct pnode *nodes;
	struct pn_event_node *rep;
	int64_t *node_alloc, *node_free; /* per node id + 1 (0: unknown), this phase */
	int64_t unknown_pages, events, failed_allocs, bad_events;
	struct pn_pgacct_totals tot;
	struct chunk *chunks;		      /* open addressing by id */
	size_t nchunks, capchunks, live_high; /* live_high: live entries of order > 0 */
	struct chunk *last_chunk;
	uint32_t seq;
	bool in_phase;
	size_t nxp, capxp;
	uint32_t *xpids; /* explicit pids of the phase (and what they forked) */
	size_t ncp;
	uint32_t *cpids; /* every pid of the phase context: always in by_process */
	size_t ncomm, capcomm;
	struct comm *comms;
};

/* ---- small tables ---- */

static void *grow(void *p, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	return pn_xrealloc(p, *cap * sz);
}

static bool is_xpid(const struct pn_pgacct *a, uint32_t pid)
{
	for (size_t i = 0; i < a->nxp; i++)
		if (a->xpids[i] == pid)
			return true;
	return false;
}

static void add_xpid(struct pn_pgacct *a, uint32_t pid)
{
	if (is_xpid(a, pid))
		return;
	a->xpids = grow(a->xpids, a->nxp, &a->capxp, sizeof(*a->xpids));
	a->xpids[a->nxp++] = pid;
}

static void set_comm(char dst[16], const char *src)
{
	size_t n = strnlen(src, 15);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static const char *comm_of(struct pn_pgacct *a, uint32_t pid)
{
	char rel[64], buf[64];
	struct comm *c;

	for (size_t i = a->ncomm; i-- > 0;)
		if (a->comms[i].pid == pid)
			return a->comms[i].name;
	snprintf(rel, sizeof(rel), "/proc/%u/comm", pid);
	if (pid == 0 || pn_read_text(rel, buf, sizeof(buf)) <= 0)
		snprintf(buf, sizeof(buf), "%s", pid ? "?" : "swapper");
	buf[strcspn(buf, "\n")] = '\0';
	a->comms = grow(a->comms, a->ncomm, &a->capcomm, sizeof(*a->comms));
	c = &a->comms[a->ncomm++];
	c->pid = pid;
	set_comm(c->name, buf);
	return c->name;
}

void pn_pgacct_comm(struct pn_pgacct *a, uint32_t pid, const char *comm)
{
	for (size_t i = 0; i < a->ncomm; i++) {
		if (a->comms[i].pid == pid) {
			set_comm(a->comms[i].name, comm);
			return;
		}
	}
	a->comms = grow(a->comms, a->ncomm, &a->capcomm, sizeof(*a->comms));
	a->comms[a->ncomm].pid = pid;
	set_comm(a->comms[a->ncomm++].name, comm);
}

static struct pidacct *pid_slot(struct pn_pgacct *a, struct pnode *n, uint32_t pid)
{
	if (n->last_pid < n->npids && n->pids[n->last_pid].pid == pid)
		return &n->pids[n->last_pid];
	for (size_t i = 0; i < n->npids; i++) {
		if (n->pids[i].pid == pid) {
			n->last_pid = i;
			return &n->pids[i];
		}
	}
	(void)comm_of(a, pid); /* first sight: while the process still exists */
	n->last_pid = n->npids;
	n->pids = grow(n->pids, n->npids, &n->cappids, sizeof(*n->pids));
	memset(&n->pids[n->npids], 0, sizeof(n->pids[0]));
	n->pids[n->npids].pid = pid;
	return &n->pids[n->npids++];
}

/* ---- live pages ---- */

static size_t chunk_hash(uint64_t id, size_t cap)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

static struct chunk *chunk_find(struct pn_pgacct *a, uint64_t id)
{
	if (a->last_chunk && a->last_chunk->id == id)
		return a->last_chunk;
	if (!a->capchunks)
		return NULL;
	for (size_t i = chunk_hash(id, a->capchunks);; i = (i + 1) & (a->capchunks - 1)) {
		if (a->chunks[i].id == id)
			return a->last_chunk = &a->chunks[i];
		if (!a->chunks[i].id)
			return NULL;
	}
}

static void chunk_insert(struct chunk *tab, size_t cap, const struct chunk *c)
{
	size_t i = chunk_hash(c->id, cap);

	while (tab[i].id)
		i = (i + 1) & (cap - 1);
	tab[i] = *c;
}

/* Huge-page backed where THP allows: events hit random pfns, and 4 KiB
 * pages of the map would miss the TLB on nearly every one. */
static struct live *chunk_pages(void)
{
	void *p = NULL;

	if (posix_memalign(&p, CHUNK_BYTES, CHUNK_BYTES))
		abort(); /* allocation failure is fatal, as pn_xmalloc */
	(void)madvise(p, CHUNK_BYTES, MADV_HUGEPAGE);
	memset(p, 0, CHUNK_BYTES);
	return p;
}

static struct chunk *chunk_add(struct pn_pgacct *a, uint64_t id)
{
	struct chunk c = { .id = id, .pages = chunk_pages() };

	if ((a->nchunks + 1) * 2 > a->capchunks) {
		size_t cap = a->capchunks ? a->capchunks * 2 : 64;
		struct chunk *tab = pn_xcalloc(cap, sizeof(*tab));

		for (size_t i = 0; i < a->capchunks; i++)
			if (a->chunks[i].id)
				chunk_insert(tab, cap, &a->chunks[i]);
		free(a->chunks);
		a->chunks = tab;
		a->capchunks = cap;
	}
	chunk_insert(a->chunks, a->capchunks, &c);
	a->nchunks++;
	a->last_chunk = NULL;
	return chunk_find(a, id);
}

/* The entry of pfn, live or not; NULL when its chunk does not exist and
 * create is false. */
static struct live *live_slot(struct pn_pgacct *a, uint64_t pfn, bool create)
{
	uint64_t id = (pfn >> CHUNK_SHIFT) + 1;
	struct chunk *c = chunk_find(a, id);

	if (!c && create)
		c = chunk_add(a, id);
	return c ? &c->pages[pfn & (CHUNK_PAGES - 1)] : NULL;
}

/* A block's second slot is in the same chunk (blocks of the buddy allocator
 * are aligned to their size; a corrupt record need not be). */
static bool has_tail(uint64_t pfn)
{
	return (pfn & (CHUNK_PAGES - 1)) != CHUNK_PAGES - 1;
}

static struct live *live_find(struct pn_pgacct *a, uint64_t pfn)
{
	struct live *l = live_slot(a, pfn, false);

	return l && (l->cls == CLS_EXPLICIT || l->cls == CLS_GENERAL) ? l : NULL;
}

bool pn_pgacct_tracked(const struct pn_pgacct *a, int node)
{
	return node >= 0 && node < PN_MAX_NODES && a->slot[node] >= 0;
}

/* Start loading the state of pfn's page: the collector calls this while it
 * decodes a round of records, so that by the time the events are applied in
 * time order their lines are in cache (a tracked node's map is far larger
 * than the caches; the loads missed on nearly every event). */
void pn_pgacct_prefetch(struct pn_pgacct *a, int node, uint64_t pfn)
{
	struct live *l;

	if (node < 0 || node >= PN_MAX_NODES || a->slot[node] < 0)
		return;
	l = live_slot(a, pfn, false);
	if (l)
		__builtin_prefetch(l, 1, 1);
}

/* ---- events ---- */

static struct pnode *pnode_of(struct pn_pgacct *a, int node)
{
	if (node < 0 || node >= PN_MAX_NODES || a->slot[node] < 0)
		return NULL;
	return &a->nodes[a->slot[node]];
}

static void add_kind(struct pnode *n, const struct pn_pgev *e, uint8_t cls, int64_t pages)
{
	struct kind *k;

	for (size_t j = 0; j < n->nkinds; j++) {
		size_t i = (j + n->last_kind) % n->nkinds; /* the last kind first */

		k = &n->kinds[i];
		if (k->gfp == e->gfp && k->order == e->order && k->mt == e->aux && k->cls == cls) {
			k->pages += pages;
			k->events++;
			n->last_kind = i;
			return;
		}
	}
	n->kinds = grow(n->kinds, n->nkinds, &n->capkinds, sizeof(*n->kinds));
	k = &n->kinds[n->nkinds++];
	*k = (struct kind){ .gfp = e->gfp,
			    .mt = e->aux,
			    .order = e->order,
			    .cls = cls,
			    .pages = pages,
			    .events = 1 };
}

static void private_alloc(struct pn_pgacct *a, struct pnode *n, const struct pn_pgev *e,
			  int64_t pages)
{
	bool expl = (a->cfg.private_gfp && (e->gfp & a->cfg.private_gfp)) || is_xpid(a, e->pid);
	uint8_t cls = expl ? CLS_EXPLICIT : CLS_GENERAL;
	struct pidacct *p;
	struct live *l = live_slot(a, e->pfn, true);
	struct live nl = { .pid = e->pid, .seq = (uint16_t)a->seq, .order = e->order, .cls = cls };

	if (expl) {
		n->explicit_pages += pages;
	} else {
		n->general_alloc_pages += pages;
		if (n->nex < a->cfg.nexamples)
			n->ex[n->nex++] = *e;
	}
	add_kind(n, e, cls, pages);
	p = pid_slot(a, n, e->pid);
	p->events++;
	if (expl)
		p->explicit_pages += pages;
	else
		p->general_pages += pages;
	a->live_high += e->order > 0;
	if (l->cls == CLS_EXPLICIT || l->cls == CLS_GENERAL) {
		/* its free was not seen (lost, or a path without the event) */
		n->live_realloc_events++;
		a->live_high -= l->order > 0;
	}
	*l = nl;
	if (e->order > 0 && has_tail(e->pfn))
		l[1].cls = 0; /* no pieces freed yet */
}

static void account_free(struct pn_pgacct *a, struct pnode *n, struct live *l, uint64_t pfn,
			 int64_t pages)
{
	if (l->seq == (uint16_t)a->seq) {
		if (l->cls == CLS_GENERAL)
			n->general_freed_pages += pages;
		else
			n->explicit_freed_pages += pages;
		pid_slot(a, n, l->pid)->freed_pages += pages;
	}
	if (l->order > 0 && pages < (1LL << l->order) && has_tail(pfn)) {
		struct live *t = l + 1; /* a split block freed piece by piece */

		if (t->cls != CLS_PIECES)
			*t = (struct live){ .cls = CLS_PIECES };
		t->pid += (uint32_t)pages;
		if (t->pid < (1u << l->order))
			return;
		t->cls = 0;
	}
	a->live_high -= l->order > 0;
	l->cls = 0;
}

static void private_free(struct pn_pgacct *a, struct pnode *n, const struct pn_pgev *e,
			 int64_t pages)
{
	uint64_t head = e->pfn;
	struct live *l = live_find(a, head);

	/* a split higher-order page is freed piece by piece: find its head */
	for (unsigned o = e->order + 1; !l && a->live_high && o < MAX_ORDER_SEEN; o++) {
		head = e->pfn & ~((1ULL << o) - 1);
		l = live_find(a, head);
		if (l && l->order < o)
			l = NULL;
	}
	if (!l) {
		n->unmatched_free_pages += pages;
		return;
	}
	account_free(a, n, l, head, pages);
}

static void series_event(struct pn_pgacct *a, const struct pn_pgev *e)
{
	struct pnode *n;

	if (e->kind == PN_PGEV_PRIV_SKIP) {
		n = pnode_of(a, e->node);
		if (!n)
			return;
		for (size_t i = 0; i < n->nreasons; i++) {
			if (n->reasons[i].reason == e->gfp) {
				n->reasons[i].events++;
				return;
			}
		}
		n->reasons = pn_xrealloc(n->reasons, (n->nreasons + 1) * sizeof(*n->reasons));
		n->reasons[n->nreasons++] = (struct reason){ .reason = e->gfp, .events = 1 };
		return;
	}
	n = pnode_of(a, e->fallback ? e->aux : e->node);
	if (!n)
		return;
	if (e->fallback)
		n->series_fallback_pages += 1LL << e->order;
	else
		n->series_alloc_pages += 1LL << e->order;
}

void pn_pgacct_apply(struct pn_pgacct *a, const struct pn_pgev *e)
{
	int64_t pages = 1LL << (e->order < 31 ? e->order : 31);
	size_t idx = e->node >= 0 && e->node < PN_MAX_NODES ? (size_t)e->node + 1 : 0;
	struct pnode *n;

	a->events++;
	a->tot.events++;
	if (e->order > 2 * MAX_ORDER_SEEN) { /* no allocator hands out such blocks */
		a->bad_events++;
		return;
	}
	switch (e->kind) {
	case PN_PGEV_ALLOC:
		if (e->pfn == UINT64_MAX) { /* the allocation failed */
			a->failed_allocs++;
			return;
		}
		a->node_alloc[idx] += pages;
		a->tot.alloc_pages += pages;
		if (!idx) {
			a->unknown_pages += pages;
			a->tot.unknown_node_pages += pages;
		}
		n = pnode_of(a, e->node);
		if (n)
			private_alloc(a, n, e, pages);
		return;
	case PN_PGEV_FREE:
		a->node_free[idx] += pages;
		a->tot.free_pages += pages;
		n = pnode_of(a, e->node);
		if (n)
			private_free(a, n, e, pages);
		return;
	case PN_PGEV_FORK:
		if (is_xpid(a, (uint32_t)e->pfn))
			add_xpid(a, e->pid);
		return;
	default: series_event(a, e); return;
	}
}

/* ---- life cycle ---- */

int pn_pgacct_new(struct pn_pgacct **out, const struct pn_pgacct_cfg *cfg)
{
	struct pn_pgacct *a = pn_xcalloc(1, sizeof(*a));
	int node;

	a->cfg = *cfg;
	for (size_t i = 0; i < PN_MAX_NODES; i++)
		a->slot[i] = -1;
	a->nnodes = (size_t)pn_nodeset_count(&cfg->private_nodes);
	a->nodes = pn_xcalloc(a->nnodes ? a->nnodes : 1, sizeof(*a->nodes));
	a->rep = pn_xcalloc(a->nnodes ? a->nnodes : 1, sizeof(*a->rep));
	a->node_alloc = pn_xcalloc(PN_MAX_NODES + 1, sizeof(*a->node_alloc));
	a->node_free = pn_xcalloc(PN_MAX_NODES + 1, sizeof(*a->node_free));
	size_t i = 0;

	pn_nodeset_for_each (node, &cfg->private_nodes) {
		a->slot[node] = (int16_t)i;
		a->nodes[i].node = node;
		a->nodes[i++].ex =
			pn_xcalloc(cfg->nexamples ? cfg->nexamples : 1, sizeof(struct pn_pgev));
	}
	*out = a;
	return 0;
}

static void pnode_reset(struct pnode *n)
{
	struct pnode keep = *n;

	free(n->kinds);
	free(n->pids);
	free(n->reasons);
	memset(n, 0, sizeof(*n));
	n->node = keep.node;
	n->ex = keep.ex;
	n->before_phase_general_pages = keep.before_phase_general_pages;
}

void pn_pgacct_free(struct pn_pgacct *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nnodes; i++) {
		pnode_reset(&a->nodes[i]);
		free(a->nodes[i].ex);
	}
	free(a->nodes);
	free(a->rep);
	free(a->node_alloc);
	free(a->node_free);
	for (size_t i = 0; i < a->capchunks; i++)
		free(a->chunks[i].pages); /* posix_memalign'd */
	free(a->chunks);
	free(a->xpids);
	free(a->cpids);
	free(a->comms);
	free(a);
}

static void phase_reset(struct pn_pgacct *a)
{
	for (size_t i = 0; i < a->nnodes; i++)
		pnode_reset(&a->nodes[i]);
	memset(a->node_alloc, 0, (PN_MAX_NODES + 1) * sizeof(*a->node_alloc));
	memset(a->node_free, 0, (PN_MAX_NODES + 1) * sizeof(*a->node_free));
	a->unknown_pages = a->events = a->failed_allocs = a->bad_events = 0;
}

void pn_pgacct_phase_begin(struct pn_pgacct *a, const struct pn_phase_ctx *ctx)
{
	/* general pages that landed between phases are not dropped: the next
	 * phase reports them as before_phase_general_pages */
	for (size_t i = 0; i < a->nnodes; i++) {
		struct pnode *n = &a->nodes[i];

		n->before_phase_general_pages = n->general_alloc_pages - n->general_freed_pages;
	}
	phase_reset(a);
	a->seq++;
	a->in_phase = true;
	a->nxp = 0;
	free(a->cpids);
	a->ncp = ctx ? ctx->npids : 0;
	a->cpids = pn_xcalloc(a->ncp ? a->ncp : 1, sizeof(*a->cpids));
	for (size_t i = 0; i < a->ncp; i++)
		a->cpids[i] = (uint32_t)ctx->pids[i].pid;
	for (size_t i = 0; ctx && i < ctx->npids; i++)
		if (ctx->pids[i].explicit_alloc && !ctx->pids[i].background)
			add_xpid(a, (uint32_t)ctx->pids[i].pid);
}

/* ---- report ---- */

static void add_num(cJSON *o, const char *k, int64_t v)
{
	cJSON_AddNumberToObject(o, k, (double)v);
}

static void gfp_str(const struct pn_pgacct *a, uint64_t gfp, char *buf, size_t len)
{
	if (!a->cfg.gfp_names || pn_tpflags_decode(a->cfg.gfp_names, gfp, buf, len) < 0)
		snprintf(buf, len, "0x%llx", (unsigned long long)gfp);
}

static cJSON *kinds_json(const struct pn_pgacct *a, const struct pnode *n)
{
	cJSON *arr = cJSON_CreateArray();
	char g[256];

	for (size_t i = 0; i < n->nkinds; i++) {
		const struct kind *k = &n->kinds[i];
		cJSON *o = cJSON_CreateObject();

		gfp_str(a, k->gfp, g, sizeof(g));
		cJSON_AddStringToObject(o, "class",
					k->cls == CLS_EXPLICIT ? "explicit" : "general");
		cJSON_AddStringToObject(o, "gfp", g);
		snprintf(g, sizeof(g), "0x%llx", (unsigned long long)k->gfp);
		cJSON_AddStringToObject(o, "gfp_raw", g);
		add_num(o, "order", k->order);
		add_num(o, "migratetype", k->mt);
		add_num(o, "pages", k->pages);
		add_num(o, "events", k->events);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static int cmp_pid(const void *x, const void *y)
{
	const struct pidacct *a = x, *b = y;
	int64_t pa = a->general_pages + a->explicit_pages,
		pb = b->general_pages + b->explicit_pages;

	return pa > pb ? -1 : pa < pb;
}

static bool is_cpid(const struct pn_pgacct *a, uint32_t pid)
{
	for (size_t i = 0; i < a->ncp; i++)
		if (a->cpids[i] == pid)
			return true;
	return false;
}

/* The 32 processes with most pages, and every process of the phase. */
static cJSON *pids_json(struct pn_pgacct *a, struct pnode *n)
{
	cJSON *arr = cJSON_CreateArray();

	if (n->npids)
		qsort(n->pids, n->npids, sizeof(*n->pids), cmp_pid);
	for (size_t i = 0; i < n->npids; i++) {
		const struct pidacct *p = &n->pids[i];
		cJSON *o;

		if (i >= 32 && !is_cpid(a, p->pid) && !is_xpid(a, p->pid))
			continue;
		o = cJSON_CreateObject();
		add_num(o, "pid", p->pid);
		cJSON_AddStringToObject(o, "comm", comm_of(a, p->pid));
		add_num(o, "general_pages", p->general_pages);
		add_num(o, "explicit_pages", p->explicit_pages);
		add_num(o, "freed_pages", p->freed_pages);
		add_num(o, "events", p->events);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *examples_json(struct pn_pgacct *a, const struct pnode *n)
{
	cJSON *arr = cJSON_CreateArray();
	char g[256];

	for (size_t i = 0; i < n->nex; i++) {
		const struct pn_pgev *e = &n->ex[i];
		cJSON *o = cJSON_CreateObject();

		add_num(o, "t_ns", (int64_t)e->time_ns);
		add_num(o, "cpu", e->cpu);
		add_num(o, "pid", e->pid);
		cJSON_AddStringToObject(o, "comm", comm_of(a, e->pid));
		snprintf(g, sizeof(g), "0x%llx", (unsigned long long)e->pfn);
		cJSON_AddStringToObject(o, "pfn", g);
		add_num(o, "order", e->order);
		gfp_str(a, e->gfp, g, sizeof(g));
		cJSON_AddStringToObject(o, "gfp", g);
		add_num(o, "migratetype", e->aux);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *series_json(const struct pn_pgacct *a, const struct pnode *n)
{
	cJSON *o = cJSON_CreateObject(), *sk = cJSON_CreateObject();
	char r[128];

	add_num(o, "private_alloc_pages", n->series_alloc_pages);
	add_num(o, "private_fallback_pages", n->series_fallback_pages);
	for (size_t i = 0; i < n->nreasons; i++) {
		if (!a->cfg.skip_reasons ||
		    pn_tpflags_decode(a->cfg.skip_reasons, n->reasons[i].reason, r, sizeof(r)) < 0)
			snprintf(r, sizeof(r), "%llu", (unsigned long long)n->reasons[i].reason);
		add_num(sk, r, n->reasons[i].events);
	}
	cJSON_AddItemToObject(o, "skips", sk);
	return o;
}

static cJSON *node_json(struct pn_pgacct *a, struct pnode *n, const struct pn_event_node *r)
{
	cJSON *o = cJSON_CreateObject();

	add_num(o, "node", n->node);
	add_num(o, "alloc_pages", n->alloc_pages);
	add_num(o, "free_pages", n->free_pages);
	add_num(o, "net_pages", r->net_pages);
	add_num(o, "explicit_pages", n->explicit_pages);
	add_num(o, "explicit_freed_pages", n->explicit_freed_pages);
	add_num(o, "general_alloc_pages", n->general_alloc_pages);
	add_num(o, "general_freed_pages", n->general_freed_pages);
	add_num(o, "general_pages", r->general_pages);
	add_num(o, "before_phase_general_pages", n->before_phase_general_pages);
	add_num(o, "unmatched_free_pages", n->unmatched_free_pages);
	add_num(o, "live_realloc_events", n->live_realloc_events);
	cJSON_AddItemToObject(o, "series", series_json(a, n));
	cJSON_AddItemToObject(o, "by_kind", kinds_json(a, n));
	cJSON_AddItemToObject(o, "by_process", pids_json(a, n));
	cJSON_AddItemToObject(o, "examples", examples_json(a, n));
	return o;
}

static cJSON *per_node_json(const struct pn_pgacct *a)
{
	cJSON *o = cJSON_CreateObject();
	char k[16];

	for (size_t i = 0; i <= PN_MAX_NODES; i++) {
		cJSON *n;

		if (!a->node_alloc[i] && !a->node_free[i])
			continue;
		snprintf(k, sizeof(k), "%d", (int)i - 1);
		n = cJSON_AddObjectToObject(o, i ? k : "unknown");
		add_num(n, "alloc_pages", a->node_alloc[i]);
		add_num(n, "free_pages", a->node_free[i]);
	}
	return o;
}

int pn_pgacct_phase_end(struct pn_pgacct *a, int64_t lost, struct pn_event_report *rep)
{
	cJSON *d = cJSON_CreateObject(), *nodes = cJSON_CreateArray();

	for (size_t i = 0; i < a->nnodes; i++) {
		struct pnode *n = &a->nodes[i];
		struct pn_event_node *r = &a->rep[i];

		n->alloc_pages = a->node_alloc[n->node + 1];
		n->free_pages = a->node_free[n->node + 1];
		*r = (struct pn_event_node){
			.node = n->node,
			.explicit_pages = n->explicit_pages,
			.general_alloc_pages = n->general_alloc_pages,
			.general_freed_pages = n->general_freed_pages,
			.general_pages = n->general_alloc_pages - n->general_freed_pages,
			.net_pages = n->alloc_pages - n->free_pages,
			.lost_events = lost,
			.inconclusive = lost > 0 || a->unknown_pages > 0,
		};
		cJSON_AddItemToArray(nodes, node_json(a, n, r));
	}
	add_num(d, "events", a->events);
	add_num(d, "failed_allocs", a->failed_allocs);
	add_num(d, "bad_order_events", a->bad_events);
	add_num(d, "unknown_node_pages", a->unknown_pages);
	cJSON_AddItemToObject(d, "per_node", per_node_json(a));
	cJSON_AddItemToObject(d, "private_nodes", nodes);
	rep->nnodes = a->nnodes;
	rep->nodes = a->rep;
	rep->events = a->events;
	rep->lost_events = lost;
	rep->details = d;
	a->in_phase = false;
	return 0;
}

void pn_pgacct_totals(const struct pn_pgacct *a, struct pn_pgacct_totals *t)
{
	*t = a->tot;
}

int64_t pn_pgacct_pid_pages(const struct pn_pgacct *a, int node, uint32_t pid, int64_t *freed)
{
	const struct pnode *n;

	*freed = 0;
	if (node < 0 || node >= PN_MAX_NODES || a->slot[node] < 0)
		return 0;
	n = &a->nodes[a->slot[node]];
	for (size_t i = 0; i < n->npids; i++) {
		if (n->pids[i].pid == pid) {
			*freed = n->pids[i].freed_pages;
			return n->pids[i].general_pages + n->pids[i].explicit_pages;
		}
	}
	return 0;
}
