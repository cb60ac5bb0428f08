// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_procfs_maps.c - the per-process parsers: /proc/PID/numa_maps and
 * /proc/PID/maps, on text captured on a real machine (tests/fixtures/numa_maps:
 * `cat` reading its own numa_maps, and tests/tools/pn-vmas with 30 000
 * one-page VMAs, a bound, an interleaved and a hugetlb VMA: 2.7 MB of
 * numa_maps, 2.9 MB of maps, stored xz-compressed), on handcrafted lines for
 * what this host cannot show (several nodes, other policies, paths with
 * spaces), on malformed text, and live on a child process (pn-vmas).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sys/procfs.h"

static char srcdir[PATH_MAX + 16], bindir[PATH_MAX];

#define PAGE 4096ULL

/* ---- helpers ---- */

/* The whole output of a command (the xz captures); NULL if it failed. */
static char *run_cmd(const char *cmd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	FILE *f = popen(cmd, "r");
	size_t r;

	assert_non_null(buf);
	if (!f) {
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			assert_non_null(nb);
			buf = nb;
			cap *= 2;
		}
	}
	if (pclose(f) != 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* A fixture, decompressed with xz when its name ends in .xz; skips the
 * test when xz is missing. */
static char *fixture(const char *name, size_t *len)
{
	char path[PATH_MAX + 128], cmd[PATH_MAX + 192];
	char *buf;
	int n = snprintf(path, sizeof(path), "%s/tests/fixtures/numa_maps/%s", srcdir, name);

	*len = 0;

	assert_true(n > 0 && (size_t)n < sizeof(path));
	if (access(path, R_OK) != 0)
		fail_msg("missing fixture %s", path);
	if (strstr(name, ".xz")) {
		if (system("command -v xz >/dev/null 2>&1") != 0) {
			print_message("skip: xz not installed (apt-get install xz-utils)\n");
			return NULL;
		}
		snprintf(cmd, sizeof(cmd), "xz -dc '%s'", path);
	} else {
		snprintf(cmd, sizeof(cmd), "cat '%s'", path);
	}
	buf = run_cmd(cmd, len);
	if (!buf)
		fail_msg("cannot read %s", path);
	return buf;
}

static struct pn_numa_maps nm; /* 8 KiB: not on the stack */

static void nm_ok(const char *text)
{
	int ret = pn_parse_numa_maps(text, strlen(text), &nm);

	if (ret)
		fail_msg("pn_parse_numa_maps rejected (%d):\n%s", ret, text);
}

static void nm_bad(const char *text)
{
	int ret;

	/* start from a non-empty result: a failure must clear it */
	nm_ok("1000 default anon=1 N0=1 kernelpagesize_kB=4\n");
	ret = pn_parse_numa_maps(text, strlen(text), &nm);
	if (ret != -EINVAL)
		fail_msg("pn_parse_numa_maps accepted (%d):\n%s", ret, text);
	assert_int_equal(nm.vmas, 0);
	assert_int_equal(nm.total_bytes, 0);
	assert_int_equal(nm.node_bytes[0], 0);
	assert_true(pn_nodeset_empty(&nm.nodes));
}

/* ---- numa_maps ---- */

/* `cat /proc/self/numa_maps` on this machine: 37 VMAs, expected numbers
 * summed independently (awk over the same file, see the fixture README). */
static void test_numa_maps_cat(void **state)
{
	size_t len;
	char *buf = fixture("cat-self.numa_maps", &len);

	(void)state;
	assert_int_equal(pn_parse_numa_maps(buf, len, &nm), 0);
	assert_int_equal(nm.vmas, 37);
	assert_int_equal(nm.node_bytes[0], 1789952);
	assert_int_equal(nm.total_bytes, 1789952);
	assert_int_equal(nm.anon_bytes, 114688);
	assert_int_equal(nm.file_bytes, 1675264);
	assert_int_equal(nm.hugetlb_bytes, 0);
	assert_int_equal(pn_nodeset_count(&nm.nodes), 1);
	free(buf);
}

/* 60 032 VMAs, 2.7 MB: the old reader (a static 1 MiB buffer) saw a third
 * of it; any cut is now -EINVAL instead of an under-count. */
static void test_numa_maps_huge_process(void **state)
{
	size_t len, cut;
	char *buf = fixture("many-vmas.numa_maps.xz", &len);

	(void)state;
	if (!buf) {
		skip();
		return;
	}
	assert_true(len > (size_t)2 << 20);
	assert_int_equal(pn_parse_numa_maps(buf, len, &nm), 0);
	assert_int_equal(nm.vmas, 60032);
	assert_int_equal(nm.node_bytes[0], 126910464);
	assert_int_equal(nm.total_bytes, 126910464);
	assert_int_equal(nm.anon_bytes, 123142144);
	assert_int_equal(nm.file_bytes, 1671168);
	assert_int_equal(nm.hugetlb_bytes, 2097152); /* one 2 MiB page */
	/* the first MiB, as the old reader had it: cut inside a line */
	assert_int_equal(pn_parse_numa_maps(buf, 1 << 20, &nm), -EINVAL);
	assert_int_equal(nm.total_bytes, 0);
	/* cut at a line end: valid text, and it is less */
	cut = 1 << 20;
	while (buf[cut - 1] != '\n')
		cut--;
	assert_int_equal(pn_parse_numa_maps(buf, cut, &nm), 0);
	assert_true(nm.total_bytes < 126910464 / 2);
	free(buf);
}

/* What one node and a stock kernel do not show: several nodes, page sizes,
 * every policy spelling, paths with spaces, VMAs without pages. */
static void test_numa_maps_sums(void **state)
{
	(void)state;
	nm_ok("");
	assert_int_equal(nm.vmas, 0);
	assert_int_equal(nm.total_bytes, 0);
	nm_ok("7f0000000000 default\n"
	      "7f0000100000 bind:1-2 anon=10 dirty=10 N1=4 N2=6 kernelpagesize_kB=4\n"
	      "7f0000200000 interleave=static:0,2 anon=3 N0=1 N2=2 kernelpagesize_kB=4\n"
	      "7f0000300000 prefer (many):1,2 anon=2 N1=2 kernelpagesize_kB=4\n"
	      "7f0000400000 prefer (many)=relative:1 anon=1 N5=1 kernelpagesize_kB=4\n"
	      "7f0000500000 weighted interleave:0-2 anon=3 N0=1 N1=1 N2=1 kernelpagesize_kB=4\n"
	      "7f0000600000 prefer:2 file=/dev/hugepages/a\\040b huge dirty=2 N2=2 "
	      "kernelpagesize_kB=2048\n"
	      "7f0000800000 local file=/tmp/with space/x (deleted) mapped=3 mapmax=2 N0=3 "
	      "kernelpagesize_kB=4\n"
	      "7f0000900000 default file=/tmp/a huge\n"
	      "7f0000a00000 default heap anon=5 dirty=5 swapcache=1 active=0 writeback=1 "
	      "future_counter=7 N1023=5 kernelpagesize_kB=4\n"
	      "7ffd00000000 default stack anon=1 N0=1 kernelpagesize_kB=64\n");
	assert_int_equal(nm.vmas, 11);
	assert_int_equal(nm.node_bytes[0], (1 + 1 + 3) * PAGE + 65536);
	assert_int_equal(nm.node_bytes[1], (4 + 2 + 1) * PAGE);
	assert_int_equal(nm.node_bytes[2], (6 + 2 + 1) * PAGE + 2 * 2097152ULL);
	assert_int_equal(nm.node_bytes[5], PAGE);
	assert_int_equal(nm.node_bytes[1023], 5 * PAGE);
	assert_int_equal(pn_nodeset_count(&nm.nodes), 5);
	assert_int_equal(nm.total_bytes, 27 * PAGE + 65536 + 2 * 2097152ULL);
	assert_int_equal(nm.anon_bytes, 24 * PAGE + 65536);
	assert_int_equal(nm.file_bytes, 3 * PAGE);
	assert_int_equal(nm.hugetlb_bytes, 2 * 2097152ULL);
}

static void test_numa_maps_malformed(void **state)
{
	static const char *const bad[] = {
		"7f00 default anon=1 N0=1 kernelpagesize_kB=4",	    /* no final newline: cut */
		"7f00 default anon=1 N0=1 kernelpagesize_kB=4\n\n", /* empty line */
		"7f00 default anon=1 N0=1\n",			    /* no page size */
		"7f00 default kernelpagesize_kB=4\n",		    /* page size, no pages */
		"7f00 default N0=1 kernelpagesize_kB=0\n",
		"7f00 default N0=1 kernelpagesize_kB=4 kernelpagesize_kB=4\n",
		"7f00 default N0=1 N0=2 kernelpagesize_kB=4\n", /* node twice */
		"7f00 default N1024=1 kernelpagesize_kB=4\n",	/* node >= PN_MAX_NODES */
		"7f00 default N-1=1 kernelpagesize_kB=4\n",
		"7f00 default N0=-1 kernelpagesize_kB=4\n",
		"7f00 default N0=1x kernelpagesize_kB=4\n",
		"7f00 default N0= kernelpagesize_kB=4\n",
		"7f00 default anon=2 N0=1 kernelpagesize_kB=4\n", /* more anon than pages */
		"7f00 default N0=18446744073709551616 kernelpagesize_kB=4\n",
		"7f00 default N0=18446744073709551615 kernelpagesize_kB=4\n", /* bytes overflow */
		/* the total overflows */
		("7f00 default N0=4503599627370496 kernelpagesize_kB=4\n"
		 "7f01 default N1=4503599627370496 kernelpagesize_kB=4\n"),
		"7f00 default anon=1 bogus N0=1 kernelpagesize_kB=4\n", /* unknown word */
		"7f00 default anon=1  N0=1 kernelpagesize_kB=4\n",	/* two spaces */
		"7f00 default anon=1 N0=1 kernelpagesize_kB=4 \n",	/* trailing space */
		"7f00 default an-on=1 N0=1 kernelpagesize_kB=4\n",
		"7f00 default =1 N0=1 kernelpagesize_kB=4\n",
		"7f00 default file= N0=1 kernelpagesize_kB=4\n", /* empty path */
		"7f00 default anon=1 N0=1 file=/x kernelpagesize_kB=4\n",
		"7f00 default N0=1 heap kernelpagesize_kB=4\n",
		"7f00\n",		       /* no policy */
		"7f00 \n",		       /* empty policy */
		"7G00 default\n",	       /* not hex */
		"7F00 default\n",	       /* the kernel prints lower case */
		"12345678901234567 default\n", /* 17 hex digits */
		"default anon=1 N0=1 kernelpagesize_kB=4\n",
		" 7f00 default\n",
		/* kernelpagesize_kB is always the last token */
		"7f00 default N0=1 kernelpagesize_kB=4 future_counter=7\n",
	};

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++)
		nm_bad(bad[i]);
	/* a NUL byte inside the text */
	nm_ok("1000 default anon=1 N0=1 kernelpagesize_kB=4\n");
	assert_int_equal(pn_parse_numa_maps("7f00 default\0\n", 14, &nm), -EINVAL);
	assert_int_equal(nm.vmas, 0);
	assert_int_equal(pn_parse_numa_maps(NULL, 0, &nm), -EINVAL);
}

