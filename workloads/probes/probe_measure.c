// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_measure.c - the exact measures of the leak probes (probe.h): the
 * zone census of a node (/proc/zoneinfo), vmalloc areas per node
 * (/proc/vmallocinfo) and slab objects per node (/sys/kernel/slab).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

/* A whole file of unknown size (seq_files: /proc/zoneinfo, vmallocinfo). */
static char *read_big(const char *rel, size_t *lenp)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = pn_xmalloc(cap);
	int fd = pn_open(rel, O_RDONLY);

	if (fd < 0) {
		free(buf);
		errno = -fd;
		return NULL;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 4096)
			buf = pn_xrealloc(buf, cap *= 2);
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

int64_t pn_probe_node_kernel_pages(int node)
{
	char *buf = read_big("/proc/zoneinfo", NULL), *line, *save = NULL;
	int64_t total = 0;
	bool mine = false;

	if (!buf)
		return -errno;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int nid;
		char zone[32];
		long long managed;

		if (sscanf(line, "Node %d, zone %31s", &nid, zone) == 2) {
			mine = nid == node && strcmp(zone, "Movable") != 0 &&
			       strcmp(zone, "Device") != 0;
			continue;
		}
		if (mine && sscanf(line, " managed %lld", &managed) == 1)
			total += managed;
	}
	free(buf);
	return total;
}

/* ---- vmalloc areas ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Calls fn(start, line) for every area line of /proc/vmallocinfo. */
static int vmalloc_each(void (*fn)(uint64_t start, const char *line, void *arg), void *arg)
{
	char *buf = read_big("/proc/vmallocinfo", NULL), *line, *save = NULL;

	if (!buf)
		return -errno;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start;

		if (sscanf(line, "0x%llx-", &start) == 1)
			fn(start, line, arg);
	}
	free(buf);
	return 0;
}

static void snap_one(uint64_t start, const char *line, void *arg)
{
	struct pn_vmalloc_snap *s = arg;

	(void)line;
	if (s->n % 1024 == 0)
		s->starts = pn_xrealloc(s->starts, (s->n + 1024) * sizeof(*s->starts));
	s->starts[s->n++] = start;
}

int pn_vmalloc_snap(struct pn_vmalloc_snap *s)
{
	int err;

	s->starts = NULL;
	s->n = 0;
	err = vmalloc_each(snap_one, s);
	if (err)
		return err;
	qsort(s->starts, s->n, sizeof(*s->starts), cmp_u64);
	return 0;
}

struct new_pages_arg {
	const struct pn_vmalloc_snap *s;
	int64_t *pages;
};

static void new_one(uint64_t start, const char *line, void *arg)
{
	struct new_pages_arg *a = arg;
	const char *p = line;

	if (bsearch(&start, a->s->starts, a->s->n, sizeof(uint64_t), cmp_u64))
		return;
	while ((p = strstr(p, " N"))) {
		unsigned int nid, cnt;

		if (sscanf(p, " N%u=%u", &nid, &cnt) == 2 && nid < PN_PROBE_MAX_NODES &&
		    a->pages[nid] >= 0)
			a->pages[nid] += cnt;
		p += 2;
	}
}

int pn_vmalloc_new_pages(const struct pn_vmalloc_snap *s, int64_t *pages)
{
	struct new_pages_arg a = { s, pages };

	return vmalloc_each(new_one, &a);
}

void pn_vmalloc_snap_free(struct pn_vmalloc_snap *s)
{
	free(s->starts);
	s->starts = NULL;
	s->n = 0;
}

/* ---- slab objects per node ---- */

struct pn_slab_cache {
	char name[64];
	int64_t objsize;
	int64_t objects[PN_PROBE_MAX_NODES];
};

/* "123 N0=100 N1=23" -> objects[node]; returns 0 or -EINVAL. */
static int parse_node_counts(const char *s, int64_t *objects)
{
	const char *p = s;

	while ((p = strchr(p, 'N'))) {
		unsigned int nid;
		long long v;

		if (sscanf(p, "N%u=%lld", &nid, &v) == 2 && nid < PN_PROBE_MAX_NODES)
			objects[nid] = v;
		p++;
	}
	return 0;
}

static int slab_read(const char *name, struct pn_slab_cache *c)
{
	char rel[160], buf[1024];
	uint64_t size;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(rel, sizeof(rel), "/sys/kernel/slab/%s/object_size", name);
	if (pn_read_u64(rel, &size, false))
		return -ENOENT;
	c->objsize = (int64_t)size;
	snprintf(rel, sizeof(rel), "/sys/kernel/slab/%s/objects", name);
	if (pn_read_text(rel, buf, sizeof(buf)) < 0)
		return -ENOENT;
	return parse_node_counts(buf, c->objects);
}

/* Calls fn for every slab cache directory (aliases are symlinks: skipped). */
static int slab_each(int (*fn)(const char *name, void *arg), void *arg)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;

	if (pn_path(dir, sizeof(dir), "/sys/kernel/slab") || !(d = opendir(dir)))
		return -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_LNK || strlen(de->d_name) >= 64)
			continue;
		fn(de->d_name, arg);
	}
	closedir(d);
	return 0;
}

static int snap_cache(const char *name, void *arg)
{
	struct pn_slab_snap *s = arg;

	if (s->n % 64 == 0)
		s->c = pn_xrealloc(s->c, (s->n + 64) * sizeof(*s->c));
	if (!slab_read(name, &s->c[s->n]))
		s->n++;
	return 0;
}

int pn_slab_snap(struct pn_slab_snap *s)
{
	s->c = NULL;
	s->n = 0;
	return slab_each(snap_cache, s);
}

struct slab_delta_arg {
	const struct pn_slab_snap *s;
	int64_t *bytes;
};

static int delta_cache(const char *name, void *arg)
{
	struct slab_delta_arg *a = arg;
	struct pn_slab_cache now;
	const struct pn_slab_cache *then = NULL;
	size_t i;
	int n;

	if (slab_read(name, &now))
		return 0;
	for (i = 0; i < a->s->n && !then; i++)
		if (!strcmp(a->s->c[i].name, name))
			then = &a->s->c[i];
	for (n = 0; n < PN_PROBE_MAX_NODES; n++) {
		int64_t d = now.objects[n] - (then ? then->objects[n] : 0);

		if (d > 0 && a->bytes[n] >= 0)
			a->bytes[n] += d * now.objsize;
	}
	return 0;
}

int pn_slab_new_bytes(const struct pn_slab_snap *s, int64_t *bytes)
{
	struct slab_delta_arg a = { s, bytes };

	return slab_each(delta_cache, &a);
}

void pn_slab_snap_free(struct pn_slab_snap *s)
{
	free(s->c);
	s->c = NULL;
	s->n = 0;
}
