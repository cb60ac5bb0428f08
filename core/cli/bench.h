/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench.h - benchmarks of the suite itself (not tests: they print figures
 * and never fail on time).
 */
#ifndef PN_BENCH_H
#define PN_BENCH_H

/* `pnbench bench collectors [--samples N] [--interval-ms M]`; argv[0] is
 * "bench".  Returns a PN_EXIT_* code. */
int pn_cmd_bench(int argc, char **argv);

#endif /* PN_BENCH_H */
