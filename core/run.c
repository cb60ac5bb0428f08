// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - the runner.
 *
 * For every matrix point, iteration and phase:
 *   fold counters (stat_refresh) and snapshot every role node;
 *   set up the phase's workloads (foreground and background), start the
 *   sampler thread, run the workloads in threads (or the --exec command);
 *   once every run() has returned, and while their memory is still mapped,
 *   fold and snapshot again; tear down.
 * The difference of the two snapshots, minus the workloads' verified explicit
 * pages, is what general allocations left on each private node (verdict.c).
 *
 * The results tree (cJSON) is the one run model: it is rewritten atomically
 * after every phase with status "incomplete", so a run killed at any point
 * leaves valid JSON, and finally with "complete".  Text summaries read the
 * same tree.  Logs and errors go to stderr only.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "atomicfile.h"
#include "collector.h"
#include "config.h"
#include "pn.h"
#include "procfs.h"
#include "provenance.h"
#include "run.h"
#include "topology.h"
#include "verdict.h"
#include "workload.h"

#define PN_SCHEMA_VERSION 1

struct run {
	const struct pn_run_opts *o;
	struct pn_config_set cs;
	bool own_builtin; /* cs built in code for --exec without a config */
	struct pn_topology topo;
	struct pn_roles roles;
	struct pn_env env;
	char outdir[PATH_MAX];
	cJSON *root; /* the run model */
	cJSON *points_json;
	struct pn_coll *colls;
	uint64_t *coll_interval_ns;
	size_t ncolls;
	bool refresh_ok; /* stat_refresh works (root) */
	long page_size;
	int global_iter;
	int64_t worst_general[PN_MAX_NODES]; /* -1 = not judged */
	int64_t misplaced_total;
	int ran_workloads; /* workloads that actually ran */
	int failed_workloads;
	const struct pn_config *c0; /* thresholds and roles come from point 0 */
	char stop_reason[128];
	char last_why[256]; /* last skip/failure reason printed */
};

static int judge(struct run *r, const struct pn_config *c);

/* ---------------------------------------------------------------- output */

static int mkdir_p(const char *path)
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
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Rewrite run.json atomically; the verdict always reflects what ran so far. */
static int write_json(struct run *r)
{
	char path[PATH_MAX + 16];
	char *text;
	int ret;

	judge(r, r->c0);
	text = cJSON_Print(r->root);
	if (!text)
		return pn_error(-ENOMEM, "cannot render run.json");
	snprintf(path, sizeof(path), "%s/run.json", r->outdir);
	ret = pn_atomic_write(path, text, strlen(text));
	cJSON_free(text);
	if (ret)
		return pn_error(ret, "%s: %s", path, strerror(-ret));
	return 0;
}

static void set_status(struct run *r, const char *state, const char *reason)
{
	cJSON *st = cJSON_GetObjectItem(r->root, "status");
	char now[32];

	cJSON_ReplaceItemInObject(st, "state", cJSON_CreateString(state));
	if (reason)
		cJSON_ReplaceItemInObject(st, "reason", cJSON_CreateString(reason));
	else
		cJSON_ReplaceItemInObject(st, "reason", cJSON_CreateNull());
	pn_utc_iso8601(now, sizeof(now));
	cJSON_ReplaceItemInObject(r->root, "updated_at", cJSON_CreateString(now));
}

static int64_t pages_of(int64_t bytes, long page_size)
{
	return bytes / page_size;
}

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

static cJSON *roles_json(const struct pn_roles *roles)
{
	cJSON *o = cJSON_CreateObject();
	char buf[512];

	pn_nodeset_format(&roles->private_nodes, buf, sizeof(buf));
	cJSON_AddStringToObject(o, "private", buf);
	pn_nodeset_format(&roles->dram_nodes, buf, sizeof(buf));
	cJSON_AddStringToObject(o, "dram", buf);
	cJSON_AddBoolToObject(o, "private_auto", roles->private_auto);
	return o;
}

/* ------------------------------------------------------------ collectors */

struct exec_probe {
	pid_t pid;
	int64_t last_bytes[PN_MAX_NODES]; /* last numa_maps sample, per node */
	int64_t peak_bytes[PN_MAX_NODES];
	int samples;
};

struct sampler {
	struct run *r;
	int iteration;
	const char *tag;
	volatile int done;
	struct exec_probe *probe;
	uint64_t probe_interval_ns; /* numa_maps and private-node peaks */
	struct pn_node_delta *d;    /* role nodes of the phase */
	int nnodes;
};

/* Fold the private nodes' current counters into their phase peaks. */
static void sample_peaks(struct sampler *s)
{
	for (int k = 0; k < s->nnodes; k++) {
		struct pn_nodemem m;

		if (s->d[k].is_private && pn_nodemem_read(s->d[k].node, &m) == 0)
			pn_node_delta_sample(&s->d[k], &m);
	}
}

