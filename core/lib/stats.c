// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats.c - percentiles (linear interpolation) and the median of a
 * sample.  See pn.h.
 */
#include <math.h>
#include <stdlib.h>

#include "pn.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pn_percentile(double *v, size_t n, double p)
{
	double rank, frac;
	size_t lo;

	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	if (p <= 0)
		return v[0];
	if (p >= 100)
		return v[n - 1];
	rank = p / 100.0 * (double)(n - 1);
	lo = (size_t)rank;
	frac = rank - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}

double pn_median(double *v, size_t n)
{
	return pn_percentile(v, n, 50);
}
