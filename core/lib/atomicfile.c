// SPDX-License-Identifier: GPL-2.0-only
/* atomicfile.c - result files that never follow what is planted.  See atomicfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "pn.h"

/* dir/name for messages (dir may be NULL) */
#define SHOWN(dir, name) (dir) ? (dir) : "", (dir) ? "/" : "", (name)

int pn_outfile_check(int dirfd, const char *dir, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return pn_error(-errno, "%s%s%s: %s", SHOWN(dir, name), strerror(errno));
	}
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode))
		return pn_error(-ELOOP,
				"%s%s%s: is a symlink; results are never written through one "
				"(remove it or pick another -o DIR)",
				SHOWN(dir, name));
	return pn_error(-EEXIST,
			"%s%s%s: exists and is not a regular file (%s); remove it or pick "
			"another -o DIR",
			SHOWN(dir, name),
			S_ISFIFO(st.st_mode)   ? "a FIFO"
			: S_ISDIR(st.st_mode)  ? "a directory"
			: S_ISSOCK(st.st_mode) ? "a socket"
					       : "a device");
}

static int create_excl(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	return fd < 0 ? -errno : fd;
}

int pn_outfile_create(int dirfd, const char *dir, const char *name)
{
	int ret = pn_outfile_check(dirfd, dir, name);

	if (ret)
		return ret;
	/* A regular file of that name (an earlier run's): unlink it; a hard
	 * link's other names keep their contents. */
	if (unlinkat(dirfd, name, 0) && errno != ENOENT)
		return pn_error(-errno, "%s%s%s: cannot replace it: %s", SHOWN(dir, name),
				strerror(errno));
	ret = create_excl(dirfd, name);
	if (ret == -EEXIST) {
		/* planted between the unlink and the create */
		ret = pn_outfile_check(dirfd, dir, name);
		return ret ? ret
			   : pn_error(-EEXIST, "%s%s%s: appeared while being created",
				      SHOWN(dir, name));
	}
	if (ret < 0)
		return pn_error(ret, "%s%s%s: cannot create it: %s", SHOWN(dir, name),
				strerror(-ret));
	return ret;
}

/* name.tmpXXXXXX, made with O_EXCL: a name taken (or planted) is skipped. */
static int make_tmp(struct pn_atomic_file *af)
{
	size_t n = strlen(af->path) + 16;

	af->tmp = pn_xmalloc(n);
	for (int tries = 0; tries < 100; tries++) {
		unsigned int rnd;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned int)pn_now_ns() ^ (unsigned int)getpid();
		snprintf(af->tmp, n, "%s.tmp%06x", af->path, rnd & 0xffffff);
		fd = create_excl(af->dirfd, af->tmp);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

int pn_atomic_openat(struct pn_atomic_file *af, int dirfd, const char *dir, const char *path,
		     FILE **f)
{
	int fd, ret;

	memset(af, 0, sizeof(*af));
	ret = pn_outfile_check(dirfd, dir, path);
	if (ret)
		return ret;
	af->dirfd = dirfd;
	af->path = pn_strdup(path);
	fd = make_tmp(af);
	if (fd < 0) {
		free(af->path);
		free(af->tmp);
		memset(af, 0, sizeof(*af));
		return fd;
	}
	af->f = fdopen(fd, "w");
	if (!af->f) {
		int err = -errno;

		close(fd);
		pn_atomic_abort(af);
		return err;
	}
	*f = af->f;
	return 0;
}

int pn_atomic_open(struct pn_atomic_file *af, const char *path, FILE **f)
{
	return pn_atomic_openat(af, AT_FDCWD, NULL, path, f);
}

void pn_atomic_abort(struct pn_atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->tmp)
		unlinkat(af->dirfd, af->tmp, 0);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

int pn_atomic_commit(struct pn_atomic_file *af)
{
	int err = 0;

	errno = 0;
	if (fflush(af->f) || ferror(af->f) || fsync(fileno(af->f)))
		err = errno ? -errno : -EIO;
	if (fclose(af->f) && !err)
		err = -errno;
	af->f = NULL;
	/* rename replaces the directory entry: a symlink planted under the
	 * name since the open is replaced, its target never written */
	if (!err && renameat(af->dirfd, af->tmp, af->dirfd, af->path))
		err = -errno;
	if (err && af->tmp)
		unlinkat(af->dirfd, af->tmp, 0);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	return err;
}

int pn_atomic_writeat(int dirfd, const char *dir, const char *path, const char *data, size_t len)
{
	struct pn_atomic_file af;
	FILE *f = NULL;
	int ret = pn_atomic_openat(&af, dirfd, dir, path, &f);

	if (ret)
		return ret;
	errno = 0;
	if (fwrite(data, 1, len, f) != len) {
		/* the write's own errno (ENOSPC, EDQUOT), before fclose can change it */
		ret = errno ? -errno : -EIO;
		pn_atomic_abort(&af);
		return ret;
	}
	return pn_atomic_commit(&af);
}

int pn_atomic_write(const char *path, const char *data, size_t len)
{
	return pn_atomic_writeat(AT_FDCWD, NULL, path, data, len);
}