/* Sum /proc/PID/numa_maps "N<node>=<pages>" by node, in bytes. */
static int sample_numa_maps(struct exec_probe *p)
{
	char rel[64], *line, *save = NULL;
	static char buf[1 << 20];
	int64_t bytes[PN_MAX_NODES] = { 0 };
	ssize_t n;

	snprintf(rel, sizeof(rel), "/proc/%d/numa_maps", (int)p->pid);
	n = pn_read_text(rel, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 ? (int)n : -ENOENT;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *kp = strstr(line, "kernelpagesize_kB=");
		int64_t page = kp ? atoll(kp + 18) * 1024 : 4096;
		char *tok, *s2 = NULL;

		for (tok = strtok_r(line, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
			int node;
			long long pages;

			if (tok[0] == 'N' && sscanf(tok, "N%d=%lld", &node, &pages) == 2 &&
			    node >= 0 && node < PN_MAX_NODES)
				bytes[node] += pages * page;
		}
	}
	for (int i = 0; i < PN_MAX_NODES; i++) {
		p->last_bytes[i] = bytes[i];
		if (bytes[i] > p->peak_bytes[i])
			p->peak_bytes[i] = bytes[i];
	}
	p->samples++;
	return 0;
}

static void sample_all(struct run *r, int iteration, const char *tag)
{
	for (size_t i = 0; i < r->ncolls; i++) {
		int ret = pn_coll_sample(&r->colls[i], iteration, tag);

		if (ret)
			pn_debug("collector %s: sample failed: %s", r->colls[i].ops->name,
				 strerror(-ret));
	}
}

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	struct run *r = s->r;
	uint64_t *due = pn_xcalloc(r->ncolls + 1, sizeof(*due));
	uint64_t now = pn_now_ns();

	for (size_t i = 0; i < r->ncolls; i++)
		due[i] = now + r->coll_interval_ns[i];
	due[r->ncolls] = now;
	while (!s->done && !pn_should_stop()) {
		uint64_t next = UINT64_MAX;
		struct timespec ts;

		now = pn_now_ns();
		for (size_t i = 0; i < r->ncolls; i++) {
			uint64_t iv = r->coll_interval_ns[i];

			if (now >= due[i]) {
				pn_coll_sample(&r->colls[i], s->iteration, s->tag);
				due[i] += iv;
				if (due[i] <= now)
					due[i] = now + iv;
			}
			if (due[i] < next)
				next = due[i];
		}
		if (now >= due[r->ncolls]) {
			if (s->probe)
				sample_numa_maps(s->probe);
			sample_peaks(s);
			due[r->ncolls] = now + s->probe_interval_ns;
		}
		if (due[r->ncolls] < next)
			next = due[r->ncolls];
		/* Sleep to the next due sample, but wake every 20 ms to see done. */
		now = pn_now_ns();
		if (next > now) {
			uint64_t d = next - now;

			if (d > 20000000ULL)
				d = 20000000ULL;
			ts.tv_sec = (time_t)(d / 1000000000ULL);
			ts.tv_nsec = (long)(d % 1000000000ULL);
			nanosleep(&ts, NULL);
		}
	}
	free(due);
	return NULL;
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
		cJSON_AddStringToObject(cj, "status", "ok");
		r->coll_interval_ns[r->ncolls] =
			(c->coll[i].interval_ms ? c->coll[i].interval_ms : c->interval_ms) *
			1000000ULL;
		if (!r->coll_interval_ns[r->ncolls])
			r->coll_interval_ns[r->ncolls] = 1000000000ULL;
		{
			char file[300];

			snprintf(file, sizeof(file), "%s.csv", ops->name);
			cJSON_AddStringToObject(cj, "file", file);
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
		ret = pn_series_write_csv(&pc->series, path);
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

/* ------------------------------------------------------------- workloads */

struct wl_slot {
	struct pn_wl w;
	pthread_t th;
	bool threaded;
	bool skipped;
	bool setup_done;
	bool setup_called; /* teardown() runs even after a failed setup() */
	int rc;
	char why[256];
	uint64_t t0_ns, t1_ns;
};

static void *wl_thread(void *arg)
{
	struct wl_slot *s = arg;

	s->t0_ns = pn_now_ns();
	s->rc = s->w.ops->run(&s->w);
	s->t1_ns = pn_now_ns();
	return NULL;
}

static void slot_init(struct run *r, struct wl_slot *s, const struct pn_config_wl *cw,
		      bool background, volatile sig_atomic_t *stop)
{
	memset(s, 0, sizeof(*s));
	s->w.ops = cw->ops;
	s->w.params.opts = cw->ops->opts;
	s->w.params.obj = cw->params;
	s->w.roles = &r->roles;
	s->w.topo = &r->topo;
	s->w.background = background;
	s->w.stop = stop;
	s->w.max_mem_share = r->c0->max_mem_share;
	if (cw->ops->supported && cw->ops->supported(&r->env, s->why, sizeof(s->why))) {
		s->skipped = true;
		return;
	}
	/* A node-set option that resolves to nothing on this machine (e.g.
	 * "private" on a kernel without private nodes) is a skip, not a failure. */
	for (const struct pn_opt *opt = cw->ops->opts; opt && opt->name; opt++) {
		struct pn_nodeset ns;

		if (opt->type != PN_OPT_NODES)
			continue;
		if (pn_param_nodes(&s->w.params, opt->name, &r->roles, &ns) ||
		    pn_nodeset_empty(&ns)) {
			snprintf(s->why, sizeof(s->why), "%s \"%s\" is no node here%s", opt->name,
				 pn_param_str(&s->w.params, opt->name),
				 pn_nodeset_empty(&r->roles.private_nodes)
					 ? " (no private nodes: name them with --private LIST or "
					   "nodes.private)"
					 : "");
			s->skipped = true;
			return;
		}
	}
	if (cw->ops->setup) {
		s->setup_called = true;
		s->rc = cw->ops->setup(&s->w);
		if (s->rc) {
			snprintf(s->why, sizeof(s->why), "setup failed: %s", strerror(-s->rc));
			return;
		}
	}
	s->setup_done = true;
}

static cJSON *metrics_json(const struct pn_wl_result *res)
{
	cJSON *m = cJSON_CreateObject();

	for (size_t i = 0; i < res->nmetrics; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "value", res->metrics[i].value);
		cJSON_AddStringToObject(o, "unit", pn_unit_name(res->metrics[i].unit));
		if (res->metrics[i].better)
			cJSON_AddStringToObject(o, "better", res->metrics[i].better);
		cJSON_AddItemToObject(m, res->metrics[i].name, o);
	}
	return m;
}

static cJSON *placement_json(const struct pn_wl_result *res)
{
	cJSON *p = cJSON_CreateObject(), *per;
	char key[16];

	cJSON_AddBoolToObject(p, "verified", res->verified);
	cJSON_AddNumberToObject(p, "explicit_pages", (double)res->explicit_pages);
	cJSON_AddNumberToObject(p, "intended_pages", (double)res->intended_pages);
	cJSON_AddNumberToObject(p, "misplaced_pages", (double)res->misplaced_pages);
	cJSON_AddNumberToObject(p, "unverified_pages", (double)res->unverified_pages);
	per = cJSON_AddObjectToObject(p, "per_node");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!res->placed_pages[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		cJSON_AddNumberToObject(per, key, (double)res->placed_pages[n]);
	}
	return p;
}

static cJSON *slot_json(struct run *r, struct wl_slot *s)
{
	cJSON *o = cJSON_CreateObject();

	/* Say why once, not once per iteration. */
	if ((s->skipped || !s->setup_done || s->rc) && strcmp(r->last_why, s->why) != 0) {
		snprintf(r->last_why, sizeof(r->last_why), "%s", s->why);
		if (s->skipped)
			pn_info("workload %s skipped: %s", s->w.ops->name, s->why);
		else
			pn_warn("workload %s failed: %s", s->w.ops->name,
				s->why[0] ? s->why : strerror(-s->rc));
	}

	cJSON_AddStringToObject(o, "workload", s->w.ops->name);
	cJSON_AddBoolToObject(o, "background", s->w.background);
	cJSON_AddItemToObject(o, "params", cJSON_Duplicate(s->w.params.obj, 1));
	if (s->skipped) {
		cJSON_AddStringToObject(o, "status", "skipped");
		cJSON_AddStringToObject(o, "reason", s->why);
		return o;
	}
	if (!s->setup_done || s->rc) {
		if (!s->why[0])
			snprintf(s->why, sizeof(s->why), "%s", strerror(-s->rc));
		cJSON_AddStringToObject(o, "status", "failed");
		cJSON_AddStringToObject(o, "reason", s->why);
		r->failed_workloads++;
	} else {
		cJSON_AddStringToObject(o, "status", "ok");
		r->ran_workloads++;
	}
	cJSON_AddNumberToObject(o, "duration_ns", (double)(s->t1_ns - s->t0_ns));
	cJSON_AddItemToObject(o, "metrics", metrics_json(&s->w.result));
	cJSON_AddItemToObject(o, "placement", placement_json(&s->w.result));
	if (s->w.result.note[0])
		cJSON_AddStringToObject(o, "note", s->w.result.note);
	if (s->w.result.misplaced_pages)
		r->misplaced_total += (int64_t)s->w.result.misplaced_pages;
	return o;
}

/* ---------------------------------------------------------------- phases */

static void snapshot(struct run *r, const struct pn_nodeset *nodes, struct pn_node_delta *d,
		     bool after)
{
	int n, i = 0;

	if (r->refresh_ok)
		pn_stat_refresh();
	pn_nodeset_for_each (n, nodes) {
		struct pn_nodemem *m = after ? &d[i].after : &d[i].before;
		int ret = pn_nodemem_read(n, m);

		d[i].node = n;
		d[i].is_private = pn_nodeset_test(&r->roles.private_nodes, n);
		if (ret)
			pn_warn("node %d: cannot read counters: %s", n, strerror(-ret));
		i++;
	}
}

/* Run a user command as the phase's workload; returns its wait status. */
static int run_exec(struct run *r, struct sampler *sp, struct exec_probe *probe, int *status)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return pn_error(-errno, "--exec: fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(r->o->exec_argv[0], r->o->exec_argv);
		fprintf(stderr, "pnbench: error: --exec: %s: %s\n", r->o->exec_argv[0],
			strerror(errno));
		_exit(127);
	}
	probe->pid = pid;
	sp->probe = probe;
	for (;;) {
		pid_t w = waitpid(pid, status, 0);

		if (w == pid)
			break;
		if (w < 0 && errno == EINTR) {
			if (pn_should_stop())
				kill(pid, SIGTERM);
			continue;
		}
		return pn_error(-errno, "--exec: waitpid: %s", strerror(errno));
	}
	sp->probe = NULL;
	/* 127 is what the child exits with when execvp() failed (it said why). */
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == 127)
		return pn_error(-ENOEXEC, "--exec: %s could not be run (exit status 127)",
				r->o->exec_argv[0]);
	return 0;
}

