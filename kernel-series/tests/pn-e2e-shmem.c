// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test shmem: a shared (shmem) policy naming device nodes, for the
 * "shared policies" checks of tests/e2e-guest.sh.  Shmem folios never get
 * the private context, so a shared policy naming only private nodes is
 * refused, and private bits beside an ordinary node are ignored.
 *
 *   shmem <nodemask_hex> <pages>
 *         mbind(MPOL_BIND, mask) of a MAP_SHARED|MAP_ANONYMOUS (shmem)
 *         mapping, then touch every page and count where they are:
 *         R shmem mask=<hex> ok=1 pages=<n> node<N>=<pages>... unknown=<n>
 *         R shmem mask=<hex> ok=0 errno=<e> (<msg>)
 *       exit 0 either way: the caller judges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pn-e2e-test.h"

int cmd_shmem(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	unsigned long mask;
	size_t bytes;
	char *p;

	if (argc != 4)
		return 2;
	mask = strtoul(argv[2], NULL, 16);
	bytes = strtoul(argv[3], NULL, 0) * PAGE;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap shared");
	if (sys_mbind(p, bytes, MPOL_BIND, &mask, MAX_NODES + 1)) {
		printf("R shmem mask=%s ok=0 errno=%d (%s)\n", argv[2], errno,
		       strerror(errno));
		return 0;
	}
	touch(p, bytes);
	placement(p, bytes, counts);
	printf("R shmem mask=%s ok=1 pages=%zu", argv[2], bytes / PAGE);
	for (int i = 0; i < MAX_NODES; i++)
		if (counts[i])
			printf(" node%d=%ld", i, counts[i]);
	printf(" unknown=%ld\n", counts[MAX_NODES]);
	munmap(p, bytes);
	return 0;
}
