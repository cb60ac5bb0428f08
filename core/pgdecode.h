/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgdecode.h - the page allocator's tracepoints, decoded: where tracefs is,
 * the formats of kmem:mm_page_alloc, kmem:mm_page_free and (where the kernel
 * has the reference series) kmem:mm_private_alloc / kmem:mm_private_skip,
 * and their raw entries into struct pn_pgev (pageacct.h).  Every field is
 * located by name in the format (tpfmt.h); a sample too short for a field
 * is an error, never a read past its end.
 */
#ifndef PN_PGDECODE_H
#define PN_PGDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pageacct.h"
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

#endif /* PN_PGDECODE_H */
