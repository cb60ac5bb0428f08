// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test swapin: pages of a policy naming a device node, swapped out
 * and brought back, for the "swap-in keeps the private context" checks of
 * tests/e2e-swap.sh.  Needs swap, and node <node> opted in to mempolicy and
 * reclaim (MADV_PAGEOUT leaves a private node's folios alone otherwise).
 *
 *   swapin <node> <pages> <fault|fork|willneed>
 *         mbind(MPOL_BIND, {node}) an anonymous mapping, touch it, count
 *         the pages on <node>, MADV_PAGEOUT it, count the swapped pages
 *         (/proc/self/pagemap bit 62), then bring them back:
 *           fault    read every page (a swap device with synchronous I/O
 *                    takes do_swap_page()'s direct path, vma_alloc_folio());
 *           fork     fork a child that holds the swap entries, then read
 *                    every page (a shared entry goes through the swap cache:
 *                    swapin_readahead());
 *           willneed madvise(MADV_WILLNEED) (read_swap_cache_async()), then
 *                    read every page (found in the swap cache).
 *         Reads only, so no copy-on-write fault allocates afresh.
 *         R swapin way=<w> node=<n> pages=<n> before=<on node> swapped=<n>
 *           on_node=<n> node<N>=<pages>... unknown=<n>
 *       exit 0, or 3 when mbind() fails.
 *   swapin <node> <pages> neighbours
 *         a second mapping with no policy (DRAM), a third of the size; on
 *         one CPU, MADV_PAGEOUT page by page 6 bound pages, then 2 others,
 *         and so on, so that any 8 consecutive swap slots hold 2 of the
 *         others; read the bound pages back in order through the swap cache
 *         (as fork), then the others. Sequential faults grow cluster
 *         readahead's window to page-cluster's 8 slots, which then always
 *         take in 2 of the others: under the bound page's private grant
 *         they would land on <node>.
 *         ... the line above, then others=<pages> others_swapped=<n>
 *           others_on_node=<n>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pn-e2e-test.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

/* Pages of [p, p + bytes) that are swapped out now (pagemap bit 62). */
static long count_swapped(char *p, size_t bytes)
{
	size_t n = bytes / PAGE;
	uint64_t *ents = calloc(n, sizeof(*ents));
	long swapped = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (!ents || fd < 0)
		die("pagemap");
	if (pread(fd, ents, n * sizeof(*ents), (off_t)((uintptr_t)p / PAGE * sizeof(*ents))) !=
	    (ssize_t)(n * sizeof(*ents)))
		die("pread pagemap");
	for (size_t i = 0; i < n; i++)
		swapped += (ents[i] >> 62) & 1;
	close(fd);
	free(ents);
	return swapped;
}

static long read_all(const char *p, size_t bytes)
{
	long sum = 0;

	for (size_t off = 0; off < bytes; off += PAGE)
		sum += *(const volatile char *)(p + off);
	return sum;
}

/* A child that shares the swap entries until told to go. */
static pid_t hold_entries(int *pipefd)
{
	pid_t pid;
	char c;

	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	return pid;
}

#define NB_RUN 6   /* bound pages per run of swap slots */
#define NB_OTHER 2 /* then this many of the others */

static void pageout_page(char *p)
{
	if (madvise(p, PAGE, MADV_PAGEOUT))
		die("madvise(MADV_PAGEOUT)");
}

/* Page out p (bytes) and q (its runs' share) in runs, page by page, on one CPU. */
static void pageout_in_runs(char *p, char *q, size_t bytes)
{
	size_t i, n = bytes / PAGE, j = 0;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (i = 0; i < n; i++) {
		pageout_page(p + i * PAGE);
		if (i % NB_RUN != NB_RUN - 1 && i != n - 1)
			continue;
		for (int k = 0; k < NB_OTHER; k++, j++)
			pageout_page(q + j * PAGE);
	}
}

static int swapin_way(const char *w)
{
	return !strcmp(w, "fault") || !strcmp(w, "fork") || !strcmp(w, "willneed") ||
	       !strcmp(w, "neighbours");
}

int cmd_swapin(int argc, char **argv)
{
	long counts[MAX_NODES + 1], before, swapped, others_swapped = 0, others_on = -1;
	int node, pipefd[2] = { -1, -1 };
	unsigned long mask;
	pid_t child = 0;
	size_t bytes, qbytes = 0;
	char *p, *q = NULL;

	if (argc != 5 || !swapin_way(argv[4]))
		return 2;
	node = atoi(argv[2]);
	if (node < 0 || node >= MAX_NODES)
		return 2;
	bytes = strtoul(argv[3], NULL, 0) * PAGE;
	mask = 1UL << node;
	p = map_anon(bytes);
	if (sys_mbind(p, bytes, MPOL_BIND, &mask, MAX_NODES + 1)) {
		printf("R swapin way=%s node=%d ok=0 errno=%d (%s)\n", argv[4], node, errno,
		       strerror(errno));
		return 3;
	}
	touch(p, bytes);
	placement(p, bytes, counts);
	before = counts[node];
	if (!strcmp(argv[4], "neighbours")) {
		qbytes = (bytes / PAGE + NB_RUN - 1) / NB_RUN * NB_OTHER * PAGE;
		q = map_anon(qbytes);
		touch(q, qbytes);
		pageout_in_runs(p, q, bytes);
		others_swapped = count_swapped(q, qbytes);
	} else if (madvise(p, bytes, MADV_PAGEOUT)) {
		die("madvise(MADV_PAGEOUT)");
	}
	swapped = count_swapped(p, bytes);

	if (!strcmp(argv[4], "fork") || q)
		child = hold_entries(pipefd);
	else if (!strcmp(argv[4], "willneed") && madvise(p, bytes, MADV_WILLNEED))
		die("madvise(MADV_WILLNEED)");
	read_all(p, bytes);
	placement(p, bytes, counts);
	if (q) {
		long oc[MAX_NODES + 1];

		read_all(q, qbytes);
		placement(q, qbytes, oc);
		others_on = oc[node];
	}
	if (child > 0) {
		close(pipefd[1]);
		waitpid(child, NULL, 0);
	}

	printf("R swapin way=%s node=%d ok=1 pages=%zu before=%ld swapped=%ld on_node=%ld", argv[4],
	       node, bytes / PAGE, before, swapped, counts[node]);
	for (int i = 0; i < MAX_NODES; i++)
		if (counts[i] && i != node)
			printf(" node%d=%ld", i, counts[i]);
	printf(" unknown=%ld", counts[MAX_NODES]);
	if (q)
		printf(" others=%zu others_swapped=%ld others_on_node=%ld", qbytes / PAGE,
		       others_swapped, others_on);
	printf("\n");
	munmap(p, bytes);
	return 0;
}
