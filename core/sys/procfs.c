// SPDX-License-Identifier: GPL-2.0-only
/*
 * procfs.c - parsers of /proc and /sys "key value" counter files (vmstat,
 * numastat, meminfo, node meminfo) and the number every parser reads.  The
 * zoneinfo parser is procfs_zoneinfo.c, per-node snapshots procfs_node.c.
 * See procfs.h for the contracts.
 *
 * Number rules shared by every parser (pn_procfs_parse_num()):
 *  - decimal digits with an optional leading '-';
 *  - values up to UINT64_MAX are accepted and stored as int64_t in two's
 *    complement: the kernel prints its unsigned long counters with %lu, and a
 *    counter that went negative (per-CPU drift, an accounting bug) shows up as
 *    e.g. 18446744073709551615, which is -1 - the honest value to report;
 *  - anything longer than UINT64_MAX is -EINVAL (ERANGE is not a value);
 *  - "kB" values are converted to bytes; a product that does not fit in
 *    int64_t is -EINVAL.
 * Line rules: lines end in '\n'; a '\r' before it (CRLF copies of captured
 * files) is ignored; the last line may lack its newline; empty lines are
 * skipped; anything else that does not match the format is -EINVAL.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "procfs_int.h"

/* ---- numbers ---- */

const char *pn_procfs_parse_num(const char *p, int64_t *val)
{
	bool neg = false;
	uint64_t v = 0;
	const char *start;

	if (*p == '-') {
		neg = true;
		p++;
	}
	start = p;
	/* 19 digits always fit in a uint64_t: check overflow only beyond. */
	while ((unsigned)(*p - '0') < 10 && p - start < 19) {
		v = v * 10 + (unsigned)(*p - '0');
		p++;
	}
	while ((unsigned)(*p - '0') < 10) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (unsigned)(*p - '0'), &v))
			return NULL;
		p++;
	}
	if (p == start)
		return NULL;
	if (neg) {
		/* -0 .. -2^63 */
		if (v > (uint64_t)INT64_MAX + 1)
			return NULL;
		*val = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		*val = (int64_t)v; /* two's complement above INT64_MAX: see top */
	}
	return p;
}

/* ---- "key value" files ---- */

int pn_parse_kv(const char *buf, pn_kv_cb cb, void *arg)
{
	const char *p = buf;
	char key[PN_PROCFS_KEY_MAX];
	int lineno = 0;

	if (!buf)
		return -EINVAL;
	while (*p) {
		const char *e = line_end(p), *k, *ke, *q;
		int64_t v;
		int ret;

		lineno++;
		k = skip_blanks(p);
		if (k == e) { /* empty line */
			p = *e ? e + 1 : e;
			continue;
		}
		ke = scan_key(k);
		if (ke == k || !is_blank(*ke) || copy_tok(key, sizeof(key), k, ke))
			return -EINVAL;
		q = pn_procfs_parse_num(skip_blanks(ke), &v);
		if (!q || q > e || !rest_is_blank(q, e))
			return -EINVAL;
		ret = cb(arg, key, v);
		if (ret)
			return ret;
		p = *e ? e + 1 : e;
	}
	return 0;
}

/* ---- meminfo ---- */

/*
 * One meminfo line after the optional "Node N " prefix: "Key:  value[ kB]".
 * Keys may hold '(' ')' ("Active(anon)").
 */
static int meminfo_line(const char *k, const char *e, char *key, size_t keylen, int64_t *val)
{
	const char *ke = scan_key(k), *q;

	if (ke == k || *ke != ':' || copy_tok(key, keylen, k, ke))
		return -EINVAL;
	q = pn_procfs_parse_num(skip_blanks(ke + 1), val);
	if (!q || q > e)
		return -EINVAL;
	q = skip_blanks(q);
	if (q + 2 <= e && q[0] == 'k' && q[1] == 'B') {
		if (kb_to_bytes(*val, val))
			return -EINVAL;
		q += 2;
	}
	return rest_is_blank(q, e) ? 0 : -EINVAL;
}

static int parse_meminfo_common(const char *buf, int node, pn_kv_cb cb, void *arg)
{
	const char *p = buf;
	char key[PN_PROCFS_KEY_MAX];

	if (!buf)
		return -EINVAL;
	while (*p) {
		const char *e = line_end(p), *k = skip_blanks(p);
		int64_t v;
		int ret;

		if (k == e) {
			p = *e ? e + 1 : e;
			continue;
		}
		if (node >= 0) {
			int64_t n;

			if ((size_t)(e - k) <= 4 || !starts(k, "Node") || !is_blank(k[4]))
				return -EINVAL;
			k = pn_procfs_parse_num(skip_blanks(k + 4), &n);
			if (!k || k > e || n != node || !is_blank(*k))
				return -EINVAL;
			k = skip_blanks(k);
		}
		if (meminfo_line(k, e, key, sizeof(key), &v))
			return -EINVAL;
		ret = cb(arg, key, v);
		if (ret)
			return ret;
		p = *e ? e + 1 : e;
	}
	return 0;
}

int pn_parse_node_meminfo(const char *buf, int node, pn_kv_cb cb, void *arg)
{
	if (node < 0 || node >= PN_MAX_NODES)
		return -EINVAL;
	return parse_meminfo_common(buf, node, cb, arg);
}

int pn_parse_meminfo(const char *buf, pn_kv_cb cb, void *arg)
{
	return parse_meminfo_common(buf, -1, cb, arg);
}
