// SPDX-License-Identifier: GPL-2.0-only
/*
 * cgroup.c - memory cgroup leaves for workloads (cgroup.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "journal.h"
#include "core/lib/pn.h"
#include "procfs.h"

const char *const pn_cgroup_kind_names[PN_CGROUP_NKINDS] = {
	"anon", "file", "kernel_stack", "pagetables", "slab", "shmem", "unevictable",
};

/* Fields 5 (mount point) and, after " - ", the fstype and super options. */
struct mnt {
	char point[PATH_MAX];
	char fstype[32];
	char opts[256];
};

static int parse_mountinfo_line(char *line, struct mnt *m)
{
	char *sep = strstr(line, " - "), *f[6], *save = NULL;
	int i = 0;

	if (!sep)
		return -EINVAL;
	*sep = '\0';
	for (char *t = strtok_r(line, " ", &save); t && i < 6; t = strtok_r(NULL, " ", &save))
		f[i++] = t;
	if (i < 5)
		return -EINVAL;
	snprintf(m->point, sizeof(m->point), "%s", f[4]);
	if (sscanf(sep + 3, "%31s %*s %255s", m->fstype, m->opts) != 2)
		return -EINVAL;
	return 0;
}

static bool has_word(const char *list, const char *word, char sep)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, word, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* Mount point of the v2 hierarchy or of the v1 memory hierarchy. */
static int find_mount(int version, char *point, size_t len)
{
	static char buf[1 << 16];
	char *save = NULL;

	if (pn_read_text("/proc/self/mountinfo", buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct mnt m;

		if (parse_mountinfo_line(l, &m))
			continue;
		if ((version == 2 && !strcmp(m.fstype, "cgroup2")) ||
		    (version == 1 && !strcmp(m.fstype, "cgroup") &&
		     has_word(m.opts, "memory", ','))) {
			snprintf(point, len, "%s", m.point);
			return 0;
		}
	}
	return -ENOENT;
}

/* Our own cgroup path in hierarchy `version` ("/" at the root). */
static int own_path(int version, char *out, size_t len)
{
	char buf[4096], *save = NULL;

	if (pn_read_text("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		if ((version == 2 && c1[1] == '\0') ||
		    (version == 1 && has_word(c1 + 1, "memory", ','))) {
			snprintf(out, len, "%s", c2 + 1);
			return 0;
		}
	}
	return -ENOENT;
}

/* dst = a + b + c; -ENAMETOOLONG if it does not fit. */
static int join3(char *dst, size_t len, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc + 1 > len)
		return -ENAMETOOLONG;
	memcpy(dst, a, la + 1);
	strcat(dst, b);
	strcat(dst, c);
	return 0;
}

/* mkdir, journaled first (journal.h); an existing directory is not ours. */
static int mkdir_rel(const char *rel)
{
	char p[PATH_MAX];
	int ret = pn_path(p, sizeof(p), rel);

	if (ret)
		return ret;
	ret = pn_journal_add("cgroup", rel, NULL);
	if (ret)
		return ret;
	if (mkdir(p, 0755)) {
		ret = errno == EEXIST ? 0 : -errno;
		pn_journal_done("cgroup", rel);
	}
	return ret;
}

static int setup_v2(struct pn_cgroup_root *cr, const char *name)
{
	char mnt[PATH_MAX], rel[PATH_MAX + 64], buf[512];
	int ret;

	if (find_mount(2, mnt, sizeof(mnt)))
		return -ENOENT;
	snprintf(rel, sizeof(rel), "%s/cgroup.controllers", mnt);
	if (pn_read_text(rel, buf, sizeof(buf)) < 0 || !has_word(strtok(buf, "\n"), "memory", ' '))
		return -ENOENT;
	snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", mnt);
	if (pn_read_text(rel, buf, sizeof(buf)) < 0)
		return -ENOENT;
	if (!has_word(strtok(buf, "\n"), "memory", ' ') && pn_write_text(rel, "+memory"))
		return -EPERM;
	if (join3(cr->base, sizeof(cr->base), mnt, "/", name))
		return -ENAMETOOLONG;
	ret = mkdir_rel(cr->base);
	if (ret)
		return ret;
	snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", cr->base);
	ret = pn_write_text(rel, "+memory");
	if (ret) {
		pn_cgroup_remove(cr->base);
		return ret;
	}
	cr->version = 2;
	snprintf(cr->reason, sizeof(cr->reason), "cgroup v2 at %.200s", mnt);
	return 0;
}

