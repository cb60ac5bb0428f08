// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench: cost of first-touch anonymous page faults, counted in guest
 * instructions when the guest runs under QEMU -icount shift=0.
 *
 *   faultbench <mib> <rounds> [node]
 *
 * Each round mmaps <mib> MiB of private anonymous memory (THP off with
 * MADV_NOHUGEPAGE, so every 4 KiB page faults once), binds it to [node]
 * with mbind(MPOL_BIND) when a node is given (default: the task's policy,
 * i.e. local DRAM), writes one byte per page, asks move_pages() where each
 * page landed, and munmaps.  Only the write loop is measured, by two clocks
 * read before and after it:
 *   tsc  RDTSC delta.  Under -icount QEMU's guest TSC is its virtual clock,
 *        which advances 2^shift ns per guest instruction executed: at
 *        shift=0, the number of guest instructions the vCPU executed in the
 *        loop (user loop, fault entry/exit, the fault handler, page
 *        allocation and zeroing, any interrupt taken meanwhile).  Idle time
 *        would be added too (sleep=off warps the clock), but the loop never
 *        idles.  Without -icount it is plain TSC cycles.
 *   ns   CLOCK_MONOTONIC delta (the kernel's calibrated view of the same).
 * Prints per round:
 *   R fault round=<r> node=<n|-1> pages=<p> on_node=<q> tsc=<t> ns=<x>
 * where on_node counts the pages move_pages() found on <n> (on node 0 when
 * no node is given).  Exit 1 when a system call fails.  Pinned to CPU 0.
 * Static, no external libraries.
 *
 * FAULTBENCH_ADDR=<addr> (environment; hex with 0x, page aligned) maps every
 * round at that address (MAP_FIXED_NOREPLACE; exit 1 if it is taken), so a
 * debugger can pick one known fault: page k of a round faults at exactly
 * <addr> + k * 4096 (bench/fault-trace.sh).  Unset: the kernel chooses, as
 * before; the output is the same either way.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define PAGE	       4096UL
#define MPOL_BIND_MODE 2 /* MPOL_BIND in <linux/mempolicy.h> */
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static void *fixed_addr; /* FAULTBENCH_ADDR, or NULL */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Pages of [p, p + pages * PAGE) that move_pages() reports on node want. */
static long count_on_node(char *p, size_t pages, int want)
{
	void **addr = calloc(pages, sizeof(*addr));
	int *status = calloc(pages, sizeof(*status));
	long n = 0;

	if (!addr || !status) {
		free(addr);
		free(status);
		return -1;
	}
	for (size_t i = 0; i < pages; i++)
		addr[i] = p + i * PAGE;
	if (syscall(SYS_move_pages, 0, pages, addr, NULL, status, 0) != 0) {
		perror("faultbench: move_pages");
		n = -1;
	} else {
		for (size_t i = 0; i < pages; i++)
			n += status[i] == want;
	}
	free(addr);
	free(status);
	return n;
}

static int one_round(int r, size_t bytes, int node)
{
	size_t pages = bytes / PAGE;
	unsigned long mask[4] = { 0 };
	uint64_t t0, t1, c0, c1;
	volatile char *p;
	long on;

	p = mmap(fixed_addr, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (fixed_addr ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (p == MAP_FAILED) {
		perror("faultbench: mmap");
		return 1;
	}
	if (fixed_addr && p != fixed_addr) { /* a kernel before 4.17 ignores the flag */
		fprintf(stderr, "faultbench: FAULTBENCH_ADDR %p: mapped at %p instead\n",
			fixed_addr, (void *)p);
		munmap((void *)p, bytes);
		return 1;
	}
	madvise((void *)p, bytes, MADV_NOHUGEPAGE);
	if (node >= 0) {
		mask[node / 64] = 1UL << (node % 64);
		if (syscall(SYS_mbind, p, bytes, MPOL_BIND_MODE, mask, 256UL, 0UL)) {
			perror("faultbench: mbind");
			return 1;
		}
	}
	t0 = now_ns();
	c0 = __rdtsc();
	for (size_t off = 0; off < bytes; off += PAGE)
		p[off] = 1;
	c1 = __rdtsc();
	t1 = now_ns();
	on = count_on_node((char *)p, pages, node >= 0 ? node : 0);
	munmap((void *)p, bytes);
	if (on < 0)
		return 1;
	printf("R fault round=%d node=%d pages=%zu on_node=%ld tsc=%llu ns=%llu\n", r, node, pages,
	       on, (unsigned long long)(c1 - c0), (unsigned long long)(t1 - t0));
	return 0;
}

int main(int argc, char **argv)
{
	size_t mib;
	cpu_set_t set;
	const char *env = getenv("FAULTBENCH_ADDR");
	int rounds, node;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: faultbench <mib> <rounds> [node]\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 10);
	rounds = atoi(argv[2]);
	node = argc > 3 ? atoi(argv[3]) : -1;
	if (mib == 0 || mib > 4096 || rounds <= 0 || node < -1 || node >= 256) {
		fprintf(stderr,
			"faultbench: bad arguments (mib 1..4096, rounds > 0, node 0..255)\n");
		return 2;
	}
	if (env && *env) {
		char *end;
		unsigned long long a = strtoull(env, &end, 0);

		if (*end || a == 0 || a % PAGE) {
			fprintf(stderr, "faultbench: FAULTBENCH_ADDR wants a page-aligned address "
					"(got '%s')\n", env);
			return 2;
		}
		fixed_addr = (void *)(uintptr_t)a;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("faultbench: sched_setaffinity (continuing unpinned)");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int r = 0; r < rounds; r++)
		if (one_round(r, mib << 20, node))
			return 1;
	return 0;
}
