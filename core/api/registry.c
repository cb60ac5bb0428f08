// SPDX-License-Identifier: GPL-2.0-only
/* registry.c - look-ups in the generated workload/collector tables; workload knobs. */
#include <errno.h>
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

int pn_wl_knob(struct pn_wl *w, const char *key, const char *value)
{
	struct pn_wl_knob *k;

	if (w->nknobs >= PN_WL_MAX_KNOBS)
		return pn_error(-E2BIG, "workload %s: more than %d knobs", w->ops->name,
				PN_WL_MAX_KNOBS);
	k = &w->knobs[w->nknobs];
	if (snprintf(k->key, sizeof(k->key), "%s", key) >= (int)sizeof(k->key) ||
	    snprintf(k->value, sizeof(k->value), "%s", value) >= (int)sizeof(k->value))
		return pn_error(-ENAMETOOLONG, "workload %s: knob %s: too long", w->ops->name, key);
	w->nknobs++;
	return 0;
}