static int run_phase(struct run *r, const struct pn_config *c, size_t pi, int iter,
		     cJSON *phases_json)
{
	const struct pn_config_phase *ph = &c->phases[pi];
	struct pn_nodeset nodes;
	struct pn_node_delta *d;
	size_t nfg = ph->nwl, nbg = c->nbackground, nslots = nfg + nbg;
	struct wl_slot *slots = pn_xcalloc(nslots ? nslots : 1, sizeof(*slots));
	volatile sig_atomic_t bg_stop = 0;
	struct sampler sp = { .r = r, .iteration = r->global_iter };
	struct exec_probe probe;
	pthread_t sth;
	cJSON *pj = cJSON_CreateObject(), *wj, *nj;
	char tag[160];
	uint64_t t0 = 0, t1 = 0;
	int nnodes, exec_status = 0, ret = 0;
	bool exec_mode = r->o->exec_argv != NULL;

	memset(&probe, 0, sizeof(probe));
	snprintf(tag, sizeof(tag), "%s", ph->name);
	sp.tag = ph->name;
	sp.probe_interval_ns = (c->interval_ms ? c->interval_ms : 500) * 1000000ULL;
	pn_nodeset_or(&nodes, &r->roles.private_nodes, &r->roles.dram_nodes);
	nnodes = pn_nodeset_count(&nodes);
	d = pn_xcalloc(nnodes ? (size_t)nnodes : 1, sizeof(*d));

	pn_info("iteration %d/%d, phase %s: %zu workload(s)%s", iter + 1, c->iterations, ph->name,
		nfg, exec_mode ? " + command" : "");
	snapshot(r, &nodes, d, false);
	sp.d = d;
	sp.nnodes = nnodes;

	for (size_t i = 0; i < nbg; i++)
		slot_init(r, &slots[i], &c->background[i], true, &bg_stop);
	for (size_t i = 0; i < nfg; i++)
		slot_init(r, &slots[nbg + i], &ph->wl[i], false, NULL);

	sample_all(r, r->global_iter, sp.tag);
	if (pthread_create(&sth, NULL, sampler_main, &sp)) {
		ret = pn_error(-EAGAIN, "cannot start the sampler thread");
		goto out_teardown;
	}
	t0 = pn_now_ns();
	for (size_t i = 0; i < nslots; i++) {
		if (!slots[i].setup_done)
			continue;
		if (pthread_create(&slots[i].th, NULL, wl_thread, &slots[i])) {
			slots[i].rc = -EAGAIN;
			snprintf(slots[i].why, sizeof(slots[i].why), "cannot start a thread");
			continue;
		}
		slots[i].threaded = true;
	}
	if (exec_mode)
		ret = run_exec(r, &sp, &probe, &exec_status);
	for (size_t i = nbg; i < nslots; i++)
		if (slots[i].threaded)
			pthread_join(slots[i].th, NULL);
	bg_stop = 1;
	for (size_t i = 0; i < nbg; i++)
		if (slots[i].threaded)
			pthread_join(slots[i].th, NULL);
	t1 = pn_now_ns();
	sp.done = 1;
	pthread_join(sth, NULL);

	/* Memory of the workloads is still mapped: the after-snapshot sees it. */
	for (size_t i = 0; i < nslots; i++) {
		const struct pn_wl_result *res = &slots[i].w.result;

		for (int k = 0; k < nnodes; k++)
			d[k].explained_pages += (int64_t)res->placed_pages[d[k].node];
	}
	if (exec_mode && r->o->exec_explicit) {
		for (int k = 0; k < nnodes; k++)
			d[k].explained_pages += probe.last_bytes[d[k].node] / r->page_size;
	}
	snapshot(r, &nodes, d, true);
	for (int k = 0; k < nnodes; k++)
		if (d[k].is_private && d[k].have_peak)
			pn_node_delta_sample(&d[k], &d[k].after);
	sample_all(r, r->global_iter, sp.tag);

out_teardown:
	for (size_t i = 0; i < nslots; i++)
		if ((slots[i].setup_done || slots[i].setup_called) && slots[i].w.ops->teardown)
			slots[i].w.ops->teardown(&slots[i].w);

	cJSON_AddStringToObject(pj, "name", ph->name);
	cJSON_AddNumberToObject(pj, "duration_ns", ret ? 0 : (double)(t1 - t0));
	wj = cJSON_AddArrayToObject(pj, "workloads");
	for (size_t i = 0; i < nslots; i++)
		cJSON_AddItemToArray(wj, slot_json(r, &slots[i]));
	if (exec_mode) {
		cJSON *ej = cJSON_AddObjectToObject(pj, "exec"), *pn;
		char key[16];

		if (WIFEXITED(exec_status))
			cJSON_AddNumberToObject(ej, "exit_code", WEXITSTATUS(exec_status));
		else
			cJSON_AddNumberToObject(ej, "signal", WTERMSIG(exec_status));
		cJSON_AddBoolToObject(ej, "explicit", r->o->exec_explicit);
		cJSON_AddNumberToObject(ej, "numa_maps_samples", probe.samples);
		pn = cJSON_AddObjectToObject(ej, "last_pages_per_node");
		for (int n = 0; n < PN_MAX_NODES; n++) {
			if (!probe.peak_bytes[n])
				continue;
			snprintf(key, sizeof(key), "%d", n);
			cJSON_AddNumberToObject(
				pn, key, (double)pages_of(probe.last_bytes[n], r->page_size));
		}
		pn = cJSON_AddObjectToObject(ej, "peak_pages_per_node");
		for (int n = 0; n < PN_MAX_NODES; n++) {
			if (!probe.peak_bytes[n])
				continue;
			snprintf(key, sizeof(key), "%d", n);
			cJSON_AddNumberToObject(
				pn, key, (double)pages_of(probe.peak_bytes[n], r->page_size));
		}
		if (!WIFEXITED(exec_status) || WEXITSTATUS(exec_status))
			pn_warn("--exec: command %s", WIFEXITED(exec_status)
							      ? "exited with a non-zero status"
							      : "was killed by a signal");
	}
	nj = cJSON_AddObjectToObject(pj, "nodes");
	for (int k = 0; k < nnodes; k++) {
		char key[16];

		pn_node_delta_compute(&d[k], r->page_size);
		snprintf(key, sizeof(key), "%d", d[k].node);
		cJSON_AddItemToObject(nj, key, pn_node_delta_to_json(&d[k]));
		if (d[k].is_private && !ret && d[k].general_pages > r->worst_general[d[k].node])
			r->worst_general[d[k].node] = d[k].general_pages;
		if (d[k].is_private && !ret && r->worst_general[d[k].node] < 0)
			r->worst_general[d[k].node] = 0;
		if (d[k].is_private && d[k].general_pages)
			pn_info("  node %d: %lld general page(s) (anon %lld, file %lld, slab %lld, "
				"other %lld)",
				d[k].node, (long long)d[k].general_pages,
				(long long)d[k].general_by_kind[PN_KIND_ANON],
				(long long)d[k].general_by_kind[PN_KIND_FILE],
				(long long)d[k].general_by_kind[PN_KIND_SLAB],
				(long long)d[k].general_by_kind[PN_KIND_OTHER]);
	}
	cJSON_AddItemToArray(phases_json, pj);
	free(slots);
	free(d);
	return ret;
}

