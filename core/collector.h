/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * collector.h - the shape every collector has.
 *
 * A collector is one file collectors/<name>.c defining
 *     const struct pn_collector pn_collector_<name> = { ... };
 * It samples raw counters in-process into a struct pn_series (one row per
 * sample, monotonic timestamp, columns fixed at open time).  Deltas are
 * computed later, never by the collector.  Files are opened once at open()
 * and re-read with pread on every sample (struct pn_file).
 */
#ifndef PN_COLLECTOR_H
#define PN_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "pn.h"
#include "series.h"

struct pn_env;

struct pn_coll {
	const struct pn_collector *ops;
	struct pn_params params;
	const struct pn_env *env;
	struct pn_series series; /* columns added in open(), rows by the core */
	void *priv;
};

struct pn_collector {
	const char *name;
	const char *summary;
	const struct pn_opt *opts; /* terminated by {NULL} */
	int (*supported)(const struct pn_env *env, char *why, size_t whylen);
	/* Open files, add the columns (pn_series_add_col). */
	int (*open)(struct pn_coll *c);
	/* Fill row[0 .. series.ncols-1] with raw values of one sample. */
	int (*sample)(struct pn_coll *c, int64_t *row);
	void (*close)(struct pn_coll *c);
};

extern const struct pn_collector *const pn_collectors[];
extern const size_t pn_ncollectors;
const struct pn_collector *pn_collector_find(const char *name);

/* Take one sample into c->series with a monotonic timestamp and tag. */
int pn_coll_sample(struct pn_coll *c, int iteration, const char *phase);

#endif /* PN_COLLECTOR_H */
