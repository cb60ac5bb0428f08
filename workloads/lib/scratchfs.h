/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scratchfs.h - a scratch filesystem for real page cache.
 *
 * Functions return 0 or -errno with the reason logged (pn_error).
 */
#ifndef PN_SCRATCHFS_H
#define PN_SCRATCHFS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * A scratch filesystem: mkfs on a block device named by the user, or on a
 * sparse image file in a directory, loop-mounted (LOOP_CONFIGURE, direct
 * I/O where the backing filesystem allows it, autoclear) on a fresh
 * directory.  tmpfs would hide the page-cache case (its pages are shmem).
 */
struct pn_scratch_fs {
	char mnt[PATH_MAX];   /* mount point ("" = none) */
	char image[PATH_MAX]; /* image file we made ("" = none) */
	char dev[PATH_MAX];   /* the block device mounted */
	char fstype[32];
	bool mounted;
	bool loop;	/* dev is a loop device we configured */
	bool direct_io; /* the loop device reads its image with O_DIRECT */
	uint64_t bytes; /* filesystem size */
};

/* Make and mount it.  device "" = an image of `bytes` in image_dir.  On
 * failure everything made so far is undone.  Needs root. */
int pn_scratch_fs_make(struct pn_scratch_fs *fs, const char *device, const char *image_dir,
		       uint64_t bytes, const char *fstype);
/* Unmount and remove what pn_scratch_fs_make() made; safe on a zeroed or
 * half-made struct and when called twice. */
void pn_scratch_fs_remove(struct pn_scratch_fs *fs);

/* Run argv (PATH search) with stdout/stderr to /dev/null; 0 when it exits 0. */
int pn_run_quiet(char *const argv[]);

#endif /* PN_SCRATCHFS_H */
