// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock.c - the monotonic clock in nanoseconds and the UTC wall time as
 * ISO 8601, the two clocks results use.  See pn.h.
 */
#include <time.h>

#include "pn.h"

uint64_t pn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void pn_utc_iso8601(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