/* Median/min/max of every foreground metric over the point's iterations. */
static cJSON *summarize_point(cJSON *iters)
{
	cJSON *sum = cJSON_CreateObject(), *it, *ph, *wl, *m;

	cJSON_ArrayForEach (it, iters) {
		cJSON_ArrayForEach (ph, cJSON_GetObjectItem(it, "phases")) {
			const char *phn = cJSON_GetObjectItem(ph, "name")->valuestring;
			int idx = 0;

			cJSON_ArrayForEach (wl, cJSON_GetObjectItem(ph, "workloads")) {
				char key[256];
				cJSON *metrics = cJSON_GetObjectItem(wl, "metrics");

				snprintf(key, sizeof(key), "%s/%d:%s", phn, idx++,
					 cJSON_GetObjectItem(wl, "workload")->valuestring);
				if (!metrics)
					continue;
				cJSON_ArrayForEach (m, metrics) {
					cJSON *w = cJSON_GetObjectItem(sum, key), *e, *vals;

					if (!w)
						w = cJSON_AddObjectToObject(sum, key);
					e = cJSON_GetObjectItem(w, m->string);
					if (!e) {
						e = cJSON_AddObjectToObject(w, m->string);
						cJSON_AddItemToObject(
							e, "unit",
							cJSON_Duplicate(
								cJSON_GetObjectItem(m, "unit"), 0));
						cJSON_AddArrayToObject(e, "values");
					}
					vals = cJSON_GetObjectItem(e, "values");
					cJSON_AddItemToArray(
						vals,
						cJSON_CreateNumber(cJSON_GetObjectItem(m, "value")
									   ->valuedouble));
				}
			}
		}
	}
	cJSON_ArrayForEach (wl, sum) {
		cJSON_ArrayForEach (m, wl) {
			cJSON *vals = cJSON_GetObjectItem(m, "values"), *v;
			int n = cJSON_GetArraySize(vals), i = 0;
			double *a = pn_xcalloc((size_t)n, sizeof(*a));

			cJSON_ArrayForEach (v, vals)
				a[i++] = v->valuedouble;
			cJSON_AddNumberToObject(m, "n", n);
			cJSON_AddNumberToObject(m, "median", pn_median(a, (size_t)n));
			cJSON_AddNumberToObject(m, "min", a[0]);
			cJSON_AddNumberToObject(m, "max", a[n - 1]);
			free(a);
		}
	}
	return sum;
}

