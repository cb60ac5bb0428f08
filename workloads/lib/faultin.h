/* SPDX-License-Identifier: GPL-2.0-only
 *
 * faultin.h - fault a mapping in: the kernel's populate path
 * (MADV_POPULATE_WRITE, Linux 5.14+), or one write per page (the page-fault
 * path every program takes).  Both allocate through the mapping's VMA
 * policy, so placement is the same; they differ in what is timed: populate
 * is the kernel's floor for the bytes (no exception per page), writes add a
 * trap per page, which costs far more under virtualization.
 */
#ifndef PN_FAULTIN_H
#define PN_FAULTIN_H

#include <stddef.h>

enum pn_fault_mode {
	PN_FAULT_POPULATE, /* madvise(MADV_POPULATE_WRITE) */
	PN_FAULT_WRITE,	   /* one write per page */
};

/* "populate", "write", NULL: the option's values, in enum order. */
extern const char *const pn_fault_names[];
/* The mode an option value names ("write"; anything else, populate). */
enum pn_fault_mode pn_fault_mode_of(const char *name);

/*
 * Fault [addr, addr + len) in.  With PN_FAULT_POPULATE on a kernel without
 * MADV_POPULATE_WRITE (EINVAL on a valid range), falls back to writes and
 * sets *mode to PN_FAULT_WRITE, so the caller can say which it timed.
 * Returns 0 or -errno (ENOMEM: out of memory; EFAULT: SIGBUS-like failure,
 * e.g. a strict policy whose nodes are full; EINTR: a fatal signal).
 */
int pn_fault_in(void *addr, size_t len, size_t page_bytes, enum pn_fault_mode *mode);

/* "MADV_POPULATE_WRITE" or "one write per page", for notes. */
const char *pn_fault_desc(enum pn_fault_mode mode);

#endif /* PN_FAULTIN_H */
