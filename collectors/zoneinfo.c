// SPDX-License-Identifier: GPL-2.0-only
/*
 * zoneinfo.c - per node x zone watermarks and sizes from /proc/zoneinfo.
 *
 * Columns: node<N>.<Zone>.<key> for every zone /proc/zoneinfo lists (also
 * unpopulated ones: a private node onlined into ZONE_MOVABLE later must not
 * change the columns), keys
 *   free      "pages free" (pages in the buddy lists)
 *   min, low, high   watermarks (pages)
 *   spanned, present, managed   zone size (pages)
 *   pcp_count pages sitting in the per-CPU lists, summed over CPUs (they are
 *             free but not in "free" nor in nr_free_pages)
 * e.g. node5.Normal.free, node0.DMA32.managed.
 *
 * Cost: the kernel holds each zone's zone->lock with interrupts off while it
 * formats that zone (mm/vmstat.c walk_zones_in_node), so every sample
 * contends with the page allocator on every zone, and the text grows by about
 * 100 bytes x online CPUs x populated zones.  Sample it at a modest rate
 * (the default interval is fine; avoid sub-10 ms intervals on big machines).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api/collector.h"
#include "core/sys/cfile.h"
#include "core/sys/procfs.h"

static const struct pn_opt zoneinfo_opts[] = {
	{ NULL },
};

static const char *const zi_keys[] = {
	"free", "min", "low", "high", "spanned", "present", "managed", "pcp_count",
};

/* One parser callback in file order, as seen at open(). */
struct zi_ent {
	int node;
	int col;	  /* -1: not collected */
	const char *zone; /* into names */
	const char *key;  /* into names */
};

struct zoneinfo {
	struct pn_file f;
	struct pn_cfile_lines tl; /* fast path: line templates */
	int *pcp_cols;		  /* pcp_count columns, zeroed before each sample */
	size_t npcp;
	size_t n, cap;
	struct zi_ent *ent;
	char **names; /* owned strings (zones and keys), freed at close */
	size_t nnames;
};

struct zi_sample {
	struct zoneinfo *z;
	int64_t *row;
	size_t i;
	bool mismatch;
};

static int zoneinfo_supported(const struct pn_env *env, char *why, size_t whylen)
{
	(void)env;
	if (!pn_exists("/proc/zoneinfo")) {
		snprintf(why, whylen, "no %s/proc/zoneinfo (procfs not mounted?)", pn_sysroot());
		return -ENOENT;
	}
	return 0;
}

static const char *intern(struct zoneinfo *z, const char *s)
{
	for (size_t i = 0; i < z->nnames; i++)
		if (!strcmp(z->names[i], s))
			return z->names[i];
	z->names = pn_xrealloc(z->names, (z->nnames + 1) * sizeof(*z->names));
	z->names[z->nnames] = pn_strdup(s);
	return z->names[z->nnames++];
}

static bool collected_key(const char *zone, const char *key)
{
	if (!strcmp(zone, "node")) /* the per-node stats block: nodestat has it */
		return false;
	for (size_t i = 0; i < PN_ARRAY_SIZE(zi_keys); i++)
		if (!strcmp(key, zi_keys[i]))
			return true;
	return false;
}

struct zi_open {
	struct pn_coll *c;
	struct zoneinfo *z;
	int err;
};

static int zi_open_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct zi_open *o = arg;
	struct zoneinfo *z = o->z;
	struct zi_ent *e;

	(void)val;
	if (z->n == z->cap) {
		z->cap = z->cap ? z->cap * 2 : 256;
		z->ent = pn_xrealloc(z->ent, z->cap * sizeof(*z->ent));
	}
	e = &z->ent[z->n++];
	e->node = node;
	e->zone = intern(z, zone);
	e->key = intern(z, key);
	e->col = -1;
	if (collected_key(zone, key)) {
		char name[128];

		snprintf(name, sizeof(name), "node%d.%s.%s", node, zone, key);
		e->col = pn_series_add_col(&o->c->series, name);
		if (e->col < 0) {
			o->err = pn_error(e->col, "%s: column %s: %s", z->f.path, name,
					  strerror(-e->col));
			return o->err;
		}
	}
	return 0;
}

