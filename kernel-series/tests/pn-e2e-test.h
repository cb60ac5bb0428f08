/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pn-e2e-test: what its source files share (pn-e2e-test.c holds main()
 * and the helpers below; each further file adds subcommands).
 */
#ifndef PN_E2E_TEST_H
#define PN_E2E_TEST_H

#include <stddef.h>

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

/* pn-e2e-access.c */
int cmd_migrate_pid(int argc, char **argv);

/* pn-e2e-revoke.c */
int cmd_revoke(int argc, char **argv);

/* pn-e2e-shmem.c */
int cmd_shmem(int argc, char **argv);

/* pn-e2e-swapin.c */
int cmd_swapin(int argc, char **argv);

/* pn-e2e-sysfs.c */
int cmd_write(int argc, char **argv);

#endif
