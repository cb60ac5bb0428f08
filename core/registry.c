// SPDX-License-Identifier: GPL-2.0-only
/* registry.c - look-ups in the generated workload/collector tables; metric helpers. */
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "workload.h"

const struct pn_workload *pn_workload_find(const char *name)
{
	for (size_t i = 0; i < pn_nworkloads; i++)
		if (!strcmp(pn_workloads[i]->name, name))
			return pn_workloads[i];
	return NULL;
}

const struct pn_collector *pn_collector_find(const char *name)
{
	for (size_t i = 0; i < pn_ncollectors; i++)
		if (!strcmp(pn_collectors[i]->name, name))
			return pn_collectors[i];
	return NULL;
}

const char *pn_unit_name(enum pn_unit u)
{
	switch (u) {
	case PN_UNIT_NONE: return "";
	case PN_UNIT_BYTES: return "bytes";
	case PN_UNIT_PAGES: return "pages";
	case PN_UNIT_NS: return "ns";
	case PN_UNIT_BYTES_PER_SEC: return "bytes/s";
	case PN_UNIT_PAGES_PER_SEC: return "pages/s";
	case PN_UNIT_RATIO: return "ratio";
	}
	return "";
}

void pn_wl_metric(struct pn_wl_result *r, const char *name, enum pn_unit unit, double value,
		  const char *better)
{
	for (size_t i = 0; i < r->nmetrics; i++) {
		if (!strcmp(r->metrics[i].name, name)) {
			r->metrics[i].value = value;
			return;
		}
	}
	if (r->nmetrics >= PN_MAX_METRICS) {
		fprintf(stderr, "pnbench: internal error: more than %d metrics (%s)\n",
			PN_MAX_METRICS, name);
		return;
	}
	r->metrics[r->nmetrics++] = (struct pn_metric){ name, unit, value, better };
}
