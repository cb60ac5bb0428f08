// SPDX-License-Identifier: GPL-2.0-only
/*
 * journal.c - the on-disk record of a run's changes and `pnbench recover`
 * (journal.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#include "core/lib/atomicfile.h"
#include "cgroup.h"
#include "journal.h"
#include "mpol.h"
#include "core/lib/pn.h"

#define JOURNAL_MAX_BYTES (1 << 20)

static struct {
	pid_t owner; /* 0: no journal */
	char path[PATH_MAX];
	cJSON *root;
} J;

const char *pn_journal_dir(void)
{
	const char *d = getenv("PNBENCH_RUNDIR");

	return d && *d ? d : "/run/pnbench";
}

/* "journal.<pid>" -> pid; 0 for any other name (temporary files too). */
static int journal_pid(const char *name)
{
	const char *p = name + strlen("journal.");
	char *end;
	long v;

	if (strncmp(name, "journal.", strlen("journal.")) != 0 || !*p || *p == '0')
		return 0;
	v = strtol(p, &end, 10);
	return *end || v <= 0 || v > INT_MAX ? 0 : (int)v;
}

/* Field 22 of /proc/<pid>/stat, its start in clock ticks after boot: with
 * the pid it names one process (a pid alone may since have been reused).
 * 0 when it cannot be read (e.g. under a sysroot). */
static unsigned long long start_time(int pid)
{
	char rel[64], buf[1024], *p;
	unsigned long long v = 0;

	snprintf(rel, sizeof(rel), "/proc/%d/stat", pid);
	if (pn_read_text(rel, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return 0;
	/* after "(comm)": state is field 3, starttime field 22 */
	if (sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
		   "%llu",
		   &v) != 1)
		return 0;
	return v;
}

/* The run of journal j (pid) is gone: no such process, this process's own
 * pid, or a process that started at another time than the journal says. */
static bool run_gone(int pid, const cJSON *j)
{
	double st = j ? cJSON_GetNumberValue(cJSON_GetObjectItem(j, "starttime")) : 0;
	unsigned long long now;

	if (pid == (int)getpid() || (kill(pid, 0) && errno == ESRCH))
		return true;
	if (!(st > 0))
		return false;
	now = start_time(pid);
	return now && (double)now != st;
}

static int jwrite(void)
{
	char *s = cJSON_Print(J.root);
	int ret = pn_atomic_write(J.path, s, strlen(s));

	free(s);
	if (ret)
		return pn_error(ret, "journal %s: %s", J.path, strerror(-ret));
	return 0;
}

static bool active(void)
{
	return J.owner && J.owner == getpid();
}

/* Read a journal file (bounded); NULL with the reason logged. */
static cJSON *jload(const char *path)
{
	char *buf = pn_xmalloc(JOURNAL_MAX_BYTES + 1);
	ssize_t len = 0, n;
	cJSON *j = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		pn_error(-errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	while (len <= JOURNAL_MAX_BYTES &&
	       (n = read(fd, buf + len, (size_t)(JOURNAL_MAX_BYTES + 1 - len))) > 0)
		len += n;
	close(fd);
	if (len > JOURNAL_MAX_BYTES) {
		pn_error(-EFBIG, "%s is larger than %d bytes: not a journal", path,
			 JOURNAL_MAX_BYTES);
		goto out;
	}
	j = cJSON_ParseWithLength(buf, (size_t)len);
	if (!j || !cJSON_IsArray(cJSON_GetObjectItem(j, "entries"))) {
		pn_error(-EINVAL, "%s: not a pnbench journal (remove it by hand)", path);
		cJSON_Delete(j);
		j = NULL;
	}
out:
	free(buf);
	return j;
}

/* Call fn for each journal file: fn(arg, path, pid) != 0 stops the walk. */
static int each_journal(int (*fn)(void *arg, const char *path, int pid), void *arg)
{
	DIR *d = opendir(pn_journal_dir());
	struct dirent *de;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d))) {
		char path[PATH_MAX];
		int pid = journal_pid(de->d_name);

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", pn_journal_dir(), de->d_name);
		ret = fn(arg, path, pid);
	}
	closedir(d);
	return ret;
}

static int refuse_stale(void *arg, const char *path, int pid)
{
	cJSON *j = jload(path);
	int n = -1;

	(void)arg;
	if (!run_gone(pid, j)) {
		cJSON_Delete(j);
		return 0;
	}
	if (j)
		n = cJSON_GetArraySize(cJSON_GetObjectItem(j, "entries"));
	cJSON_Delete(j);
	return pn_error(-EBUSY,
			"a run (pid %d) ended without undoing its changes: %s lists %d "
			"(knobs, cgroups, mounts, loop devices, image files); run `pnbench "
			"recover` first",
			pid, path, n);
}