/*
 * The fast path: one template per line of the file as read at open(), with
 * the column its number feeds.  The meaning of each line follows the same
 * rules as pn_parse_zoneinfo() (which validated the file and made the columns).
 */
static int zi_build_templates(struct pn_coll *c, struct zoneinfo *z)
{
	enum { ST_ZONE, ST_NODESTATS, ST_PAGESETS } st = ST_ZONE;
	const char *p = z->f.buf;
	char zone[PN_PROCFS_ZONE_MAX] = "";
	int node = -1;

	while (*p) {
		const char *e = strchr(p, '\n'), *k = p, *ke;
		size_t plen;

		if (!e)
			e = p + strlen(p);
		while (k < e && (*k == ' ' || *k == '\t'))
			k++;
		if (k == e) {
			p = *e ? e + 1 : e;
			continue;
		}
		plen = pn_cfile_lines_prefix_len(p, e);
		if (!plen) {
			const char *te = e;

			while (te > k && (te[-1] == ' ' || te[-1] == '\t' || te[-1] == '\r'))
				te--;
			if (sscanf(k, "Node %d, zone %31s", &node, zone) == 2)
				st = ST_ZONE;
			else if ((size_t)(te - k) == 14 && !memcmp(k, "per-node stats", 14))
				st = ST_NODESTATS;
			else if ((size_t)(te - k) == 8 && !memcmp(k, "pagesets", 8))
				st = ST_PAGESETS;
			pn_cfile_lines_add(&z->tl, p, (size_t)(te - p), PN_CFILE_LINE_TEXT, -1);
		} else {
			char key[PN_PROCFS_KEY_MAX], name[160];
			enum pn_cfile_line_kind kind = PN_CFILE_LINE_NUM;
			int col = -1;

			ke = p + plen;
			if (ke > k && ke[-1] == ':')
				ke--;
			if ((size_t)(ke - k) >= sizeof(key))
				return pn_error(-EINVAL, "%s: unexpected line layout", z->f.path);
			memcpy(key, k, (size_t)(ke - k));
			key[ke - k] = '\0';
			if (!strcmp(key, "pages free")) {
				st = ST_ZONE;
				strcpy(key, "free");
			}
			if (node >= 0 && st == ST_ZONE && collected_key(zone, key)) {
				snprintf(name, sizeof(name), "node%d.%s.%s", node, zone, key);
				col = pn_series_find_col(&c->series, name);
			} else if (node >= 0 && st == ST_PAGESETS && !strcmp(key, "count")) {
				snprintf(name, sizeof(name), "node%d.%s.pcp_count", node, zone);
				col = pn_series_find_col(&c->series, name);
				kind = PN_CFILE_LINE_ADD;
			}
			if (col < -1)
				col = -1;
			pn_cfile_lines_add(&z->tl, p, plen, kind, col);
		}
		p = *e ? e + 1 : e;
	}
	z->pcp_cols = pn_xcalloc(c->series.ncols, sizeof(*z->pcp_cols));
	for (size_t i = 0; i < c->series.ncols; i++) {
		size_t n = strlen(c->series.cols[i]);

		if (n > 10 && !strcmp(c->series.cols[i] + n - 10, ".pcp_count"))
			z->pcp_cols[z->npcp++] = (int)i;
	}
	return 0;
}

static void zoneinfo_close(struct pn_coll *c)
{
	struct zoneinfo *z = c->priv;

	if (!z)
		return;
	pn_file_close(&z->f);
	pn_cfile_lines_free(&z->tl);
	free(z->pcp_cols);
	for (size_t i = 0; i < z->nnames; i++)
		free(z->names[i]);
	free(z->names);
	free(z->ent);
	free(z);
	c->priv = NULL;
}

