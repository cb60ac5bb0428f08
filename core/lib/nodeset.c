// SPDX-License-Identifier: GPL-2.0-only
/*
 * nodeset.c - sets of NUMA node ids (sparse: 0,2,5 is legal): set
 * algebra, iteration, the kernel's list format ("0,2,5-7") both ways, and
 * the nodeN entries of a sysfs directory.  See pn.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pn.h"

void pn_nodeset_zero(struct pn_nodeset *s)
{
	memset(s, 0, sizeof(*s));
}

void pn_nodeset_set(struct pn_nodeset *s, int node)
{
	if (node >= 0 && node < PN_MAX_NODES)
		s->w[node / 64] |= 1ULL << (node % 64);
}

bool pn_nodeset_test(const struct pn_nodeset *s, int node)
{
	return node >= 0 && node < PN_MAX_NODES && (s->w[node / 64] >> (node % 64)) & 1;
}

int pn_nodeset_count(const struct pn_nodeset *s)
{
	int n = 0;

	for (size_t i = 0; i < PN_ARRAY_SIZE(s->w); i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

bool pn_nodeset_empty(const struct pn_nodeset *s)
{
	return pn_nodeset_count(s) == 0;
}

int pn_nodeset_next(const struct pn_nodeset *s, int prev)
{
	for (int n = prev + 1; n < PN_MAX_NODES; n++) {
		uint64_t w = s->w[n / 64] >> (n % 64);

		if (!w) {
			n = (n / 64) * 64 + 63; /* skip the rest of this word */
			continue;
		}
		return n + __builtin_ctzll(w);
	}
	return -1;
}

void pn_nodeset_and(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(d->w); i++)
		d->w[i] = a->w[i] & b->w[i];
}

void pn_nodeset_or(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(d->w); i++)
		d->w[i] = a->w[i] | b->w[i];
}

void pn_nodeset_andnot(struct pn_nodeset *d, const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(d->w); i++)
		d->w[i] = a->w[i] & ~b->w[i];
}

bool pn_nodeset_equal(const struct pn_nodeset *a, const struct pn_nodeset *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static int parse_node_id(const char **p, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v < 0 || v >= PN_MAX_NODES)
		return -EINVAL;
	*out = (int)v;
	*p = end;
	return 0;
}

int pn_nodeset_parse(struct pn_nodeset *s, const char *str)
{
	const char *p = str;

	pn_nodeset_zero(s);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n')
		return 0;
	for (;;) {
		int a, b;

		if (parse_node_id(&p, &a))
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_node_id(&p, &b) || b < a)
				return -EINVAL;
		}
		for (int n = a; n <= b; n++)
			pn_nodeset_set(s, n);
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		return *p ? -EINVAL : 0;
	}
}

int pn_nodeset_format(const struct pn_nodeset *s, char *buf, size_t len)
{
	size_t off = 0;
	int n = pn_nodeset_next(s, -1);

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	while (n >= 0) {
		int end = n, w;

		while (pn_nodeset_test(s, end + 1))
			end++;
		if (end == n)
			w = snprintf(buf + off, len - off, "%s%d", off ? "," : "", n);
		else
			w = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", n, end);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
		n = pn_nodeset_next(s, end);
	}
	return 0;
}

int pn_nodeset_read_dir(const char *rel, struct pn_nodeset *s)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	pn_nodeset_zero(s);
	if (pn_path(path, sizeof(path), rel))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long id;

		if (strncmp(de->d_name, "node", 4) != 0 || !isdigit((unsigned char)de->d_name[4]))
			continue;
		errno = 0;
		id = strtol(de->d_name + 4, &end, 10);
		if (!errno && !*end && id >= 0 && id < PN_MAX_NODES)
			pn_nodeset_set(s, (int)id);
	}
	closedir(d);
	return 0;
}
