// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - the runner's top level: a config (or a user command) in, one
 * results directory out (run.json, topology.xml, <collector>.csv).
 *
 * For every matrix point, iteration and phase it runs pn_run_phase()
 * (phase.c: workloads in child processes and cgroups, exact accounting).
 * The results tree (results.c) is the one run model: it is rewritten
 * atomically after every phase with status "incomplete", so a run killed at
 * any point leaves valid JSON, and finally with "complete".  Time series are
 * appended to their CSVs as they are taken.  Logs and errors go to stderr
 * only; the text summary reads the same tree.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "atomicfile.h"
#include "journal.h"
#include "procfs.h"
#include "runner.h"

/* ----------------------------------------------------------------- roles */

static int resolve_roles(struct run *r, const struct pn_config *c)
{
	struct pn_nodeset memnodes, bad;
	char list[256], have[256];
	int n;

	pn_nodeset_or(&memnodes, &r->topo.with_memory, &r->topo.with_private_memory);
	pn_nodeset_format(&memnodes, have, sizeof(have));
	pn_nodeset_zero(&r->roles.private_nodes);
	r->roles.private_auto = false;

	if (r->o->private_override && strcmp(r->o->private_override, "auto") != 0) {
		if (pn_nodeset_parse(&r->roles.private_nodes, r->o->private_override))
			return pn_error(-EINVAL,
					"--private: \"%s\" is not a node list (e.g. 1,2 or 1-2)",
					r->o->private_override);
	} else if (r->o->private_override || c->private_auto) {
		r->roles.private_nodes = r->topo.with_private_memory;
		r->roles.private_auto = true;
	} else {
		r->roles.private_nodes = c->private_nodes;
	}
	pn_nodeset_andnot(&bad, &r->roles.private_nodes, &memnodes);
	if (!pn_nodeset_empty(&bad)) {
		pn_nodeset_format(&bad, list, sizeof(list));
		return pn_error(-EINVAL,
				"%s: $.nodes.private: node(s) %s have no memory on this machine "
				"(memory nodes: %s)",
				c->file, list, have);
	}
	if (c->dram_auto) {
		pn_nodeset_andnot(&r->roles.dram_nodes, &memnodes, &r->roles.private_nodes);
	} else {
		r->roles.dram_nodes = c->dram_nodes;
		pn_nodeset_andnot(&bad, &c->dram_nodes, &r->topo.with_memory);
		if (!pn_nodeset_empty(&bad)) {
			pn_nodeset_format(&bad, list, sizeof(list));
			return pn_error(-EINVAL,
					"%s: $.nodes.dram: node(s) %s have no ordinary memory "
					"on this machine (memory nodes: %s)",
					c->file, list, have);
		}
		pn_nodeset_and(&bad, &c->dram_nodes, &r->roles.private_nodes);
		if (!pn_nodeset_empty(&bad))
			return pn_error(-EINVAL,
					"%s: $.nodes: a node cannot be both private and dram",
					c->file);
	}
	n = pn_nodeset_count(&r->roles.private_nodes);
	pn_nodeset_format(&r->roles.private_nodes, list, sizeof(list));
	pn_nodeset_format(&r->roles.dram_nodes, have, sizeof(have));
	pn_info("roles: private nodes [%s]%s, dram nodes [%s]", list,
		r->roles.private_auto ? " (auto)" : "", have);
	if (n == 0)
		pn_info("no private nodes: placement is verified, the leak verdict has nothing to "
			"judge");
	return 0;
}

/* ------------------------------------------------------------ collectors */

