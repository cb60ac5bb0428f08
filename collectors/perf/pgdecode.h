/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgdecode.h - the page allocator's tracepoints, decoded: where tracefs is,
 * the formats of kmem:mm_page_alloc, kmem:mm_page_free and (where the kernel
 * has the reference series) kmem:mm_private_alloc / kmem:mm_private_skip,
 * and their raw entries into struct pn_pgev (pgacct.h).  Every field is
 * located by name in the format (tpfmt.h); a sample too short for a field
 * is an error, never a read past its end.
 */
#ifndef PN_PGDECODE_H
#define PN_PGDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgacct.h"
#include "tpfmt.h"

enum { PN_TP_ALLOC, PN_TP_FREE, PN_TP_PALLOC, PN_TP_PSKIP, PN_TP_N };
extern const char *const pn_pgdec_names[PN_TP_N]; /* "mm_page_alloc", ... */

struct pn_pgdec {
	struct pn_tp tp;
	struct {
		bool present;
		int id;
		struct pn_tpfield f[5];
		uint32_t need; /* bytes of raw data its fields need (max end) */
	} td[PN_TP_N];
	struct pn_tpfield common_type;
	struct pn_tpflags gfp_names, skip_reasons; /* from the print formats */
	uint64_t private_gfp; /* value of __GFP_PRIVATE where the format names it, else 0 */
};

/*
 * Find tracefs with kmem events under the sysroot (/sys/kernel/tracing,
 * then /sys/kernel/debug/tracing), mounting it on the live system when
 * may_mount.  out gets the full path.  -ENOENT if there is none.
 */
int pn_tracefs_find(char *out, size_t len, bool may_mount);

/* Load the formats from tracefs (a full path); the series' events only when
 * series and present.  -errno with a message when a required one fails. */
int pn_pgdec_load(struct pn_pgdec *d, const char *tracefs, bool series);
void pn_pgdec_free(struct pn_pgdec *d);
/* The same in steps, for formats from elsewhere (replayed, fuzzed): init,
 * parse with pn_tp_parse(&d->tp, ...), add as event PN_TP_*. */
int pn_pgdec_init(struct pn_pgdec *d);
int pn_pgdec_add(struct pn_pgdec *d, int which, const struct tep_event *ev);

/*
 * Decode one raw entry into e (time, pid and cpu are the caller's).  For
 * ALLOC/FREE e->node is left PN_PFNNODE_UNKNOWN for the caller's pfn ->
 * node lookup; the series' events carry their nid.  Returns 0, -ENOENT for
 * an event that is not one of ours, -EINVAL for a truncated entry.
 */
int pn_pgdec_decode(const struct pn_pgdec *d, const void *raw, size_t len, struct pn_pgev *e);

/* A field the format located, in data already checked to hold it. */
static inline uint64_t pn_pgdec_rd(const struct pn_tpfield *f, const unsigned char *raw)
{
	return pn_tpfield_get(f, raw);
}

/*
 * pn_pgdec_decode() in two steps, for the hot path: pn_pgdec_page() finds
 * the event, checks the entry's length once against what its fields need
 * (from the format), and for mm_page_alloc/free reads only pfn and order -
 * enough for the node and the per-node totals; series events are read
 * whole.  pn_pgdec_rest() then reads gfp flags and migratetype of an
 * allocation the caller classifies (raw as given to the first step).
 */
static inline int pn_pgdec_page(const struct pn_pgdec *d, const void *raw, size_t len,
				struct pn_pgev *e)
{
	const unsigned char *r = (const unsigned char *)raw;
	uint64_t type, v;
	int i;

	if (pn_tpfield_read(&d->common_type, raw, len, &type))
		return -22; /* -EINVAL */
	for (i = 0; i < PN_TP_N; i++)
		if (d->td[i].present && (uint64_t)d->td[i].id == type)
			break;
	if (i == PN_TP_N)
		return -2; /* -ENOENT */
	if (len < d->td[i].need)
		return -22;
	e->kind = (uint8_t)(PN_PGEV_ALLOC + i);
	e->node = -1; /* PN_PFNNODE_UNKNOWN for the caller's lookup */
	e->gfp = 0;
	e->aux = 0;
	e->fallback = 0;
	if (i == PN_TP_PSKIP) {
		e->node = (int32_t)pn_pgdec_rd(&d->td[i].f[0], r);
		e->pfn = pn_pgdec_rd(&d->td[i].f[1], r);
		e->gfp = pn_pgdec_rd(&d->td[i].f[2], r);
		e->order = 0;
		return 0;
	}
	v = pn_pgdec_rd(&d->td[i].f[1], r);
	e->order = (uint8_t)(v < 255 ? v : 255);
	if (i == PN_TP_PALLOC) {
		e->node = (int32_t)pn_pgdec_rd(&d->td[i].f[0], r);
		e->gfp = pn_pgdec_rd(&d->td[i].f[2], r);
		e->aux = (int32_t)pn_pgdec_rd(&d->td[i].f[3], r);
		e->fallback = pn_pgdec_rd(&d->td[i].f[4], r) != 0;
		e->pfn = 0;
		return 0;
	}
	e->pfn = pn_pgdec_rd(&d->td[i].f[0], r);
	return 0;
}

static inline void pn_pgdec_rest(const struct pn_pgdec *d, const void *raw, struct pn_pgev *e)
{
	if (e->kind != PN_PGEV_ALLOC)
		return;
	e->gfp = pn_pgdec_rd(&d->td[PN_TP_ALLOC].f[2], (const unsigned char *)raw);
	e->aux = (int32_t)pn_pgdec_rd(&d->td[PN_TP_ALLOC].f[3], (const unsigned char *)raw);
}

#endif /* PN_PGDECODE_H */
