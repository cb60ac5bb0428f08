// SPDX-License-Identifier: GPL-2.0-only
/*
 * journal.c - the on-disk record of a run's changes (journal.h); `pnbench
 * recover` reads it back (core/cli/recover.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/lib/atomicfile.h"
#include "journal.h"
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
bool pn_journal_run_gone(int pid, const cJSON *j)
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
cJSON *pn_journal_load(const char *path)
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
int pn_journal_each(int (*fn)(void *arg, const char *path, int pid), void *arg)
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
	cJSON *j = pn_journal_load(path);
	int n = -1;

	(void)arg;
	if (!pn_journal_run_gone(pid, j)) {
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
	int ret = pn_journal_each(refuse_stale, NULL);

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

bool pn_journal_entry_is(const cJSON *e, const char *kind, const char *path)
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
		if (pn_journal_entry_is(cJSON_GetArrayItem(es, i), kind, path)) {
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
	j = pn_journal_load(path);
	if (!j)
		return 0;
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(j, "entries")) {
		const char *old = cJSON_GetStringValue(cJSON_GetObjectItem(e, "old"));

		if (pn_journal_entry_is(e, "knob", a->rel) && old) {
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

	pn_journal_each(find_altered, &a);
	*pid = a.pid;
	return a.pid != 0;
}
