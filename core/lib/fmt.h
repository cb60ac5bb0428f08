/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fmt.h - numbers for people: one formatting for the terminal, the report
 * (report/pnreportlib/fmt.py follows the same rules) and every table.
 *
 *   counts      thousands separators             105,669
 *   bytes       IEC, one decimal                  1.5 GiB, 512 B
 *   bandwidth   decimal GB/s (MLC, data sheets)   1.74 GB/s, 850.0 MB/s
 *   latency     ns below 10 us, us below 10 ms    283 ns, 12.3 us, 15.2 ms
 *               ("us" in text, so columns stay aligned; the HTML report
 *               writes "\u00b5s")
 *   ratio       three decimals                    1.016x
 *   percent     one decimal                       12.3 %
 *
 * Each writes into buf (always terminated) and returns buf, so calls can sit
 * in a printf argument list.  NaN and infinities print as "-".
 */
#ifndef PN_FMT_H
#define PN_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any of them. */
#define PN_FMT_LEN 32

const char *pn_fmt_count(int64_t v, char *buf, size_t len);
const char *pn_fmt_bytes(double bytes, char *buf, size_t len);
const char *pn_fmt_bandwidth(double bytes_per_s, char *buf, size_t len);
const char *pn_fmt_ns(double ns, char *buf, size_t len);
const char *pn_fmt_ratio(double r, char *buf, size_t len);
const char *pn_fmt_pct(double pct, char *buf, size_t len);
/* A plain number: whole values as counts, else up to 4 significant digits
 * (no exponent below 1e15). */
const char *pn_fmt_number(double v, char *buf, size_t len);
/* v in the unit run.json names ("bytes", "bytes/s", "ns", "ratio", "%",
 * "count", "pages", "pages/s", ...) by the rules above; an unknown unit
 * follows the number ("12 pages/s"). */
const char *pn_fmt_unit(double v, const char *unit, char *buf, size_t len);

/* a and b alike but for their figures (runs of digits and dots: "22.8 GiB"
 * and "22.9 GiB"): the same message with other numbers */
bool pn_fmt_same_but_figures(const char *a, const char *b);

#endif /* PN_FMT_H */
