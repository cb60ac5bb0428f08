// SPDX-License-Identifier: GPL-2.0-only
/*
 * pgacct.c - page accounting from allocator events.  See pgacct.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pgacct_int.h"
#include "core/sys/pfnnode.h"

/* ---- small tables ---- */

static void *grow(void *p, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	return pn_xrealloc(p, *cap * sz);
}

bool pn_pgacct_is_xpid(const struct pn_pgacct *a, uint32_t pid)
{
	for (size_t i = 0; i < a->nxp; i++)
		if (a->xpids[i] == pid)
			return true;
	return false;
}

static void add_xpid(struct pn_pgacct *a, uint32_t pid)
{
	if (pn_pgacct_is_xpid(a, pid))
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

const char *pn_pgacct_comm_of(struct pn_pgacct *a, uint32_t pid)
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

static size_t pid_hash(uint32_t pid, size_t cap)
{
	return (size_t)((pid * 0x9e3779b1u) >> 7) & (cap - 1);
}

/* (Re)build the index of n->pids at twice the entries' count, at least. */
static void pidx_build(struct pnode *n)
{
	size_t cap = n->capidx ? n->capidx : 64;

	while (cap < (n->npids + 1) * 2)
		cap *= 2;
	free(n->pidx);
	n->pidx = pn_xcalloc(cap, sizeof(*n->pidx));
	n->capidx = cap;
	for (size_t i = 0; i < n->npids; i++) {
		size_t h = pid_hash(n->pids[i].pid, cap);

		while (n->pidx[h])
			h = (h + 1) & (cap - 1);
		n->pidx[h] = (uint32_t)i + 1;
	}
}

/* The entry of pid (a node sees every process that allocates on it: a
 * machine's worth when it is ordinary memory, so not a linear search). */
static struct pidacct *pid_slot(struct pn_pgacct *a, struct pnode *n, uint32_t pid)
{
	size_t h;

	if (n->last_pid < n->npids && n->pids[n->last_pid].pid == pid)
		return &n->pids[n->last_pid];
	if ((n->npids + 1) * 2 > n->capidx)
		pidx_build(n);
	for (h = pid_hash(pid, n->capidx); n->pidx[h]; h = (h + 1) & (n->capidx - 1)) {
		if (n->pids[n->pidx[h] - 1].pid == pid) {
			n->last_pid = n->pidx[h] - 1;
			return &n->pids[n->last_pid];
		}
	}
	(void)pn_pgacct_comm_of(a, pid); /* first sight: while the process still exists */
	n->last_pid = n->npids;
	n->pids = grow(n->pids, n->npids, &n->cappids, sizeof(*n->pids));
	memset(&n->pids[n->npids], 0, sizeof(n->pids[0]));
	n->pids[n->npids].pid = pid;
	n->pidx[h] = (uint32_t)n->npids + 1;
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
	uint64_t id = pfn >> CHUNK_SHIFT;
	struct live *pages;
	struct chunk *c;

	if (id < DIR_IDS && a->dir) {
		pages = a->dir[id];
		if (pages || !create)
			return pages ? &pages[pfn & (CHUNK_PAGES - 1)] : NULL;
	}
	c = chunk_find(a, id + 1);
	if (!c && create)
		c = chunk_add(a, id + 1);
	if (!c)
		return NULL;
	if (id < DIR_IDS) {
		if (!a->dir)
			a->dir = pn_xcalloc(DIR_IDS,
					    sizeof(*a->dir)); // NOLINT(bugprone-sizeof-expression)
		a->dir[id] = c->pages;
	}
	return &c->pages[pfn & (CHUNK_PAGES - 1)];
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
	bool expl = (a->cfg.private_gfp && (e->gfp & a->cfg.private_gfp)) ||
		    pn_pgacct_is_xpid(a, e->pid);
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
	a->live_ord[e->order]++;
	if (l->cls == CLS_EXPLICIT || l->cls == CLS_GENERAL) {
		/* its free was not seen (lost, or a path without the event) */
		n->live_realloc_events++;
		a->live_ord[l->order]--;
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
	a->live_ord[l->order]--;
	l->cls = 0;
}

static void private_free(struct pn_pgacct *a, struct pnode *n, const struct pn_pgev *e,
			 int64_t pages)
{
	uint64_t head = e->pfn;
	struct live *l = live_find(a, head);

	/* a split higher-order page is freed piece by piece: find its head */
	for (unsigned o = e->order + 1; !l && o < MAX_ORDER_SEEN; o++) {
		if (!a->live_ord[o])
			continue; /* no live block of that order to be part of */
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

int64_t pn_pgacct_count(struct pn_pgacct *a, const struct pn_pgev *e)
{
	int64_t pages = 1LL << (e->order < 31 ? e->order : 31);
	size_t idx = e->node >= 0 && e->node < PN_MAX_NODES ? (size_t)e->node + 1 : 0;

	a->events++;
	a->tot.events++;
	if (e->order > 2 * MAX_ORDER_SEEN) { /* no allocator hands out such blocks */
		a->bad_events++;
		return 0;
	}
	if (e->kind == PN_PGEV_FREE) {
		a->node_free[idx] += pages;
		a->tot.free_pages += pages;
		return pages;
	}
	if (e->pfn == UINT64_MAX) { /* the allocation failed */
		a->failed_allocs++;
		return 0;
	}
	a->node_alloc[idx] += pages;
	a->tot.alloc_pages += pages;
	if (!idx) {
		a->unknown_pages += pages;
		a->tot.unknown_node_pages += pages;
	}
	return pages;
}

void pn_pgacct_apply(struct pn_pgacct *a, const struct pn_pgev *e)
{
	struct pnode *n;
	int64_t pages;

	if (e->kind == PN_PGEV_ALLOC || e->kind == PN_PGEV_FREE) {
		pages = pn_pgacct_count(a, e);
		n = pages ? pnode_of(a, e->node) : NULL;
		if (n && e->kind == PN_PGEV_ALLOC)
			private_alloc(a, n, e, pages);
		else if (n)
			private_free(a, n, e, pages);
		return;
	}
	a->events++;
	a->tot.events++;
	if (e->order > 2 * MAX_ORDER_SEEN) {
		a->bad_events++;
		return;
	}
	if (e->kind == PN_PGEV_FORK) {
		if (pn_pgacct_is_xpid(a, (uint32_t)e->pfn))
			add_xpid(a, e->pid);
		return;
	}
	series_event(a, e);
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
	free(n->pidx);
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
	free(a->dir);
	free(a->xpids);
	free(a->cpids);
	free(a->comms);
	free(a);
}

void pn_pgacct_phase_reset(struct pn_pgacct *a)
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
	pn_pgacct_phase_reset(a);
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
