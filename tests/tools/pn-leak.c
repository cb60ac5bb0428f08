// SPDX-License-Identifier: GPL-2.0-only
/*
 * pn-leak - a process that puts a known number of pages on a node, the
 * "foreign process" of the accounting tests.
 *
 *   pn-leak [-t] PAGES NODE [HOLD_MS [EXIT_CODE]]
 *
 * maps PAGES anonymous pages (THP off), binds them to NODE with
 * mbind(MPOL_BIND), writes each page once, checks with move_pages(2) that
 * every page is on NODE, holds them for HOLD_MS (default 0) and exits with
 * EXIT_CODE (default 0).  NODE -1 means no policy (the local node).  With -t
 * a refused policy (a kernel that keeps NODE private) is tolerated: the pages
 * go where the kernel puts them.  Prints "placed <pages> on <node>" or
 * "policy refused" to stderr.  Exit 1 with a message when a page is
 * elsewhere or a call fails.
 */
#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "pn-leak: %s: %s\n", what, strerror(errno));
	return 1;
}

static long count_on(char *a, long pages, long psz, int node)
{
	long on = 0;

	for (long i = 0; i < pages; i += 1024) {
		void *addr[1024];
		int status[1024];
		long n = pages - i < 1024 ? pages - i : 1024;

		for (long k = 0; k < n; k++)
			addr[k] = a + (i + k) * psz;
		if (move_pages(0, (unsigned long)n, addr, NULL, status, 0))
			return -1;
		for (long k = 0; k < n; k++)
			on += node < 0 ? status[k] >= 0 : status[k] == node;
	}
	return on;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), pages, hold_ms = 0, on;
	int node, code = 0, tolerate = 0;
	char *a;

	if (argc > 1 && !strcmp(argv[1], "-t")) {
		tolerate = 1;
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: pn-leak [-t] PAGES NODE [HOLD_MS [EXIT_CODE]]\n");
		return 2;
	}
	pages = atol(argv[1]);
	node = atoi(argv[2]);
	if (argc > 3)
		hold_ms = atol(argv[3]);
	if (argc > 4)
		code = atoi(argv[4]);
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	a = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (a == MAP_FAILED)
		return fail("mmap");
	if (node >= 0) {
		unsigned long mask[16] = { 0 };

		mask[node / 64] = 1UL << (node % 64);
		if (mbind(a, (size_t)(pages * psz), MPOL_BIND, mask, 1024, 0)) {
			if (!tolerate || errno != EINVAL)
				return fail("mbind");
			fprintf(stderr, "policy refused\n");
			node = -1;
		}
	}
	for (long i = 0; i < pages; i++)
		a[i * psz] = 1;
	on = count_on(a, pages, psz, node);
	if (on != pages) {
		fprintf(stderr, "pn-leak: %ld of %ld pages on node %d\n", on, pages, node);
		return 1;
	}
	fprintf(stderr, "placed %ld on %d\n", pages, node);
	if (hold_ms) {
		struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
	}
	return code;
}
