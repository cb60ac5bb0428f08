// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - the runner's top level: a config (or a user command) in, one
 * results directory out (run.json, topology.xml, <collector>.csv).
 *
 * For every matrix point, iteration and phase it runs pn_run_phase()
 * (phase.c: workloads in child processes and cgroups, exact accounting).
 * The results tree (runjson.c) is the one run model: it is rewritten
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

#include "core/lib/atomicfile.h"
#include "core/lib/outdir.h"
#include "core/sys/journal.h"
#include "core/sys/procfs.h"
#include "progress.h"
#include "run_int.h"

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
	char file[300];
	int ret = 0;

	snprintf(file, sizeof(file), "%s.csv", pc->ops->name);
	if (pc->ops->sample)
		ret = pn_series_stream(&pc->series, r->outfd, r->outdir, file);
	if (!ret && pc->ops->kind == PN_COLL_EVENT && pc->ops->start)
		ret = pc->ops->start(pc);
	if (ret) {
		pn_warn("collector %s: cannot start: %s", pc->ops->name, strerror(-ret));
		return ret;
	}
	cJSON_AddStringToObject(cj, "status", "ok");
	if (pc->ops->sample)
		cJSON_AddStringToObject(cj, "file", file);
	else
		cJSON_AddNullToObject(cj, "file");
	return 0;
}

/* "name: why" appended to buf (a requested collector that did not run). */
static void note_failed(char *buf, size_t len, const char *name, const char *why)
{
	size_t off = strlen(buf);

	if (off < len)
		snprintf(buf + off, len - off, "%s%s: %s", off ? "; " : "", name, why);
}

/* A collector that will not run: its status and, when the verdict depends
 * on it, why the verdict cannot rely on it. */
static void coll_not_run(struct run *r, const struct pn_config_coll *cc, cJSON *cj,
			 const char *status, const char *why)
{
	cJSON_AddStringToObject(cj, "status", status);
	cJSON_AddStringToObject(cj, "reason", why);
	if (cc->ops->kind == PN_COLL_EVENT && !r->events_on)
		snprintf(r->events_why, sizeof(r->events_why), "%s %s: %s", cc->ops->name, status,
			 why);
	if (!cc->automatic && strcmp(status, "off") != 0)
		note_failed(r->coll_failed, sizeof(r->coll_failed), cc->ops->name, why);
}

/* Open one collector into r->colls[r->ncolls]; false when it does not run. */
static bool open_one(struct run *r, const struct pn_config *c, const struct pn_config_coll *cc,
		     cJSON *cj)
{
	const struct pn_collector *ops = cc->ops;
	struct pn_coll *pc = &r->colls[r->ncolls];
	char why[256] = "";
	int ret;

	if (ops->kind == PN_COLL_EVENT && r->o->no_events) {
		coll_not_run(r, cc, cj, "off", "--no-events");
		return false;
	}
	ret = ops->supported ? ops->supported(&r->env, why, sizeof(why)) : 0;
	if (ret) {
		pn_warn("collector %s skipped: %s", ops->name, why);
		coll_not_run(r, cc, cj, "skipped", why);
		return false;
	}
	memset(pc, 0, sizeof(*pc));
	pc->ops = ops;
	pc->params.opts = ops->opts;
	pc->params.obj = cc->params;
	pc->env = &r->env;
	pn_series_init(&pc->series, ops->name);
	pn_clear_error();
	ret = ops->open(pc);
	if (ret) {
		snprintf(why, sizeof(why), "cannot open: %s",
			 *pn_last_error() ? pn_last_error() : strerror(-ret));
		pn_warn("collector %s %s", ops->name, why);
		coll_not_run(r, cc, cj, "failed", why);
		pn_series_free(&pc->series);
		return false;
	}
	cJSON_AddStringToObject(cj, "kind", ops->kind == PN_COLL_EVENT ? "event" : "sampler");
	r->coll_interval_ns[r->ncolls] =
		(cc->interval_ms ? cc->interval_ms : c->interval_ms) * 1000000ULL;
	if (!r->coll_interval_ns[r->ncolls])
		r->coll_interval_ns[r->ncolls] = 1000000000ULL;
	ret = start_collector(r, pc, cj);
	if (ret) {
		snprintf(why, sizeof(why), "cannot start: %s", strerror(-ret));
		coll_not_run(r, cc, cj, "failed", why);
		if (ops->close)
			ops->close(pc);
		pn_series_free(&pc->series);
		return false;
	}
	return true;
}

