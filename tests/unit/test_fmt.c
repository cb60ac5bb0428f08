// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_fmt.c - core/lib/fmt.c: the one number formatting of the terminal
 * and the report, value by value at every unit boundary.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/lib/fmt.h"

static void test_count(void **state)
{
	char b[PN_FMT_LEN];

	(void)state;
	assert_string_equal(pn_fmt_count(0, b, sizeof(b)), "0");
	assert_string_equal(pn_fmt_count(999, b, sizeof(b)), "999");
	assert_string_equal(pn_fmt_count(1000, b, sizeof(b)), "1,000");
	assert_string_equal(pn_fmt_count(105669, b, sizeof(b)), "105,669");
	assert_string_equal(pn_fmt_count(-1234567, b, sizeof(b)), "-1,234,567");
	assert_string_equal(pn_fmt_count(INT64_MIN, b, sizeof(b)), "-9,223,372,036,854,775,808");
}

static void test_bytes(void **state)
{
	char b[PN_FMT_LEN];

	(void)state;
	assert_string_equal(pn_fmt_bytes(512, b, sizeof(b)), "512 B");
	assert_string_equal(pn_fmt_bytes(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(pn_fmt_bytes(1024, b, sizeof(b)), "1.0 KiB");
	assert_string_equal(pn_fmt_bytes(1.5 * 1024 * 1024 * 1024, b, sizeof(b)), "1.5 GiB");
	assert_string_equal(pn_fmt_bytes(-2.0 * 1024 * 1024, b, sizeof(b)), "-2.0 MiB");
	assert_string_equal(pn_fmt_bytes(NAN, b, sizeof(b)), "-");
}

static void test_bandwidth(void **state)
{
	char b[PN_FMT_LEN];

	(void)state;
	/* decimal units, as MLC and data sheets (the review's 1.73847e+09) */
	assert_string_equal(pn_fmt_bandwidth(1.73847e9, b, sizeof(b)), "1.74 GB/s");
	assert_string_equal(pn_fmt_bandwidth(1e9, b, sizeof(b)), "1.00 GB/s");
	assert_string_equal(pn_fmt_bandwidth(850e6, b, sizeof(b)), "850.0 MB/s");
	assert_string_equal(pn_fmt_bandwidth(12e3, b, sizeof(b)), "12.0 kB/s");
	assert_string_equal(pn_fmt_bandwidth(INFINITY, b, sizeof(b)), "-");
}

static void test_ns(void **state)
{
	char b[PN_FMT_LEN];

	(void)state;
	assert_string_equal(pn_fmt_ns(89.34, b, sizeof(b)), "89.3 ns");
	assert_string_equal(pn_fmt_ns(283, b, sizeof(b)), "283 ns");
	assert_string_equal(pn_fmt_ns(9999, b, sizeof(b)), "9999 ns");
	assert_string_equal(pn_fmt_ns(12345, b, sizeof(b)), "12.3 us");
	assert_string_equal(pn_fmt_ns(15.2e6, b, sizeof(b)), "15.2 ms");
	assert_string_equal(pn_fmt_ns(12.5e9, b, sizeof(b)), "12.50 s");
}

static void test_ratio_pct_number(void **state)
{
	char b[PN_FMT_LEN];

	(void)state;
	assert_string_equal(pn_fmt_ratio(2959.7 / 2913.5, b, sizeof(b)), "1.016x");
	assert_string_equal(pn_fmt_pct(12.34, b, sizeof(b)), "12.3 %");
	assert_string_equal(pn_fmt_number(4096, b, sizeof(b)), "4,096");
	assert_string_equal(pn_fmt_number(1234.56, b, sizeof(b)), "1,234.6");
	assert_string_equal(pn_fmt_number(-1999.96, b, sizeof(b)), "-2,000.0");
	assert_string_equal(pn_fmt_number(0.012344, b, sizeof(b)), "0.01234");
	assert_string_equal(pn_fmt_number(NAN, b, sizeof(b)), "-");
	/* a short buffer is cut, never overrun */
	assert_string_equal(pn_fmt_count(105669, b, 4), "105");
}

/* By the unit name run.json records: the same rules, the unit after the
 * number when no rule has it. */
static void test_unit(void **state)
{
	char b[PN_FMT_LEN];

	(void)state;
	assert_string_equal(pn_fmt_unit(1.73847e10, "bytes/s", b, sizeof(b)), "17.38 GB/s");
	assert_string_equal(pn_fmt_unit(232.463, "ns", b, sizeof(b)), "232 ns");
	assert_string_equal(pn_fmt_unit(16777216, "bytes", b, sizeof(b)), "16.0 MiB");
	assert_string_equal(pn_fmt_unit(3619, "pages", b, sizeof(b)), "3,619 pages");
	assert_string_equal(pn_fmt_unit(105669, "count", b, sizeof(b)), "105,669");
	assert_string_equal(pn_fmt_unit(1.5, "ratio", b, sizeof(b)), "1.500x");
	assert_string_equal(pn_fmt_unit(12.34, "%", b, sizeof(b)), "12.3 %");
	assert_string_equal(pn_fmt_unit(2500.24, "events/s", b, sizeof(b)), "2,500.2 events/s");
	assert_string_equal(pn_fmt_unit(0.5, "", b, sizeof(b)), "0.5");
	assert_string_equal(pn_fmt_unit(NAN, "pages", b, sizeof(b)), "-");
}

/* The runner's "same reason, other figures" test (the memory guard's
 * refusal printed once while MemAvailable moves). */
static void test_same_but_figures(void **state)
{
	(void)state;
	assert_true(pn_fmt_same_but_figures("23.8 GiB > 90% of 22.8 GiB",
					    "23.8 GiB > 90% of 22.9 GiB"));
	assert_true(pn_fmt_same_but_figures("", ""));
	assert_true(pn_fmt_same_but_figures("limit 9", "limit 10.25"));
	assert_false(pn_fmt_same_but_figures("limit 9 GiB", "limit 9 MiB"));
	assert_false(pn_fmt_same_but_figures("limit 9", "limit"));
	assert_false(pn_fmt_same_but_figures("node 1 failed", "node 1 failed twice"));
	assert_false(pn_fmt_same_but_figures("a1", "ab"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_bandwidth),
		cmocka_unit_test(test_ns),
		cmocka_unit_test(test_ratio_pct_number),
		cmocka_unit_test(test_unit),
		cmocka_unit_test(test_same_but_figures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
