// SPDX-License-Identifier: GPL-2.0-only
/* collector.c - taking samples of a collector into its series.  See collector.h. */
#include "core/api/collector.h"

int pn_coll_sample(struct pn_coll *c, int iteration, const char *phase)
{
	/* The timestamp is taken just before the reads: with several
	 * collectors per sample, each row says when its own reads started. */
	int64_t *row = pn_series_append(&c->series, pn_now_ns(), iteration, phase);
	int ret = c->ops->sample(c, row);

	if (ret) {
		/* A failed sample leaves no half-filled row behind. */
		c->series.nrows--;
		return ret;
	}
	pn_series_commit(&c->series);
	return 0;
}