/* Stream its series to <name>.csv and start an event collector's thread. */
static int start_collector(struct run *r, struct pn_coll *pc, cJSON *cj)
{
	char file[300], path[PATH_MAX + 300];
	int ret = 0;

	snprintf(file, sizeof(file), "%s.csv", pc->ops->name);
	snprintf(path, sizeof(path), "%s/%s", r->outdir, file);
	if (pc->ops->sample)
		ret = pn_series_stream(&pc->series, path);
	if (!ret && pc->ops->kind == PN_COLL_EVENT && pc->ops->start)
		ret = pc->ops->start(pc);
	if (ret) {
		pn_warn("collector %s: cannot start: %s", pc->ops->name, strerror(-ret));
		cJSON_AddStringToObject(cj, "status", "failed");
		cJSON_AddStringToObject(cj, "reason", strerror(-ret));
		return ret;
	}
	cJSON_AddStringToObject(cj, "status", "ok");
	if (pc->ops->sample)
		cJSON_AddStringToObject(cj, "file", file);
	else
		cJSON_AddNullToObject(cj, "file");
	return 0;
}

static int open_collectors(struct run *r, const struct pn_config *c, cJSON *out)
{
	r->colls = pn_xcalloc(c->ncoll ? c->ncoll : 1, sizeof(*r->colls));
	r->coll_interval_ns = pn_xcalloc(c->ncoll ? c->ncoll : 1, sizeof(*r->coll_interval_ns));
	for (size_t i = 0; i < c->ncoll; i++) {
		const struct pn_collector *ops = c->coll[i].ops;
		struct pn_coll *pc = &r->colls[r->ncolls];
		cJSON *cj = cJSON_CreateObject();
		char why[256] = "";
		int ret = ops->supported ? ops->supported(&r->env, why, sizeof(why)) : 0;

		cJSON_AddStringToObject(cj, "collector", ops->name);
		cJSON_AddNumberToObject(cj, "interval_ms", (double)c->coll[i].interval_ms);
		cJSON_AddItemToObject(cj, "params", cJSON_Duplicate(c->coll[i].params, 1));
		cJSON_AddItemToArray(out, cj);
		if (ret) {
			pn_warn("collector %s skipped: %s", ops->name, why);
			cJSON_AddStringToObject(cj, "status", "skipped");
			cJSON_AddStringToObject(cj, "reason", why);
			continue;
		}
		memset(pc, 0, sizeof(*pc));
		pc->ops = ops;
		pc->params.opts = ops->opts;
		pc->params.obj = c->coll[i].params;
		pc->env = &r->env;
		pn_series_init(&pc->series, ops->name);
		ret = ops->open(pc);
		if (ret) {
			pn_warn("collector %s failed to open: %s", ops->name, strerror(-ret));
			cJSON_AddStringToObject(cj, "status", "failed");
			cJSON_AddStringToObject(cj, "reason", strerror(-ret));
			pn_series_free(&pc->series);
			continue;
		}
		cJSON_AddStringToObject(cj, "kind",
					ops->kind == PN_COLL_EVENT ? "event" : "sampler");
		r->coll_interval_ns[r->ncolls] =
			(c->coll[i].interval_ms ? c->coll[i].interval_ms : c->interval_ms) *
			1000000ULL;
		if (!r->coll_interval_ns[r->ncolls])
			r->coll_interval_ns[r->ncolls] = 1000000000ULL;
		ret = start_collector(r, pc, cj);
		if (ret) {
			if (ops->close)
				ops->close(pc);
			pn_series_free(&pc->series);
			continue;
		}
		r->ncolls++;
	}
	return 0;
}

static void close_collectors(struct run *r, cJSON *colls_json)
{
	for (size_t i = 0; i < r->ncolls; i++) {
		struct pn_coll *pc = &r->colls[i];
		char path[PATH_MAX + 300];
		cJSON *cj;
		int ret;

		snprintf(path, sizeof(path), "%s/%s.csv", r->outdir, pc->ops->name);
		ret = pn_series_close(&pc->series);
		if (ret)
			pn_warn("%s: %s", path, strerror(-ret));
		cJSON_ArrayForEach (cj, colls_json) {
			const cJSON *n = cJSON_GetObjectItem(cj, "collector");

			if (cJSON_IsString(n) && !strcmp(n->valuestring, pc->ops->name)) {
				cJSON_AddNumberToObject(cj, "columns", (double)pc->series.ncols);
				cJSON_AddNumberToObject(cj, "rows", (double)pc->series.nrows);
			}
		}
		if (pc->ops->close)
			pc->ops->close(pc);
		pn_series_free(&pc->series);
	}
	free(r->colls);
	free(r->coll_interval_ns);
	r->coll_interval_ns = NULL;
	r->colls = NULL;
	r->ncolls = 0;
}

