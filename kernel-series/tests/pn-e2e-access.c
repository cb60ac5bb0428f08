// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test move, migrate, migrate-pid: the migration system calls, for
 * tests/e2e-guest.sh.
 *
 *   move <node> <pages>
 *       touch <pages> under the default policy, move_pages() them to <node>;
 *       prints the syscall result and the placement afterwards.
 *   migrate <from_hex> <to_hex> <pages>
 *       touch <pages>, migrate_pages(0, from, to); prints the result and
 *       the placement afterwards.
 *
 * migrate-pid, for the "access through cpusets" checks: a caller with
 * CAP_SYS_NICE may move an ordinary node's pages outside the target's
 * cpuset, but it must not give the target a private node its cpuset was
 * not granted.
 *
 *   migrate-pid <pid> <from_hex> <to_hex>
 *         R migrate-pid pid=<pid> from=<hex> to=<hex> rc=<pages left> errno=0
 *         R migrate-pid pid=<pid> from=<hex> to=<hex> rc=-1 errno=<e> (<msg>)
 *       exit 0 either way: the caller judges the errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pn-e2e-test.h"

int cmd_migrate_pid(int argc, char **argv)
{
	unsigned long from, to;
	long rc;
	int err;

	if (argc != 5)
		return 2;
	from = strtoul(argv[3], NULL, 16);
	to = strtoul(argv[4], NULL, 16);
	rc = syscall(SYS_migrate_pages, atoi(argv[2]), MAX_NODES + 1, &from,
		     &to);
	err = rc < 0 ? errno : 0;
	printf("R migrate-pid pid=%s from=%s to=%s rc=%ld errno=%d", argv[2],
	       argv[3], argv[4], rc, err);
	if (err)
		printf(" (%s)", strerror(err));
	printf("\n");
	return 0;
}

int cmd_move(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	size_t n, bytes, i, moved = 0;
	void **pages;
	int *nodes, *status, node;
	long rc;
	char *p;

	if (argc != 4)
		return 2;
	node = atoi(argv[2]);
	n = strtoul(argv[3], NULL, 0);
	bytes = n * PAGE;
	p = map_anon(bytes);
	touch(p, bytes);
	pages = calloc(n, sizeof(*pages));
	nodes = calloc(n, sizeof(*nodes));
	status = calloc(n, sizeof(*status));
	if (!pages || !nodes || !status)
		die("calloc");
	for (i = 0; i < n; i++) {
		pages[i] = p + i * PAGE;
		nodes[i] = node;
		status[i] = -1;
	}
	rc = syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
	int err = rc < 0 ? errno : 0;

	for (i = 0; i < n; i++)
		moved += status[i] == node;
	placement(p, bytes, counts);
	printf("R move node=%d pages=%zu rc=%ld errno=%d status_on_node=%zu on_node=%ld\n",
	       node, n, rc, err, moved, counts[node]);
	print_placement("move", counts);
	return 0;
}

int cmd_migrate(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	unsigned long from, to;
	size_t bytes;
	long rc;
	char *p;

	if (argc != 5)
		return 2;
	from = strtoul(argv[2], NULL, 16);
	to = strtoul(argv[3], NULL, 16);
	bytes = strtoul(argv[4], NULL, 0) * PAGE;
	p = map_anon(bytes);
	touch(p, bytes);
	rc = syscall(SYS_migrate_pages, 0, MAX_NODES + 1, &from, &to);
	int err = rc < 0 ? errno : 0;

	placement(p, bytes, counts);
	printf("R migrate from=%s to=%s pages=%zu rc=%ld errno=%d\n", argv[2],
	       argv[3], bytes / PAGE, rc, err);
	print_placement("migrate", counts);
	return 0;
}

/* Sum of "N<node>=<v>" over the lines of @path that start with @prefix:
 * -1 if no line matches, -2 if @path cannot be read. */
