// SPDX-License-Identifier: GPL-2.0-only
/*
 * recover.c - `pnbench recover`: undo what runs killed by SIGKILL or a crash
 * left changed, from their journals (core/sys/journal.h), newest change first.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/loop.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "core/lib/atomicfile.h"
#include "core/lib/pn.h"
#include "core/sys/cgroup.h"
#include "core/sys/journal.h"
#include "core/sys/mpol.h"
#include "recover.h"

/* Processes left in a cgroup of a killed run (its workloads; v2
 * cgroup.kill, v1 one SIGKILL per listed pid).  Never under a sysroot: the
 * pids of a replayed machine are not this machine's. */
static void kill_cgroup(const char *cg)
{
	if (!*pn_sysroot())
		pn_cgroup_signal(cg, SIGKILL);
}

/* A loop device still backed by the image we attached: detach it.  Its
 * number may since have gone to someone else's image: then left alone. */
static int undo_loop(const char *dev, const char *image, char *msg, size_t len)
{
	struct loop_info64 info;
	int ret = 0, fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, LOOP_GET_STATUS64, &info)) {
		ret = errno == ENXIO ? 0 : -errno; /* ENXIO: not bound */
	} else if (strncmp((const char *)info.lo_file_name, image, LO_NAME_SIZE - 1) != 0) {
		snprintf(msg, len, "loop %s now serves %.64s: left alone", dev,
			 (const char *)info.lo_file_name);
	} else if (ioctl(fd, LOOP_CLR_FD, 0) && errno != ENXIO) {
		ret = -errno;
	}
	close(fd);
	return ret;
}

static int undo_mount(const char *path)
{
	if (!umount2(path, 0) || errno == EINVAL || errno == ENOENT)
		return 0; /* EINVAL: not (or no longer) a mount point */
	if (errno == EBUSY && !umount2(path, MNT_DETACH))
		return 0;
	return -errno;
}

static int undo_knob(const char *path, const char *old, char *msg, size_t len)
{
	char rel[128];
	int ret = pn_write_text(path, old);

	if (ret == -ENODEV && !strcmp(old, "true") && !pn_mpol_wil_auto_path(rel, sizeof(rel)) &&
	    !strcmp(rel, path)) {
		snprintf(msg, len,
			 "knob %s: the kernel cannot go back to automatic weights "
			 "(no bandwidth data); the weights were restored",
			 path);
		return 0;
	}
	return ret;
}

/* Undo one entry: 0 when done (msg says what happened), else -errno. */
static int undo(const cJSON *e, char *msg, size_t len)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(e, "kind"));
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(e, "path"));
	const char *old = cJSON_GetStringValue(cJSON_GetObjectItem(e, "old"));
	int ret;

	if (!kind || !path)
		return -EINVAL;
	snprintf(msg, len, "%s %s", kind, path);
	if (!strcmp(kind, "knob") && old) {
		snprintf(msg, len, "knob %s: wrote back \"%s\"", path, old);
		ret = undo_knob(path, old, msg, len);
	} else if (!strcmp(kind, "cgroup")) {
		snprintf(msg, len, "cgroup %s: removed", path);
		ret = pn_cgroup_remove(path);
	} else if (!strcmp(kind, "mount")) {
		snprintf(msg, len, "mount %s: unmounted", path);
		ret = undo_mount(path);
	} else if (!strcmp(kind, "mountdir")) {
		snprintf(msg, len, "mount point %s: removed", path);
		ret = rmdir(path) && errno != ENOENT ? -errno : 0;
	} else if (!strcmp(kind, "loop") && old) {
		snprintf(msg, len, "loop %s: detached", path);
		ret = undo_loop(path, old, msg, len);
	} else if (!strcmp(kind, "image")) {
		snprintf(msg, len, "image %s: removed", path);
		ret = unlink(path) && errno != ENOENT ? -errno : 0;
	} else {
		ret = -EINVAL;
	}
	return ret;
}

struct recover_ctx {
	int journals, failed;
};

static int recover_one(void *arg, const char *path, int pid)
{
	struct recover_ctx *rc = arg;
	char *saved = pn_strdup(pn_sysroot()), msg[PATH_MAX + 128], *s;
	cJSON *j = pn_journal_load(path), *es, *e;
	const char *root, *cmd;

	if (!pn_journal_run_gone(pid, j)) {
		printf("%s: run %d is still running: left alone\n", path, pid);
		cJSON_Delete(j);
		goto out;
	}
	rc->journals++;
	if (!j) {
		rc->failed++;
		goto out;
	}
	root = cJSON_GetStringValue(cJSON_GetObjectItem(j, "sysroot"));
	pn_sysroot_set(root ? root : "");
	es = cJSON_GetObjectItem(j, "entries");
	cmd = cJSON_GetStringValue(cJSON_GetObjectItem(j, "command"));
	printf("%s: run %d (%s), %d change(s)\n", path, pid, cmd ? cmd : "?",
	       cJSON_GetArraySize(es));
	cJSON_ArrayForEach (e, es) /* first what still runs in its cgroups */
	{
		const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(e, "path"));

		if (p && pn_journal_entry_is(e, "cgroup", p))
			kill_cgroup(p);
	}
	for (int i = cJSON_GetArraySize(es); i-- > 0;) {
		int ret = undo(cJSON_GetArrayItem(es, i), msg, sizeof(msg));

		if (ret) {
			printf("  failed: %s: %s\n", msg, strerror(-ret));
			continue;
		}
		printf("  %s\n", msg);
		cJSON_DeleteItemFromArray(es, i);
	}
	if (cJSON_GetArraySize(es) == 0) {
		if (unlink(path))
			pn_warn("%s: %s", path, strerror(errno));
	} else {
		rc->failed++;
		s = cJSON_Print(j);
		pn_atomic_write(path, s, strlen(s));
		free(s);
		printf("  %d change(s) left in %s\n", cJSON_GetArraySize(es), path);
	}
	cJSON_Delete(j);
out:
	pn_sysroot_set(saved);
	free(saved);
	return 0;
}

int pn_cmd_recover(int argc, char **argv)
{
	struct recover_ctx rc = { 0 };
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: pnbench recover\n\n"
		       "Undo what runs killed by SIGKILL or a crash left changed: restore knobs,\n"
		       "kill and remove their cgroups, unmount scratch filesystems, detach loop\n"
		       "devices, remove image files.  Reads every journal in %s\n"
		       "($PNBENCH_RUNDIR) whose run is gone.  Exit 0 when everything was undone\n"
		       "(or nothing was left), 3 when something could not be.\n",
		       pn_journal_dir());
		return 0;
	}
	if (argc > 1)
		return pn_cli_error(PN_EXIT_USAGE, "unexpected argument \"%s\"", argv[1]);
	ret = pn_journal_each(recover_one, &rc);
	if (ret)
		return pn_cli_error(PN_EXIT_ERROR, "%s: %s", pn_journal_dir(), strerror(-ret));
	if (!rc.journals)
		printf("nothing to recover (no journal of a finished run in %s)\n",
		       pn_journal_dir());
	return rc.failed ? PN_EXIT_ERROR : 0;
}
