// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysroot.c - every /proc and /sys path under one root prefix (the live
 * system, or a captured tree replayed by the tests): open, read whole,
 * read one number, write, and files kept open and re-read with pread.
 * See pn.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pn.h"

static char *sysroot;
static bool sysroot_init;

void pn_sysroot_set(const char *root)
{
	free(sysroot);
	sysroot = NULL;
	if (root && *root) {
		size_t n = strlen(root);

		sysroot = pn_strdup(root);
		while (n > 1 && sysroot[n - 1] == '/')
			sysroot[--n] = '\0';
	}
	sysroot_init = true;
}

const char *pn_sysroot(void)
{
	if (!sysroot_init)
		pn_sysroot_set(getenv("PNBENCH_SYSROOT"));
	return sysroot ? sysroot : "";
}

int pn_path(char *out, size_t outlen, const char *rel)
{
	int n = snprintf(out, outlen, "%s%s", pn_sysroot(), rel);

	if (n < 0 || (size_t)n >= outlen)
		return -ENAMETOOLONG;
	return 0;
}

int pn_open(const char *rel, int flags)
{
	char p[4096];
	int fd, ret = pn_path(p, sizeof(p), rel);

	if (ret)
		return ret;
	fd = open(p, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * A file read whole must be a regular file (proc and sysfs files are): a
 * FIFO or socket in a replayed tree would block or never end.  fd was
 * opened O_NONBLOCK so that even opening a FIFO does not wait.
 */
int pn_check_regular(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) ||
	    S_ISBLK(st.st_mode))
		return pn_error(-EINVAL, "%s is not a regular file", path);
	return 0;
}

/* Read rel into buf; whole: -EFBIG (logged) when it does not fit. */
static ssize_t read_text(const char *rel, char *buf, size_t buflen, bool whole)
{
	char p[4096], more;
	size_t len = 0;
	int ret, fd = pn_open(rel, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return fd;
	pn_path(p, sizeof(p), rel);
	ret = buflen ? pn_check_regular(fd, p) : -EINVAL;
	if (ret) {
		close(fd);
		return ret;
	}
	while (len < buflen - 1) {
		ssize_t n = read(fd, buf + len, buflen - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (whole && len == buflen - 1 && read(fd, &more, 1) == 1) {
		close(fd);
		return pn_error(-EFBIG, "%s is larger than %zu bytes", p, buflen - 1);
	}
	close(fd);
	return (ssize_t)len;
}

ssize_t pn_read_text(const char *rel, char *buf, size_t buflen)
{
	return read_text(rel, buf, buflen, false);
}

ssize_t pn_read_whole(const char *rel, char *buf, size_t buflen)
{
	return read_text(rel, buf, buflen, true);
}

int pn_read_u64(const char *rel, uint64_t *val, bool hex)
{
	char buf[64], *end;
	ssize_t n = pn_read_text(rel, buf, sizeof(buf));
	unsigned long long v;

	if (n < 0)
		return (int)n;
	errno = 0;
	v = strtoull(buf, &end, hex ? 16 : 0);
	if (errno || end == buf || (*end && !isspace((unsigned char)*end)))
		return -EINVAL;
	*val = v;
	return 0;
}

int pn_write_text(const char *rel, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = pn_open(rel, O_WRONLY);

	if (fd < 0)
		return fd;
	n = write(fd, text, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

bool pn_exists(const char *rel)
{
	char p[4096];
	struct stat st;

	return pn_path(p, sizeof(p), rel) == 0 && stat(p, &st) == 0;
}

/* ---- re-readable files ---- */

int pn_file_open(struct pn_file *f, const char *rel)
{
	char p[4096];
	int ret = pn_path(p, sizeof(p), rel);

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (ret)
		return ret;
	f->fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0)
		return -errno;
	ret = pn_check_regular(f->fd, p);
	if (ret) {
		close(f->fd);
		f->fd = -1;
		return ret;
	}
	f->cap = 4096;
	f->buf = pn_xmalloc(f->cap);
	f->buf[0] = '\0';
	f->path = pn_strdup(p);
	return 0;
}

int pn_file_read(struct pn_file *f)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;

		if (len >= PN_FILE_MAX_BYTES)
			return pn_error(-EFBIG, "%s is larger than %d bytes", f->path,
					PN_FILE_MAX_BYTES);
		if (len > (1 << 20) && pn_should_stop())
			return -EINTR; /* a read this long is not a counter file: give up */
		if (f->cap - len < 2) {
			f->cap *= 2;
			f->buf = pn_xrealloc(f->buf, f->cap);
		}
		n = pread(f->fd, f->buf + len, f->cap - len - 1, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	f->buf[len] = '\0';
	f->len = len;
	return 0;
}

void pn_file_close(struct pn_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	free(f->path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}
