/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config_int.h - state and helpers shared by config.c, config_phase.c and
 * config_matrix.c.  Not an API: nothing outside those files includes it.
 *
 * Every checker returns 0 or -EINVAL after logging one error line that names
 * the file and the JSON path ("FILE: $.phases[0].name: ..."); the JSON
 * getters they build on are in cfg_json.h, below all three files.
 */
#ifndef PN_CONFIG_INT_H
#define PN_CONFIG_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "cfg_json.h"
#include "config.h"
#include "core/api/params.h"

#define PN_CONFIG_MAX_BYTES (1 << 20)
#define PN_CONFIG_ITER_MAX  PN_CONFIG_MAX_ITERATIONS
#define PN_MEM_SHARE_DEF    0.5
#define PN_MEM_SHARE_MAX    0.9
#define PN_MAX_EXACT	    9007199254740992.0 /* 2^53: exact in a JSON number */

/* One matrix axis: an array value inside some params object. */
struct axis {
	const cJSON *arr; /* in the raw tree */
	char *jpath;	  /* "$.phases[0].workloads[0].params.size" */
	int n;
};

/* A workload or collector entry as found in the raw tree. */
struct raw_ent {
	const void *ops; /* struct pn_workload or pn_collector */
	const struct pn_opt *opts;
	const cJSON *params;  /* raw, may be NULL */
	char jpath[128];      /* of the entry: "$.phases[0].workloads[1]" */
	uint64_t interval_ms; /* collectors only */
	bool automatic;	      /* collectors only: added by "events": "auto" */
	/* workloads only: "expect", "timeout", "cgroup" */
	const char *expect;
	uint64_t timeout_ms, memory_max, memory_high;
	size_t axis0, naxis; /* its matrix axes: ps->axes[axis0 .. axis0 + naxis) */
};

struct raw_phase {
	const char *name;
	size_t nwl;
	struct raw_ent *wl;
	const cJSON *knobs; /* "knobs" object, checked; may be NULL */
};

struct parser {
	const char *file;
	cJSON *root;
	struct pn_config tmpl; /* the fields every point shares */
	size_t ncoll, nbg, nphases;
	struct raw_ent *coll, *bg;
	struct raw_phase *phases;
	size_t naxes;
	struct axis *axes;
};

/* ---- config_phase.c: lists of entries ---- */
int pn_cfg_parse_wl_list(struct parser *ps, const cJSON *v, const char *jpath, struct raw_ent **out,
			 size_t *n);
int pn_cfg_parse_phases(struct parser *ps, const cJSON *v);
int pn_cfg_parse_collectors(struct parser *ps, const cJSON *v);

/* ---- config_matrix.c: axes and points ---- */
/* Check e->params against e->opts; record its arrays as matrix axes. */
int pn_cfg_check_params(struct parser *ps, struct raw_ent *e, const char *jpath);
/* Build every matrix point into out (out->n counts what was built, also on failure). */
int pn_cfg_expand(const struct parser *ps, struct pn_config_set *out);

#endif /* PN_CONFIG_INT_H */
