// SPDX-License-Identifier: GPL-2.0-only
/*
 * placement.c - where a workload's pages really live (move_pages(2) in query
 * mode), and the guard that keeps workloads from OOMing the machine.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include "placement.h"
#include "core/sys/procfs.h"

/* Pages per move_pages() call: bounded stack use, few syscalls. */
#define VERIFY_BATCH 1024

int pn_placement_verify(const void *addr, size_t len, const struct pn_nodeset *intended,
			struct pn_res *r)
{
	long psz = sysconf(_SC_PAGESIZE);
	const char *p, *end;
	void *pages[VERIFY_BATCH];
	int status[VERIFY_BATCH];

	if (psz <= 0)
		psz = 4096;
	if (!addr || !len)
		return len ? -EINVAL : 0;
	/* Every page the range touches, even partially. */
	p = (const char *)addr - ((uintptr_t)addr & ((uintptr_t)psz - 1));
	end = (const char *)addr + len;

	while (p < end) {
		unsigned long n = 0;

		while (n < VERIFY_BATCH && p < end) {
			pages[n++] = (void *)p;
			p += psz;
		}
		/* nodes == NULL: query only, nothing moves; pid 0 = this process. */
		if (numa_move_pages(0, n, pages, NULL, status, 0) < 0)
			return pn_error(-errno, "placement: move_pages(%lu pages at %p): %s", n,
					pages[0], strerror(errno));
		for (unsigned long i = 0; i < n; i++) {
			int node = status[i];

			/*
			 * Negative status: -ENOENT (never faulted in, or the
			 * zero page), -EFAULT (not mapped) or another error
			 * for a page the kernel cannot report.  All are
			 * "could not tell", never silently counted as placed.
			 */
			if (node < 0 || node >= PN_MAX_NODES) {
				r->unverified_pages++;
				continue;
			}
			r->placed_pages[node]++;
			if (intended && pn_nodeset_test(intended, node))
				r->intended_pages++;
			else
				r->misplaced_pages++;
		}
	}
	r->verified = true;
	return 0;
}

/* Has the guard refused `what` before in this process?  A run refuses the
 * same workload in every phase and point; the first refusal is printed, the
 * rest only recorded (each phase's result still gives the reason). */
static bool guard_said(const char *what)
{
	static char said[16][128];
	static unsigned int n;

	for (unsigned int i = 0; i < n && i < PN_ARRAY_SIZE(said); i++)
		if (!strncmp(said[i], what, sizeof(said[i]) - 1))
			return true;
	snprintf(said[n % PN_ARRAY_SIZE(said)], sizeof(said[0]), "%s", what);
	n++;
	return false;
}

int pn_mem_guard(uint64_t bytes, double share, const char *what)
{
	return pn_mem_guard_except(bytes, share, NULL, what);
}

int pn_mem_guard_except(uint64_t bytes, double share, const struct pn_nodeset *except,
			const char *what)
{
	uint64_t avail, limit;
	char b[32], a[32], l[32];
	int ret, n;

	if (!(share > 0.0 && share <= 1.0))
		return pn_error(-EINVAL, "%s: memory share %g is outside (0, 1]", what, share);
	ret = pn_mem_available(&avail); /* prints why it failed */
	if (ret)
		return pn_error(ret, "%s: cannot check the size against MemAvailable", what);
	/* Free memory of private nodes is in MemAvailable, but general
	 * allocations can never have it. */
	for (n = except ? pn_nodeset_next(except, -1) : -1; n >= 0;
	     n = pn_nodeset_next(except, n)) {
		struct pn_nodemem m;

		if (pn_nodemem_read(n, &m) == 0 && m.free > 0)
			avail = (uint64_t)m.free < avail ? avail - (uint64_t)m.free : 0;
	}
	limit = (uint64_t)((double)avail * share);
	if (bytes <= limit)
		return 0;
	pn_format_size(bytes, b, sizeof(b));
	pn_format_size(avail, a, sizeof(a));
	pn_format_size(limit, l, sizeof(l));
	if (guard_said(what))
		return pn_error_again(-ENOMEM,
				      "%s: %s is more than %.0f%% of MemAvailable (%s): limit %s",
				      what, b, share * 100.0, a, l);
	return pn_error(-ENOMEM, "%s: %s is more than %.0f%% of MemAvailable (%s): limit %s", what,
			b, share * 100.0, a, l);
}