static int setup_v1(struct pn_cgroup_root *cr, const char *name)
{
	char mnt[PATH_MAX], own[PATH_MAX];
	int ret;

	if (find_mount(1, mnt, sizeof(mnt)) || own_path(1, own, sizeof(own)))
		return -ENOENT;
	if (!strcmp(own, "/"))
		own[0] = '\0';
	if (strlen(own) + 2 >= sizeof(own))
		return -ENAMETOOLONG;
	strcat(own, "/");
	if (join3(cr->base, sizeof(cr->base), mnt, own, name))
		return -ENAMETOOLONG;
	ret = mkdir_rel(cr->base);
	if (ret)
		return ret;
	cr->version = 1;
	snprintf(cr->reason, sizeof(cr->reason),
		 "cgroup v1 memory hierarchy at %.100s (no v2 memory controller here): memory.high "
		 "is not available",
		 mnt);
	return 0;
}

int pn_cgroup_setup(struct pn_cgroup_root *cr, const char *name)
{
	int r2, r1;

	memset(cr, 0, sizeof(*cr));
	r2 = setup_v2(cr, name);
	if (!r2)
		return 0;
	r1 = setup_v1(cr, name);
	if (!r1)
		return 0;
	cr->version = 0;
	cr->base[0] = '\0';
	snprintf(cr->reason, sizeof(cr->reason), "no usable memory cgroup: v2 %s, v1 %s%s",
		 r2 == -ENOENT ? "has no memory controller" : strerror(-r2),
		 r1 == -ENOENT ? "has no memory hierarchy" : strerror(-r1),
		 geteuid() ? " (creating cgroups needs root)" : "");
	return 0;
}

void pn_cgroup_teardown(struct pn_cgroup_root *cr)
{
	if (cr->version && cr->base[0]) {
		int ret = pn_cgroup_remove(cr->base);

		if (ret)
			pn_warn("cgroup %s: cannot remove: %s", cr->base, strerror(-ret));
	}
	cr->base[0] = '\0';
}

int pn_cgroup_leaf(const struct pn_cgroup_root *cr, const char *name, char *path, size_t len)
{
	if (!cr->version)
		return -EOPNOTSUPP;
	if (snprintf(path, len, "%s/%s", cr->base, name) >= (int)len)
		return -ENAMETOOLONG;
	return mkdir_rel(path);
}

int pn_cgroup_enter(const char *path)
{
	char rel[PATH_MAX + 16];

	snprintf(rel, sizeof(rel), "%s/cgroup.procs", path);
	return pn_write_text(rel, "0");
}

static int write_u64(const char *path, const char *file, uint64_t v)
{
	char rel[PATH_MAX + 32], val[32];

	snprintf(rel, sizeof(rel), "%s/%s", path, file);
	snprintf(val, sizeof(val), "%" PRIu64, v);
	return pn_write_text(rel, val);
}

int pn_cgroup_set_max(const struct pn_cgroup_root *cr, const char *path, uint64_t bytes)
{
	if (cr->version == 2)
		return write_u64(path, "memory.max", bytes);
	if (cr->version == 1)
		return write_u64(path, "memory.limit_in_bytes", bytes);
	return -EOPNOTSUPP;
}

int pn_cgroup_set_high(const struct pn_cgroup_root *cr, const char *path, uint64_t bytes)
{
	return cr->version == 2 ? write_u64(path, "memory.high", bytes) : -EOPNOTSUPP;
}

static int oom_cb(void *arg, const char *key, int64_t val)
{
	if (!strcmp(key, "oom_kill"))
		*(int64_t *)arg = val;
	return 0;
}

int pn_cgroup_oom_kills(const struct pn_cgroup_root *cr, const char *path, int64_t *kills)
{
	char rel[PATH_MAX + 32], buf[1024];
	int ret;

	*kills = 0;
	if (!cr->version)
		return -EOPNOTSUPP;
	snprintf(rel, sizeof(rel), "%s/%s", path,
		 cr->version == 2 ? "memory.events" : "memory.oom_control");
	if (pn_read_text(rel, buf, sizeof(buf)) < 0)
		return -ENOENT;
	ret = pn_parse_kv(buf, oom_cb, kills);
	return ret;
}

