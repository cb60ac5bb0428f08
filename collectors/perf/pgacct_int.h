/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgacct_int.h - the insides of struct pn_pgacct, shared by pgacct.c
 * (accounting) and pgacct_report.c (the JSON details of a phase).  Not an API.
 */
#ifndef PN_PAGEACCT_INT_H
#define PN_PAGEACCT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgacct.h"

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
	uint32_t *pidx; /* open addressing over pids[]: index + 1, 0 empty */
	size_t capidx;
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

/* Chunks of the first DIR_IDS GiB of physical addresses (4 TiB) are found by
 * a direct index; the hash holds every chunk (and owns its pages). */
#define DIR_IDS 4096

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
	struct chunk *chunks; /* open addressing by id */
	size_t nchunks, capchunks;
	uint32_t live_ord[2 * MAX_ORDER_SEEN + 1]; /* live entries per order */
	struct chunk *last_chunk;
	struct live **dir; /* chunk id (pfn >> CHUNK_SHIFT) < DIR_IDS -> its pages */
	uint32_t seq;
	bool in_phase;
	size_t nxp, capxp;
	uint32_t *xpids; /* explicit pids of the phase (and what they forked) */
	size_t ncp;
	uint32_t *cpids; /* every pid of the phase context: always in by_process */
	size_t ncomm, capcomm;
	struct comm *comms;
};

/* pgacct.c, for the report */
bool pn_pgacct_is_xpid(const struct pn_pgacct *a, uint32_t pid);
const char *pn_pgacct_comm_of(struct pn_pgacct *a, uint32_t pid);
/* per-phase totals back to zero (the live pages stay) */
void pn_pgacct_phase_reset(struct pn_pgacct *a);

#endif /* PN_PAGEACCT_INT_H */