/* ------------------------------------------------------------ the verdict */

static int judge(struct run *r, const struct pn_config *c)
{
	cJSON *v, *nodes, *reasons;
	bool any = false, fail = false;
	char buf[256];
	int n;

	cJSON_DeleteItemFromObject(r->root, "verdict");
	v = cJSON_AddObjectToObject(r->root, "verdict");
	cJSON_AddNumberToObject(v, "threshold_general_pages", (double)c->max_general_pages);
	cJSON_AddNumberToObject(v, "threshold_misplaced_pages", (double)c->max_misplaced_pages);
	cJSON_AddNumberToObject(v, "misplaced_pages", (double)r->misplaced_total);
	nodes = cJSON_AddObjectToObject(v, "nodes");
	reasons = cJSON_AddArrayToObject(v, "reasons");
	pn_nodeset_for_each (n, &r->roles.private_nodes) {
		cJSON *o;
		char key[16];

		if (r->worst_general[n] < 0)
			continue;
		any = true;
		snprintf(key, sizeof(key), "%d", n);
		o = cJSON_AddObjectToObject(nodes, key);
		cJSON_AddNumberToObject(o, "general_pages_max", (double)r->worst_general[n]);
		cJSON_AddBoolToObject(o, "pass", r->worst_general[n] <= c->max_general_pages);
		if (r->worst_general[n] > c->max_general_pages) {
			fail = true;
			snprintf(buf, sizeof(buf),
				 "general allocations on private node %d: %lld pages "
				 "(threshold %lld)",
				 n, (long long)r->worst_general[n],
				 (long long)c->max_general_pages);
			cJSON_AddItemToArray(reasons, cJSON_CreateString(buf));
		}
	}
	if (c->max_misplaced_pages >= 0 && r->misplaced_total > c->max_misplaced_pages) {
		fail = true;
		snprintf(buf, sizeof(buf),
			 "explicit pages off their intended nodes: %lld "
			 "(threshold %lld)",
			 (long long)r->misplaced_total, (long long)c->max_misplaced_pages);
		cJSON_AddItemToArray(reasons, cJSON_CreateString(buf));
	}
	cJSON_AddStringToObject(v, "result", fail ? "fail" : any ? "pass" : "not_applicable");
	return fail ? PN_EXIT_VERDICT : PN_EXIT_PASS;
}

