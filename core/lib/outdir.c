// SPDX-License-Identifier: GPL-2.0-only
/* outdir.c - the results directory and the locks a run holds.  See outdir.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "atomicfile.h"
#include "outdir.h"
#include "pn.h"

/* the lock fds this process holds, for pn_locks_drop_inherited() */
static int held[2] = { -1, -1 };

static int hold(int fd)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(held); i++) {
		if (held[i] < 0) {
			held[i] = fd;
			break;
		}
	}
	return fd;
}

void pn_lock_release(int fd)
{
	if (fd < 0)
		return;
	for (size_t i = 0; i < PN_ARRAY_SIZE(held); i++)
		if (held[i] == fd)
			held[i] = -1;
	close(fd);
}

void pn_locks_drop_inherited(void)
{
	/* A forked child shares the lock (flock belongs to the open file):
	 * one that outlived the runner would keep the next run waiting. */
	for (size_t i = 0; i < PN_ARRAY_SIZE(held); i++) {
		if (held[i] >= 0)
			close(held[i]);
		held[i] = -1;
	}
}

/* room under DIR for the longest name a run makes ("<collector>.csv.tmpXXXXXX") */
#define OUTDIR_MAX (PATH_MAX - 64)

static const struct {
	unsigned long magic;
	const char *name;
} pseudo_fs[] = {
	{ CGROUP_SUPER_MAGIC, "cgroupfs (v1)" },
	{ CGROUP2_SUPER_MAGIC, "cgroupfs (v2)" },
	{ TRACEFS_MAGIC, "tracefs" },
	{ DEBUGFS_MAGIC, "debugfs" },
	{ PROC_SUPER_MAGIC, "procfs" },
	{ SYSFS_MAGIC, "sysfs" },
	{ SECURITYFS_MAGIC, "securityfs" },
	{ BPF_FS_MAGIC, "bpffs" },
	{ PSTOREFS_MAGIC, "pstore" },
	{ EFIVARFS_MAGIC, "efivarfs" },
	{ 0x62656570, "configfs" },
};

static const char *pseudo_name(const struct statfs *sf)
{
	for (size_t i = 0; i < PN_ARRAY_SIZE(pseudo_fs); i++)
		if ((unsigned long)sf->f_type == pseudo_fs[i].magic)
			return pseudo_fs[i].name;
	return NULL;
}

int pn_outdir_check_arg(const char *dir)
{
	char p[PATH_MAX];
	struct statfs sf;
	size_t n = strlen(dir);

	if (n == 0)
		return pn_error(-EINVAL, "-o: an empty directory name");
	if (n >= OUTDIR_MAX)
		return pn_error(-ENAMETOOLONG,
				"-o: the directory name is %zu bytes; at most %d fit (PATH_MAX "
				"less room for the files in it)",
				n, OUTDIR_MAX - 1);
	/* the nearest part of the path that exists decides the filesystem */
	memcpy(p, dir, n + 1);
	while (statfs(p, &sf)) {
		char *slash;

		if (errno != ENOENT)
			return 0; /* the mkdir will say what is wrong */
		while (n > 1 && p[n - 1] == '/')
			p[--n] = '\0';
		slash = strrchr(p, '/');
		if (!slash) {
			snprintf(p, sizeof(p), ".");
		} else {
			slash[slash == p ? 1 : 0] = '\0';
		}
		n = strlen(p);
	}
	if (pseudo_name(&sf))
		return pn_error(-EINVAL,
				"-o %s: %s is on %s, where making a directory makes a kernel "
				"object (a cgroup, a tracing instance); pick a directory on a "
				"real filesystem",
				dir, p, pseudo_name(&sf));
	return 0;
}

/* mkdir -p of the parents, then the directory itself: 0, -EEXIST or -errno. */
static int make_dir(const char *path, bool exclusive)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	return exclusive ? -EEXIST : 0;
}

static int symlink_refused(const char *dir)
{
	char target[PATH_MAX];
	ssize_t n = readlink(dir, target, sizeof(target) - 1);

	target[n > 0 ? n : 0] = '\0';
	return pn_error(-ELOOP,
			"-o %s: is a symlink (to %s); results are never written through one: "
			"name the directory itself",
			dir, target);
}

