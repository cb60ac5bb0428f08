/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgowner.h - page_owner forensics: the allocation stacks of the pages
 * allocated on a node's pfn ranges, from /sys/kernel/debug/page_owner
 * (CONFIG_PAGE_OWNER, booted with page_owner=on), grouped by stack.
 *
 * A page_owner record (mm/page_owner.c print_page_owner(), 6.x):
 *
 *   Page allocated via order 0, mask 0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), pid 812, tgid 812
 * (dd), ts 1183218542 ns PFN 0x10d4d8 type Movable Block 2154 type Movable Flags
 * 0x17ffffc0020838(uptodate|...) post_alloc_hook+0x9c/0xc0
 *    ...
 *   (optional "Page has been migrated, ..." and "Charged to memcg ..." lines)
 *   <blank line>
 *
 * The live file is read from the first pfn of each range on (the file's
 * position is a pfn: lseek works there); a replayed tree (PNBENCH_SYSROOT)
 * is read whole and filtered.  page_owner_stacks/ (6.9+) counts stacks over
 * all memory, not per node, so it is not used.
 */
#ifndef PN_PAGEOWNER_H
#define PN_PAGEOWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sys/pfnnode.h"

struct cJSON;

#define PN_PGOWNER_PATH "/sys/kernel/debug/page_owner"
/* Records read per node at most (some 700 bytes each): a node of ordinary
 * memory holds millions of allocated pages; a private node should not. */
#define PN_PGOWNER_MAX_RECORDS 100000

struct pn_pgowner_stack {
	char *stack; /* the frames, one per line, as printed */
	uint64_t hash;
	int64_t pages, allocs;
	/* the first allocation seen with this stack */
	uint64_t gfp, pfn;
	unsigned order;
	int32_t pid;
	char comm[16];
	char gfp_names[160];
};

struct pn_pgowner {
	const struct pn_pfnrange *r; /* the node's ranges: [start, end) */
	size_t nr;
	const uint32_t *xpids; /* explicit processes (their pages are explicit) */
	size_t nxpids;
	int64_t records, pages, explicit_pages, malformed;
	bool truncated; /* stopped at PN_PGOWNER_MAX_RECORDS */
	size_t n, cap;
	struct pn_pgowner_stack *s;
};

/* Ranges r[0..nr) (kept by reference); xpids may be NULL. */
void pn_pgowner_init(struct pn_pgowner *o, const struct pn_pfnrange *r, size_t nr,
		     const uint32_t *xpids, size_t nxpids);
void pn_pgowner_free(struct pn_pgowner *o);

/*
 * One record's text (len bytes, without the blank line).  Records of pfns
 * outside the ranges are ignored; a page is explicit when its gfp names
 * __GFP_PRIVATE or its tgid is an explicit process, otherwise it is grouped
 * by stack.  Returns the record's pfn, or -EINVAL when the text is not a
 * page_owner record (counted as malformed).
 */
int64_t pn_pgowner_feed(struct pn_pgowner *o, const char *rec, size_t len);

/*
 * Read PN_PGOWNER_PATH under the sysroot and feed every record of the
 * ranges.  0, or -ENOENT (no such file: no CONFIG_PAGE_OWNER or debugfs not
 * mounted), -EINVAL (page_owner is off: the kernel refuses the read),
 * -errno.  why (if given) gets the reason in words.
 */
int pn_pgowner_read(struct pn_pgowner *o, char *why, size_t whylen);

/* The result: totals and the top stacks by pages, each with its source. */
struct cJSON *pn_pgowner_json(struct pn_pgowner *o, size_t top);

#endif /* PN_PAGEOWNER_H */