/* ---- maps ---- */

static void test_maps_huge_process(void **state)
{
	struct pn_maps m;
	size_t len, rw = 0;
	char *buf = fixture("many-vmas.maps.xz", &len);

	(void)state;
	if (!buf) {
		skip();
		return;
	}
	assert_int_equal(pn_parse_maps(buf, len, &m), 0);
	assert_int_equal(m.n, 60033);
	for (size_t i = 0; i < m.n; i++)
		if (m.v[i].prot == (PN_VMA_READ | PN_VMA_WRITE))
			rw++;
	assert_int_equal(rw, 30012);
	assert_string_equal(m.v[m.n - 1].name, "[vsyscall]");
	assert_int_equal(m.v[m.n - 1].start, 0xffffffffff600000ULL);
	assert_int_equal(m.v[m.n - 1].prot, PN_VMA_EXEC);
	assert_string_equal(m.v[0].name, "/tmp/pn-vmas");
	assert_int_equal(m.v[0].dev_major, 0xfe);
	assert_int_equal(m.v[0].dev_minor, 0);
	assert_int_equal(m.v[0].inode, 10953368);
	assert_int_equal(m.v[1].offset, 0x1000);
	assert_int_equal(m.v[1].prot, PN_VMA_READ | PN_VMA_EXEC);
	pn_maps_free(&m);
	free(buf);
}

