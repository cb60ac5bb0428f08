// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_util.c - measurement and plumbing helpers of the leak probes
 * (probe.h): zone census of a node, vmalloc areas per node, slab objects per
 * node, move_pages census, knob swapping, probe cgroups.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define PAGE_BYTES 4096

const char *pn_probe_kind_name(enum pn_probe_kind k)
{
	return k == PN_PROBE_SERVICE ? "service" : "node_path";
}

void pn_probe_note(struct pn_probe_out *out, const char *fmt, ...)
{
	size_t len = strlen(out->note);
	va_list ap;

	if (len >= sizeof(out->note) - 2)
		return;
	if (len)
		out->note[len++] = ';', out->note[len++] = ' ';
	va_start(ap, fmt);
	vsnprintf(out->note + len, sizeof(out->note) - len, fmt, ap);
	va_end(ap);
}

void pn_probe_refused(struct pn_probe_out *out, int err)
{
	out->refused++;
	if (!out->first_errno)
		out->first_errno = err < 0 ? -err : err;
}

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

int pn_probe_node_blocks(int node, int *blocks, int max)
{
	char rel[128], dir[4096];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d", node);
	if (pn_path(dir, sizeof(dir), rel))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int m;
		char tail;

		if (sscanf(de->d_name, "memory%d%c", &m, &tail) == 1 && n < max)
			blocks[n++] = m;
	}
	closedir(d);
	return n;
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

/* ---- node counters ---- */

static int node_file_value(int node, const char *file, const char *key, int64_t *val)
{
	char rel[128], buf[8192], *p;
	size_t klen = strlen(key);
	ssize_t n;

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/%s", node, file);
	n = pn_read_text(rel, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;
		long long v;

		if (!strncmp(q, "Node ", 5)) { /* meminfo: "Node 1 MemFree:  123 kB" */
			q = strchr(q + 5, ' ');
			if (!q)
				continue;
			q++;
		}
		if (strncmp(q, key, klen) != 0 || (q[klen] != ' ' && q[klen] != ':'))
			continue;
		q += klen + (q[klen] == ':');
		if (sscanf(q, " %lld", &v) != 1)
			return -EINVAL;
		*val = v;
		return 0;
	}
	return -ENOENT;
}

int pn_node_slab_bytes(int node, int64_t *bytes)
{
	int64_t r = 0, u = 0;
	int err = node_file_value(node, "vmstat", "nr_slab_reclaimable", &r);

	if (!err)
		err = node_file_value(node, "vmstat", "nr_slab_unreclaimable", &u);
	if (!err)
		*bytes = (r + u) * PAGE_BYTES;
	return err;
}

int pn_node_free_pages(int node, int64_t *pages)
{
	int64_t kb = 0;
	int err = node_file_value(node, "meminfo", "MemFree", &kb);

	if (!err)
		*pages = kb / 4;
	return err;
}

int pn_node_total_pages(int node, int64_t *pages)
{
	int64_t kb = 0;
	int err = node_file_value(node, "meminfo", "MemTotal", &kb);

	if (!err)
		*pages = kb / 4;
	return err;
}

/* ---- move_pages census ---- */

int pn_probe_census(void *addr, size_t len, int64_t *pages, uint64_t *unmapped)
{
	size_t n = len / PAGE_BYTES, i;
	void **ptrs = pn_xcalloc(n ? n : 1, sizeof(*ptrs));
	int *status = pn_xcalloc(n ? n : 1, sizeof(*status));
	long rc;

	for (i = 0; i < n; i++)
		ptrs[i] = (char *)addr + i * PAGE_BYTES;
	rc = syscall(SYS_move_pages, 0, (unsigned long)n, ptrs, NULL, status, 0);
	if (rc < 0) {
		rc = -errno;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (status[i] >= 0 && status[i] < PN_PROBE_MAX_NODES) {
			if (pages[status[i]] >= 0)
				pages[status[i]]++;
		} else if (unmapped) {
			(*unmapped)++;
		}
	}
	rc = 0;
out:
	free(ptrs);
	free(status);
	return (int)rc;
}

/* ---- knobs and cgroups ---- */

int pn_probe_swap_text(const char *rel, const char *val, char *old, size_t oldlen)
{
	if (old) {
		ssize_t n = pn_read_text(rel, old, oldlen);

		if (n < 0)
			return (int)n;
		old[strcspn(old, "\n")] = '\0';
	}
	return pn_write_text(rel, val);
}

static bool word_in(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\n' || !p[wl]))
			return true;
		p += wl;
	}
	return false;
}

