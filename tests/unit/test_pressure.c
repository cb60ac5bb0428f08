// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pressure.c - the background pressure workload on the running kernel:
 * every kind run for real through setup/run/teardown (in this process, as
 * the runner's child would), and what it reports checked against what is on
 * disk, in /proc/self and in the kernel: bytes written and re-read from a
 * loop-mounted ext4 image, files created and removed, descriptors held,
 * anonymous pages resident, compaction runs, knobs asked for, the
 * filesystem gone after teardown, the stop request.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "core/api/params.h"
#include "core/lib/pn.h"
#include "workloads/lib/scratchfs.h"
#include "core/sys/procfs.h"
#include "workloads/lib/stress.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"
#include "wltest.h"

extern const struct pn_workload pn_workload_pressure;

static const struct pn_workload *W = &pn_workload_pressure;
static char imgdir[64];

static void ctx_init(struct wlt *c, const char *json)
{
	cJSON *in = cJSON_Parse(json);

	assert_non_null(in);
	if (!cJSON_GetObjectItem(in, "image_dir"))
		cJSON_AddStringToObject(in, "image_dir", imgdir);
	wlt_init_obj(c, W, in, "0", NULL, NULL);
}

/* A metric by name and "k=v" label (NULL: unlabelled); fails if missing. */
static double mval(const struct pn_res *r, const char *name, const char *label)
{
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItem(r->root, "metrics")) {
		const cJSON *labels = cJSON_GetObjectItem(m, "labels"), *l;
		char buf[96] = "";

		if (strcmp(cJSON_GetObjectItem(m, "name")->valuestring, name) != 0)
			continue;
		l = labels ? labels->child : NULL;
		if (l)
			snprintf(buf, sizeof(buf), "%s=%s", l->string, l->valuestring);
		if ((!label && !l) || (label && !strcmp(buf, label)))
			return cJSON_GetObjectItem(m, "value")->valuedouble;
	}
	fail_msg("metric %s{%s} missing", name, label ? label : "");
	return -1;
}

static bool has_metric(const struct pn_res *r, const char *name)
{
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItem(r->root, "metrics"))
		if (!strcmp(cJSON_GetObjectItem(m, "name")->valuestring, name))
			return true;
	return false;
}

/* Every check passed; returns how many there were. */
static int checks_pass(const struct pn_res *r)
{
	const cJSON *c;
	int n = 0;

	cJSON_ArrayForEach (c, cJSON_GetObjectItem(r->root, "checks")) {
		if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "pass")))
			fail_msg("check failed: %s (%s)",
				 cJSON_GetObjectItem(c, "name")->valuestring,
				 cJSON_GetObjectItem(c, "observed")->valuestring);
		n++;
	}
	return n;
}

static bool note_has(const struct pn_res *r, const char *text)
{
	const cJSON *n;

	cJSON_ArrayForEach (n, cJSON_GetObjectItem(r->root, "notes"))
		if (strstr(n->valuestring, text))
			return true;
	return false;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	const struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static long count_fds(void)
{
	return entries("/proc/self/fd");
}

static long resident_pages(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &size, &res), 2);
	fclose(f);
	return res;
}

static uint64_t tree_files, tree_dirs;
static int count_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path, (void)st, (void)ftw;
	tree_files += type == FTW_F;
	tree_dirs += type == FTW_D;
	return 0;
}

static bool mounted(const char *mnt)
{
	char line[8192];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, mnt) != NULL;
	fclose(f);
	return found;
}

/* Page cache and slab trees need root, loop devices and mke2fs. */
static void need_scratch_fs(void)
{
	char *argv[] = { "mke2fs", "-V", NULL };

	if (geteuid() != 0) {
		print_message("SKIP: needs root (mount)\n");
		skip();
	}
	if (access("/dev/loop-control", R_OK | W_OK)) {
		print_message("SKIP: no /dev/loop-control (loop devices)\n");
		skip();
	}
	if (pn_run_quiet(argv)) {
		print_message("SKIP: mke2fs not installed (e2fsprogs)\n");
		skip();
	}
}

/* After every test, also a failed one: nothing of ours stays mounted. */
static int cleanup(void **state)
{
	DIR *d = opendir(imgdir);
	const struct dirent *e;
	char path[PATH_MAX];

	(void)state;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", imgdir, e->d_name);
		if (umount2(path, MNT_DETACH) == 0 || e->d_type == DT_DIR) {
			struct pn_tree_stats s;

			(void)pn_tree_remove(path, &s);
		}
		(void)unlink(path);
	}
	closedir(d);
	return 0;
}