static void print_summary(struct run *r)
{
	cJSON *pt, *v = cJSON_GetObjectItem(r->root, "verdict"), *n, *reason;

	printf("pnbench run: %s\n", r->outdir);
	cJSON_ArrayForEach (pt, r->points_json) {
		cJSON *sum = cJSON_GetObjectItem(pt, "summary"), *wl, *m;
		cJSON *mx = cJSON_GetObjectItem(pt, "matrix");
		char *mtext = mx && cJSON_IsObject(mx) ? cJSON_PrintUnformatted(mx) : NULL;

		printf("point %d%s%s\n", cJSON_GetObjectItem(pt, "index")->valueint,
		       mtext ? " " : "", mtext ? mtext : "");
		cJSON_free(mtext);
		cJSON_ArrayForEach (wl, sum) {
			printf("  %s\n", wl->string);
			cJSON_ArrayForEach (m, wl)
				printf("    %-28s median %14.6g  min %14.6g  max %14.6g  %s "
				       "(n=%d)\n",
				       m->string, cJSON_GetObjectItem(m, "median")->valuedouble,
				       cJSON_GetObjectItem(m, "min")->valuedouble,
				       cJSON_GetObjectItem(m, "max")->valuedouble,
				       cJSON_GetObjectItem(m, "unit")->valuestring,
				       cJSON_GetObjectItem(m, "n")->valueint);
		}
	}
	cJSON_ArrayForEach (n, cJSON_GetObjectItem(v, "nodes"))
		printf("general allocations on private node %s: %.0f pages (threshold %.0f) %s\n",
		       n->string, cJSON_GetObjectItem(n, "general_pages_max")->valuedouble,
		       cJSON_GetObjectItem(v, "threshold_general_pages")->valuedouble,
		       cJSON_IsTrue(cJSON_GetObjectItem(n, "pass")) ? "PASS" : "FAIL");
	printf("explicit pages off their intended nodes: %.0f\n",
	       cJSON_GetObjectItem(v, "misplaced_pages")->valuedouble);
	cJSON_ArrayForEach (reason, cJSON_GetObjectItem(v, "reasons"))
		printf("reason: %s\n", reason->valuestring);
	printf("verdict: %s\n", cJSON_GetObjectItem(v, "result")->valuestring);
}

