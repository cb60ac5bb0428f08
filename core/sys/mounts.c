// SPDX-License-Identifier: GPL-2.0-only
/*
 * mounts.c - filesystems the tool mounts for itself (tracefs, debugfs where
 * they are not mounted) are unmounted again when the command ends: a run
 * leaves the machine's mount table as it found it.  See pn.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "core/lib/pn.h"

static char mounted[4][64];
static int nmounted;

int pn_mount_temp(const char *fstype, const char *target)
{
	if (nmounted == (int)PN_ARRAY_SIZE(mounted) || strlen(target) >= sizeof(mounted[0]))
		return -ENOSPC;
	if (mount(fstype, target, fstype, 0, NULL))
		return -errno;
	snprintf(mounted[nmounted++], sizeof(mounted[0]), "%s", target);
	pn_debug("mounted %s on %s (unmounted at the end)", fstype, target);
	return 0;
}

void pn_mounts_undo(void)
{
	while (nmounted > 0) {
		const char *t = mounted[--nmounted];

		/* lazily if something (an open perf event's file) still holds it */
		if (umount2(t, 0) && umount2(t, MNT_DETACH))
			pn_warn("umount %s: %s (mounted by this run)", t, strerror(errno));
	}
}