static void test_option_table(void **state)
{
	static const char *const names[] = {
		"kinds",
		"anon_share",
		"pagecache_share",
		"files",
		"depth",
		"sockets",
		"pipes",
		"queue_bytes",
		"threads",
		"duration",
		"compact_interval",
		"reclaim_share",
		"device",
		"image_dir",
		"fstype",
		"max_mem_share",
	};

	(void)state;
	assert_string_equal(W->name, "pressure");
	for (size_t i = 0; i < PN_ARRAY_SIZE(names); i++) {
		const struct pn_opt *o = W->opts;

		while (o->name && strcmp(o->name, names[i]) != 0)
			o++;
		assert_non_null(o->name);
		assert_non_null(o->def);
	}
}

static void test_bad_params(void **state)
{
	/* refused when the config loads, naming the option's path */
	static const char *const bad_at_load[] = {
		"{\"kinds\":\"anon,pagecahce\"}", "{\"kinds\":\",\"}",
		"{\"kinds\":\"anon,,x\"}",	  "{\"kinds\":\"\"}",
		"{\"fstype\":\"xfs\"}",
	};
	static const char *const bad[] = {
		"{\"kinds\":\"anon\",\"anon_share\":0}",
		"{\"kinds\":\"pagecache\",\"pagecache_share\":0}",
	};
	struct wlt c;
	cJSON *out = NULL;

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad_at_load); i++) {
		cJSON *in = cJSON_Parse(bad_at_load[i]);

		assert_int_equal(pn_params_resolve(W->opts, in, "test", "$.params", &out), -EINVAL);
		assert_null(out);
		cJSON_Delete(in);
	}
	/* blanks separate kinds too */
	{
		cJSON *in = cJSON_Parse("{\"kinds\":\"anon pagecache, slab\"}");

		assert_int_equal(pn_params_resolve(W->opts, in, "test", "$.params", &out), 0);
		cJSON_Delete(in);
		cJSON_Delete(out);
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		ctx_init(&c, bad[i]);
		assert_int_equal(W->setup(&c.w), -EINVAL);
		wlt_fini(&c, true);
	}
	/* More than the share of MemAvailable is refused before anything is made. */
	ctx_init(&c, "{\"kinds\":\"anon,pagecache\",\"anon_share\":0.5,\"pagecache_share\":0.5,"
		     "\"max_mem_share\":0.9}");
	assert_int_equal(W->setup(&c.w), -ENOMEM);
	assert_int_equal(entries(imgdir), 0);
	wlt_fini(&c, true);
	/* The suite's limit bounds the workload's own share. */
	ctx_init(&c, "{\"kinds\":\"anon\",\"anon_share\":0.01}");
	c.w.max_mem_share = 0.001;
	assert_int_equal(W->setup(&c.w), -ENOMEM);
	wlt_fini(&c, true);
}

static void test_knobs_asked(void **state)
{
	struct wlt c;
	bool numa = false, thp = false, scan = false;

	(void)state;
	if (!pn_exists("/proc/sys/kernel/numa_balancing") ||
	    !pn_exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
		print_message("SKIP: no numa_balancing or THP in this kernel\n");
		skip();
	}
	ctx_init(&c, "{\"kinds\":\"numa_balancing,thp\",\"anon_share\":0.001}");
	assert_int_equal(W->setup(&c.w), 0);
	for (size_t i = 0; i < c.w.nknobs; i++) {
		numa |= !strcmp(c.w.knobs[i].key, "kernel.numa_balancing") &&
			!strcmp(c.w.knobs[i].value, "1");
		thp |= !strcmp(c.w.knobs[i].key, "thp.enabled") &&
		       !strcmp(c.w.knobs[i].value, "always");
		scan |= !strcmp(c.w.knobs[i].key, "thp.khugepaged.scan_sleep_millisecs");
	}
	assert_true(numa && thp && scan);
	assert_true(c.w.mem_bytes >= 2u << 20);
	wlt_fini(&c, true);
}

