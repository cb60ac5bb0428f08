/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * params.h - option tables of workloads and collectors, and the resolved
 * parameter values a config gives them.
 *
 * A workload or collector declares its options in a static table; the core
 * (config.c) validates a config's "params" object against it, fills defaults,
 * and converts values to canonical form (sizes to bytes, durations to
 * milliseconds, node lists to a string).  Workloads only read typed values.
 */
#ifndef PN_PARAMS_H
#define PN_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

struct cJSON;

/* Node roles of a run (config "nodes"): which nodes play the private-device
 * role, which are ordinary memory. */
struct pn_roles {
	struct pn_nodeset private_nodes;
	struct pn_nodeset dram_nodes;
	bool private_auto; /* private_nodes came from has_private_memory */
};

enum pn_opt_type {
	PN_OPT_BOOL,
	PN_OPT_INT, /* integer, range-checked with min/max */
	PN_OPT_DOUBLE,
	PN_OPT_SIZE,	 /* "64M" or a number of bytes -> bytes */
	PN_OPT_DURATION, /* "500ms", "2s" or a number of ms -> ms */
	PN_OPT_STRING,
	PN_OPT_ENUM,  /* one of choices[] */
	PN_OPT_NODES, /* "private", "dram", "all", or a node list "0,2,5-7" */
};

struct pn_opt {
	const char *name;
	enum pn_opt_type type;
	const char *def; /* default as text; NULL = required */
	const char *help;
	const char *const *choices; /* PN_OPT_ENUM: NULL-terminated */
	double min, max;	    /* numeric range; min == max == 0: unchecked */
	/* PN_OPT_STRING, and PN_OPT_INT as decimal text: what the value must
	 * say, checked when the config loads (0, or -EINVAL with the reason in
	 * why); NULL: any value */
	int (*check)(const char *s, char *why, size_t whylen);
};

/* Resolved values: a cJSON object holding every option of the table in
 * canonical form (bool, number, or string).  Owned by the run model. */
struct pn_params {
	const struct pn_opt *opts; /* terminated by an entry with name NULL */
	const struct cJSON *obj;
};

bool pn_param_bool(const struct pn_params *p, const char *name);
int64_t pn_param_int(const struct pn_params *p, const char *name);
double pn_param_double(const struct pn_params *p, const char *name);
uint64_t pn_param_size(const struct pn_params *p, const char *name); /* bytes */
uint64_t pn_param_duration_ms(const struct pn_params *p, const char *name);
const char *pn_param_str(const struct pn_params *p, const char *name); /* STRING/ENUM/NODES */
/* Resolve a PN_OPT_NODES value against the run's roles: "private", "dram",
 * "all" (private + dram) or an explicit list.  -EINVAL if empty. */
int pn_param_nodes(const struct pn_params *p, const char *name, const struct pn_roles *roles,
		   struct pn_nodeset *out);

/*
 * Validate a config's params object (may be NULL = all defaults) against
 * opts and build the canonical object in *out (caller frees with cJSON_Delete).
 * file and jpath name the place for error messages, e.g.
 * "configs/smoke.json" and "$.phases[0].workloads[1].params".
 * Errors: -EINVAL with a message "FILE: JPATH.NAME: ..." already printed.
 */
int pn_params_resolve(const struct pn_opt *opts, const struct cJSON *in, const char *file,
		      const char *jpath, struct cJSON **out);

/*
 * Validate one value of option opt (in NULL = the table's default; -EINVAL if
 * the option is required) and build its canonical form in *out (caller frees).
 * vpath is the value's own JSON path, so config.c can name one element of a
 * matrix array: "$.phases[0].workloads[0].params.size[2]".
 */
int pn_param_check(const struct pn_opt *opt, const struct cJSON *in, const char *file,
		   const char *vpath, struct cJSON **out);

/*
 * A node list from the command line (nodelist.c), in numactl's forms: "all",
 * "0-2,4", "!0" (the nodes of set but 0), "+1" / "+0-1" (relative to set:
 * its 2nd node, its 1st and 2nd).  Every node named must be in set.  0, or
 * -EINVAL with the reason in why (nothing logged); out is never empty on 0.
 */
int pn_nodelist_parse(const char *str, const struct pn_nodeset *set, struct pn_nodeset *out,
		      char *why, size_t whylen);

/* Levenshtein distance for "did you mean" hints ((size_t)-1 past 63 chars). */
size_t pn_edit_distance(const char *a, const char *b);

/* Names for messages and listings: "a number", "an object" ...; "size", "nodes" ... */
const char *pn_json_type_name(const struct cJSON *v);
const char *pn_opt_type_name(enum pn_opt_type t);

#endif /* PN_PARAMS_H */