/* --------------------------------------------------------- --exec config */

static const char builtin_exec_config[] =
	"{\"name\": \"exec\", \"description\": \"built-in: collectors around a command\","
	" \"nodes\": {\"private\": \"auto\"}, \"iterations\": 1,"
	" \"collectors\": {\"interval\": \"500ms\", \"enabled\": [\"vmstat\", \"nodestat\", "
	"\"zoneinfo\"]},"
	" \"phases\": [{\"name\": \"exec\", \"workloads\": []}]}";

/* ------------------------------------------------------------- top level */

/* mkdir -p of the parents, then the directory itself: 0, -EEXIST or -errno. */
static int make_dir(const char *path, bool exclusive)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	return exclusive ? -EEXIST : 0;
}

/*
 * -o DIR: a directory (made if missing) that holds no run.json unless
 * --force; anything else is a usage error before anything runs.  Default:
 * results/runs/<name>-<utc>, with -2, -3 ... when a run started in the same
 * second already has it (mkdir is the atomic claim).
 */
static int make_outdir(struct run *r, const char *name)
{
	char path[PATH_MAX + 16], stamp[32];
	struct stat st;
	time_t t = time(NULL);
	struct tm tm;
	int ret;

	if (r->o->outdir) {
		snprintf(r->outdir, sizeof(r->outdir), "%s", r->o->outdir);
		if (stat(r->outdir, &st) == 0 && !S_ISDIR(st.st_mode))
			return pn_error(-ENOTDIR, "-o %s: exists and is not a directory",
					r->outdir);
		snprintf(path, sizeof(path), "%s/run.json", r->outdir);
		if (!r->o->force && stat(path, &st) == 0)
			return pn_error(-EEXIST, "%s exists: pick another -o DIR or pass --force",
					path);
		ret = make_dir(r->outdir, false);
		if (!ret && access(r->outdir, W_OK))
			ret = -errno;
		if (ret)
			return pn_error(ret, "cannot create %s: %s", r->outdir, strerror(-ret));
		return 0;
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			snprintf(r->outdir, sizeof(r->outdir), "results/runs/%s-%s", name, stamp);
		else
			snprintf(r->outdir, sizeof(r->outdir), "results/runs/%s-%s-%d", name, stamp,
				 k);
		ret = make_dir(r->outdir, true);
		if (ret != -EEXIST)
			break;
	}
	if (ret)
		return pn_error(ret, "cannot create %s: %s", r->outdir, strerror(-ret));
	return 0;
}

/* A node list in a workload's node-set option must name nodes of this
 * machine: a config error (exit 2), not a failed run. */
static int check_node_params(struct run *r)
{
	struct pn_nodeset mem, ns, bad;

	pn_nodeset_or(&mem, &r->topo.with_memory, &r->topo.with_private_memory);
	for (size_t p = 0; p < r->cs.n; p++) {
		const struct pn_config *c = &r->cs.points[p];

		for (size_t ph = 0; ph <= c->nphases; ph++) {
			const struct pn_config_wl *wl =
				ph < c->nphases ? c->phases[ph].wl : c->background;
			size_t nwl = ph < c->nphases ? c->phases[ph].nwl : c->nbackground;

			for (size_t i = 0; i < nwl; i++) {
				for (const struct pn_opt *o = wl[i].ops->opts; o && o->name; o++) {
					const cJSON *v = cJSON_GetObjectItem(wl[i].params, o->name);
					char list[128], have[128];

					if (o->type != PN_OPT_NODES || !cJSON_IsString(v) ||
					    pn_nodeset_parse(&ns, v->valuestring))
						continue; /* private / dram / all */
					pn_nodeset_andnot(&bad, &ns, &mem);
					if (pn_nodeset_empty(&bad))
						continue;
					pn_nodeset_format(&bad, list, sizeof(list));
					pn_nodeset_format(&mem, have, sizeof(have));
					return pn_error(
						-EINVAL,
						"%s: %s.params.%s: node(s) %s have no memory "
						"on this machine (memory nodes: %s)",
						c->file, wl[i].jpath, o->name, list, have);
				}
			}
		}
	}
	return 0;
}

