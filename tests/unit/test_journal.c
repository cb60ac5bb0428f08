// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_journal.c - the journal of a run's changes (core/sys/journal.h) against a
 * replayed tree: a run that dies without undoing leaves a journal, the next
 * run refuses to start, `pnbench recover` puts the knob back (under the
 * journal's own sysroot) and removes the journal and the cgroup it made.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/cli/recover.h"
#include "core/sys/journal.h"
#include "core/sys/knob.h"
#include "core/lib/pn.h"

static char root[] = "/tmp/pn-journal.XXXXXX";
static char rundir[PATH_MAX + 8], sys[PATH_MAX + 8];

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX + 64], cmd[PATH_MAX + 128];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", sys, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void get(const char *rel, char *buf, size_t len)
{
	assert_true(pn_read_text(rel, buf, len) >= 0);
	buf[strcspn(buf, "\n")] = '\0';
}

static int count_journals(void)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -c '^journal\\.'", rundir);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

/* A child that sets a knob and makes a cgroup, then dies undoing nothing. */
static void die_with_changes(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct pn_knobs ks = { 0 };
		char cg[PATH_MAX + 32];

		if (pn_journal_begin(0, NULL) || pn_knobs_set(&ks, "vm.stat_interval", "7"))
			_exit(1);
		snprintf(cg, sizeof(cg), "%s/sys/fs/cgroup/pnbench-x", sys);
		if (pn_journal_add("cgroup", "/sys/fs/cgroup/pnbench-x", NULL) || mkdir(cg, 0755))
			_exit(1);
		_exit(0); /* as SIGKILL would: no restore, no pn_journal_end() */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_killed_run_recovered(void **state)
{
	char v[64], cg[PATH_MAX + 32];
	struct stat st;
	char *argv[] = { "recover", NULL };

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(rundir, sizeof(rundir), "%s/run", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	setenv("PNBENCH_RUNDIR", rundir, 1);
	put("/proc/sys/vm/stat_interval", "1\n");
	put("/sys/fs/cgroup/cgroup.procs", "");
	pn_sysroot_set(sys);
	/* nothing to recover yet: exit 0 */
	assert_int_equal(pn_cmd_recover(1, argv), 0);

	die_with_changes();
	get("/proc/sys/vm/stat_interval", v, sizeof(v));
	assert_string_equal(v, "7");
	assert_int_equal(count_journals(), 1);
	/* the next run refuses while the journal is stale */
	assert_int_equal(pn_journal_begin(0, NULL), -EBUSY);

	/* recover uses the journal's sysroot, not the one it runs under */
	pn_sysroot_set("/nonexistent-sysroot");
	assert_int_equal(pn_cmd_recover(1, argv), 0);
	pn_sysroot_set(sys);
	get("/proc/sys/vm/stat_interval", v, sizeof(v));
	assert_string_equal(v, "1");
	snprintf(cg, sizeof(cg), "%s/sys/fs/cgroup/pnbench-x", sys);
	assert_int_equal(stat(cg, &st), -1);
	assert_int_equal(count_journals(), 0);

	/* then a run starts; one that undoes everything leaves no journal */
	assert_int_equal(pn_journal_begin(0, NULL), 0);
	assert_int_equal(count_journals(), 1);
	{
		struct pn_knobs ks = { 0 };

		assert_int_equal(pn_knobs_set(&ks, "vm.stat_interval", "3"), 0);
		assert_int_equal(pn_knobs_restore(&ks), 0);
		pn_knobs_free(&ks);
	}
	pn_journal_end();
	assert_int_equal(count_journals(), 0);
	get("/proc/sys/vm/stat_interval", v, sizeof(v));
	assert_string_equal(v, "1");
}

/* A knob whose restore fails stays in the journal for recover. */
static void test_failed_restore_kept(void **state)
{
	struct pn_knobs ks = { 0 };
	char p[PATH_MAX + 64], *argv[] = { "recover", NULL }, v[64];

	(void)state;
	put("/proc/sys/vm/swappiness", "60\n");
	assert_int_equal(pn_journal_begin(0, NULL), 0);
	assert_int_equal(pn_knobs_set(&ks, "vm.swappiness", "10"), 0);
	/* the file goes away: the restore cannot write it */
	snprintf(p, sizeof(p), "%s/proc/sys/vm/swappiness", sys);
	assert_int_equal(unlink(p), 0);
	assert_int_not_equal(pn_knobs_restore(&ks), 0);
	pn_knobs_free(&ks);
	pn_journal_end(); /* warns, keeps the file */
	assert_int_equal(count_journals(), 1);
	/* this process is the journal's pid: its journal counts as stale now */
	put("/proc/sys/vm/swappiness", "10\n");
	assert_int_equal(pn_cmd_recover(1, argv), 0);
	get("/proc/sys/vm/swappiness", v, sizeof(v));
	assert_string_equal(v, "60");
	assert_int_equal(count_journals(), 0);
}

/* A live pid is not enough: a journal whose process started at another time
 * is of a run long gone (its pid reused).  pid 1 is always alive. */
static void test_reused_pid(void **state)
{
	char p[PATH_MAX + 32], *argv[] = { "recover", NULL };
	FILE *f;

	(void)state;
	pn_sysroot_set(""); /* the real /proc/1/stat */
	snprintf(p, sizeof(p), "%s/journal.1", rundir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"pid\": 1, \"sysroot\": \"\", \"entries\": []}", f);
	fclose(f);
	assert_int_equal(pn_journal_begin(0, NULL), 0); /* pid 1 runs: not stale */
	pn_journal_end();
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"pid\": 1, \"starttime\": 1e15, \"sysroot\": \"\", \"entries\": []}", f);
	fclose(f);
	if (access("/proc/1/stat", R_OK)) {
		unlink(p);
		skip();
		return;
	}
	assert_int_equal(pn_journal_begin(0, NULL), -EBUSY); /* another process: stale */
	assert_int_equal(pn_cmd_recover(1, argv), 0);
	assert_int_equal(count_journals(), 0);
	assert_int_equal(pn_journal_begin(0, NULL), 0);
	pn_journal_end();
}

static int cleanup(void **state)
{
	char cmd[PATH_MAX + 32];

	(void)state;
	pn_sysroot_set(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_killed_run_recovered),
		cmocka_unit_test(test_failed_restore_kept),
		cmocka_unit_test(test_reused_pid),
	};

	pn_log_level = PN_LOG_QUIET;
	return cmocka_run_group_tests(tests, NULL, cleanup);
}
