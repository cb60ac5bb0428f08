// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_util.c - core/lib/units.c: sizes (exact decimal arithmetic, binary units
 * up to P, overflow), at the edges.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_size_fractions),
		cmocka_unit_test(test_size_exact_and_overflow),
		cmocka_unit_test(test_size_junk),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
