/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pkinds.h - the kinds of general memory pressure the pressure workload
 * applies (its `kinds` option): their names and the list parser, which the
 * config checker and setup() share.
 */
#ifndef PN_PKINDS_H
#define PN_PKINDS_H

#include <stddef.h>

enum pn_pkind {
	PN_PK_ANON,
	PN_PK_THP,
	PN_PK_NUMA, /* "numa_balancing" */
	PN_PK_PAGECACHE,
	PN_PK_SLAB,
	PN_PK_SOCKETS,
	PN_PK_COMPACTION,
	PN_PK_RECLAIM,
	PN_PK_N
};
#define PN_PK_BIT(k) (1u << (k))

/* The option's spelling of each kind, in enum order. */
extern const char *const pn_pkind_names[PN_PK_N];

/* "anon,pagecache" (commas, blanks also separate; "all" every kind) -> the
 * kinds' bits in *kinds.  -EINVAL with the reason in why: an unknown kind,
 * or an empty one between commas. */
int pn_pkinds_parse(const char *s, unsigned *kinds, char *why, size_t whylen);

#endif /* PN_PKINDS_H */
