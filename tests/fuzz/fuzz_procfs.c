// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_procfs.c - libFuzzer target for the /proc and /sys parsers: any bytes
 * go through pn_parse_kv(), pn_parse_meminfo(), pn_parse_node_meminfo(),
 * pn_parse_zoneinfo(), pn_parse_zoneinfo_pcp() and the line-template
 * helpers; they must return 0 or -EINVAL, never crash or read out of
 * bounds.  When the strict "key value" parser accepts the input, the
 * collectors' fast path (struct pn_cfile, reading the same bytes from a
 * memfd) must accept it too and store the very same values.  The
 * per-process parsers pn_parse_numa_maps() and pn_parse_maps() get the raw
 * bytes (NULs included): on success their sums
 * must be consistent (node bytes add up to the total, the kinds fit in it;
 * VMAs ordered and non-empty), on failure the result must be empty.  Seed
 * corpus: tests/fuzz/corpus/procfs/ (captured files).
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/sys/cfile.h"
#include "core/sys/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXV 4096

struct vals {
	size_t n;
	int64_t v[MAXV];
};

static int kv_cb(void *arg, const char *key, int64_t val)
{
	struct vals *s = arg;
	size_t len = strlen(key);

	assert(len > 0 && len < PN_PROCFS_KEY_MAX);
	if (s->n >= MAXV)
		return -ENOSPC;
	s->v[s->n++] = val;
	return 0;
}

static int zone_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	(void)arg;
	(void)val;
	assert(node >= 0 && node < PN_MAX_NODES);
	assert(strlen(zone) > 0 && strlen(zone) < PN_PROCFS_ZONE_MAX);
	assert(strlen(key) > 0 && strlen(key) < PN_PROCFS_KEY_MAX);
	return 0;
}

static int pcp_cb(void *arg, int node, const char *zone, const struct pn_pcp *pcp)
{
	(void)arg;
	assert(node >= 0 && node < PN_MAX_NODES);
	assert(strlen(zone) > 0 && strlen(zone) < PN_PROCFS_ZONE_MAX);
	assert(pcp->cpu >= 0);
	return 0;
}

static int col_seq(void *arg, const char *key)
{
	int *n = arg;

	(void)key;
	return (*n)++;
}

static void check_numa_maps(const uint8_t *data, size_t size)
{
	static struct pn_numa_maps nm;
	struct pn_maps m;
	uint64_t sum = 0;
	int n, ret = pn_parse_numa_maps((const char *)data, size, &nm);

	assert(ret == 0 || ret == -EINVAL);
	for (n = 0; n < PN_MAX_NODES; n++) {
		assert(nm.node_bytes[n] == 0 || pn_nodeset_test(&nm.nodes, n));
		sum += nm.node_bytes[n];
	}
	assert(sum == nm.total_bytes);
	assert(nm.anon_bytes + nm.file_bytes + nm.hugetlb_bytes <= nm.total_bytes);
	if (ret)
		assert(nm.vmas == 0 && nm.total_bytes == 0 && pn_nodeset_empty(&nm.nodes));

	ret = pn_parse_maps((const char *)data, size, &m);
	assert(ret == 0 || ret == -EINVAL);
	if (ret)
		assert(m.n == 0 && m.v == NULL);
	for (size_t i = 0; i < m.n; i++) {
		assert(m.v[i].start < m.v[i].end);
		assert(i == 0 || m.v[i - 1].end <= m.v[i].start);
		assert(strlen(m.v[i].name) < sizeof(m.v[i].name));
	}
	pn_maps_free(&m);
}

/* The fast path reads the same bytes through a file and must agree. */
static void check_cfile(const char *buf, size_t len, enum pn_cfile_fmt fmt, int node,
			const struct vals *want)
{
	struct pn_cfile cf;
	char rel[64];
	int64_t *row;
	int fd, ncols = 0, ret;

	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		return;
	}
	snprintf(rel, sizeof(rel), "/proc/self/fd/%d", fd);
	ret = pn_cfile_open(&cf, rel, fmt, node, col_seq, &ncols);
	assert(ret == 0);
	assert((size_t)ncols == want->n);
	row = calloc(want->n, sizeof(*row));
	assert(row);
	ret = pn_cfile_sample(&cf, row);
	assert(ret == 0);
	for (size_t i = 0; i < want->n; i++)
		assert(row[i] == want->v[i]);
	free(row);
	pn_cfile_close(&cf);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vals s;
	const char *p, *e;
	char *buf;
	int node;

	pn_log_level = PN_LOG_QUIET;
	pn_sysroot_set("");
	if (size > 1 << 20)
		return 0;
	check_numa_maps(data, size);
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* The parsers take NUL-terminated text: an embedded NUL ends it. */
	size = strlen(buf);

	s.n = 0;
	if (pn_parse_kv(buf, kv_cb, &s) == 0 && s.n > 0)
		check_cfile(buf, size, PN_CFILE_KV, -1, &s);
	s.n = 0;
	(void)pn_parse_meminfo(buf, kv_cb, &s);
	/* the node a meminfo claims: take it from the text when there is one */
	node = 0;
	if (sscanf(buf, "Node %d", &node) != 1 || node < 0 || node >= PN_MAX_NODES)
		node = 0;
	s.n = 0;
	if (pn_parse_node_meminfo(buf, node, kv_cb, &s) == 0 && s.n > 0)
		check_cfile(buf, size, PN_CFILE_NODE_MEMINFO, node, &s);
	(void)pn_parse_zoneinfo(buf, zone_cb, NULL);
	(void)pn_parse_zoneinfo_pcp(buf, zone_cb, pcp_cb, NULL);

	/* A template prefix never runs past its line. */
	for (p = buf; *p; p = *e ? e + 1 : e) {
		size_t plen;

		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		plen = pn_cfile_lines_prefix_len(p, e);
		assert(plen <= (size_t)(e - p));
	}
	free(buf);
	return 0;
}