static int zoneinfo_open(struct pn_coll *c)
{
	struct zoneinfo *z = pn_xcalloc(1, sizeof(*z));
	struct zi_open o = { .c = c, .z = z };
	int ret;

	c->priv = z;
	ret = pn_file_open(&z->f, "/proc/zoneinfo");
	if (ret) {
		pn_error(ret, "%s/proc/zoneinfo: %s", pn_sysroot(), strerror(-ret));
		goto err;
	}
	ret = pn_file_read(&z->f);
	if (ret) {
		pn_error(ret, "%s: read: %s", z->f.path, strerror(-ret));
		goto err;
	}
	ret = pn_parse_zoneinfo(z->f.buf, zi_open_cb, &o);
	if (ret) {
		ret = o.err ? o.err : pn_error(-EINVAL, "%s: malformed", z->f.path);
		goto err;
	}
	if (c->series.ncols == 0) {
		ret = pn_error(-EINVAL, "%s: no zones", z->f.path);
		goto err;
	}
	ret = zi_build_templates(c, z);
	if (ret)
		goto err;
	return 0;
err:
	zoneinfo_close(c);
	return ret;
}

/* Fast path: the i-th callback must match the i-th one seen at open(). */
static int zi_sample_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct zi_sample *s = arg;
	const struct zi_ent *e;

	if (s->i >= s->z->n) {
		s->mismatch = true;
		return 1;
	}
	e = &s->z->ent[s->i++];
	if (e->node != node || strcmp(e->key, key) != 0 || strcmp(e->zone, zone) != 0) {
		s->mismatch = true;
		return 1;
	}
	if (e->col >= 0)
		s->row[e->col] = val;
	return 0;
}

/* Slow path (zones got populated, CPUs came online ...): look columns up. */
static int zi_slow_cb(void *arg, int node, const char *zone, const char *key, int64_t val)
{
	struct zi_sample *s = arg;
	const struct zoneinfo *z = s->z;

	if (!collected_key(zone, key))
		return 0;
	for (size_t i = 0; i < z->n; i++) {
		const struct zi_ent *e = &z->ent[i];

		if (e->col >= 0 && e->node == node && !strcmp(e->key, key) &&
		    !strcmp(e->zone, zone)) {
			s->row[e->col] = val;
			s->i++;
			break;
		}
	}
	return 0;
}

static int zoneinfo_sample(struct pn_coll *c, int64_t *row)
{
	struct zoneinfo *z = c->priv;
	struct zi_sample s = { .z = z, .row = row };
	int ret = pn_file_read(&z->f);

	if (ret)
		return pn_error(ret, "%s: read: %s", z->f.path, strerror(-ret));
	for (size_t i = 0; i < z->npcp; i++)
		row[z->pcp_cols[i]] = 0;
	if (pn_cfile_lines_match(&z->tl, z->f.buf, z->f.len, row) == 0)
		return 0;
	/* The layout changed (a zone got populated, a CPU came online...):
	 * the full parser, first in file order, then by lookup. */
	ret = pn_parse_zoneinfo(z->f.buf, zi_sample_cb, &s);
	if (!s.mismatch && s.i == z->n)
		return ret ? pn_error(-EINVAL, "%s: malformed", z->f.path) : 0;
	if (ret < 0)
		return pn_error(-EINVAL, "%s: malformed", z->f.path);
	s.i = 0;
	ret = pn_parse_zoneinfo(z->f.buf, zi_slow_cb, &s);
	if (ret)
		return pn_error(-EINVAL, "%s: malformed", z->f.path);
	if (s.i != c->series.ncols)
		return pn_error(-EPROTO, "%s: %zu of %zu zone counters found", z->f.path, s.i,
				c->series.ncols);
	return 0;
}

const struct pn_collector pn_collector_zoneinfo = {
	.name = "zoneinfo",
	.summary =
		"per node x zone free pages, watermarks, sizes and pcp pages from /proc/zoneinfo",
	.opts = zoneinfo_opts,
	.supported = zoneinfo_supported,
	.open = zoneinfo_open,
	.sample = zoneinfo_sample,
	.close = zoneinfo_close,
};
