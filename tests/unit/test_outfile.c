// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_outfile.c - core/lib/atomicfile.c and core/lib/outdir.c: result files are
 * never written through what is planted under their names, the results
 * directory is locked, and -o names that are no place for results are
 * refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/lib/atomicfile.h"
#include "core/lib/outdir.h"
#include "core/lib/pn.h"

struct fx {
	char dir[64];
	char target[96];
	int fd;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	FILE *t;

	*state = f; /* teardown frees it, also after a failed setup */
	if (!f)
		return -1;
	f->fd = -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/pn-outfile.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->target, sizeof(f->target), "%s/target", f->dir);
	t = fopen(f->target, "w");
	if (!t)
		return -1;
	fputs("precious\n", t);
	fclose(t);
	f->fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pn_log_level = PN_LOG_QUIET;
	return f->fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	if (!f)
		return 0;
	if (f->fd >= 0)
		close(f->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

static void target_untouched(const struct fx *f)
{
	char buf[32] = "";
	FILE *t = fopen(f->target, "r");

	assert_non_null(t);
	assert_non_null(fgets(buf, sizeof(buf), t));
	fclose(t);
	assert_string_equal(buf, "precious\n");
}

static int count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp") != NULL;
	closedir(d);
	return n;
}

static void test_symlink_refused(void **state)
{
	struct fx *f = *state;

	assert_int_equal(symlinkat(f->target, f->fd, "vmstat.csv"), 0);
	assert_int_equal(symlinkat(f->target, f->fd, "run.json"), 0);
	assert_int_equal(pn_outfile_check(f->fd, f->dir, "vmstat.csv"), -ELOOP);
	assert_int_equal(pn_outfile_create(f->fd, f->dir, "vmstat.csv"), -ELOOP);
	assert_int_equal(pn_atomic_writeat(f->fd, f->dir, "run.json", "{}", 2), -ELOOP);
	assert_non_null(strstr(pn_last_error(), "/run.json: is a symlink"));
	target_untouched(f);
}

static void test_fifo_refused(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mkfifoat(f->fd, "nodestat.csv", 0644), 0);
	/* returns at once: the FIFO is never opened */
	assert_int_equal(pn_outfile_create(f->fd, f->dir, "nodestat.csv"), -EEXIST);
	assert_non_null(strstr(pn_last_error(), "a FIFO"));
}

static void test_regular_replaced(void **state)
{
	struct fx *f = *state;
	struct stat st;
	int fd;

	/* an earlier run's CSV that is a hard link of another file */
	assert_int_equal(linkat(f->fd, "target", f->fd, "zoneinfo.csv", 0), 0);
	fd = pn_outfile_create(f->fd, f->dir, "zoneinfo.csv");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "new\n", 4), 4);
	close(fd);
	target_untouched(f);
	assert_int_equal(fstatat(f->fd, "zoneinfo.csv", &st, 0), 0);
	assert_int_equal(st.st_size, 4);
	/* atomic replace of a regular file, no temporary left behind */
	assert_int_equal(pn_atomic_writeat(f->fd, f->dir, "zoneinfo.csv", "x", 1), 0);
	assert_int_equal(fstatat(f->fd, "zoneinfo.csv", &st, 0), 0);
	assert_int_equal(st.st_size, 1);
	assert_int_equal(count_tmp(f->dir), 0);
}

static void test_outdir_arg(void **state)
{
	char *longname = malloc(PATH_MAX + 8);

	(void)state;
	assert_int_equal(pn_outdir_check_arg(""), -EINVAL);
	memset(longname, 'a', PATH_MAX + 7);
	longname[PATH_MAX + 7] = '\0';
	assert_int_equal(pn_outdir_check_arg(longname), -ENAMETOOLONG);
	free(longname);
	assert_int_equal(pn_outdir_check_arg("/proc/pn-outfile-test/x/y"), -EINVAL);
	assert_non_null(strstr(pn_last_error(), "procfs"));
	assert_int_equal(pn_outdir_check_arg("/sys/pn-outfile-test"), -EINVAL);
	assert_int_equal(pn_outdir_check_arg("/tmp/pn-outfile-test/x"), 0);
	assert_int_equal(pn_outdir_check_arg("relative/dir"), 0);
}

static void test_outdir_lock(void **state)
{
	struct fx *f = *state;
	char dir[96], link[96];
	int a, b;

	snprintf(dir, sizeof(dir), "%s/run/a/b", f->dir);
	a = pn_outdir_open(dir, false, false);
	assert_true(a >= 0);
	/* a second open of the same directory: refused while the first holds it */
	b = pn_outdir_open(dir, false, false);
	assert_int_equal(b, -EBUSY);
	pn_lock_release(a);
	b = pn_outdir_open(dir, false, false);
	assert_true(b >= 0);
	pn_lock_release(b);
	/* exclusive: an existing directory is -EEXIST, without a message */
	assert_int_equal(pn_outdir_open(dir, true, false), -EEXIST);
	/* a symlinked -o is refused, naming its target */
	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(pn_outdir_open(link, false, false), -ELOOP);
	assert_non_null(strstr(pn_last_error(), dir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regular_replaced, setup, teardown),
		cmocka_unit_test(test_outdir_arg),
		cmocka_unit_test_setup_teardown(test_outdir_lock, setup, teardown),
	};

	return cmocka_run_group_tests_name("outfile", tests, NULL, NULL);
}