/* The locked directory: flock, writable, no run.json unless force. */
static int claim(int fd, const char *dir, bool force)
{
	struct statfs sf;
	struct stat st;
	int ret;

	if (fstatfs(fd, &sf) == 0 && pseudo_name(&sf))
		return pn_error(-EINVAL, "-o %s: is on %s; pick a directory on a real filesystem",
				dir, pseudo_name(&sf));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			return pn_error(-EBUSY,
					"-o %s: another pnbench run is writing into it (it holds "
					"the directory's lock); pick another -o DIR",
					dir);
		return pn_error(-errno, "-o %s: flock: %s", dir, strerror(errno));
	}
	if (faccessat(fd, ".", W_OK, AT_EACCESS))
		return pn_error(-errno, "-o %s: %s", dir, strerror(errno));
	ret = pn_outfile_check(fd, dir, "run.json");
	if (ret)
		return ret;
	if (!force && fstatat(fd, "run.json", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return pn_error(-EEXIST, "%s/run.json exists: pick another -o DIR or pass --force",
				dir);
	return 0;
}

int pn_outdir_open(const char *dir, bool exclusive, bool force)
{
	struct stat st;
	int fd, ret = pn_outdir_check_arg(dir);

	if (ret)
		return ret;
	if (lstat(dir, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return symlink_refused(dir);
		if (!S_ISDIR(st.st_mode))
			return pn_error(-ENOTDIR, "-o %s: exists and is not a directory", dir);
	}
	ret = make_dir(dir, exclusive);
	if (ret)
		return ret == -EEXIST ? ret
				      : pn_error(ret, "cannot create %s: %s", dir, strerror(-ret));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			return symlink_refused(dir); /* swapped since the lstat */
		return pn_error(-errno, "cannot open %s: %s", dir, strerror(errno));
	}
	ret = claim(fd, dir, force);
	if (ret) {
		close(fd);
		return ret;
	}
	return hold(fd);
}

/* ------------------------------------------------------------ host lock */

bool pn_host_lock_needed(void)
{
	return geteuid() == 0 && !*pn_sysroot();
}

/* /run/pnbench: root's own directory, or nobody could trust the lock in it. */
static int lock_dir(void)
{
	struct stat st;

	if (mkdir(PN_HOST_LOCK_DIR, 0755) && errno != EEXIST)
		return pn_error(-errno, "%s: %s", PN_HOST_LOCK_DIR, strerror(errno));
	if (lstat(PN_HOST_LOCK_DIR, &st))
		return pn_error(-errno, "%s: %s", PN_HOST_LOCK_DIR, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
		return pn_error(-EPERM,
				"%s: not a directory owned by root and writable only by it; "
				"remove it",
				PN_HOST_LOCK_DIR);
	return 0;
}

static void holder(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	char proc[64];

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* the pid the last holder wrote; another tool (flock(1)) writes none */
	snprintf(proc, sizeof(proc), "/proc/%s", buf);
	if (!buf[0] || strchr(buf, '/') || access(proc, F_OK))
		snprintf(buf, len, "unknown");
}

int pn_host_lock(bool no_wait)
{
	char pid[32];
	int fd, ret = lock_dir();

	if (ret)
		return ret;
	fd = open(PN_HOST_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return pn_error(-errno, "%s: %s", PN_HOST_LOCK, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			ret = pn_error(-errno, "%s: flock: %s", PN_HOST_LOCK, strerror(errno));
			goto fail;
		}
		holder(fd, pid, sizeof(pid));
		if (no_wait) {
			ret = pn_error(-EBUSY,
				       "another pnbench run (pid %s) holds %s (it sets knobs or "
				       "makes cgroups or mounts); --no-wait: not waiting",
				       pid, PN_HOST_LOCK);
			goto fail;
		}
		pn_warn("waiting for %s: another pnbench run (pid %s) sets knobs or makes cgroups "
			"or mounts (--no-wait refuses instead)",
			PN_HOST_LOCK, pid);
		while (flock(fd, LOCK_EX)) {
			if (errno != EINTR || pn_should_stop()) {
				ret = errno == EINTR ? -EINTR : -errno;
				if (ret != -EINTR)
					pn_error(ret, "%s: flock: %s", PN_HOST_LOCK,
						 strerror(-ret));
				goto fail;
			}
		}
		pn_info("%s: got it", PN_HOST_LOCK);
	}
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, strlen(pid), 0) < 0)
		pn_debug("%s: cannot record the pid: %s", PN_HOST_LOCK, strerror(errno));
	return hold(fd);
fail:
	close(fd);
	return ret;
}
