// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_knob.c - knob names to the files they set: every alias, absolute
 * paths inside the allowed trees, and the names that are refused.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <cjson/cJSON.h>

#include <cmocka.h>

#include "core/sys/knob.h"
#include "core/lib/pn.h"

static void expect_path(const char *key, const char *want)
{
	char path[PATH_MAX], why[256] = "";

	assert_int_equal(pn_knob_path(key, path, sizeof(path), why, sizeof(why)), 0);
	assert_string_equal(path, want);
}

static void expect_refused(const char *key)
{
	char path[PATH_MAX], why[256] = "";

	assert_int_equal(pn_knob_path(key, path, sizeof(path), why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "knob"));
}

static void test_aliases(void **state)
{
	(void)state;
	expect_path("kernel.numa_balancing", "/proc/sys/kernel/numa_balancing");
	expect_path("vm.compaction_proactiveness", "/proc/sys/vm/compaction_proactiveness");
	expect_path("thp.enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
	expect_path("thp.khugepaged.pages_to_scan",
		    "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan");
	expect_path("weighted_interleave.2", "/sys/kernel/mm/mempolicy/weighted_interleave/node2");
	expect_path("zswap.enabled", "/sys/module/zswap/parameters/enabled");
	expect_path("private_node.12.mempolicy",
		    "/sys/devices/system/node/node12/private/mempolicy");
	expect_path("/sys/kernel/mm/numa/demotion_enabled", "/sys/kernel/mm/numa/demotion_enabled");
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused("numa_balancing");
	expect_refused("/etc/passwd");
	expect_refused("/sys/kernel/mm/../../../etc/passwd");
	expect_refused("thp.");
	expect_refused("private_node.1");
	expect_refused("private_node.x.mempolicy");
	expect_refused("private_node.1.");
	expect_refused("private_node.1.a.b");
	expect_refused("private_node.1.a/b");
	expect_refused("kernel.a/b");
	expect_refused("");
	expect_refused("a b");
}

static bool allowed(const char *key)
{
	char path[PATH_MAX], why[256] = "";

	assert_int_equal(pn_knob_path(key, path, sizeof(path), why, sizeof(why)), 0);
	return pn_knob_allowed(key, path);
}

/* Every family a config may set, and what it may not without --allow-knob. */
static void test_allow_list(void **state)
{
	static const char *const ok[] = {
		"vm.stat_interval",
		"vm.compaction_proactiveness",
		"/proc/sys/vm/zone_reclaim_mode",
		"kernel.numa_balancing",
		"kernel.numa_balancing_promote_rate_limit_MBps",
		"thp.enabled",
		"thp.defrag",
		"thp.khugepaged.pages_to_scan",
		"weighted_interleave.3",
		"/sys/kernel/mm/mempolicy/weighted_interleave/auto",
		"/sys/kernel/mm/mempolicy/weighted_interleave/__auto_type",
		"/sys/kernel/mm/numa/demotion_enabled",
		"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
		"/sys/kernel/mm/ksm/run",
		"zswap.enabled",
		"private_node.2.mempolicy",
	};
	static const char *const refused[] = {
		"kernel.core_pattern",
		"/proc/sys/kernel/core_pattern",
		"kernel.modprobe",
		"kernel.numa_balancing/x",
		"fs.suid_dumpable",
		"net.ipv4.ip_forward",
		"/proc/sys/fs/binfmt_misc/register",
		"/sys/module/zswap/parameters/x/y",
		"/sys/module/loop/parameters/max_part",
		"/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds",
		"/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled",
	};

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(ok); i++)
		if (!allowed(ok[i]))
			fail_msg("%s refused", ok[i]);
	for (size_t i = 0; i < PN_ARRAY_SIZE(refused); i++) {
		char path[PATH_MAX], why[256];

		if (pn_knob_path(refused[i], path, sizeof(path), why, sizeof(why)))
			continue; /* not even a knob name */
		if (pn_knob_allowed(refused[i], path))
			fail_msg("%s allowed", refused[i]);
	}
	/* --allow-knob NAME: by key or by path */
	pn_knob_allow("kernel.core_pattern");
	assert_true(allowed("kernel.core_pattern"));
	assert_false(allowed("kernel.modprobe"));
	pn_knob_allow("/proc/sys/kernel/modprobe");
	assert_true(allowed("kernel.modprobe"));
}

/*
 * A write the kernel takes only in part: "5 7" to an int sysctl sets 5 and
 * reports a short write.  kernel.msgmax is per IPC namespace, so the test
 * runs in a fresh one and leaves the host's alone.
 */
static void test_partial_write_restored(void **state)
{
	struct pn_knobs ks = { 0 };
	char before[64], after[64];
	cJSON *j;

	(void)state;
	if (unshare(CLONE_NEWIPC)) {
		skip(); /* needs root (CAP_SYS_ADMIN) */
		return;
	}
	pn_sysroot_set("");
	assert_true(pn_read_text("/proc/sys/kernel/msgmax", before, sizeof(before)) > 0);
	assert_int_not_equal(atoi(before), 5);
	assert_int_equal(pn_knobs_set(&ks, "kernel.msgmax", "5 7"), -EIO);
	assert_true(pn_read_text("/proc/sys/kernel/msgmax", after, sizeof(after)) > 0);
	assert_string_equal(after, before); /* put back at once, not left at 5 */
	assert_int_equal(ks.n, 1);
	assert_true(ks.k[0].changed);
	assert_true(ks.k[0].restored);
	assert_non_null(strstr(ks.k[0].error, "read \"5\""));
	j = pn_knobs_json(&ks);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "restored")));
	cJSON_Delete(j);
	assert_int_equal(pn_knobs_restore(&ks), 0);
	pn_knobs_free(&ks);
}

/* A value with a control character is never written. */
static void test_control_refused(void **state)
{
	struct pn_knobs ks = { 0 };

	(void)state;
	pn_sysroot_set("/nonexistent-sysroot");
	assert_int_equal(pn_knobs_set(&ks, "vm.stat_interval", "5\nkernel.x=1"), -EINVAL);
	assert_int_equal(ks.n, 0);
	pn_knobs_free(&ks);
	pn_sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test(test_partial_write_restored),
		cmocka_unit_test(test_control_refused),
	};

	pn_log_level = PN_LOG_QUIET;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
