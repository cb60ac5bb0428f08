// SPDX-License-Identifier: GPL-2.0-only
/*
 * procfs.c - parsers of /proc and /sys counter files, per-node memory
 * snapshots.  See procfs.h for the contracts.
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
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/* ---- lexing ---- */

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* [A-Za-z0-9_()]: the characters of every counter name the kernel prints
 * ("Active(anon)"); a table because the parsers sit in the sampling path. */
static const bool key_char[256] = {
	['0' ... '9'] = true, ['A' ... 'Z'] = true, ['a' ... 'z'] = true,
	['_'] = true,	      ['('] = true,	    [')'] = true,
};

static inline bool is_key_char(char c)
{
	return key_char[(unsigned char)c];
}

/* Does p start with the literal lit?  (Inlined: no strncmp call per line.) */
#define starts(p, lit) (!memcmp((p), (lit), sizeof(lit) - 1))

static const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

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

/* End of the line starting at p (points at '\n' or the final NUL). */
static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

/* Copy [s, e) into out (NUL-terminated); -EINVAL if empty or too long. */
static int copy_tok(char *out, size_t outlen, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	if (n == 0 || n >= outlen)
		return -EINVAL;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/* A key token [s, e): key characters only. */
static const char *scan_key(const char *p)
{
	while (is_key_char(*p))
		p++;
	return p;
}

static bool rest_is_blank(const char *p, const char *e)
{
	for (; p < e; p++)
		if (!is_blank(*p))
			return false;
	return true;
}

static int kb_to_bytes(int64_t kb, int64_t *bytes)
{
	if (__builtin_mul_overflow(kb, (int64_t)1024, bytes))
		return -EINVAL;
	return 0;
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

/* ---- zoneinfo ---- */

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

/* ---- per-node snapshot ---- */

struct nodemem_ctx {
	struct pn_nodemem *m;
	int64_t huge_total; /* HugePages_Total (count, default size) */
	unsigned seen;	    /* bits: MemTotal, MemFree, MemUsed */
};

static int nodemem_meminfo_cb(void *arg, const char *key, int64_t val)
{
	struct nodemem_ctx *c = arg;
	struct pn_nodemem *m = c->m;
	static const struct {
		const char *key;
		size_t off;
	} map[] = {
		{ "MemTotal", offsetof(struct pn_nodemem, total) },
		{ "MemFree", offsetof(struct pn_nodemem, free) },
		{ "MemUsed", offsetof(struct pn_nodemem, used) },
		{ "AnonPages", offsetof(struct pn_nodemem, anon) },
		{ "FilePages", offsetof(struct pn_nodemem, file) },
		{ "Shmem", offsetof(struct pn_nodemem, shmem) },
		{ "Slab", offsetof(struct pn_nodemem, slab) },
		{ "SReclaimable", offsetof(struct pn_nodemem, slab_reclaimable) },
		{ "SUnreclaim", offsetof(struct pn_nodemem, slab_unreclaimable) },
		{ "KernelStack", offsetof(struct pn_nodemem, kernel_stack) },
		{ "PageTables", offsetof(struct pn_nodemem, page_tables) },
		{ "SecPageTables", offsetof(struct pn_nodemem, sec_page_tables) },
	};

	if (!strcmp(key, "HugePages_Total")) {
		c->huge_total = val;
		return 0;
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(map); i++) {
		if (strcmp(key, map[i].key) != 0)
			continue;
		*(int64_t *)((char *)m + map[i].off) = val;
		if (i < 3)
			c->seen |= 1u << i;
		break;
	}
	return 0;
}

static int nodemem_numastat_cb(void *arg, const char *key, int64_t val)
{
	struct pn_nodemem *m = arg;

	if (!strcmp(key, "numa_hit"))
		m->numa_hit = val;
	else if (!strcmp(key, "numa_miss"))
		m->numa_miss = val;
	else if (!strcmp(key, "numa_foreign"))
		m->numa_foreign = val;
	else if (!strcmp(key, "interleave_hit"))
		m->interleave_hit = val;
	else if (!strcmp(key, "local_node"))
		m->local_node = val;
	else if (!strcmp(key, "other_node"))
		m->other_node = val;
	return 0;
}

static int nodemem_vmstat_cb(void *arg, const char *key, int64_t val)
{
	struct pn_nodemem *m = arg;
	int64_t page = sysconf(_SC_PAGESIZE);

	/* nr_kernel_stack is in kB here: meminfo's KernelStack is used instead. */
	if (!strcmp(key, "nr_zspages")) {
		if (__builtin_mul_overflow(val, page, &m->zspages))
			return -EINVAL;
	} else if (!strcmp(key, "nr_iommu_pages")) {
		if (__builtin_mul_overflow(val, page, &m->iommu))
			return -EINVAL;
	} else if (!strcmp(key, "numa_private_fallback")) {
		m->numa_private_fallback = val;
	}
	return 0;
}

/* Read a whole node file into a heap buffer (sysfs files are one page). */
static int read_node_file(int node, const char *name, char **out)
{
	char rel[128];
	size_t cap = 16384;
	char *buf;
	ssize_t n;

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/%s", node, name);
	buf = pn_xmalloc(cap);
	n = pn_read_whole(rel, buf, cap);
	if (n < 0) {
		free(buf);
		return pn_error((int)n, "%s%s: %s", pn_sysroot(), rel, strerror((int)-n));
	}
	*out = buf;
	return 0;
}

/* HugePages_Total x /proc/meminfo Hugepagesize, bytes. */
static int meminfo_hugepagesize(int64_t huge_total, int64_t *bytes)
{
	char buf[16384];
	ssize_t n = pn_read_whole("/proc/meminfo", buf, sizeof(buf));
	const char *p;
	int64_t kb;

	if (n < 0)
		return (int)n;
	p = strstr(buf, "Hugepagesize:");
	if (!p || !pn_procfs_parse_num(skip_blanks(p + 13), &kb) || kb <= 0)
		return -ENOENT;
	if (kb > INT64_MAX / 1024 || __builtin_mul_overflow(kb * 1024, huge_total, bytes))
		return -EINVAL;
	return 0;
}

/*
 * Bytes held by hugetlb pools on the node, all page sizes: the sum of
 * nodeN/hugepages/hugepages-<size>kB/nr_hugepages.  Without that directory
 * (kernel without HUGETLBFS, or a tree that lacks it) fall back to meminfo's
 * HugePages_Total, which counts the default size only, times /proc/meminfo's
 * Hugepagesize.  Returns -ENOENT when neither is available.
 */
int pn_node_hugetlb_bytes(int node, int64_t huge_total, int64_t *bytes)
{
	char rel[128], path[4096];
	struct dirent *de;
	int64_t sum = 0;
	DIR *d;

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/hugepages", node);
	if (pn_path(path, sizeof(path), rel) == 0 && (d = opendir(path))) {
		while ((de = readdir(d))) {
			unsigned long long kb;
			char f[512];
			uint64_t nr;
			int64_t b;

			if (sscanf(de->d_name, "hugepages-%llukB", &kb) != 1)
				continue;
			if (snprintf(f, sizeof(f), "%s/%s/nr_hugepages", rel, de->d_name) >=
			    (int)sizeof(f))
				continue;
			if (pn_read_u64(f, &nr, false))
				continue;
			if (kb > INT64_MAX / 1024 || nr > INT64_MAX ||
			    __builtin_mul_overflow((int64_t)kb * 1024, (int64_t)nr, &b) ||
			    __builtin_add_overflow(sum, b, &sum)) {
				closedir(d);
				return pn_error(-EINVAL, "%s: hugetlb size overflows", path);
			}
		}
		closedir(d);
		*bytes = sum;
		return 0;
	}
	if (huge_total == 0) {
		*bytes = 0;
		return 0;
	}
	return meminfo_hugepagesize(huge_total, bytes);
}

int pn_nodemem_read(int node, struct pn_nodemem *m)
{
	struct nodemem_ctx c = { .m = m };
	char *buf = NULL;
	int64_t sum = 0;
	int ret;

	if (node < 0 || node >= PN_MAX_NODES)
		return pn_error(-EINVAL, "node %d: out of range", node);
	memset(m, 0, sizeof(*m));
	m->node = node;
	m->numa_private_fallback = -1;

	ret = read_node_file(node, "meminfo", &buf);
	if (ret)
		return ret;
	ret = pn_parse_node_meminfo(buf, node, nodemem_meminfo_cb, &c);
	free(buf);
	buf = NULL;
	if (ret)
		return pn_error(ret, "node%d/meminfo: malformed", node);
	if (c.seen != 7)
		return pn_error(-EINVAL, "node%d/meminfo: MemTotal, MemFree or MemUsed missing",
				node);

	ret = read_node_file(node, "numastat", &buf);
	if (ret)
		return ret;
	ret = pn_parse_kv(buf, nodemem_numastat_cb, m);
	free(buf);
	buf = NULL;
	if (ret)
		return pn_error(ret, "node%d/numastat: malformed", node);

	ret = read_node_file(node, "vmstat", &buf);
	if (ret)
		return ret;
	ret = pn_parse_kv(buf, nodemem_vmstat_cb, m);
	free(buf);
	if (ret)
		return pn_error(ret, "node%d/vmstat: malformed", node);

	ret = pn_node_hugetlb_bytes(node, c.huge_total, &m->hugetlb);
	if (ret)
		return pn_error(ret, "node%d: hugetlb pool size unknown", node);

	/*
	 * other: node memory in use that no per-node counter attributes to a
	 * kind.  FilePages includes Shmem and the swap cache, so shmem is not
	 * subtracted again.  What ends up here: vmalloc (other than stacks),
	 * percpu, socket buffers, raw driver alloc_pages, BPF, memmap /
	 * page_ext of the node's own memory (memmap_on_memory), per-CPU free
	 * lists (pcp pages are not in MemFree), and counter drift of up to
	 * stat_threshold x CPUs pages per item.  It can be negative for the same
	 * drift reasons.  Take a baseline when the node comes online and look
	 * at deltas.
	 */
	if (__builtin_add_overflow(sum, m->anon, &sum) ||
	    __builtin_add_overflow(sum, m->file, &sum) ||
	    __builtin_add_overflow(sum, m->slab, &sum) ||
	    __builtin_add_overflow(sum, m->kernel_stack, &sum) ||
	    __builtin_add_overflow(sum, m->page_tables, &sum) ||
	    __builtin_add_overflow(sum, m->sec_page_tables, &sum) ||
	    __builtin_add_overflow(sum, m->hugetlb, &sum) ||
	    __builtin_add_overflow(sum, m->zspages, &sum) ||
	    __builtin_add_overflow(sum, m->iommu, &sum) ||
	    __builtin_sub_overflow(m->used, sum, &m->other))
		return pn_error(-EINVAL, "node%d: counters overflow", node);
	return 0;
}

int pn_stat_refresh(void)
{
	/* Writing any value runs refresh_vm_stats on every CPU (root only). */
	return pn_write_text("/proc/sys/vm/stat_refresh", "1\n");
}

#define NODE_DIR "/sys/devices/system/node"

static int read_nodeset(const char *rel, struct pn_nodeset *s)
{
	char buf[4096];
	ssize_t n = pn_read_whole(rel, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (pn_nodeset_parse(s, buf))
		return pn_error(-EINVAL, "%s%s: not a node list: %.40s", pn_sysroot(), rel, buf);
	return 0;
}

int pn_nodes_with_memory(struct pn_nodeset *out)
{
	struct pn_nodeset online, mem, priv;
	int ret;

	pn_nodeset_zero(out);
	ret = read_nodeset(NODE_DIR "/online", &online);
	if (ret == -ENOENT)
		return pn_error(ret, "no %s" NODE_DIR "/online: kernel without NUMA?",
				pn_sysroot());
	if (ret)
		return ret == -EINVAL ? ret
				      : pn_error(ret, "%s" NODE_DIR "/online: %s", pn_sysroot(),
						 strerror(-ret));
	ret = read_nodeset(NODE_DIR "/has_memory", &mem);
	if (ret == -ENOENT)
		mem = online;
	else if (ret)
		return ret;
	ret = read_nodeset(NODE_DIR "/has_private_memory", &priv);
	if (ret == 0)
		pn_nodeset_or(&mem, &mem, &priv);
	else if (ret != -ENOENT)
		return ret;
	pn_nodeset_and(out, &online, &mem);
	if (pn_nodeset_empty(out))
		return pn_error(-ENOENT, "%s" NODE_DIR ": no online node with memory",
				pn_sysroot());
	return 0;
}

struct avail_ctx {
	int64_t bytes, private_free;
	bool found;
};

static int avail_cb(void *arg, const char *key, int64_t val)
{
	struct avail_ctx *a = arg;

	if (!strcmp(key, "MemAvailable")) {
		a->bytes = val;
		a->found = true;
	} else if (!strcmp(key, "PrivateFree")) {
		a->private_free = val;
	}
	return 0;
}

int pn_mem_available(uint64_t *bytes)
{
	struct avail_ctx a = { 0 };
	char buf[16384];
	ssize_t n = pn_read_whole("/proc/meminfo", buf, sizeof(buf));
	int ret;

	if (n < 0)
		return pn_error((int)n, "%s/proc/meminfo: %s", pn_sysroot(), strerror((int)-n));
	ret = pn_parse_meminfo(buf, avail_cb, &a);
	if (ret < 0)
		return pn_error(ret, "/proc/meminfo: malformed");
	if (!a.found || a.bytes < 0)
		return pn_error(-EINVAL, "/proc/meminfo: no MemAvailable");
	/* kernels that report PrivateFree leave it out of MemAvailable */
	*bytes = (uint64_t)a.bytes + (uint64_t)(a.private_free > 0 ? a.private_free : 0);
	return 0;
}
