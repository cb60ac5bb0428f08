/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * atomicfile.h - result files: created, never opened through what is
 * already there, and written as tmp + fsync + rename so readers never see
 * half of one.
 *
 * Every file is made with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, relative to a
 * directory fd (AT_FDCWD for a plain path): a symlink, FIFO or anything else
 * planted under the name is never followed, opened or truncated.  A name
 * that holds something other than a regular file is refused with an error
 * naming it (-ELOOP for a symlink, -EEXIST otherwise); a regular file is
 * replaced (unlinked, or renamed over), never written in place.
 */
#ifndef PN_ATOMICFILE_H
#define PN_ATOMICFILE_H

#include <stdio.h>

struct pn_atomic_file {
	int dirfd;
	char *path; /* relative to dirfd */
	char *tmp;
	FILE *f;
};

/* dir names dirfd in messages only (NULL: none). */
/* 0 when name is absent or a regular file under dirfd; otherwise -ELOOP
 * (a symlink) or -EEXIST (a FIFO, directory, device, socket), logged with
 * the name. */
int pn_outfile_check(int dirfd, const char *dir, const char *name);
/* Create name under dirfd for writing (mode 0644), replacing a regular file
 * of that name; returns the fd or -errno (logged, naming the file). */
int pn_outfile_create(int dirfd, const char *dir, const char *name);

/* Open a temporary file beside path (under dirfd); *f receives the stream. */
int pn_atomic_openat(struct pn_atomic_file *af, int dirfd, const char *dir, const char *path,
		     FILE **f);
int pn_atomic_open(struct pn_atomic_file *af, const char *path, FILE **f);
/* Flush, fsync, rename over path.  Always releases af; returns 0 or -errno. */
int pn_atomic_commit(struct pn_atomic_file *af);
/* Drop the temporary file. */
void pn_atomic_abort(struct pn_atomic_file *af);
/* Write a whole buffer atomically. */
int pn_atomic_writeat(int dirfd, const char *dir, const char *path, const char *data, size_t len);
int pn_atomic_write(const char *path, const char *data, size_t len);

#endif
