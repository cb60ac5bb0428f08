/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config_int.h - state and helpers shared by config.c, config_phase.c and
 * config_matrix.c.  Not an API: nothing outside those files includes it.
 *
 * Every checker returns 0 or -EINVAL after logging one error line that names
 * the file and the JSON path ("FILE: $.phases[0].name: ...").
 */
#ifndef PN_CONFIG_INT_H
#define PN_CONFIG_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "core/api/params.h"

#define PN_CONFIG_MAX_BYTES	(1 << 20)
#define PN_CONFIG_NAME_MAX	64
#define PN_CONFIG_ITER_MAX	PN_CONFIG_MAX_ITERATIONS
#define PN_COLL_INTERVAL_DEF_MS 200
#define PN_COLL_INTERVAL_MIN_MS 1
#define PN_COLL_INTERVAL_MAX_MS 3600000
#define PN_MEM_SHARE_DEF	0.5
#define PN_MEM_SHARE_MAX	0.9
#define PN_MAX_EXACT		9007199254740992.0 /* 2^53: exact in a JSON number */

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

/* ---- config.c: field checkers ---- */
/* A user string made safe for one log line: printable ASCII, bounded. */
const char *pn_cfg_clean(const char *s, char *buf, size_t len);
__attribute__((format(printf, 3, 4))) int pn_cfg_perr(const struct parser *ps, const char *jpath,
						      const char *fmt, ...);
/* Reject unknown and duplicate keys: a typo must never be ignored. */
int pn_cfg_check_keys(const struct parser *ps, const cJSON *obj, const char *jpath,
		      const char *const *allowed);
const cJSON *pn_cfg_field(const cJSON *obj, const char *name); /* NULL if obj is NULL */
int pn_cfg_get_object(const struct parser *ps, const cJSON *v, const char *jpath);
int pn_cfg_get_int(const struct parser *ps, const cJSON *v, const char *jpath, int64_t min,
		   int64_t max, int64_t *out);
int pn_cfg_get_name(const struct parser *ps, const cJSON *v, const char *jpath);
int pn_cfg_get_duration(const struct parser *ps, const cJSON *v, const char *jpath, uint64_t *ms);

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
