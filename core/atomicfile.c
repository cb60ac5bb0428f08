// SPDX-License-Identifier: GPL-2.0-only
/* atomicfile.c - tmp + fsync + rename writes.  See atomicfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "pn.h"

int pn_atomic_open(struct pn_atomic_file *af, const char *path, FILE **f)
{
	size_t n = strlen(path) + 16;
	int fd;

	memset(af, 0, sizeof(*af));
	af->path = pn_strdup(path);
	af->tmp = pn_xmalloc(n);
	snprintf(af->tmp, n, "%s.tmpXXXXXX", path);
	fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		free(af->path);
		free(af->tmp);
		memset(af, 0, sizeof(*af));
		return err;
	}
	fchmod(fd, 0644);
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

void pn_atomic_abort(struct pn_atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

int pn_atomic_commit(struct pn_atomic_file *af)
{
	int err = 0;

	if (fflush(af->f) || ferror(af->f) || fsync(fileno(af->f)))
		err = -errno ? -errno : -EIO;
	if (fclose(af->f) && !err)
		err = -errno;
	af->f = NULL;
	if (!err && rename(af->tmp, af->path))
		err = -errno;
	if (err && af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	return err;
}

int pn_atomic_write(const char *path, const char *data, size_t len)
{
	struct pn_atomic_file af;
	FILE *f = NULL;
	int ret = pn_atomic_open(&af, path, &f);

	if (ret)
		return ret;
	if (fwrite(data, 1, len, f) != len) {
		pn_atomic_abort(&af);
		return -EIO;
	}
	return pn_atomic_commit(&af);
}