int pn_probe_cgroup_make(const char *tag, const char *ctrl, char *path, size_t len)
{
	char buf[512], full[4096], rel[256];
	int err;

	if (pn_read_text("/sys/fs/cgroup/cgroup.controllers", buf, sizeof(buf)) < 0)
		return -ENOENT;
	if (!word_in(buf, ctrl))
		return -EOPNOTSUPP;
	if (pn_read_text("/sys/fs/cgroup/cgroup.subtree_control", buf, sizeof(buf)) < 0)
		return -ENOENT;
	if (!word_in(buf, ctrl)) {
		snprintf(rel, sizeof(rel), "+%s", ctrl);
		err = pn_write_text("/sys/fs/cgroup/cgroup.subtree_control", rel);
		if (err)
			return err;
	}
	if ((size_t)snprintf(path, len, "/sys/fs/cgroup/pnprobe-%s-%d", tag, (int)getpid()) >= len)
		return -ENAMETOOLONG;
	err = pn_path(full, sizeof(full), path);
	if (err)
		return err;
	if (mkdir(full, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int pn_probe_cgroup_rmdir(const char *path)
{
	char full[4096];
	int err = pn_path(full, sizeof(full), path);

	if (err)
		return err;
	return rmdir(full) ? -errno : 0;
}

/* ---- holding and releasing ---- */

static struct pn_probe_undo *undo_push(struct pn_probe_out *out, enum pn_undo_type type)
{
	struct pn_probe_undo *u;

	if (out->nundo % 64 == 0)
		out->undo = pn_xrealloc(out->undo, (out->nundo + 64) * sizeof(*out->undo));
	u = &out->undo[out->nundo++];
	memset(u, 0, sizeof(*u));
	u->type = type;
	u->fd = -1;
	return u;
}

void pn_probe_hold_fd(struct pn_probe_out *out, int fd)
{
	undo_push(out, PN_UNDO_CLOSE)->fd = fd;
}

void pn_probe_hold_map(struct pn_probe_out *out, void *addr, size_t len)
{
	struct pn_probe_undo *u = undo_push(out, PN_UNDO_MUNMAP);

	u->addr = addr;
	u->len = len;
}

void pn_probe_hold_rmdir(struct pn_probe_out *out, const char *path)
{
	undo_push(out, PN_UNDO_RMDIR)->path = pn_strdup(path);
}

void pn_probe_hold_write(struct pn_probe_out *out, const char *path, const char *val)
{
	struct pn_probe_undo *u = undo_push(out, PN_UNDO_WRITE);

	u->path = pn_strdup(path);
	u->val = pn_strdup(val);
}

static void undo_one(struct pn_probe_undo *u)
{
	int st, i, err;

	switch (u->type) {
	case PN_UNDO_CLOSE: close(u->fd); break;
	case PN_UNDO_MUNMAP: munmap(u->addr, u->len); break;
	case PN_UNDO_RMDIR:
		/* a cgroup whose last task just exited may still be busy for a moment */
		for (i = 0; i < 50 && pn_probe_cgroup_rmdir(u->path) == -EBUSY; i++)
			usleep(20 * 1000);
		break;
	case PN_UNDO_WRITE:
		if ((err = pn_write_text(u->path, u->val)))
			pn_warn("probe: cannot restore %s to %s: %s", u->path, u->val,
				strerror(-err));
		break;
	case PN_UNDO_KILL:
		kill(u->fd, SIGKILL);
		waitpid(u->fd, &st, 0);
		break;
	}
	free(u->path);
	free(u->val);
}

void pn_probe_release(struct pn_probe_out *out)
{
	while (out->nundo)
		undo_one(&out->undo[--out->nundo]);
	free(out->undo);
	out->undo = NULL;
}

int pn_probe_child(struct pn_probe_out *out, const char *cg, int (*fn)(void *arg, int64_t *pages),
		   void *arg, int64_t *pages)
{
	size_t sz = PN_PROBE_MAX_NODES * sizeof(int64_t);
	int64_t *shared = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fds[2], err = 0;
	char rc = 1;
	pid_t pid;

	if (shared == MAP_FAILED)
		return -errno;
	memcpy(shared, pages, sz);
	if (pipe(fds)) {
		munmap(shared, sz);
		return -errno;
	}
	pid = fork();
	if (pid == 0) {
		char rel[300];

		close(fds[0]);
		snprintf(rel, sizeof(rel), "%s/cgroup.procs", cg ? cg : "");
		rc = (char)(cg && pn_write_text(rel, "0") ? 2 : -fn(arg, shared));
		if (write(fds[1], &rc, 1) != 1)
			_exit(1);
		for (;;)
			pause(); /* hold the memory until release kills us */
	}
	close(fds[1]);
	if (pid < 0)
		err = -errno;
	else if (read(fds[0], &rc, 1) != 1 || rc)
		err = rc > 2 ? -rc : -ECHILD;
	close(fds[0]);
	if (pid > 0)
		undo_push(out, PN_UNDO_KILL)->fd = pid;
	if (!err)
		memcpy(pages, shared, sz);
	munmap(shared, sz);
	return err;
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
