/* SPDX-License-Identifier: GPL-2.0-only */
/* atomicfile.h - write a file as tmp + fsync + rename, so readers never see half of it. */
#ifndef PN_ATOMICFILE_H
#define PN_ATOMICFILE_H

#include <stdio.h>

struct pn_atomic_file {
	char *path;
	char *tmp;
	FILE *f;
};

/* Open a temporary file beside path; *f receives the stream. */
int pn_atomic_open(struct pn_atomic_file *af, const char *path, FILE **f);
/* Flush, fsync, rename over path.  Always releases af; returns 0 or -errno. */
int pn_atomic_commit(struct pn_atomic_file *af);
/* Drop the temporary file. */
void pn_atomic_abort(struct pn_atomic_file *af);
/* Write a whole buffer atomically. */
int pn_atomic_write(const char *path, const char *data, size_t len);

#endif
