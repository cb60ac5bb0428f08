// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test migrate-pid: migrate_pages(2) of another process, for the
 * "access through cpusets" checks of tests/e2e-guest.sh: a caller with
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