static void test_maps_malformed(void **state)
{
	static const char ok[] = "1000-2000 r--s 00001000 08:01 42    /a b (deleted)\n";
	static const char *const bad[] = {
		"1000-2000 rw-p 00000000 00:00 0", /* cut */
		"2000-1000 rw-p 00000000 00:00 0\n",
		"1000-1000 rw-p 00000000 00:00 0\n",
		"1000-3000 rw-p 00000000 00:00 0\n2000-4000 rw-p 00000000 00:00 0\n", /* overlap */
		"1000-2000 rwzp 00000000 00:00 0\n",
		"1000-2000 rw-q 00000000 00:00 0\n",
		"1000-2000 rw-p 0000000g 00:00 0\n",
		"1000-2000 rw-p 00000000 0000 0\n",
		"1000-2000 rw-p 00000000 00:00 x\n",
		"1000-2000 rw-p 00000000 00:00\n",
		"1000 2000 rw-p 00000000 00:00 0\n",
		"\n",
	};
	struct pn_maps m;

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		if (pn_parse_maps(bad[i], strlen(bad[i]), &m) != -EINVAL)
			fail_msg("pn_parse_maps accepted:\n%s", bad[i]);
		assert_int_equal(m.n, 0);
		assert_null(m.v);
	}
	assert_int_equal(pn_parse_maps(ok, strlen(ok), &m), 0);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.v[0].name, "/a b (deleted)");
	assert_int_equal(m.v[0].prot, PN_VMA_READ | PN_VMA_SHARED);
	pn_maps_free(&m);
}