/* Anonymous memory: resident while mapped, re-touched by the threads. */
static void test_anon(void **state)
{
	struct wlt c;
	long before, mapped, after;
	double bytes;

	(void)state;
	ctx_init(&c,
		 "{\"kinds\":\"anon\",\"anon_share\":0.002,\"threads\":2,\"duration\":\"300ms\"}");
	assert_int_equal(W->setup(&c.w), 0);
	before = resident_pages();
	assert_int_equal(W->run(&c.w), 0);
	mapped = resident_pages();
	bytes = mval(&c.w.res, "bytes", "kind=anon");
	assert_true(bytes >= 2u << 20);
	assert_true((double)c.w.mem_bytes >= bytes);
	assert_true(mapped - before >= (long)(bytes / 4096) * 9 / 10);
	assert_true(mval(&c.w.res, "pages_touched", "kind=anon") > bytes / 4096);
	assert_true(mval(&c.w.res, "active", "kind=anon") == 1.0);
	assert_true(mval(&c.w.res, "active", "kind=pagecache") == 0.0);
	assert_true(mval(&c.w.res, "rounds", NULL) >= 1);
	assert_true(mval(&c.w.res, "duration_ns", NULL) >= 3e8);
	wlt_fini(&c, true);
	after = resident_pages();
	assert_true(mapped - after >= (long)(bytes / 4096) * 9 / 10);
}

/* Page cache on a loop-mounted ext4 image: written, dropped, re-read and
 * verified; the files are on the filesystem, gone after teardown. */
static void test_pagecache(void **state)
{
	struct wlt c;
	char mnt[PATH_MAX], path[PATH_MAX + 8];
	struct stat st;
	double bytes;

	(void)state;
	need_scratch_fs();
	ctx_init(&c, "{\"kinds\":\"pagecache\",\"pagecache_share\":0.002,\"duration\":\"0\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(entries(imgdir), 2); /* the image and the mount point */
	assert_int_equal(W->run(&c.w), 0);
	bytes = mval(&c.w.res, "bytes", "kind=pagecache");
	assert_true(bytes > 0);
	assert_true(mval(&c.w.res, "bytes_written", "kind=pagecache") == bytes);
	assert_true(mval(&c.w.res, "bytes_read", "kind=pagecache") == bytes);
	assert_true(mval(&c.w.res, "bad_bytes", "kind=pagecache") == 0);
	assert_int_equal(checks_pass(&c.w.res), 2);
	assert_true(note_has(&c.w.res, "ext4 on /dev/loop"));
	/* the mount point is the image_dir entry that is a directory */
	snprintf(mnt, sizeof(mnt), "%s", "");
	{
		DIR *d = opendir(imgdir);
		const struct dirent *e;

		assert_non_null(d);
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "pnbench-mnt-", 12))
				snprintf(mnt, sizeof(mnt), "%s/%s", imgdir, e->d_name);
		closedir(d);
	}
	assert_true(mounted(mnt));
	snprintf(path, sizeof(path), "%s/pc0", mnt);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 0 && (double)st.st_size <= bytes);
	c.w.in_child = true;
	W->teardown(&c.w); /* the child removes its files */
	assert_int_equal(stat(path, &st), -1);
	c.w.in_child = false;
	W->teardown(&c.w); /* the runner unmounts and removes the image */
	assert_false(mounted(mnt));
	assert_int_equal(entries(imgdir), 0);
	pn_res_free(&c.w.res);
	cJSON_Delete(c.obj);
}