static int load_config(struct run *r)
{
	int ret;

	if (r->o->config_path) {
		ret = pn_config_load(r->o->config_path, &r->cs);
	} else if (r->o->exec_argv) {
		r->own_builtin = true;
		ret = pn_config_parse(builtin_exec_config, sizeof(builtin_exec_config) - 1,
				      "(built-in exec config)", &r->cs);
	} else {
		return pn_error(-EINVAL, "run: a CONFIG or --exec -- CMD is needed");
	}
	if (ret)
		return ret; /* the loader named the file and field */
	r->c0 = &r->cs.points[0];
	if (r->o->exec_argv && !r->own_builtin && r->c0->nphases != 1)
		pn_info("--exec: the command runs in every phase of %s", r->c0->file);
	return 0;
}

/* Config, topology, roles, output directory, cgroups: exit code or -1 = go on. */
static int prepare(struct run *r)
{
	char name[64];
	int ret;

	if (load_config(r))
		return PN_EXIT_USAGE;
	ret = pn_journal_begin(r->o->argc, r->o->argv);
	if (ret)
		return ret == -EBUSY ? PN_EXIT_USAGE : PN_EXIT_ERROR;
	if (pn_topology_load(&r->topo))
		return PN_EXIT_ERROR;
	if (resolve_roles(r, r->c0) || check_node_params(r))
		return PN_EXIT_USAGE;
	r->env.topo = &r->topo;
	r->env.roles = &r->roles;
	r->env.is_root = geteuid() == 0;
	r->refresh_ok = r->env.is_root && pn_stat_refresh() == 0;
	if (!r->refresh_ok)
		pn_warn("cannot fold per-CPU counters (/proc/sys/vm/stat_refresh needs root): "
			"node readings may be off by a few pages per item");
	if (make_outdir(r, r->c0->name))
		return PN_EXIT_USAGE;
	snprintf(name, sizeof(name), "pnbench-%d", (int)getpid());
	pn_cg_setup(&r->cg, name);
	r->env.have_cgroup = r->cg.version != 0;
	if (r->cg.version)
		pn_info("workloads run in %s (%s)", r->cg.base, r->cg.reason);
	else
		pn_warn("workloads run without cgroups: %s", r->cg.reason);
	return -1;
}

/* One matrix point: its iterations and phases.  Returns a PN_EXIT_* or 0. */
static int run_point(struct run *r, size_t p)
{
	struct pn_config *c = &r->cs.points[p];
	int iterations = r->o->iterations_override > 0 ? r->o->iterations_override : c->iterations;
	cJSON *pj = cJSON_CreateObject(), *iters;
	int ret = 0;

	cJSON_AddNumberToObject(pj, "index", (double)p);
	if (c->matrix_point)
		cJSON_AddItemToObject(pj, "matrix", cJSON_Duplicate(c->matrix_point, 1));
	else
		cJSON_AddNullToObject(pj, "matrix");
	cJSON_AddItemToObject(pj, "config", cJSON_Duplicate(c->resolved, 1));
	iters = cJSON_AddArrayToObject(pj, "iterations");
	cJSON_AddItemToArray(r->points_json, pj);
	if (r->cs.n > 1)
		pn_info("matrix point %zu/%zu", p + 1, r->cs.n);
	c->iterations = iterations;
	for (int it = 0; it < iterations && !ret; it++) {
		cJSON *ij = cJSON_CreateObject(), *phases;

		cJSON_AddNumberToObject(ij, "index", it);
		phases = cJSON_AddArrayToObject(ij, "phases");
		cJSON_AddItemToArray(iters, ij);
		for (size_t ph = 0; ph < c->nphases && !ret; ph++) {
			int rc = pn_run_phase(r, c, ph, it, phases);

			if (pn_should_stop()) {
				ret = 128 + pn_stop_signal;
			} else if (rc) {
				snprintf(r->stop_reason, sizeof(r->stop_reason),
					 "phase %s failed: %s", c->phases[ph].name, strerror(-rc));
				ret = PN_EXIT_ERROR;
			} else if (pn_results_write(r)) {
				snprintf(r->stop_reason, sizeof(r->stop_reason),
					 "cannot write %.120s/run.json", r->outdir);
				ret = PN_EXIT_ERROR;
			}
		}
		r->global_iter++;
	}
	cJSON_AddItemToObject(pj, "summary", pn_results_summarize_point(iters));
	return ret;
}