/* --------------------------------------------------------- --exec config */

static const char builtin_exec_config[] =
	"{\"name\": \"exec\", \"description\": \"built-in: collectors around a command\","
	" \"nodes\": {\"private\": \"auto\"}, \"iterations\": 1,"
	" \"collectors\": {\"interval\": \"500ms\", \"enabled\": [\"vmstat\", \"nodestat\", "
	"\"zoneinfo\"]},"
	" \"phases\": [{\"name\": \"exec\", \"workloads\": []}]}";

/* ------------------------------------------------------------- top level */

static cJSON *argv_json(int argc, char **argv)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
	return a;
}

static int make_outdir(struct run *r, const char *name)
{
	char path[PATH_MAX + 16], stamp[32];
	struct stat st;
	int ret;

	if (r->o->outdir) {
		snprintf(r->outdir, sizeof(r->outdir), "%s", r->o->outdir);
	} else {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		snprintf(r->outdir, sizeof(r->outdir), "results/runs/%s-%s", name, stamp);
	}
	snprintf(path, sizeof(path), "%s/run.json", r->outdir);
	if (!r->o->force && stat(path, &st) == 0)
		return pn_error(-EEXIST, "%s exists: pick another -o DIR or pass --force", path);
	ret = mkdir_p(r->outdir);
	if (ret)
		return pn_error(ret, "cannot create %s: %s", r->outdir, strerror(-ret));
	return 0;
}

static cJSON *new_root(struct run *r, const struct pn_config *c)
{
	cJSON *root = cJSON_CreateObject(), *tool, *st, *cfg;
	char now[32], hex[65];

	cJSON_AddNumberToObject(root, "schema_version", PN_SCHEMA_VERSION);
	tool = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(tool, "name", "pnbench");
	cJSON_AddStringToObject(tool, "version", PN_VERSION);
	st = cJSON_AddObjectToObject(root, "status");
	cJSON_AddStringToObject(st, "state", "incomplete");
	cJSON_AddStringToObject(st, "reason", "running");
	pn_utc_iso8601(now, sizeof(now));
	cJSON_AddStringToObject(root, "started_at", now);
	cJSON_AddStringToObject(root, "updated_at", now);
	cJSON_AddItemToObject(root, "command", argv_json(r->o->argc, r->o->argv));
	if (r->o->exec_argv) {
		int n = 0;

		while (r->o->exec_argv[n])
			n++;
		cJSON_AddItemToObject(root, "exec_command", argv_json(n, r->o->exec_argv));
	}
	cJSON_AddItemToObject(root, "host", pn_provenance_host());
	cJSON_AddItemToObject(root, "kernel", pn_provenance_kernel());
	cfg = cJSON_AddObjectToObject(root, "config");
	cJSON_AddStringToObject(cfg, "file", r->own_builtin ? "(built-in exec)" : c->file);
	cJSON_AddStringToObject(cfg, "name", c->name);
	if (!r->own_builtin && pn_sha256_file(c->file, hex) == 0)
		cJSON_AddStringToObject(cfg, "sha256", hex);
	cJSON_AddNumberToObject(cfg, "matrix_points", (double)r->cs.n);
	cJSON_AddItemToObject(root, "roles", roles_json(&r->roles));
	cJSON_AddItemToObject(root, "topology", pn_topology_to_json(&r->topo));
	if (r->topo.hwloc_xml)
		cJSON_AddStringToObject(root, "topology_xml", "topology.xml");
	else
		cJSON_AddNullToObject(root, "topology_xml");
	cJSON_AddBoolToObject(root, "counters_refreshed", r->refresh_ok);
	cJSON_AddArrayToObject(root, "collectors");
	r->points_json = cJSON_AddArrayToObject(root, "points");
	cJSON_AddObjectToObject(root, "verdict");
	return root;
}

