// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_util.c - plumbing of the leak probes (probe.h): notes, node
 * counters, the move_pages census, knob swapping, probe cgroups, and what a
 * probe holds until pn_probe_release().
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define PAGE_BYTES 4096

const char *pn_probe_kind_name(enum pn_probe_kind k)
{
	switch (k) {
	case PN_PROBE_NODE_PATH: return "node_path";
	}
	return "unknown";
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
