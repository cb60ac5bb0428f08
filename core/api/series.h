/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * series.h - in-memory time series of raw counters, written as CSV.
 *
 * Wide layout: one row per sample, columns "t_ns,iteration,phase,<cols...>".
 * Column names are "<node>.<key>" style keys chosen by the collector, e.g.
 * "node0.numa_hit", "node2.Normal.nr_free_pages", "pgalloc_movable".
 */
#ifndef PN_SERIES_H
#define PN_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pn_series {
	char *name; /* collector name; CSV file is <name>.csv */
	size_t ncols;
	char **cols;
	size_t nrows, caprows;
	uint64_t *t_ns; /* CLOCK_MONOTONIC */
	int *iteration;
	const char **phase; /* static or run-owned strings */
	int64_t *vals;	    /* nrows * ncols, row-major */
	FILE *out;	    /* streaming CSV (pn_series_stream), NULL if none */
	size_t written;	    /* rows already written to out */
};

void pn_series_init(struct pn_series *s, const char *name);
/* Returns the column index, or -errno. */
int pn_series_add_col(struct pn_series *s, const char *col);
int pn_series_find_col(const struct pn_series *s, const char *col);
/* Append a row; returns a pointer to its ncols values (zeroed). */
int64_t *pn_series_append(struct pn_series *s, uint64_t t_ns, int iteration, const char *phase);
const int64_t *pn_series_row(const struct pn_series *s, size_t row);
/*
 * Streaming CSV: create name under dirfd (named dir in messages; atomicfile.h: never through a
 * symlink or into a FIFO; a regular file of that name is replaced) with the
 * header now; every committed row is
 * appended as it is taken (pn_coll_sample commits), pn_series_flush() pushes
 * the buffered lines to the file (the runner calls it at every phase end), so
 * a run that is interrupted or killed keeps its time series.
 */
int pn_series_stream(struct pn_series *s, int dirfd, const char *dir, const char *name);
void pn_series_commit(struct pn_series *s);
int pn_series_flush(struct pn_series *s);
int pn_series_close(struct pn_series *s); /* flush and close; 0 or -errno */
void pn_series_free(struct pn_series *s);

#endif /* PN_SERIES_H */
