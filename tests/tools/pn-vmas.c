// SPDX-License-Identifier: GPL-2.0-only
/*
 * pn-vmas - a process with a known memory layout, for the numa_maps, maps
 * and pagemap tests (and for capturing their text).
 *
 *   pn-vmas N [hugetlb]
 *
 * maps N one-page anonymous VMAs that cannot merge (read-write pages
 * separated by PROT_NONE pages, all inside one reservation), touches each,
 * adds a 16-page VMA bound to node 0 with mbind(MPOL_BIND), a 16-page
 * interleaved VMA, its own executable mapped read-only and read, and with
 * "hugetlb" one 2 MiB MAP_HUGETLB page (when the pool has one).  Then it
 * prints "ready <pid> <start> <end>" (the reservation, hex) and waits until
 * stdin is closed.  Exit 0, or 1 with a message.
 */
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int die(const char *what)
{
	perror(what);
	return 1;
}

static int policy_vma(int mode, size_t page)
{
	unsigned long mask = 1; /* node 0 */
	char *p = mmap(NULL, 16 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	if (mbind(p, 16 * page, mode, &mask, 8 * sizeof(mask), 0))
		return -1;
	memset(p, 1, 16 * page);
	return 0;
}

int main(int argc, char **argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n;
	volatile char sink = 0;
	char *r, buf[64];
	int fd;

	if (argc < 2 || (n = strtoul(argv[1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: pn-vmas N [hugetlb]\n");
		return 2;
	}
	r = mmap(NULL, 2 * n * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return die("mmap");
	for (size_t i = 0; i < n; i++) {
		if (mprotect(r + 2 * i * page, page, PROT_READ | PROT_WRITE))
			return die("mprotect");
		r[2 * i * page] = 1;
	}
	if (policy_vma(MPOL_BIND, page) || policy_vma(MPOL_INTERLEAVE, page))
		return die("mbind");
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd >= 0) {
		const char *x = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);

		if (x != MAP_FAILED)
			sink = x[0];
		close(fd);
	}
	if (argc > 2 && !strcmp(argv[2], "hugetlb")) {
		char *h = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

		if (h != MAP_FAILED)
			h[0] = 1;
	}
	(void)sink;
	printf("ready %d %lx %lx\n", (int)getpid(), (unsigned long)r,
	       (unsigned long)(r + 2 * n * page));
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
