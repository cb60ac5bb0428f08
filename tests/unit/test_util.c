// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_util.c - core/lib/units.c: sizes (exact decimal arithmetic, binary units
 * up to P, overflow), at the edges; core/lib/escape.c: control and non-ASCII
 * bytes escaped, the cut at max; core/lib/nodeset.c: the nodeN entries of a
 * directory (a captured tree, and a temporary one with names that only look
 * like nodes).
 */
#include <errno.h>
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

#include "core/lib/pn.h"

#define KiB (1ULL << 10)
#define TiB (1ULL << 40)
#define PiB (1ULL << 50)

static void size_ok(const char *s, uint64_t want)
{
	uint64_t got = 0;
	int ret = pn_parse_size(s, &got);

	if (ret || got != want)
		fail_msg("pn_parse_size(\"%s\") = %d, %llu; want 0, %llu", s, ret,
			 (unsigned long long)got, (unsigned long long)want);
}

static void size_bad(const char *s, int want)
{
	uint64_t got = 12345;
	int ret = pn_parse_size(s, &got);

	if (ret != want || got != 12345)
		fail_msg("pn_parse_size(\"%s\") = %d (value %llu); want %d, value untouched", s,
			 ret, (unsigned long long)got, want);
}

static void test_size_units(void **state)
{
	(void)state;
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("4096B", 4096);
	size_ok("64K", 64 * KiB);
	size_ok("64k", 64 * KiB);
	size_ok("64KiB", 64 * KiB);
	size_ok("64KB", 64 * KiB);
	size_ok("2M", 2ULL << 20);
	size_ok("1G", 1ULL << 30);
	size_ok("1T", TiB);
	size_ok("1TiB", TiB);
	size_ok("1P", PiB);
	size_ok("1p", PiB);
	size_ok("1PiB", PiB);
	size_ok("1025P", 1025 * PiB); /* fits in 64 bits; option ranges refuse it */
	size_ok("16383P", 16383 * PiB);
}

static void test_size_fractions(void **state)
{
	(void)state;
	size_ok("1.5T", TiB + TiB / 2);
	size_ok("1.5G", 3ULL << 29);
	size_ok("0.5K", 512);
	size_ok("0.25P", PiB / 4);
	size_ok("1.000000000000000000P", PiB);	     /* 18 fraction digits */
	size_ok("2.00000000000000000000000K", 2048); /* trailing zeros beyond 18 */
	size_ok("1.0", 1);
	size_bad("1.3K", -EINVAL); /* 1331.2 bytes */
	size_bad("0.1", -EINVAL);
	size_bad("1.", -EINVAL);
	size_bad(".5K", -EINVAL);
	size_bad("1.5.5K", -EINVAL);
}

static void test_size_exact_and_overflow(void **state)
{
	(void)state;
	/* beyond 2^53 a double would round these */
	size_ok("9007199254740993", 9007199254740993ULL);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("16383.5P", 16383 * PiB + PiB / 2);
	size_bad("18446744073709551616", -ERANGE); /* 2^64 */
	size_bad("99999999999999999999999", -ERANGE);
	size_bad("16384P", -ERANGE); /* exactly 2^64 */
	size_bad("16384.0P", -ERANGE);
	size_bad("16383.999999999999999P", -EINVAL); /* not whole */
	size_bad("18014398509481984K", -ERANGE);     /* 2^54 K = 2^64 */
	size_ok("18014398509481983K", (18014398509481983ULL) << 10);
}

static void test_size_junk(void **state)
{
	(void)state;
	size_bad(NULL, -EINVAL);
	size_bad("", -EINVAL);
	size_bad("K", -EINVAL);
	size_bad("-1", -EINVAL);
	size_bad("+1", -EINVAL);
	size_bad(" 1", -EINVAL);
	size_bad("1 K", -EINVAL);
	size_bad("1K ", -EINVAL);
	size_bad("12Q", -EINVAL);
	size_bad("1E", -EINVAL);  /* exabytes: not a unit here */
	size_bad("1e3", -EINVAL); /* no exponents */
	size_bad("0x10", -EINVAL);
	size_bad("1KK", -EINVAL);
	size_bad("1iB", -EINVAL);
	size_ok("1Ki", KiB);
}

static void test_escape(void **state)
{
	char buf[80], b7[7], b8[8];

	(void)state;
	assert_string_equal(pn_escape("plain text", buf, sizeof(buf), SIZE_MAX), "plain text");
	assert_string_equal(pn_escape(NULL, buf, sizeof(buf), SIZE_MAX), "");
	assert_string_equal(pn_escape("a\tb\x7f\xc3\xa9", buf, sizeof(buf), SIZE_MAX),
			    "a\\x09b\\x7f\\xc3\\xa9");
	/* past max bytes written: "..." ends it */
	assert_string_equal(pn_escape("abcdefgh", buf, sizeof(buf), 3), "abcd...");
	/* a short buffer: whole escapes only, always terminated */
	assert_string_equal(pn_escape("ab\ncdef", b8, sizeof(b8), SIZE_MAX), "ab\\x0a");
	assert_string_equal(pn_escape("ab\ncdef", b7, sizeof(b7), SIZE_MAX), "ab");
}

static void test_nodeset_read_dir(void **state)
{
	char tmp[] = "/tmp/pnbench-util-XXXXXX", p[128], list[64];
	static const char *const names[] = {
		"node0",  "node7",  "node12",	 "node",    "nodeX",
		"node3a", "node-1", "node99999", "has_cpu", "possible"
	};
	struct pn_nodeset s;
	const char *fx = getenv("PN_FIXTURES");

	(void)state;
	snprintf(p, sizeof(p), "%s/qemu-sparse-0-2-5", fx ? fx : "tests/fixtures");
	pn_sysroot_set(p);
	assert_int_equal(pn_nodeset_read_dir("/sys/devices/system/node", &s), 0);
	assert_int_equal(pn_nodeset_format(&s, list, sizeof(list)), 0);
	assert_string_equal(list, "0,2,5");

	assert_non_null(mkdtemp(tmp));
	pn_sysroot_set(tmp);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, names[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	assert_int_equal(pn_nodeset_read_dir("/", &s), 0);
	assert_int_equal(pn_nodeset_format(&s, list, sizeof(list)), 0);
	assert_string_equal(list, "0,7,12");
	assert_int_equal(pn_nodeset_read_dir("/absent", &s), -ENOENT);
	assert_true(pn_nodeset_empty(&s));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, names[i]);
		rmdir(p);
	}
	rmdir(tmp);
	pn_sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_size_fractions),
		cmocka_unit_test(test_size_exact_and_overflow),
		cmocka_unit_test(test_size_junk),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_nodeset_read_dir),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
