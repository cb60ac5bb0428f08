// SPDX-License-Identifier: GPL-2.0-only
/*
 * units.c - sizes and durations as people write them in configs and on the
 * command line ("64M", "1.5T", "500ms"), and sizes for messages.  See pn.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pn.h"

/* ---- sizes and durations ---- */

/* Exact decimal arithmetic (no strtod): "9007199254740993" and
 * "18446744073709551615" are those numbers, "1.3K" is not a whole number of
 * bytes, and a value above UINT64_MAX is -ERANGE instead of a rounded double. */
static int size_shift(char u)
{
	static const char units[] = "KMGTP"; /* binary: 2^10 .. 2^50 */
	const char *p = u ? strchr(units, toupper((unsigned char)u)) : NULL;

	return p ? 10 * (int)(p - units + 1) : 0;
}

int pn_parse_size(const char *s, uint64_t *bytes)
{
	unsigned __int128 whole = 0, frac = 0, scale = 1, v;
	int shift, nfrac = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		whole = whole * 10 + (unsigned)(*s - '0');
		if (whole > UINT64_MAX)
			return -ERANGE;
	}
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++) {
			if (nfrac++ >= 18) { /* beyond 18 digits only zeros are exact */
				if (*s != '0')
					return -EINVAL;
				continue;
			}
			frac = frac * 10 + (unsigned)(*s - '0');
			scale *= 10;
		}
	}
	shift = size_shift(*s);
	if (shift) {
		s++;
		if (*s == 'i')
			s++;
	}
	if (*s == 'B' || *s == 'b')
		s++;
	if (*s)
		return -EINVAL;
	/* whole < 2^64, shift <= 50, frac < 10^18 < 2^60: no product overflows */
	frac <<= shift;
	if (frac % scale)
		return -EINVAL; /* not a whole number of bytes */
	v = (whole << shift) + frac / scale;
	if (v > UINT64_MAX)
		return -ERANGE;
	*bytes = (uint64_t)v;
	return 0;
}

int pn_parse_duration_ms(const char *s, uint64_t *ms)
{
	char *end;
	double v, mult = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!strcmp(end, "") || !strcmp(end, "ms"))
		mult = 1;
	else if (!strcmp(end, "us"))
		mult = 0.001;
	else if (!strcmp(end, "s"))
		mult = 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mult = 60000;
	else if (!strcmp(end, "h"))
		mult = 3600000;
	else
		return -EINVAL;
	v *= mult;
	if (v > 1e15)
		return -EINVAL;
	*ms = (uint64_t)llround(v);
	return 0;
}

void pn_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < PN_ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}
