// SPDX-License-Identifier: GPL-2.0-only
/*
 * procfs_zoneinfo.c - the /proc/zoneinfo parser: per node and zone the
 * counters, watermarks, protection and the per-CPU pagesets.  Number and
 * line rules as procfs.c.  See procfs.h for the contracts.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "procfs_int.h"

enum zi_state { ZI_NONE, ZI_NODESTATS, ZI_ZONE, ZI_PAGESETS };

struct zi {
	pn_zone_cb cb;
	pn_pcp_cb pcb;
	void *arg;
	int node;
	char zone[PN_PROCFS_ZONE_MAX];
	enum zi_state state;
	int64_t pcp_count;
	struct pn_pcp cpu; /* the pageset being read, if have_cpu */
	bool have_cpu;
};

/* A CPU's pageset lines ended (the next "cpu:", the zone's tail lines). */
static int zi_end_cpu(struct zi *z)
{
	if (!z->have_cpu)
		return 0;
	z->have_cpu = false;
	return z->pcb ? z->pcb(z->arg, z->node, z->zone, &z->cpu) : 0;
}

/* Called when a zone's block ends: report the summed pageset counts. */
static int zi_end_zone(struct zi *z)
{
	int ret = zi_end_cpu(z);

	if (ret || z->state == ZI_NONE)
		return ret;
	z->state = ZI_NONE;
	return z->cb(z->arg, z->node, z->zone, "pcp_count", z->pcp_count);
}

/* A "key: value" line of a pageset. */
static int zi_pageset(struct zi *z, const char *key, int64_t v)
{
	int ret;

	if (!strcmp(key, "cpu")) {
		ret = zi_end_cpu(z);
		if (ret)
			return ret;
		if (v < 0 || v > INT_MAX)
			return -EINVAL;
		z->cpu = (struct pn_pcp){ .cpu = (int)v, .count = -1, .high = -1, .batch = -1 };
		z->have_cpu = true;
	} else if (!strcmp(key, "count")) {
		if (__builtin_add_overflow(z->pcp_count, v, &z->pcp_count))
			return -EINVAL;
		z->cpu.count = v;
	} else if (!strcmp(key, "high")) {
		z->cpu.high = v;
	} else if (!strcmp(key, "batch")) {
		z->cpu.batch = v;
	}
	return 0;
}

/* "Node 0, zone   Normal" */
static int zi_header(struct zi *z, const char *k, const char *e)
{
	const char *q, *ze;
	int64_t n;

	q = pn_procfs_parse_num(skip_blanks(k + 4), &n);
	if (!q || q > e || n < 0 || n >= PN_MAX_NODES || *q != ',')
		return -EINVAL;
	q = skip_blanks(q + 1);
	if ((size_t)(e - q) <= 4 || !starts(q, "zone") || !is_blank(q[4]))
		return -EINVAL;
	q = skip_blanks(q + 4);
	ze = q;
	while (isalnum((unsigned char)*ze) || *ze == '_')
		ze++;
	if (copy_tok(z->zone, sizeof(z->zone), q, ze) || !rest_is_blank(ze, e))
		return -EINVAL;
	z->node = (int)n;
	z->state = ZI_ZONE;
	z->pcp_count = 0;
	return 0;
}

/* "protection: (0, 2899, 15848)": validated, not reported. */
static int zi_protection(const char *q, const char *e)
{
	q = skip_blanks(q);
	if (*q != '(')
		return -EINVAL;
	q++;
	for (;;) {
		int64_t v;

		q = pn_procfs_parse_num(skip_blanks(q), &v);
		if (!q || q > e)
			return -EINVAL;
		q = skip_blanks(q);
		if (*q == ',') {
			q++;
			continue;
		}
		if (*q != ')')
			return -EINVAL;
		return rest_is_blank(q + 1, e) ? 0 : -EINVAL;
	}
}

static int zi_line(struct zi *z, const char *k, const char *e)
{
	char key[PN_PROCFS_KEY_MAX];
	const char *ke, *q;
	bool colon = false;
	size_t len = (size_t)(e - k);
	int64_t v;

	/* Dispatch on the first character: most lines are "nr_... N" items. */
	switch (*k) {
	case 'N':
		if (len > 4 && starts(k, "Node") && is_blank(k[4])) {
			int ret = zi_end_zone(z);

			return ret ? ret : zi_header(z, k, e);
		}
		break;
	case 'p':
		if (z->state == ZI_NONE)
			return -EINVAL;
		if (len >= 14 && starts(k, "per-node stats") && rest_is_blank(k + 14, e)) {
			z->state = ZI_NODESTATS;
			return 0;
		}
		if (len >= 8 && starts(k, "pagesets") && rest_is_blank(k + 8, e)) {
			z->state = ZI_PAGESETS;
			return 0;
		}
		if (len > 10 && starts(k, "pages free") && is_blank(k[10])) {
			z->state = ZI_ZONE;
			q = pn_procfs_parse_num(skip_blanks(k + 10), &v);
			if (!q || q > e || !rest_is_blank(q, e))
				return -EINVAL;
			return z->cb(z->arg, z->node, z->zone, "free", v);
		}
		if (len >= 11 && starts(k, "protection:"))
			return zi_protection(k + 11, e);
		break;
	case 'v':
		if (len >= 19 && starts(k, "vm stats threshold:")) {
			q = pn_procfs_parse_num(skip_blanks(k + 19), &v);
			return q && q <= e && rest_is_blank(q, e) ? 0 : -EINVAL;
		}
		break;
	default: break;
	}
	if (z->state == ZI_NONE)
		return -EINVAL; /* a line outside any "Node N, zone Z" block */

	/* Generic "key value" or "key: value". */
	ke = scan_key(k);
	if (copy_tok(key, sizeof(key), k, ke))
		return -EINVAL;
	q = ke;
	if (*q == ':') {
		colon = true;
		q++;
	}
	if (!is_blank(*q))
		return -EINVAL;
	q = pn_procfs_parse_num(skip_blanks(q), &v);
	if (!q || q > e || !rest_is_blank(q, e))
		return -EINVAL;

	if (z->state == ZI_PAGESETS) {
		/* "cpu: N", "count: N", "high: N", "batch: N" (and newer
		 * "high_min:"/"high_max:", ignored), then the zone's tail. */
		if (!strcmp(key, "node_unreclaimable") || !strcmp(key, "start_pfn")) {
			int ret = zi_end_cpu(z);

			return ret ? ret : z->cb(z->arg, z->node, z->zone, key, v);
		}
		return colon ? zi_pageset(z, key, v) : -EINVAL;
	}
	if (z->state == ZI_NODESTATS)
		return z->cb(z->arg, z->node, "node", key, v);
	return z->cb(z->arg, z->node, z->zone, key, v);
}

int pn_parse_zoneinfo(const char *buf, pn_zone_cb cb, void *arg)
{
	return pn_parse_zoneinfo_pcp(buf, cb, NULL, arg);
}

int pn_parse_zoneinfo_pcp(const char *buf, pn_zone_cb cb, pn_pcp_cb pcb, void *arg)
{
	struct zi z = { .cb = cb, .pcb = pcb, .arg = arg, .node = -1, .state = ZI_NONE };
	const char *p = buf;
	bool any = false;

	if (!buf)
		return -EINVAL;
	while (*p) {
		const char *e = line_end(p), *k = skip_blanks(p);
		int ret;

		if (k != e) {
			ret = zi_line(&z, k, e);
			if (ret)
				return ret;
			any = true;
		}
		p = *e ? e + 1 : e;
	}
	(void)any;
	return zi_end_zone(&z);
}
