// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_perf_skip.c - where the perf collector cannot run, it says why, with
 * the value that stops it: not root with perf_event_paranoid above -1, no
 * tracefs; and where it can (a replayed tracefs with the kmem formats), it
 * does not refuse.  Replayed through the sysroot, so it runs anywhere.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/api/collector.h"
#include "perftest.h"
#include "core/api/workload.h"

extern const struct pn_collector pn_collector_perf;

static char root[64];

static void set_paranoid(const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/perf_event_paranoid", root);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/pn-perfskip-XXXXXX");
	assert_non_null(mkdtemp(root));
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc/sys/kernel", root);
		assert_int_equal(system(cmd), 0);
	}
	set_paranoid("2");
	pn_sysroot_set(root);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	pn_sysroot_set("");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void test_reasons(void **state)
{
	struct pn_env env = { .is_root = false };
	char why[512], src[4096];

	(void)state;
#ifndef PN_HAVE_LIBPERF
	skip();
#endif
	assert_int_equal(pn_collector_perf.supported(&env, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "perf_event_paranoid"));
	assert_non_null(strstr(why, "it is 2"));

	env.is_root = true;
	assert_int_equal(pn_collector_perf.supported(&env, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no tracefs"));

	/* a replayed tracefs: now it may run */
	fixture(src, sizeof(src), "tracefs-6.18");
	{
		char cmd[8192];

		snprintf(cmd, sizeof(cmd),
			 "mkdir -p %s/sys/kernel/tracing && cp -r %s/events %s/sys/kernel/tracing/",
			 root, src, root);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(pn_collector_perf.supported(&env, why, sizeof(why)), 0);
	/* paranoid -1 lets anyone take raw samples */
	set_paranoid("-1");
	env.is_root = false;
	assert_int_equal(pn_collector_perf.supported(&env, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
