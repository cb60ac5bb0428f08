/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pn-e2e-test: what its source files share (pn-e2e-test.c holds main()
 * and the helpers below; each further file adds subcommands).
 */
#ifndef PN_E2E_TEST_H
#define PN_E2E_TEST_H

#include <stddef.h>
#include <stdint.h>

#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_PREFERRED_MANY 5
#define MPOL_MF_MOVE (1 << 1)
#define MAX_NODES 64
#define PAGE 4096UL

long sys_mbind(void *addr, unsigned long len, int mode,
	       const unsigned long *mask, unsigned long maxnode);
void die(const char *what) __attribute__((noreturn));
void *map_anon(size_t bytes);
void touch(char *p, size_t bytes);
/* Count where the pages of [p, p+bytes) live; counts[MAX_NODES] = errors. */
void placement(char *p, size_t bytes, long *counts);
void print_placement(const char *cmd, const long *counts);
/* PFN of the page at addr (fd: /proc/self/pagemap); 0 if not present/hidden */
uint64_t page_pfn(int fd, const void *addr);
/* map_anon() + mbind(mode, {node}); NULL (after "R <cmd> ok=0") if refused */
char *map_bound(const char *cmd, int node, int mode, size_t bytes);
int write_file(const char *path, const char *val); /* 0 or errno */
int cg_reclaim(const char *dir, size_t bytes);	   /* memory.reclaim: 0 or errno */
void join_cgroup(const char *dir);
long node_kb(int n, const char *key); /* nodeN/meminfo, kB */

/* pn-e2e-access.c */
int cmd_move(int argc, char **argv);
int cmd_migrate(int argc, char **argv);
int cmd_migrate_pid(int argc, char **argv);

/* pn-e2e-driver.c */
int cmd_chardev(int argc, char **argv);
int cmd_drvmove(int argc, char **argv);

/* pn-e2e-services.c */
int cmd_demote(int argc, char **argv);
int cmd_reclaim(int argc, char **argv);
int cmd_damon(int argc, char **argv);
int cmd_mlock(int argc, char **argv);
int cmd_hugetlb(int argc, char **argv);

/* pn-e2e-revoke.c */
int cmd_revoke(int argc, char **argv);

/* pn-e2e-shmem.c */
int cmd_shmem(int argc, char **argv);

/* pn-e2e-swapin.c */
int cmd_swapin(int argc, char **argv);

/* pn-e2e-sysfs.c */
int cmd_write(int argc, char **argv);

#endif
