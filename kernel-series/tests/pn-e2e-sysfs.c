// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test write: one write(2) to a sysfs attribute, with its errno
 * (tests/e2e-hotadd.sh: a dax device bound to kmem through
 * /sys/bus/dax/drivers/kmem/bind returns kmem's probe error there; busybox
 * echo only prints the message).
 *
 *   write <path> <string>
 *       open(<path>, O_WRONLY), one write() of <string> (no newline added):
 *         R write ok=1 errno=0
 *         R write ok=0 errno=<e> (<msg>)        exit 1
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pn-e2e-test.h"

int cmd_write(int argc, char **argv)
{
	size_t len;
	ssize_t n;
	int fd, err = 0;

	if (argc != 4)
		return 2;
	len = strlen(argv[3]);
	fd = open(argv[2], O_WRONLY);
	if (fd < 0) {
		err = errno;
	} else {
		n = write(fd, argv[3], len);
		if (n < 0)
			err = errno;
		else if ((size_t)n != len)
			err = EIO; /* a sysfs store takes all or fails */
		if (close(fd) && !err)
			err = errno;
	}
	if (err) {
		printf("R write ok=0 errno=%d (%s)\n", err, strerror(err));
		return 1;
	}
	printf("R write ok=1 errno=0\n");
	return 0;
}