/* Slab: trees of small files, one replacing the other every round. */
static void test_slab(void **state)
{
	struct wlt c;
	double made, removed, dirs;

	(void)state;
	need_scratch_fs();
	ctx_init(&c, "{\"kinds\":\"slab\",\"files\":300,\"depth\":3,\"duration\":\"0\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	/* one round: 300 files in ceil(300/64) = 5 chains of 3 dirs, plus the root */
	assert_true(mval(&c.w.res, "files_created", "kind=slab") == 300);
	assert_true(mval(&c.w.res, "dirs_created", "kind=slab") == 16);
	assert_true(mval(&c.w.res, "files_removed", "kind=slab") == 0);
	assert_int_equal(checks_pass(&c.w.res), 1);
	wlt_fini(&c, true);

	ctx_init(&c, "{\"kinds\":\"slab\",\"files\":200,\"depth\":4,\"duration\":\"400ms\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	made = mval(&c.w.res, "files_created", "kind=slab");
	removed = mval(&c.w.res, "files_removed", "kind=slab");
	dirs = mval(&c.w.res, "dirs_removed", "kind=slab");
	assert_true(made >= 400);
	/* every tree but the last was removed, file by file */
	assert_true(removed == made - 200);
	assert_true(dirs == removed / 200 * (4 * 4 + 1));
	{
		const struct pn_res *r = &c.w.res;
		char mnt[PATH_MAX] = "";
		DIR *d = opendir(imgdir);
		const struct dirent *e;

		assert_non_null(d);
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "pnbench-mnt-", 12))
				snprintf(mnt, sizeof(mnt), "%s/%s", imgdir, e->d_name);
		closedir(d);
		tree_files = tree_dirs = 0;
		assert_int_equal(nftw(mnt, count_one, 16, FTW_PHYS), 0);
		assert_int_equal(tree_files, 200); /* the tree that stands */
		(void)r;
	}
	wlt_fini(&c, true);
	assert_int_equal(entries(imgdir), 0);
}