/*
 * Every collector of the config.  An event collector that runs makes the
 * events the verdict's ground truth; one the config lists that does not run
 * makes the verdict inconclusive (r->coll_failed); the one "events": "auto"
 * added that cannot run here leaves a counters-only verdict that says so.
 */
static int open_collectors(struct run *r, const struct pn_config *c, cJSON *out)
{
	r->colls = pn_xcalloc(c->ncoll ? c->ncoll : 1, sizeof(*r->colls));
	r->coll_interval_ns = pn_xcalloc(c->ncoll ? c->ncoll : 1, sizeof(*r->coll_interval_ns));
	if (c->events_off)
		snprintf(r->events_why, sizeof(r->events_why),
			 "the config turns them off (collectors.events \"off\")");
	else if (r->o->no_events)
		snprintf(r->events_why, sizeof(r->events_why), "turned off by --no-events");
	for (size_t i = 0; i < c->ncoll; i++) {
		const struct pn_config_coll *cc = &c->coll[i];
		cJSON *cj = cJSON_CreateObject();

		cJSON_AddStringToObject(cj, "collector", cc->ops->name);
		cJSON_AddNumberToObject(cj, "interval_ms", (double)cc->interval_ms);
		cJSON_AddItemToObject(cj, "params", cJSON_Duplicate(cc->params, 1));
		cJSON_AddBoolToObject(cj, "requested", !cc->automatic);
		cJSON_AddItemToArray(out, cj);
		if (!open_one(r, c, cc, cj))
			continue;
		if (cc->ops->kind == PN_COLL_EVENT) {
			r->events_on = true;
			r->events_why[0] = '\0';
		}
		r->ncolls++;
	}
	if (!r->events_on && !r->events_why[0])
		snprintf(r->events_why, sizeof(r->events_why), "no event collector configured");
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

/*
 * -o DIR: a directory (made if missing, never through a symlink) that holds
 * no run.json unless --force; anything else is a usage error before
 * anything runs.  Default: results/runs/<name>-<utc>, with -2, -3 ... when a
 * run started in the same second already has it (mkdir is the atomic claim).
 * Either way the directory stays open and locked (outdir.h) for the run, and
 * every name the run will write into it must be free or a regular file.
 */
static int make_outdir(struct run *r, const char *name)
{
	char stamp[32], file[300];
	time_t t = time(NULL);
	struct tm tm;
	int fd = -EEXIST;

	if (r->o->outdir) {
		snprintf(r->outdir, sizeof(r->outdir), "%s", r->o->outdir);
		fd = pn_outdir_open(r->outdir, false, r->o->force);
	} else {
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		for (int k = 1; k < 1000 && fd == -EEXIST; k++) {
			if (k == 1)
				snprintf(r->outdir, sizeof(r->outdir), "results/runs/%s-%s", name,
					 stamp);
			else
				snprintf(r->outdir, sizeof(r->outdir), "results/runs/%s-%s-%d",
					 name, stamp, k);
			fd = pn_outdir_open(r->outdir, true, false);
		}
		if (fd == -EEXIST)
			return pn_error(fd, "cannot create %s: %s", r->outdir, strerror(-fd));
	}
	if (fd < 0)
		return fd;
	r->outfd = fd;
	if (pn_outfile_check(fd, r->outdir, "topology.xml"))
		return -EEXIST;
	for (size_t i = 0; i < r->c0->ncoll; i++) {
		snprintf(file, sizeof(file), "%s.csv", r->c0->coll[i].ops->name);
		if (pn_outfile_check(fd, r->outdir, file))
			return -EEXIST;
	}
	return 0;
}

/* Every node-set option of one entry (a workload or a collector) names
 * nodes with memory here: 0, or a config error naming its path. */
static int check_entry_nodes(const struct pn_nodeset *mem, const struct pn_config *c,
			     const struct pn_opt *opts, const cJSON *params, const char *jpath)
{
	struct pn_nodeset ns, bad;
	char list[128], have[128];

	for (const struct pn_opt *o = opts; o && o->name; o++) {
		const cJSON *v = cJSON_GetObjectItem(params, o->name);

		if (o->type != PN_OPT_NODES || !cJSON_IsString(v) ||
		    pn_nodeset_parse(&ns, v->valuestring))
			continue; /* private / dram / all */
		pn_nodeset_andnot(&bad, &ns, mem);
		if (pn_nodeset_empty(&bad))
			continue;
		pn_nodeset_format(&bad, list, sizeof(list));
		pn_nodeset_format(mem, have, sizeof(have));
		return pn_error(-EINVAL,
				"%s: %s.params.%s: node(s) %s have no memory on this machine "
				"(memory nodes: %s)",
				c->file, jpath, o->name, list, have);
	}
	return 0;
}

/* A node list in a workload's or a collector's node-set option must name
 * nodes of this machine: a config error (exit 2), not a failed run. */
static int check_node_params(struct run *r)
{
	struct pn_nodeset mem;
	char jpath[64];

	pn_nodeset_or(&mem, &r->topo.with_memory, &r->topo.with_private_memory);
	for (size_t p = 0; p < r->cs.n; p++) {
		const struct pn_config *c = &r->cs.points[p];

		for (size_t ph = 0; ph <= c->nphases; ph++) {
			const struct pn_config_wl *wl =
				ph < c->nphases ? c->phases[ph].wl : c->background;
			size_t nwl = ph < c->nphases ? c->phases[ph].nwl : c->nbackground;

			for (size_t i = 0; i < nwl; i++)
				if (check_entry_nodes(&mem, c, wl[i].ops->opts, wl[i].params,
						      wl[i].jpath))
					return -EINVAL;
		}
		for (size_t i = 0; i < c->ncoll; i++) {
			snprintf(jpath, sizeof(jpath), "$.collectors.enabled[%zu]", i);
			if (check_entry_nodes(&mem, c, c->coll[i].ops->opts, c->coll[i].params,
					      jpath))
				return -EINVAL;
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
	if (pn_host_lock_needed()) {
		r->hostfd = pn_host_lock(r->o->no_wait);
		if (r->hostfd == -EINTR)
			return 128 + pn_stop_signal;
		if (r->hostfd < 0)
			return PN_EXIT_USAGE;
	}
	snprintf(name, sizeof(name), "pnbench-%d", (int)getpid());
	pn_cgroup_setup(&r->cg, name);
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
			int rc;

			pn_progress_phase_begins(c->phases[ph].name);
			rc = pn_run_phase(r, c, ph, it, phases);
			pn_progress_phase_done();

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

/*
 * Status and exit code once the points ran (or stopped): the verdict
 * (verdict.c) computes the one exit code from how the run ended and what it
 * judged, and run.json records the same code the process exits with.
 */
static int finish(struct run *r, int stopped)
{
	char reason[64];
	int code;

	r->finished = true;
	if (pn_should_stop())
		r->stop_signal = pn_stop_signal;
	else if (stopped == PN_EXIT_ERROR)
		r->run_error = true;
	code = pn_results_judge(r);
	if (r->stop_signal) {
		snprintf(reason, sizeof(reason), "interrupted by signal %d (%s)", r->stop_signal,
			 strsignal(r->stop_signal));
		pn_results_status(r, "incomplete", reason);
		pn_warn("%s: results so far are in %s (marked incomplete)", reason, r->outdir);
	} else if (r->run_error) {
		pn_results_status(r, "failed", r->stop_reason);
	} else if (r->ran_workloads == 0 && !r->o->exec_argv && !r->failed_workloads) {
		pn_results_status(r, "complete", "no workload ran (see each workload's reason)");
	} else if (r->ran_workloads == 0 && !r->o->exec_argv) {
		/* they ran (or tried) and ended otherwise: say how, not "none ran" */
		char why[sizeof(r->last_why) + 96];

		snprintf(why, sizeof(why), "no workload ended as expected: %d failed (last: %s)",
			 r->failed_workloads, r->last_why);
		pn_results_status(r, "failed", why);
	} else if (r->failed_workloads || r->exec_failed) {
		pn_results_status(r, "failed",
				  r->exec_failed ? "the --exec command failed"
						 : "a workload failed (see points[].iterations[]."
						   "phases[].workloads[].reason)");
	} else {
		pn_results_status(r, "complete", NULL);
	}
	return code;
}

/* Phases of the whole run, for the progress lines. */
static int progress_total(const struct run *r)
{
	int total = 0;

	for (size_t p = 0; p < r->cs.n; p++)
		total += (int)r->cs.points[p].nphases * (r->o->iterations_override > 0
								 ? r->o->iterations_override
								 : r->cs.points[p].iterations);
	return total;
}

int pn_run(const struct pn_run_opts *o)
{
	struct run r;
	int exit_code, stopped = 0;
	cJSON *colls_json;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.outfd = r.hostfd = -1;
	/* From the start: a HUP while a lock is waited for or the cgroups are
	 * made still ends in the cleanup below. */
	pn_install_stop_handlers();
	r.page_size = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < PN_MAX_NODES; i++)
		r.worst_general[i] = r.worst_events[i] = -1;
	r.counters_why = pn_xcalloc(PN_MAX_NODES, sizeof(*r.counters_why));
	exit_code = prepare(&r);
	if (exit_code >= 0)
		goto out;
	r.root = pn_results_new_root(&r, r.c0);
	if (r.topo.hwloc_xml) {
		int ret = pn_atomic_writeat(r.outfd, r.outdir, "topology.xml", r.topo.hwloc_xml,
					    strlen(r.topo.hwloc_xml));
		if (ret)
			pn_warn("%s/topology.xml: %s", r.outdir, strerror(-ret));
	}
	colls_json = cJSON_GetObjectItem(r.root, "collectors");
	open_collectors(&r, r.c0, colls_json);
	if (pn_results_write(&r)) {
		exit_code = PN_EXIT_ERROR;
		goto out_colls;
	}
	pn_progress_start(progress_total(&r),
			  o->progress > 0 ||
				  (!o->progress && isatty(2) && pn_log_level >= PN_LOG_INFO),
			  o->progress > 0);
	for (size_t p = 0; p < r.cs.n && !stopped && !pn_should_stop(); p++)
		stopped = run_point(&r, p);
	pn_progress_stop();
	close_collectors(&r, colls_json);
	exit_code = finish(&r, stopped);
	if (pn_results_write(&r))
		exit_code = PN_EXIT_ERROR; /* run.json could not say it */
	else
		pn_results_print(&r);
	cJSON_Delete(r.root);
	goto out;
out_colls:
	close_collectors(&r, colls_json);
	cJSON_Delete(r.root);
out:
	pn_verdict_state_free(&r.vs);
	free(r.counters_why);
	pn_cgroup_teardown(&r.cg);
	pn_journal_end();
	pn_lock_release(r.hostfd); /* the locks go last, once the host is back */
	pn_lock_release(r.outfd);
	pn_topology_free(&r.topo);
	pn_config_set_free(&r.cs);
	return exit_code;
}
