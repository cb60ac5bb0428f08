// SPDX-License-Identifier: GPL-2.0-only
/*
 * alloc.c - allocation that never fails silently: out of memory prints
 * and aborts, so no caller runs on degraded state.  See pn.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pn.h"

void *pn_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *pn_xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *pn_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *pn_strdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		fputs("pnbench: out of memory\n", stderr);
		abort();
	}
	return d;
}