/* Status and exit code once the points ran (or stopped). */
static int finish(struct run *r, int stopped)
{
	int v;

	if (pn_should_stop()) {
		char reason[64];

		snprintf(reason, sizeof(reason), "interrupted by signal %d (%s)",
			 (int)pn_stop_signal, strsignal(pn_stop_signal));
		pn_results_status(r, "incomplete", reason);
		pn_warn("%s: results so far are in %s (marked incomplete)", reason, r->outdir);
		return 128 + pn_stop_signal;
	}
	if (stopped == PN_EXIT_ERROR) {
		pn_results_status(r, "failed", r->stop_reason);
		return PN_EXIT_ERROR;
	}
	v = pn_results_judge(r);
	if (r->ran_workloads == 0 && !r->o->exec_argv) {
		char why[sizeof(r->last_why) + 96];

		if (!r->failed_workloads) {
			pn_results_status(r, "complete",
					  "no workload ran (see each workload's reason)");
			return PN_EXIT_SKIP;
		}
		/* they ran (or tried) and ended otherwise: say how, not "none ran" */
		snprintf(why, sizeof(why), "no workload ended as expected: %d failed (last: %s)",
			 r->failed_workloads, r->last_why);
		pn_results_status(r, "failed", why);
		return PN_EXIT_ERROR;
	}
	if (r->failed_workloads || r->exec_failed) {
		pn_results_status(r, "failed",
				  r->exec_failed ? "the --exec command failed"
						 : "a workload failed (see points[].iterations[]."
						   "phases[].workloads[].reason)");
		return PN_EXIT_ERROR;
	}
	pn_results_status(r, "complete", NULL);
	return v;
}

int pn_run(const struct pn_run_opts *o)
{
	struct run r;
	int exit_code, stopped = 0;
	cJSON *colls_json;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.page_size = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < PN_MAX_NODES; i++)
		r.worst_general[i] = r.worst_events[i] = -1;
	exit_code = prepare(&r);
	if (exit_code >= 0)
		goto out;
	pn_install_stop_handlers();
	r.root = pn_results_new_root(&r, r.c0);
	if (r.topo.hwloc_xml) {
		char path[PATH_MAX + 16];
		int ret;

		snprintf(path, sizeof(path), "%s/topology.xml", r.outdir);
		ret = pn_atomic_write(path, r.topo.hwloc_xml, strlen(r.topo.hwloc_xml));
		if (ret)
			pn_warn("%s: %s", path, strerror(-ret));
	}
	colls_json = cJSON_GetObjectItem(r.root, "collectors");
	open_collectors(&r, r.c0, colls_json);
	if (pn_results_write(&r)) {
		exit_code = PN_EXIT_ERROR;
		goto out_colls;
	}
	for (size_t p = 0; p < r.cs.n && !stopped; p++)
		stopped = run_point(&r, p);
	close_collectors(&r, colls_json);
	exit_code = finish(&r, stopped);
	if (pn_results_write(&r))
		exit_code = PN_EXIT_ERROR;
	else
		pn_results_print(&r);
	cJSON_Delete(r.root);
	goto out;
out_colls:
	close_collectors(&r, colls_json);
	cJSON_Delete(r.root);
out:
	pn_cg_teardown(&r.cg);
	pn_journal_end();
	pn_topology_free(&r.topo);
	pn_config_set_free(&r.cs);
	return exit_code;
}
