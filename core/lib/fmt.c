// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt.c - numbers for people (fmt.h has the rules).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

static const char *dash(char *buf, size_t len)
{
	snprintf(buf, len, "-");
	return buf;
}

const char *pn_fmt_count(int64_t v, char *buf, size_t len)
{
	char digits[24], out[32];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	size_t n, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)u);
	if (v < 0)
		out[o++] = '-';
	for (size_t i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, len, "%s", out);
	return buf;
}

const char *pn_fmt_bytes(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = fabs(bytes);
	size_t u = 0;

	if (!isfinite(bytes))
		return dash(buf, len);
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%s%.1f %s", bytes < 0 ? "-" : "", v, units[u]);
	return buf;
}

const char *pn_fmt_bandwidth(double bps, char *buf, size_t len)
{
	if (!isfinite(bps))
		return dash(buf, len);
	if (fabs(bps) >= 1e9)
		snprintf(buf, len, "%.2f GB/s", bps / 1e9);
	else if (fabs(bps) >= 1e6)
		snprintf(buf, len, "%.1f MB/s", bps / 1e6);
	else
		snprintf(buf, len, "%.1f kB/s", bps / 1e3);
	return buf;
}

const char *pn_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);

	if (!isfinite(ns))
		return dash(buf, len);
	if (a < 100)
		snprintf(buf, len, "%.1f ns", ns);
	else if (a < 10e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 10e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (a < 10e9)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

const char *pn_fmt_ratio(double r, char *buf, size_t len)
{
	if (!isfinite(r))
		return dash(buf, len);
	snprintf(buf, len, "%.3fx", r);
	return buf;
}

const char *pn_fmt_pct(double pct, char *buf, size_t len)
{
	if (!isfinite(pct))
		return dash(buf, len);
	snprintf(buf, len, "%.1f %%", pct);
	return buf;
}

const char *pn_fmt_number(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		return dash(buf, len);
	if (v == floor(v) && fabs(v) < 9.2e18)
		return pn_fmt_count((int64_t)v, buf, len);
	if (fabs(v) >= 1000 && fabs(v) < 1e15) { /* one decimal, grouped */
		int64_t tenths = (int64_t)llround(fabs(v) * 10);
		char whole[PN_FMT_LEN];

		pn_fmt_count(tenths / 10, whole, sizeof(whole));
		snprintf(buf, len, "%s%s.%d", v < 0 ? "-" : "", whole, (int)(tenths % 10));
		return buf;
	}
	snprintf(buf, len, "%.4g", v);
	return buf;
}

const char *pn_fmt_unit(double v, const char *unit, char *buf, size_t len)
{
	char num[PN_FMT_LEN];
	const char *u = unit ? unit : "";

	if (!strcmp(u, "bytes"))
		return pn_fmt_bytes(v, buf, len);
	if (!strcmp(u, "bytes/s"))
		return pn_fmt_bandwidth(v, buf, len);
	if (!strcmp(u, "ns"))
		return pn_fmt_ns(v, buf, len);
	if (!strcmp(u, "ratio"))
		return pn_fmt_ratio(v, buf, len);
	if (!strcmp(u, "%"))
		return pn_fmt_pct(v, buf, len);
	pn_fmt_number(v, num, sizeof(num));
	if (!strcmp(u, "count") || !u[0] || !isfinite(v))
		snprintf(buf, len, "%s", num);
	else
		snprintf(buf, len, "%s %s", num, u);
	return buf;
}

/* a and b alike but for their figures ("22.8 GiB" and "22.9 GiB") */
bool pn_fmt_same_but_figures(const char *a, const char *b)
{
	for (;;) {
		bool fa = isdigit((unsigned char)*a), fb = isdigit((unsigned char)*b);

		if (fa != fb)
			return false;
		if (fa) {
			a += strspn(a, "0123456789.");
			b += strspn(b, "0123456789.");
			continue;
		}
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++, b++;
	}
}