/* ---- live ---- */

struct child {
	pid_t pid;
	int to; /* its stdin: closing it ends it */
	uint64_t start, end;
};

/* Start pn-vmas N; -1 (with a message) when it cannot run here. */
static int child_start(struct child *c, const char *nvmas)
{
	char exe[PATH_MAX + 16], line[128];
	int in[2], out[2];
	FILE *f;

	snprintf(exe, sizeof(exe), "%s/pn-vmas", bindir);
	if (access(exe, X_OK) != 0) {
		print_message("skip: %s not built\n", exe);
		return -1;
	}
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(exe, exe, nvmas, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(f);
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "ready %*d %lx %lx", (unsigned long *)&c->start,
		   (unsigned long *)&c->end) != 2)
		fail_msg("pn-vmas did not start: %s", line);
	fclose(f);
	return 0;
}

static void child_stop(struct child *c)
{
	int st;

	close(c->to);
	assert_int_equal(waitpid(c->pid, &st, 0), c->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_live_child(void **state)
{
	char rel[64], *buf;
	struct child c;
	struct pn_maps m;
	size_t len, in_res = 0;
	uint64_t sum = 0;

	(void)state;
	pn_sysroot_set("");
	if (child_start(&c, "20000")) {
		skip();
		return;
	}
	snprintf(rel, sizeof(rel), "/proc/%d/numa_maps", (int)c.pid);
	assert_int_equal(pn_read_all(rel, &buf, &len), 0);
	assert_true(len > 1 << 20); /* beyond the old 1 MiB buffer */
	assert_int_equal(buf[len], '\0');
	assert_int_equal(pn_parse_numa_maps(buf, len, &nm), 0);
	free(buf);
	assert_true(nm.vmas >= 40000);
	/* 20 000 touched pages + the bound and the interleaved 16 */
	assert_true(nm.anon_bytes >= (20000 + 32) * PAGE);
	for (int n = 0; n < PN_MAX_NODES; n++)
		sum += nm.node_bytes[n];
	assert_int_equal(sum, nm.total_bytes);

	assert_int_equal(pn_maps_read(c.pid, &m), 0);
	for (size_t i = 0; i < m.n; i++)
		if (m.v[i].start >= c.start && m.v[i].end <= c.end)
			in_res++;
	assert_int_equal(in_res, 40000); /* 20 000 pages and the gaps between */
	pn_maps_free(&m);
	child_stop(&c);
	/* the process is gone */
	assert_int_equal(pn_numa_maps_read(c.pid, &nm), -ENOENT);
}

static void find_dirs(const char *argv0)
{
	char exe[PATH_MAX];
	const char *env = getenv("PNBENCH_SRCDIR");

	snprintf(exe, sizeof(exe), "%s", argv0);
	snprintf(bindir, sizeof(bindir), "%s", dirname(exe));
	if (env)
		snprintf(srcdir, sizeof(srcdir), "%s", env);
	else if (access("tests/fixtures/numa_maps", R_OK) == 0)
		snprintf(srcdir, sizeof(srcdir), ".");
	else
		snprintf(srcdir, sizeof(srcdir), "%s/../..", bindir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numa_maps_cat),
		cmocka_unit_test(test_numa_maps_huge_process),
		cmocka_unit_test(test_numa_maps_sums),
		cmocka_unit_test(test_numa_maps_malformed),
		cmocka_unit_test(test_maps_huge_process),
		cmocka_unit_test(test_maps_malformed),
		cmocka_unit_test(test_live_child),
	};

	(void)argc;
	signal(SIGPIPE, SIG_IGN);
	find_dirs(argv[0]);
	return cmocka_run_group_tests_name("procfs_maps", tests, NULL, NULL);
}