/* Sockets and pipes: held open with data queued, closed at teardown. */
static void test_sockets(void **state)
{
	struct wlt c;
	long before = count_fds(), held;

	(void)state;
	ctx_init(&c, "{\"kinds\":\"sockets\",\"sockets\":100,\"pipes\":10,\"queue_bytes\":\"4K\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	held = count_fds();
	assert_int_equal(held - before, 100 + 2 * 10);
	assert_true(mval(&c.w.res, "sockets", "kind=sockets") == 100);
	assert_true(mval(&c.w.res, "pipes", "kind=sockets") == 10);
	assert_true(mval(&c.w.res, "bytes_queued", "kind=sockets") == (50 + 10) * 4096.0);
	assert_int_equal(checks_pass(&c.w.res), 1);
	wlt_fini(&c, true);
	assert_int_equal(count_fds(), before);
}

/* Compaction: compact_memory written by a helper, the kernel's counters read. */
static void test_compaction(void **state)
{
	struct wlt c;

	(void)state;
	if (geteuid() != 0 || !pn_exists("/proc/sys/vm/compact_memory")) {
		print_message("SKIP: needs root and /proc/sys/vm/compact_memory\n");
		skip();
	}
	ctx_init(&c, "{\"kinds\":\"compaction\",\"duration\":\"1200ms\",\"compact_interval\":"
		     "\"100ms\"}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	/* a run takes as long as the kernel needs: at least one began */
	assert_true(mval(&c.w.res, "compaction_started", "kind=compaction") >= 1);
	assert_true(mval(&c.w.res, "compaction_runs", "kind=compaction") <=
		    mval(&c.w.res, "compaction_started", "kind=compaction"));
	assert_true(mval(&c.w.res, "vmstat_delta", "counter=compact_migrate_scanned") >= 0);
	assert_true(has_metric(&c.w.res, "vmstat_delta"));
	wlt_fini(&c, true);
}

/* Reclaim needs a cgroup v2 leaf: without one it says so. */
static void test_reclaim_without_v2(void **state)
{
	struct wlt c;

	(void)state;
	ctx_init(&c, "{\"kinds\":\"reclaim,sockets\",\"sockets\":2,\"pipes\":0}");
	assert_int_equal(W->setup(&c.w), 0);
	assert_int_equal(W->run(&c.w), 0);
	assert_true(note_has(&c.w.res, "kind reclaim: no cgroup leaf"));
	assert_false(has_metric(&c.w.res, "memory_high_bytes"));
	wlt_fini(&c, true);
	if (!pn_exists("/sys/fs/cgroup/cgroup.controllers")) {
		print_message("SKIP: memory.high below the working set needs cgroup v2 (this "
			      "host has v1); the guest suite runs it\n");
		skip();
	}
}

static void test_scratch_errors(void **state)
{
	struct pn_scratch_fs fs;
	struct wlt c;

	(void)state;
	need_scratch_fs();
	/* a device that is not there: named, nothing left behind */
	ctx_init(&c, "{\"kinds\":\"slab\",\"files\":10,\"device\":\"/dev/pnbench-none\"}");
	assert_int_equal(W->setup(&c.w), -ENOENT);
	wlt_fini(&c, true);
	/* mkfs fails (a type the option would refuse): the image it made is removed */
	assert_true(pn_scratch_fs_make(&fs, "", imgdir, 16 << 20, "nosuchfs") < 0);
	assert_int_equal(entries(imgdir), 0);
}

/* A kernel with private nodes counts their free memory in MemAvailable:
 * sizes stay the same, but anonymous memory must fit in the rest.  Node 0
 * plays the private node here. */
static void test_private_nodes_budget(void **state)
{
	struct pn_node_info ni = { .id = 0, .has_private_memory = true };
	struct pn_topology t = { .nnodes = 1, .nodes = &ni };
	uint64_t avail = 0, gen = 0, priv = 0;
	char json[128], msg[1024];
	struct wlt c;

	(void)state;
	assert_int_equal(pn_mem_available(&avail), 0);
	assert_int_equal(pn_general_available(&t, &gen, &priv), 0);
	assert_true(priv > 0);
	/* one reading apart: within 5 % of MemAvailable */
	assert_true(gen + priv > avail * 95 / 100 && gen + priv < avail * 105 / 100);
	assert_int_equal(pn_general_available(NULL, &gen, &priv), 0);
	assert_int_equal(priv, 0);
	assert_int_equal(pn_general_available(&t, &gen, &priv), 0);
	if (priv < avail / 20) {
		print_message(
			"SKIP: node 0 has little free memory (%llu MiB), the case needs room\n",
			(unsigned long long)(priv >> 20));
		skip();
	}
	/* within the 50 % of MemAvailable, over 50 % of what is general */
	snprintf(json, sizeof(json), "{\"kinds\":\"anon\",\"anon_share\":%.4f}",
		 0.25 * (1.0 + (double)gen / (double)(gen + priv)));
	ctx_init(&c, json);
	c.w.topo = &t;
	assert_int_equal(wlt_capture_stderr(W->setup, &c.w, msg, sizeof(msg)), -ENOMEM);
	assert_non_null(strstr(msg, "general allocations can use"));
	wlt_fini(&c, true);
	ctx_init(&c, "{\"kinds\":\"anon\",\"anon_share\":0.001}");
	c.w.topo = &t;
	assert_int_equal(W->setup(&c.w), 0);
	wlt_fini(&c, true);
}

static void test_stop(void **state)
{
	struct wlt c;
	volatile sig_atomic_t bg_stop = 1;
	uint64_t t0;

	(void)state;
	/* The runner ending a background workload: a normal end, at once. */
	ctx_init(&c, "{\"kinds\":\"anon,sockets\",\"anon_share\":0.001,\"sockets\":4}");
	c.w.background = true;
	c.w.stop = &bg_stop;
	assert_int_equal(W->setup(&c.w), 0);
	t0 = pn_now_ns();
	assert_int_equal(W->run(&c.w), 0);
	assert_true(pn_now_ns() - t0 < 2000000000ULL);
	wlt_fini(&c, true);
	/* A signal: -EINTR. */
	ctx_init(&c, "{\"kinds\":\"anon\",\"anon_share\":0.001}");
	c.w.background = true;
	assert_int_equal(W->setup(&c.w), 0);
	pn_stop_signal = SIGINT;
	assert_int_equal(W->run(&c.w), -EINTR);
	pn_stop_signal = 0;
	wlt_fini(&c, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_option_table, cleanup),
		cmocka_unit_test_teardown(test_bad_params, cleanup),
		cmocka_unit_test_teardown(test_knobs_asked, cleanup),
		cmocka_unit_test_teardown(test_anon, cleanup),
		cmocka_unit_test_teardown(test_pagecache, cleanup),
		cmocka_unit_test_teardown(test_slab, cleanup),
		cmocka_unit_test_teardown(test_sockets, cleanup),
		cmocka_unit_test_teardown(test_compaction, cleanup),
		cmocka_unit_test_teardown(test_reclaim_without_v2, cleanup),
		cmocka_unit_test_teardown(test_scratch_errors, cleanup),
		cmocka_unit_test_teardown(test_private_nodes_budget, cleanup),
		cmocka_unit_test_teardown(test_stop, cleanup),
	};
	int ret;

	pn_log_level = PN_LOG_QUIET;
	pn_sysroot_set(NULL);
	snprintf(imgdir, sizeof(imgdir), "/var/tmp/pnbench-test-XXXXXX");
	if (!mkdtemp(imgdir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(imgdir);
	return ret;
}
