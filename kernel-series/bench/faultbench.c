// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench: first-touch anonymous page-fault cost.
 *
 *   faultbench <mib> <rounds> [cpu]
 *
 * Each round mmaps <mib> MiB of private anonymous memory (THP disabled with
 * MADV_NOHUGEPAGE so every 4 KiB page faults), writes one byte per page,
 * and munmaps. Prints "R fault round=<r> pages=<n> ns_per_fault=<x>" per
 * round. Pinned to [cpu] (default 0). Static, no external libraries.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096UL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t bytes, pages;
	cpu_set_t set;
	int rounds, cpu;

	if (argc < 3) {
		fprintf(stderr, "usage: faultbench <mib> <rounds> [cpu]\n");
		return 2;
	}
	bytes = strtoul(argv[1], NULL, 0) << 20;
	rounds = atoi(argv[2]);
	cpu = argc > 3 ? atoi(argv[3]) : 0;
	pages = bytes / PAGE;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("faultbench: sched_setaffinity (continuing unpinned)");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int r = 0; r < rounds; r++) {
		volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint64_t t0, t1;

		if (p == MAP_FAILED) {
			perror("faultbench: mmap");
			return 1;
		}
		madvise((void *)p, bytes, MADV_NOHUGEPAGE);
		t0 = now_ns();
		for (size_t off = 0; off < bytes; off += PAGE)
			p[off] = 1;
		t1 = now_ns();
		munmap((void *)p, bytes);
		printf("R fault round=%d pages=%zu ns_per_fault=%.1f\n", r, pages,
		       (double)(t1 - t0) / (double)pages);
	}
	return 0;
}
