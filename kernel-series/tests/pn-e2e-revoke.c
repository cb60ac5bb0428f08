// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test revoke: does turning a private node's mempolicy opt-in off
 * reach a policy that was set while it was on?  (tests/e2e-guest.sh)
 *
 *   revoke <mbind|setpol> <nodemask_hex> <pages>
 *       MPOL_BIND over the mask, either mbind() of an anonymous mapping of
 *       2 x <pages> or set_mempolicy() (the task policy, set before the
 *       mapping is made).  The mapping is MADV_NOHUGEPAGE, so every page
 *       touched is one fault, one new page.  Touch the first <pages> and
 *       print where they are:
 *         R revoke-1 api=<api> mask=<hex> ok=1 pages=<n> node<N>=<pages>... unknown=<n>
 *       then wait for a line on stdin: the caller changes the opt-in
 *       meanwhile, the process keeps its mapping and its policy.  Then touch
 *       the second <pages> (a SIGBUS is caught and counted, the page left
 *       untouched) and print where they landed, and where the first half is
 *       now (first_*):
 *         R revoke-2 api=<api> mask=<hex> pages=<n> sigbus=<n> node<N>=<pages>... unknown=<n>
 *           first_node<N>=<pages>... first_unknown=<n>
 *       unknown = pages move_pages() finds on no node (not faulted in).
 *       A refused policy: "R revoke-1 ... ok=0 errno=<e> (<msg>)", exit 3,
 *       stdin not read.  EOF on stdin instead of the line: exit 1 and the
 *       second half is never touched.  The wait gives up after 120 s
 *       (SIGALRM), so a caller that never answers cannot hang the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pn-e2e-test.h"

static sigjmp_buf revoke_jmp;

static void revoke_sigbus(int sig)
{
	(void)sig;
	siglongjmp(revoke_jmp, 1);
}

/* " <prefix>node<N>=<pages>..." for every node holding pages, then unknown */
static void print_nodes(const char *prefix, const long *counts)
{
	for (int i = 0; i < MAX_NODES; i++)
		if (counts[i])
			printf(" %snode%d=%ld", prefix, i, counts[i]);
	printf(" %sunknown=%ld", prefix, counts[MAX_NODES]);
}

/* Touch every page of [p, p+bytes); returns how many faults got SIGBUS. */
static size_t touch_counting_sigbus(char *p, size_t bytes)
{
	struct sigaction sa = { 0 }, old;
	volatile size_t sigbus = 0;
	volatile size_t off;

	sa.sa_handler = revoke_sigbus;
	sigaction(SIGBUS, &sa, &old);
	for (off = 0; off < bytes; off += PAGE) {
		if (sigsetjmp(revoke_jmp, 1)) {
			sigbus++;
			continue;
		}
		p[off] = 1;
	}
	sigaction(SIGBUS, &old, NULL);
	return sigbus;
}

int cmd_revoke(int argc, char **argv)
{
	long first[MAX_NODES + 1], second[MAX_NODES + 1];
	unsigned long mask;
	size_t half, sigbus;
	char line[64];
	int setpol;
	char *p;

	if (argc != 5)
		return 2;
	if (!strcmp(argv[2], "setpol"))
		setpol = 1;
	else if (!strcmp(argv[2], "mbind"))
		setpol = 0;
	else
		return 2;
	mask = strtoul(argv[3], NULL, 16);
	half = strtoul(argv[4], NULL, 0) * PAGE;
	if (setpol && syscall(SYS_set_mempolicy, MPOL_BIND, &mask, MAX_NODES + 1))
		goto refused;
	p = map_anon(2 * half);
	if (madvise(p, 2 * half, MADV_NOHUGEPAGE) && errno != EINVAL)
		die("madvise(MADV_NOHUGEPAGE)");
	if (!setpol && sys_mbind(p, 2 * half, MPOL_BIND, &mask, MAX_NODES + 1))
		goto refused;

	touch(p, half);
	placement(p, half, first);
	printf("R revoke-1 api=%s mask=%s ok=1 pages=%zu", argv[2], argv[3],
	       half / PAGE);
	print_nodes("", first);
	printf("\n");
	fflush(stdout);

	alarm(120);
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "pn-e2e-test: revoke: no go-ahead on stdin\n");
		return 1;
	}
	alarm(0);

	sigbus = touch_counting_sigbus(p + half, half);
	placement(p + half, half, second);
	placement(p, half, first);
	printf("R revoke-2 api=%s mask=%s pages=%zu sigbus=%zu", argv[2],
	       argv[3], half / PAGE, sigbus);
	print_nodes("", second);
	print_nodes("first_", first);
	printf("\n");
	return 0;

refused:
	printf("R revoke-1 api=%s mask=%s ok=0 errno=%d (%s)\n", argv[2], argv[3],
	       errno, strerror(errno));
	return 3;
}
