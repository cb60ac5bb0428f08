// SPDX-License-Identifier: GPL-2.0-only
/*
 * faultin.c - fault a mapping in through MADV_POPULATE_WRITE or by writes.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "faultin.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14, uapi asm-generic/mman-common.h */
#endif

const char *const pn_fault_names[] = { "populate", "write", NULL };

enum pn_fault_mode pn_fault_mode_of(const char *name)
{
	return strcmp(name, pn_fault_names[PN_FAULT_WRITE]) ? PN_FAULT_POPULATE : PN_FAULT_WRITE;
}

static void write_pages(void *addr, size_t len, size_t page_bytes)
{
	volatile char *c = addr;

	for (size_t o = 0; o < len; o += page_bytes)
		c[o] = 1;
}

int pn_fault_in(void *addr, size_t len, size_t page_bytes, enum pn_fault_mode *mode)
{
	if (!len)
		return 0;
	if (*mode == PN_FAULT_POPULATE) {
		if (!madvise(addr, len, MADV_POPULATE_WRITE))
			return 0;
		if (errno != EINVAL)
			return -errno;
		/* an older kernel: the advice is unknown (the range is ours) */
		*mode = PN_FAULT_WRITE;
	}
	write_pages(addr, len, page_bytes);
	return 0;
}

const char *pn_fault_desc(enum pn_fault_mode mode)
{
	return mode == PN_FAULT_POPULATE ? "MADV_POPULATE_WRITE" : "one write per page";
}