int pn_run(const struct pn_run_opts *o)
{
	struct run r;
	int ret, exit_code = PN_EXIT_PASS;
	const struct pn_config *c0;
	cJSON *colls_json;
	bool interrupted = false;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.page_size = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < PN_MAX_NODES; i++)
		r.worst_general[i] = -1;

	if (o->config_path) {
		ret = pn_config_load(o->config_path, &r.cs);
	} else if (o->exec_argv) {
		r.own_builtin = true;
		ret = pn_config_parse(builtin_exec_config, sizeof(builtin_exec_config) - 1,
				      "(built-in exec config)", &r.cs);
	} else {
		return pn_error(PN_EXIT_USAGE, "run: a CONFIG or --exec -- CMD is needed");
	}
	if (ret)
		return PN_EXIT_USAGE; /* the loader named the file and field */
	c0 = &r.cs.points[0];
	r.c0 = c0;
	if (o->exec_argv && !r.own_builtin && c0->nphases != 1)
		pn_info("--exec: the command runs in every phase of %s", c0->file);

	ret = pn_topology_load(&r.topo);
	if (ret) {
		pn_config_set_free(&r.cs);
		return PN_EXIT_ERROR;
	}
	ret = resolve_roles(&r, c0);
	if (ret) {
		exit_code = PN_EXIT_USAGE;
		goto out_topo;
	}
	r.env.topo = &r.topo;
	r.env.roles = &r.roles;
	r.env.is_root = geteuid() == 0;
	r.refresh_ok = r.env.is_root && pn_stat_refresh() == 0;
	if (!r.refresh_ok)
		pn_warn("cannot fold per-CPU counters (/proc/sys/vm/stat_refresh needs root): "
			"node snapshots may be off by a few pages per item");

	ret = make_outdir(&r, c0->name);
	if (ret) {
		exit_code = PN_EXIT_USAGE;
		goto out_topo;
	}
	pn_install_stop_handlers();
	r.root = new_root(&r, c0);
	if (r.topo.hwloc_xml) {
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/topology.xml", r.outdir);
		ret = pn_atomic_write(path, r.topo.hwloc_xml, strlen(r.topo.hwloc_xml));
		if (ret)
			pn_warn("%s: %s", path, strerror(-ret));
	}
	colls_json = cJSON_GetObjectItem(r.root, "collectors");
	open_collectors(&r, c0, colls_json);
	write_json(&r);

	for (size_t p = 0; p < r.cs.n && !interrupted; p++) {
		struct pn_config *c = &r.cs.points[p];
		int iterations =
			o->iterations_override > 0 ? o->iterations_override : c->iterations;
		cJSON *pj = cJSON_CreateObject(), *iters;

		cJSON_AddNumberToObject(pj, "index", (double)p);
		if (c->matrix_point)
			cJSON_AddItemToObject(pj, "matrix", cJSON_Duplicate(c->matrix_point, 1));
		else
			cJSON_AddNullToObject(pj, "matrix");
		cJSON_AddItemToObject(pj, "config", cJSON_Duplicate(c->resolved, 1));
		iters = cJSON_AddArrayToObject(pj, "iterations");
		cJSON_AddItemToArray(r.points_json, pj);
		if (r.cs.n > 1)
			pn_info("matrix point %zu/%zu", p + 1, r.cs.n);
		c->iterations = iterations;
		for (int it = 0; it < iterations && !interrupted; it++) {
			cJSON *ij = cJSON_CreateObject(), *phases;

			cJSON_AddNumberToObject(ij, "index", it);
			phases = cJSON_AddArrayToObject(ij, "phases");
			cJSON_AddItemToArray(iters, ij);
			for (size_t ph = 0; ph < c->nphases; ph++) {
				ret = run_phase(&r, c, ph, it, phases);
				if (pn_should_stop()) {
					interrupted = true;
					break;
				}
				if (ret) {
					exit_code = PN_EXIT_ERROR;
					interrupted = true;
					snprintf(r.stop_reason, sizeof(r.stop_reason),
						 "phase %s failed: %s", c->phases[ph].name,
						 strerror(-ret));
					break;
				}
				write_json(&r);
			}
			r.global_iter++;
		}
		cJSON_AddItemToObject(pj, "summary", summarize_point(iters));
	}

	close_collectors(&r, colls_json);
	if (pn_should_stop()) {
		char reason[64];

		snprintf(reason, sizeof(reason), "interrupted by signal %d (%s)",
			 (int)pn_stop_signal, strsignal(pn_stop_signal));
		set_status(&r, "incomplete", reason);
		judge(&r, c0);
		exit_code = 128 + pn_stop_signal;
		pn_warn("%s: results so far are in %s (marked incomplete)", reason, r.outdir);
	} else if (exit_code == PN_EXIT_ERROR) {
		set_status(&r, "failed", r.stop_reason);
		judge(&r, c0);
	} else {
		int v = judge(&r, c0);

		if (r.ran_workloads == 0 && !o->exec_argv) {
			set_status(&r, "complete", "every workload skipped");
			exit_code = r.failed_workloads ? PN_EXIT_ERROR : PN_EXIT_SKIP;
		} else if (r.failed_workloads) {
			set_status(&r, "failed",
				   "a workload failed (see "
				   "points[].iterations[].phases[].workloads[].reason)");
			exit_code = PN_EXIT_ERROR;
		} else {
			set_status(&r, "complete", NULL);
			exit_code = v;
		}
	}
	if (write_json(&r))
		exit_code = PN_EXIT_ERROR;
	else
		print_summary(&r);
	cJSON_Delete(r.root);
out_topo:
	pn_topology_free(&r.topo);
	pn_config_set_free(&r.cs);
	return exit_code;
}