int pn_cgroup_remove(const char *path)
{
	char p[PATH_MAX];
	int ret = pn_path(p, sizeof(p), path);

	if (ret)
		return ret;
	/* A reaped child can take a moment to leave its cgroup. */
	for (int i = 0; i < 200; i++) {
		struct timespec ts = { 0, 10000000L };

		if (!rmdir(p) || errno == ENOENT) {
			pn_journal_done("cgroup", path);
			return 0;
		}
		if (errno != EBUSY)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

int pn_cgroup_procs(const char *path, pid_t *pids, size_t max)
{
	char rel[PATH_MAX + 16], *save = NULL;
	size_t buflen = (size_t)1 << 16;
	char *buf = pn_xcalloc(1, buflen);
	ssize_t len;
	int n = 0;

	snprintf(rel, sizeof(rel), "%s/cgroup.procs", path);
	len = pn_read_text(rel, buf, buflen);
	if (len < 0) {
		free(buf);
		return (int)len;
	}
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *end;
		long v = strtol(l, &end, 10);

		if (end == l || *end || v <= 0)
			continue;
		if ((size_t)n < max)
			pids[n] = (pid_t)v;
		n++;
	}
	free(buf);
	return n;
}

int pn_cgroup_signal(const char *path, int sig)
{
	char rel[PATH_MAX + 16];
	int n = pn_cgroup_procs(path, NULL, 0), got;
	pid_t *pids;

	if (n <= 0)
		return n;
	snprintf(rel, sizeof(rel), "%s/cgroup.kill", path);
	if (sig == SIGKILL && pn_exists(rel) && !pn_write_text(rel, "1"))
		return n;
	pids = pn_xcalloc((size_t)n, sizeof(*pids));
	got = pn_cgroup_procs(path, pids, (size_t)n);
	for (int i = 0; i < got && i < n; i++)
		if (pids[i] > 1 && pids[i] != getpid())
			kill(pids[i], sig);
	free(pids);
	return n;
}

static int kind_of(const char *key, int version)
{
	if (version == 2) {
		if (!strcmp(key, "slab_reclaimable") || !strcmp(key, "slab_unreclaimable"))
			return PN_CGROUP_SLAB;
		if (!strcmp(key, "sec_pagetables"))
			return PN_CGROUP_PAGETABLES;
	}
	for (int k = 0; k < PN_CGROUP_NKINDS; k++)
		if (!strcmp(key, pn_cgroup_kind_names[k]))
			return k;
	return -1;
}

/* One "key[=total] N0=v N1=v" line; adds node's value to out. */
static int numa_stat_line(char *line, int version, int node, int64_t unit,
			  struct pn_cgroup_node *out)
{
	char *save = NULL, *key = strtok_r(line, " ", &save), *eq;
	int kind;

	if (!key)
		return 0;
	eq = strchr(key, '=');
	if (version == 1 && eq)
		*eq = '\0';
	else if (version == 1 || eq)
		return -EINVAL;
	kind = kind_of(key, version);
	for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *end;
		long n;
		long long v;

		if (t[0] != 'N')
			return -EINVAL;
		n = strtol(t + 1, &end, 10);
		if (end == t + 1 || *end != '=')
			return -EINVAL;
		errno = 0;
		v = strtoll(end + 1, &end, 10);
		if (*end || errno || v < 0)
			return -EINVAL;
		if (n != node)
			continue;
		out->node_listed = true;
		if (kind < 0)
			continue;
		out->pages[kind] += v / unit;
		out->have[kind] = true;
	}
	return 0;
}

int pn_cgroup_parse_numa_stat(const char *buf, int version, int node, long page_size,
			      struct pn_cgroup_node *out)
{
	char *copy = pn_strdup(buf), *save = NULL;
	int64_t unit = version == 2 ? (page_size > 0 ? page_size : 4096) : 1;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (version != 1 && version != 2) {
		free(copy);
		return -EINVAL;
	}
	for (char *l = strtok_r(copy, "\n", &save); l && !ret; l = strtok_r(NULL, "\n", &save)) {
		/* v1's hierarchical_* lines repeat the totals of the subtree. */
		if (!strncmp(l, "hierarchical_", 13))
			continue;
		ret = numa_stat_line(l, version, node, unit, out);
	}
	free(copy);
	return ret;
}

int pn_cgroup_numa_stat(const struct pn_cgroup_root *cr, const char *path, int node,
			struct pn_cgroup_node *out)
{
	char rel[PATH_MAX + 32];
	static __thread char buf[1 << 16];
	ssize_t n;

	if (!cr->version)
		return -EOPNOTSUPP;
	snprintf(rel, sizeof(rel), "%s/memory.numa_stat", path);
	n = pn_read_text(rel, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return pn_cgroup_parse_numa_stat(buf, cr->version, node, sysconf(_SC_PAGESIZE), out);
}
