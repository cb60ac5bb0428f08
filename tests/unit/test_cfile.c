// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cfile.c - pn_file (kept open, re-read with pread) and the collectors'
 * counter-file fast path (core/sys/cfile.h): line templates, their fallbacks
 * when a file's layout changes, and the common prefix of sampled lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sys/cfile.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"

#define KB(x) ((int64_t)(x)*1024)

/* ---- pn_file: kept open, re-read with pread ---- */

static void test_pn_file_reread(void **state)
{
	char dir[] = "/tmp/pn-test-XXXXXX", p[256];
	struct pn_file f;
	char big[10000];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/counter", dir);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a 1\n", 4), 4);

	pn_sysroot_set(dir);
	assert_int_equal(pn_file_open(&f, "/counter"), 0);
	assert_int_equal(pn_file_read(&f), 0);
	assert_string_equal(f.buf, "a 1\n");

	/* Same inode, new content: the next read sees it without reopening. */
	assert_int_equal(pwrite(fd, "a 22\n", 5, 0), 5);
	assert_int_equal(pn_file_read(&f), 0);
	assert_string_equal(f.buf, "a 22\n");
	assert_int_equal(f.len, 5);

	/* Shorter content: no stale tail. */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "b 3\n", 4, 0), 4);
	assert_int_equal(pn_file_read(&f), 0);
	assert_string_equal(f.buf, "b 3\n");

	/* More than the initial buffer: it grows. */
	memset(big, 'x', sizeof(big));
	assert_int_equal(pwrite(fd, big, sizeof(big), 0), (ssize_t)sizeof(big));
	assert_int_equal(pn_file_read(&f), 0);
	assert_int_equal(f.len, sizeof(big));
	assert_int_equal(strlen(f.buf), sizeof(big));

	pn_file_close(&f);
	assert_int_equal(f.fd, -1);
	close(fd);
	unlink(p);
	rmdir(dir);
}

/* ---- the counter-file fast path and its fallbacks ---- */

static int col_for_all(void *arg, const char *key)
{
	int *n = arg;

	(void)key;
	return (*n)++;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_cfile_layouts(void **state)
{
	char dir[] = "/tmp/pn-test-XXXXXX", p[256];
	struct pn_cfile cf;
	int64_t row[3];
	int ncols = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/vmstat", dir);
	write_file(p, "a 1\nbb 2\nccc 3\n");
	pn_sysroot_set(dir);
	assert_int_equal(pn_cfile_open(&cf, "/vmstat", PN_CFILE_KV, -1, col_for_all, &ncols), 0);
	assert_int_equal(ncols, 3);

	write_file(p, "a 10\nbb 20\nccc 18446744073709551615\n");
	assert_int_equal(pn_cfile_sample(&cf, row), 0);
	assert_int_equal(row[0], 10);
	assert_int_equal(row[1], 20);
	assert_int_equal(row[2], -1);

	/* reordered and with a new key: the slow path maps by key */
	write_file(p, "ccc 33\nnew 5\na 11\nbb 22");
	assert_int_equal(pn_cfile_sample(&cf, row), 0);
	assert_int_equal(row[0], 11);
	assert_int_equal(row[1], 22);
	assert_int_equal(row[2], 33);

	/* a prefix of a key is not the key */
	write_file(p, "a 1\nb 2\nccc 3\n");
	assert_int_equal(pn_cfile_sample(&cf, row), -EPROTO);

	/* a key disappeared: an error, never a silent 0 */
	write_file(p, "a 1\nccc 3\n");
	assert_int_equal(pn_cfile_sample(&cf, row), -EPROTO);

	write_file(p, "a 1\nbb two\nccc 3\n");
	assert_int_equal(pn_cfile_sample(&cf, row), -EINVAL);
	pn_cfile_close(&cf);

	/* a key that occurs twice keeps its position, also on the slow path
	 * (a line of blanks forces it) */
	write_file(p, "k 1\nk 2\n");
	ncols = 0;
	assert_int_equal(pn_cfile_open(&cf, "/vmstat", PN_CFILE_KV, -1, col_for_all, &ncols), 0);
	write_file(p, "k 5\n   \nk 6\n");
	assert_int_equal(pn_cfile_sample(&cf, row), 0);
	assert_int_equal(row[0], 5);
	assert_int_equal(row[1], 6);
	pn_cfile_close(&cf);

	/* node meminfo: kB -> bytes, padding that changes with the value */
	snprintf(p, sizeof(p), "%s/meminfo", dir);
	write_file(p, "Node 2 MemTotal:       1024 kB\nNode 2 HugePages_Total:     0\n");
	ncols = 0;
	assert_int_equal(
		pn_cfile_open(&cf, "/meminfo", PN_CFILE_NODE_MEMINFO, 2, col_for_all, &ncols), 0);
	write_file(p, "Node 2 MemTotal:       123456789 kB\nNode 2 HugePages_Total:     7\n");
	assert_int_equal(pn_cfile_sample(&cf, row), 0);
	assert_int_equal(row[0], KB(123456789));
	assert_int_equal(row[1], 7);
	write_file(p, "Node 3 MemTotal:       1 kB\nNode 3 HugePages_Total:     7\n");
	assert_int_equal(pn_cfile_sample(&cf, row), -EINVAL);
	pn_cfile_close(&cf);

	/* garbage at open is refused with the file named */
	write_file(p, "Node 2 MemTotal 1 kB\n");
	assert_int_equal(
		pn_cfile_open(&cf, "/meminfo", PN_CFILE_NODE_MEMINFO, 2, col_for_all, &ncols),
		-EINVAL);
	assert_int_equal(pn_cfile_open(&cf, "/missing", PN_CFILE_KV, -1, col_for_all, &ncols),
			 -ENOENT);

	unlink(p);
	snprintf(p, sizeof(p), "%s/vmstat", dir);
	unlink(p);
	rmdir(dir);
}

static void test_tlines_prefix(void **state)
{
	static const struct {
		const char *line;
		size_t len;
	} t[] = {
		{ "nr_free_pages 12", 13 },
		{ "Node 0 MemTotal:       16318988 kB", 16 },
		{ "        min      12", 11 },
		{ "    cpu: 0", 8 },
		{ "Node 0, zone    DMA32", 0 },
		{ "        protection: (0, 2899, 15848)", 0 },
		{ "Node 0 ShadowCallStack:12345678 kB", 23 },
		{ "x -5", 1 },
		{ "12", 0 },
		{ "", 0 },
	};

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(t); i++) {
		const char *l = t[i].line;

		if (pn_cfile_lines_prefix_len(l, l + strlen(l)) != t[i].len) {
			print_error("\"%s\": prefix %zu, want %zu\n", l,
				    pn_cfile_lines_prefix_len(l, l + strlen(l)), t[i].len);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pn_file_reread),
		cmocka_unit_test(test_cfile_layouts),
		cmocka_unit_test(test_tlines_prefix),
	};

	pn_log_level = PN_LOG_QUIET; /* expected errors would clutter the output */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
