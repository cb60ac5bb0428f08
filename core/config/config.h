/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config.h - suite configs (JSON, parsed with cJSON), validated against the
 * workload and collector option tables, and expanded into a matrix.
 *
 * Every error names the file and the JSON path of the bad field, e.g.
 *   pnbench: error: configs/x.json: $.phases[0].workloads[0].params.size: "12Q" is not a size
 * and loading returns -EINVAL (the CLI exits 2).
 */
#ifndef PN_CONFIG_H
#define PN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/api/collector.h"
#include "core/lib/pn.h"
#include "core/api/workload.h"

struct cJSON;

struct pn_config_wl {
	const struct pn_workload *ops;
	struct cJSON *params; /* canonical, every option present (see params.h) */
	char *jpath;	      /* "$.phases[0].workloads[1]" */
	/* "expect": how its process must end: "ok" (default), "error", "signal",
	 * "oom_kill", "timeout", "killed" (signal or oom_kill) or "any" */
	const char *expect;
	uint64_t timeout_ms;  /* "timeout": SIGTERM then SIGKILL; 0 = none */
	uint64_t memory_max;  /* "cgroup": {"memory.max": size}; 0 = none */
	uint64_t memory_high; /* "cgroup": {"memory.high": size}; 0 = none */
};

struct pn_config_knob {
	char *key;   /* alias or path, see knob.h */
	char *value; /* as written to the file */
};

struct pn_config_phase {
	char *name;
	size_t nwl;
	struct pn_config_wl *wl;
	size_t nknobs; /* "knobs": {"kernel.numa_balancing": 1, ...}, set for the phase */
	struct pn_config_knob *knobs;
};

struct pn_config_coll {
	const struct pn_collector *ops;
	struct cJSON *params;
	uint64_t interval_ms;
	bool automatic; /* added by "events": "auto", not listed in the config */
};

struct pn_config {
	char *file; /* as given */
	char *name;
	char *description;
	/* "nodes": {"private": "auto" | "1,2" | [1,2], "dram": "auto" | ...} */
	bool private_auto;
	struct pn_nodeset private_nodes;
	bool dram_auto; /* dram = memory nodes that are not private */
	struct pn_nodeset dram_nodes;
	int iterations; /* >= 1 */
	size_t nphases;
	struct pn_config_phase *phases;
	size_t nbackground;
	struct pn_config_wl *background; /* run during every phase */
	size_t ncoll;
	struct pn_config_coll *coll;
	uint64_t interval_ms; /* default collector interval */
	/* "collectors": {"events": "auto" | "off"}: auto runs the event
	 * collector (perf) where the kernel allows it, listed or not */
	bool events_off;
	/* "verdict": {"require": ["events"]}: without events, inconclusive */
	bool require_events;
	/* thresholds for the verdict: exceeded -> exit 1 */
	int64_t max_general_pages;   /* per private node, default 0 */
	int64_t max_misplaced_pages; /* explicit pages not on the intended nodes, default -1 =
					report only */
	double max_mem_share;	     /* workloads may use at most this share of MemAvailable */
	struct cJSON *resolved;	     /* this matrix point as a canonical config object */
	struct cJSON
		*matrix_point; /* {"$.phases[0].workloads[0].params.policy": "bind", ...} or NULL */
};

struct pn_config_set {
	size_t n; /* matrix points, >= 1 */
	struct pn_config *points;
};

/* Load, validate and expand a config file.  -EINVAL (message printed) on any
 * error, -errno if the file cannot be read. */
int pn_config_load(const char *path, struct pn_config_set *out);
/* Same from a buffer (tests, fuzzing); name is used in messages. */
int pn_config_parse(const char *buf, size_t len, const char *name, struct pn_config_set *out);
void pn_config_set_free(struct pn_config_set *s);

/* Upper bound on matrix points, to refuse configs that explode. */
#define PN_CONFIG_MAX_POINTS 1024
/* "iterations" of a config and `pnbench run --iterations`: 1 to this. */
#define PN_CONFIG_MAX_ITERATIONS 1000

#endif /* PN_CONFIG_H */
