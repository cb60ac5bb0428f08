// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cgroup.c - listing and signalling the processes of a cgroup leaf
 * (pn_cgroup_procs, pn_cgroup_signal) through the sysroot: cgroup.procs parsed,
 * every listed process signalled on v1, cgroup.kill written for SIGKILL on
 * v2 where the file exists; numa_stat of both versions for one node.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sys/cgroup.h"
#include "core/lib/pn.h"

#define LEAF "/sys/fs/cgroup/run/leaf"

#define SCRATCHTREE_NAME "cgroup"
#include "scratchtree.h"

/* A child that waits to be signalled; its pid is listed in the leaf. */
static pid_t sleeper(void)
{
	pid_t pid = fork();
	char buf[32];

	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* not left behind by a failed test */
		for (;;)
			pause();
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	put(LEAF "/cgroup.procs", buf);
	return pid;
}

static void test_procs(void **state)
{
	pid_t pids[2];

	(void)state;
	put(LEAF "/cgroup.procs", "12\n34\n\n56\n");
	/* how many it lists, the first max of them */
	assert_int_equal(pn_cgroup_procs(LEAF, pids, 2), 3);
	assert_int_equal(pids[0], 12);
	assert_int_equal(pids[1], 34);
	put(LEAF "/cgroup.procs", "");
	assert_int_equal(pn_cgroup_procs(LEAF, pids, 2), 0);
	assert_int_equal(pn_cgroup_procs("/sys/fs/cgroup/run/none", pids, 2), -ENOENT);
}

static void test_signal_v1(void **state)
{
	pid_t pid = sleeper();
	int st;

	(void)state;
	assert_int_equal(pn_cgroup_signal(LEAF, SIGTERM), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	put(LEAF "/cgroup.procs", "");
	assert_int_equal(pn_cgroup_signal(LEAF, SIGKILL), 0);
}

/* v2: SIGKILL is the kernel's cgroup.kill; the listed process is not
 * signalled by pid (the replayed cgroup.kill kills nothing).  Without the
 * file (kernels before 5.14), pid by pid. */
static void test_signal_v2(void **state)
{
	char buf[16] = "";
	pid_t pid = sleeper();
	int st;

	(void)state;
	put(LEAF "/cgroup.kill", "");
	assert_int_equal(pn_cgroup_signal(LEAF, SIGKILL), 1);
	assert_true(pn_read_text(LEAF "/cgroup.kill", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "1");
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* still alive */
	assert_int_equal(pn_cgroup_signal(LEAF, SIGTERM), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(WTERMSIG(st), SIGTERM);

	pid = sleeper();
	{
		char p[512];

		snprintf(p, sizeof(p), "%s%s/cgroup.kill", tree, LEAF);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(pn_cgroup_signal(LEAF, SIGKILL), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(WTERMSIG(st), SIGKILL);
}

static void test_numa_stat_versions(void **state)
{
	struct pn_cgroup_node n;

	(void)state;
	/* v1: pages; hierarchical_ lines repeat the subtree's totals */
	assert_int_equal(pn_cgroup_parse_numa_stat("total=30 N0=10 N1=20\nfile=5 N0=1 N1=4\n"
						   "anon=25 N0=9 N1=16\n"
						   "hierarchical_anon=99 N0=50 N1=49\n",
						   1, 1, 4096, &n),
			 0);
	assert_true(n.node_listed);
	assert_int_equal(n.pages[PN_CGROUP_ANON], 16);
	assert_int_equal(n.pages[PN_CGROUP_FILE], 4);
	/* v2: bytes */
	assert_int_equal(pn_cgroup_parse_numa_stat("anon N0=8192 N1=40960\nfile N0=0 N1=4096\n", 2,
						   1, 4096, &n),
			 0);
	assert_int_equal(n.pages[PN_CGROUP_ANON], 10);
	assert_int_equal(n.pages[PN_CGROUP_FILE], 1);
	assert_int_equal(pn_cgroup_parse_numa_stat("anon N0=1 N1=x\n", 2, 1, 4096, &n), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_procs, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_signal_v1, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_signal_v2, tree_setup, tree_teardown),
		cmocka_unit_test(test_numa_stat_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