int pn_journal_begin(int argc, char **argv)
{
	char now[32], cmd[1024] = "";
	size_t off = 0;
	int ret = each_journal(refuse_stale, NULL);

	if (ret == -EBUSY)
		return ret;
	J.root = cJSON_CreateObject();
	pn_utc_iso8601(now, sizeof(now));
	cJSON_AddNumberToObject(J.root, "pid", (double)getpid());
	if (start_time((int)getpid()))
		cJSON_AddNumberToObject(J.root, "starttime", (double)start_time((int)getpid()));
	cJSON_AddStringToObject(J.root, "started_at", now);
	cJSON_AddStringToObject(J.root, "sysroot", pn_sysroot());
	for (int i = 0; i < argc && off < sizeof(cmd); i++)
		off += (size_t)snprintf(cmd + off, sizeof(cmd) - off, "%s%s", i ? " " : "",
					argv[i]);
	cJSON_AddStringToObject(J.root, "command", cmd);
	cJSON_AddArrayToObject(J.root, "entries");
	snprintf(J.path, sizeof(J.path), "%s/journal.%d", pn_journal_dir(), (int)getpid());
	if (mkdir(pn_journal_dir(), 0700) && errno != EEXIST)
		ret = pn_error(-errno, "journal directory %s: %s", pn_journal_dir(),
			       strerror(errno));
	J.owner = getpid();
	if (!ret)
		ret = jwrite();
	if (ret) {
		J.owner = 0;
		cJSON_Delete(J.root);
		J.root = NULL;
		if (geteuid() == 0)
			return ret;
		pn_warn("changes this run makes are not journaled (set PNBENCH_RUNDIR)");
	}
	return 0;
}

int pn_journal_add(const char *kind, const char *path, const char *old)
{
	cJSON *e;

	if (!active())
		return 0;
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "kind", kind);
	cJSON_AddStringToObject(e, "path", path);
	if (old)
		cJSON_AddStringToObject(e, "old", old);
	cJSON_AddItemToArray(cJSON_GetObjectItem(J.root, "entries"), e);
	return jwrite();
}

static bool entry_is(const cJSON *e, const char *kind, const char *path)
{
	const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(e, "kind"));
	const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(e, "path"));

	return k && p && !strcmp(k, kind) && !strcmp(p, path);
}

void pn_journal_done(const char *kind, const char *path)
{
	cJSON *es;

	if (!active())
		return;
	es = cJSON_GetObjectItem(J.root, "entries");
	for (int i = cJSON_GetArraySize(es); i-- > 0;) {
		if (entry_is(cJSON_GetArrayItem(es, i), kind, path)) {
			cJSON_DeleteItemFromArray(es, i);
			jwrite();
			return;
		}
	}
}

void pn_journal_end(void)
{
	int n;

	if (!active())
		return;
	n = cJSON_GetArraySize(cJSON_GetObjectItem(J.root, "entries"));
	if (n)
		pn_warn("%d change(s) could not be undone; %s keeps them for `pnbench recover`", n,
			J.path);
	else if (unlink(J.path))
		pn_warn("%s: %s", J.path, strerror(errno));
	cJSON_Delete(J.root);
	memset(&J, 0, sizeof(J));
}

/* ---- provenance: knobs another live run holds ---- */

struct altered {
	const char *rel;
	char *value;
	size_t len;
	int pid;
};

static int find_altered(void *arg, const char *path, int pid)
{
	struct altered *a = arg;
	cJSON *j, *e;

	if (pid == (int)getpid())
		return 0;
	j = jload(path);
	if (!j)
		return 0;
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(j, "entries")) {
		const char *old = cJSON_GetStringValue(cJSON_GetObjectItem(e, "old"));

		if (entry_is(e, "knob", a->rel) && old) {
			snprintf(a->value, a->len, "%s", old);
			a->pid = pid;
			break; /* the oldest: the value before any change */
		}
	}
	cJSON_Delete(j);
	return a->pid != 0;
}

bool pn_journal_altered(const char *rel, char *machine_value, size_t len, int *pid)
{
	struct altered a = { .rel = rel, .value = machine_value, .len = len };

	each_journal(find_altered, &a);
	*pid = a.pid;
	return a.pid != 0;
}

/* ---- pnbench recover ---- */

/* Processes left in a cgroup of a killed run (its workloads; v2
 * cgroup.kill, v1 one SIGKILL per listed pid).  Never under a sysroot: the
 * pids of a replayed machine are not this machine's. */
static void kill_cgroup(const char *cg)
{
	if (!*pn_sysroot())
		pn_cg_signal(cg, SIGKILL);
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

	if (ret == -ENODEV && !strcmp(old, "true") && !pn_wil_auto_path(rel, sizeof(rel)) &&
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
		ret = pn_cg_remove(path);
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
	cJSON *j = jload(path), *es, *e;
	const char *root, *cmd;

	if (!run_gone(pid, j)) {
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

		if (p && entry_is(e, "cgroup", p))
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
		return pn_error(PN_EXIT_USAGE, "recover: unexpected argument \"%s\"", argv[1]);
	ret = each_journal(recover_one, &rc);
	if (ret)
		return pn_error(PN_EXIT_ERROR, "recover: %s: %s", pn_journal_dir(), strerror(-ret));
	if (!rc.journals)
		printf("nothing to recover (no journal of a finished run in %s)\n",
		       pn_journal_dir());
	return rc.failed ? PN_EXIT_ERROR : 0;
}
