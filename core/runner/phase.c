// SPDX-License-Identifier: GPL-2.0-only
/*
 * phase.c - one phase of one iteration.
 *
 *   parent: setup() every workload (background first), check the phase's
 *           memory needs together against the suite budget, set knobs,
 *           make each workload's cgroup leaf (and the --exec command's);
 *   read every role node exactly (account.h);
 *   fork one child per workload into its leaf, and the --exec command into
 *   its own, held at its exec trap; start the event collectors' phase with
 *   all their pids, the sampler thread, then let the children run;
 *   wait for the foreground children (and the --exec command), then stop
 *   the background ones;
 *   with every child's memory still mapped: read the nodes again and each
 *   leaf's memory.numa_stat; end the event collectors' phase;
 *   end what the --exec command left running in its leaf;
 *   let the children tear down, record how each ended, restore knobs.
 * Node growth not explained by the foreground workloads' explicit pages is
 * general allocation, attributed to the run's cgroups where they hold it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "phase.h"
#include "core/api/placement.h"

/* ------------------------------------------------------------- set up */

static bool nodes_resolve(struct phase *p, struct slot *s)
{
	const struct run *r = p->r;

	for (const struct pn_opt *opt = s->cw->ops->opts; opt && opt->name; opt++) {
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
			return false;
		}
	}
	return true;
}

static void slot_init(struct phase *p, struct slot *s, const struct pn_config_wl *cw,
		      bool background, volatile sig_atomic_t *stop)
{
	struct run *r = p->r;
	char owner[96];

	memset(s, 0, sizeof(*s));
	s->cw = cw;
	s->w.ops = cw->ops;
	s->w.params.opts = cw->ops->opts;
	s->w.params.obj = cw->params;
	s->w.roles = &r->roles;
	s->w.topo = &r->topo;
	s->w.background = background;
	s->w.stop = stop;
	s->w.max_mem_share = r->c0->max_mem_share;
	snprintf(owner, sizeof(owner), "workload %s", cw->ops->name);
	pn_res_init(&s->w.res, cw->ops->metrics, cw->ops->name);
	if (pn_workload_supported(cw->ops, &r->env, s->why, sizeof(s->why))) {
		s->skipped = true;
		return;
	}
	if (!nodes_resolve(p, s)) {
		s->skipped = true;
		return;
	}
	if (cw->ops->setup) {
		int rc;

		s->setup_called = true;
		pn_clear_error();
		rc = cw->ops->setup(&s->w);
		if (rc) {
			/* the setup's own message names what failed */
			snprintf(s->why, sizeof(s->why), "setup failed: %s",
				 *pn_last_error() ? pn_last_error() : strerror(-rc));
			return;
		}
	}
	s->setup_ok = true;
}

static int set_knobs(struct phase *p)
{
	for (size_t i = 0; i < p->ph->nknobs; i++) {
		int ret = pn_knobs_set(&p->knobs, p->ph->knobs[i].key, p->ph->knobs[i].value);

		if (ret)
			return ret;
	}
	for (size_t i = 0; i < p->nslots; i++) {
		struct slot *s = &p->slots[i];

		for (size_t k = 0; s->setup_ok && k < s->w.nknobs; k++) {
			int ret = pn_knobs_set(&p->knobs, s->w.knobs[k].key, s->w.knobs[k].value);

			if (ret) {
				s->setup_ok = false;
				snprintf(s->why, sizeof(s->why), "knob %s: %s", s->w.knobs[k].key,
					 strerror(-ret));
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------- children */

static void make_leaf(struct phase *p, size_t i)
{
	struct run *r = p->r;
	struct slot *s = &p->slots[i];
	char name[96];
	int ret;

	s->have_leaf = false;
	if (!r->cg.version || !s->setup_ok)
		return;
	snprintf(name, sizeof(name), "p%d-%zu-%s", r->phase_seq, i, s->w.ops->name);
	ret = pn_cgroup_leaf(&r->cg, name, s->leaf, sizeof(s->leaf));
	if (ret) {
		pn_warn("cgroup %s/%s: %s: workload runs without a cgroup", r->cg.base, name,
			strerror(-ret));
		return;
	}
	s->have_leaf = true;
	if (s->cw->memory_max)
		s->w.memory_max = s->cw->memory_max;
	if (s->cw->memory_high)
		s->w.memory_high = s->cw->memory_high;
	if (s->w.memory_max && (ret = pn_cgroup_set_max(&r->cg, s->leaf, s->w.memory_max)))
		pn_warn("%s: memory.max: %s", s->leaf, strerror(-ret));
	if (s->w.memory_high && (ret = pn_cgroup_set_high(&r->cg, s->leaf, s->w.memory_high)))
		pn_warn("%s: memory.high: %s%s", s->leaf, strerror(-ret),
			ret == -EOPNOTSUPP ? " (cgroup v1 has no memory.high)" : "");
}

/*
 * Every workload's cgroup leaf, made before the phase's first node read:
 * creating a memory cgroup allocates its per-node structures on every node
 * (mem_cgroup_css_alloc(), alloc_shrinker_info(): kmalloc_node() for each
 * node, device nodes included where the kernel lets it), and those pages
 * are the runner's, not the workload's.  Measured on the isolate model with
 * the device memory as ZONE_NORMAL: 1 + 11 slab pages on the two device
 * nodes from the runner's own mkdir, inside the window, before this order.
 */
static void make_leaves(struct phase *p)
{
	for (size_t i = 0; i < p->nslots; i++)
		make_leaf(p, i);
	if (p->exec_mode)
		pn_exec_leaf_make(p->r, &p->exec);
}

static void start_children(struct phase *p)
{
	int *fds = pn_xcalloc(p->nslots + 1, sizeof(*fds));
	size_t nfds = 0;

	for (size_t i = 0; i < p->nslots; i++) {
		struct slot *s = &p->slots[i];
		int ret;

		if (!s->setup_ok) {
			if (s->have_leaf)
				pn_cgroup_remove(s->leaf);
			s->have_leaf = false;
			continue;
		}
		ret = pn_child_start(&s->child, &s->w, s->have_leaf ? s->leaf : NULL, fds, nfds);
		if (ret) {
			s->setup_ok = false;
			snprintf(s->why, sizeof(s->why), "cannot start its process: %s",
				 strerror(-ret));
			if (s->have_leaf)
				pn_cgroup_remove(s->leaf);
			s->have_leaf = false;
			continue;
		}
		if (s->have_leaf)
			pn_cgroup_oom_kills(&p->r->cg, s->leaf, &s->child.oom_kills_before);
		if (s->cw->timeout_ms)
			s->child.deadline_ns = pn_now_ns() + s->cw->timeout_ms * 1000000ULL;
		s->started = true;
		fds[nfds++] = s->child.sock;
		p->pids[p->ctx.npids++] = (struct pn_phase_pid){
			.pid = s->child.pid,
			.explicit_alloc = !s->w.background && s->w.ops->explicit_alloc,
			.background = s->w.background,
			.workload = s->w.ops->name,
		};
	}
	free(fds);
}

static void go_children(struct phase *p)
{
	for (size_t i = 0; i < p->nslots; i++)
		if (p->slots[i].started)
			pn_child_go(&p->slots[i].child);
}

/* Wait until every started slot in [from, to) has settled. */
static void wait_slots(struct phase *p, size_t from, size_t to, bool with_exec)
{
	bool stopping = false;

	for (;;) {
		bool pending = false;
		uint64_t now = pn_now_ns();

		for (size_t i = from; i < to; i++) {
			struct slot *s = &p->slots[i];

			if (!s->started || pn_child_poll(&s->child))
				continue;
			pending = true;
			pn_child_check_deadline(&s->child, now);
		}
		if (with_exec && p->exec.started && !p->exec.exited) {
			pending |= !pn_exec_poll(&p->exec);
			pn_exec_escalate(&p->exec, now);
		}
		if (!pending)
			return;
		if (pn_should_stop() && !stopping) {
			stopping = true;
			for (size_t i = from; i < to; i++)
				if (p->slots[i].started)
					pn_child_interrupt(&p->slots[i].child);
			if (with_exec)
				pn_exec_interrupt(&p->exec);
		}
		{
			struct pn_child *cs[64];
			size_t n = 0;

			for (size_t i = from; i < to && n < PN_ARRAY_SIZE(cs); i++)
				if (p->slots[i].started)
					cs[n++] = &p->slots[i].child;
			pn_child_wait_any(cs, n, 20);
		}
	}
}

/* --------------------------------------------------------------- sampler */

/* Read the private nodes exactly and fold the reading into their samples. */
static void sample_nodes(struct phase *p)
{
	struct pn_node_read *rd = pn_xcalloc((size_t)p->nnodes, sizeof(*rd));
	struct pn_nodeset priv;
	int i = 0, n;

	pn_nodeset_and(&priv, &p->nodes, &p->r->roles.private_nodes);
	if (!pn_nodeset_empty(&priv) &&
	    pn_node_read_set(&priv, p->r->refresh_ok, PN_SETTLE_PASSES_SAMPLE, rd, NULL) == 0) {
		pn_nodeset_for_each (n, &priv) {
			for (int k = 0; k < p->nnodes; k++)
				if (p->acct[k].node == n)
					pn_node_acct_sample(&p->acct[k], &rd[i]);
			i++;
		}
	}
	free(rd);
}

static void sleep_until(uint64_t next, const volatile int *done)
{
	uint64_t now = pn_now_ns();

	while (next > now && !*done && !pn_should_stop()) {
		uint64_t d = next - now < 20000000ULL ? next - now : 20000000ULL;
		struct timespec ts = { (time_t)(d / 1000000000ULL), (long)(d % 1000000000ULL) };

		nanosleep(&ts, NULL);
		now = pn_now_ns();
	}
}

static void *sampler_main(void *arg)
{
	struct phase *p = arg;
	struct run *r = p->r;
	uint64_t *due = pn_xcalloc(r->ncolls + 1, sizeof(*due));
	uint64_t probe_iv = pn_phase_sample_ms(p) * 1000000ULL;
	uint64_t now = pn_now_ns();

	for (size_t i = 0; i < r->ncolls; i++)
		due[i] = now + r->coll_interval_ns[i];
	due[r->ncolls] = now + probe_iv;
	while (!p->done && !pn_should_stop()) {
		uint64_t next = UINT64_MAX;

		now = pn_now_ns();
		for (size_t i = 0; i <= r->ncolls; i++) {
			uint64_t iv = i < r->ncolls ? r->coll_interval_ns[i] : probe_iv;

			if (now >= due[i]) {
				if (i < r->ncolls && r->colls[i].ops->sample)
					pn_coll_sample(&r->colls[i], r->global_iter, p->ph->name);
				if (i == r->ncolls) {
					sample_nodes(p);
					if (p->exec.started && !p->exec.exited)
						pn_exec_sample(&p->exec);
				}
				due[i] += iv;
				if (due[i] <= now)
					due[i] = now + iv;
			}
			if (due[i] < next)
				next = due[i];
		}
		sleep_until(next, &p->done);
	}
	free(due);
	return NULL;
}

static void sample_all(struct phase *p)
{
	struct run *r = p->r;

	for (size_t i = 0; i < r->ncolls; i++)
		if (r->colls[i].ops->sample)
			pn_coll_sample(&r->colls[i], r->global_iter, p->ph->name);
}

/* ------------------------------------------------------------ accounting */

/* The before or after reading of the nodes in `set` (a subset of p->nodes). */
static void read_node_set(struct phase *p, const struct pn_nodeset *set, int passes, bool after)
{
	int cnt = pn_nodeset_count(set), i = 0, n;
	struct pn_node_read *rd = pn_xcalloc((size_t)cnt + 1, sizeof(*rd));
	struct pn_nodemem *mem = pn_xcalloc((size_t)cnt + 1, sizeof(*mem));
	int ret;

	pn_clear_error();
	ret = cnt ? pn_node_read_set(set, p->r->refresh_ok, passes, rd, mem) : 0;
	if (ret) {
		/* no reading: the node's verdict cannot rest on its counters */
		snprintf(p->read_why, sizeof(p->read_why), "%s",
			 *pn_last_error() ? pn_last_error() : strerror(-ret));
		pn_warn("node counters: %s", p->read_why);
		for (int j = 0; j < cnt; j++)
			rd[j] = (struct pn_node_read){ .failed = true, .pcp_moved = -1 };
	}
	pn_nodeset_for_each (n, set) {
		for (int k = 0; k < p->nnodes; k++) {
			if (p->acct[k].node != n)
				continue;
			if (after) {
				p->acct[k].after = rd[i];
				p->acct[k].after_mem = mem[i];
			} else {
				p->acct[k].before = rd[i];
				p->acct[k].before_mem = mem[i];
			}
		}
		i++;
	}
	free(rd);
	free(mem);
}

/* Private nodes may take many passes to settle after a large free on them
 * (account.h); the others, busy with the runner itself, are not judged. */
static void read_nodes(struct phase *p, bool after)
{
	struct pn_nodeset priv, other;

	pn_nodeset_and(&priv, &p->nodes, &p->r->roles.private_nodes);
	pn_nodeset_andnot(&other, &p->nodes, &priv);
	read_node_set(p, &priv, PN_SETTLE_PASSES_PRIVATE, after);
	read_node_set(p, &other, PN_SETTLE_PASSES_OTHER, after);
}

static void read_cgroups(struct phase *p)
{
	int *nodes = pn_xcalloc((size_t)p->nnodes + 1, sizeof(*nodes));

	for (int k = 0; k < p->nnodes; k++)
		nodes[k] = p->acct[k].node;
	if (p->exec_mode)
		pn_exec_leaf_read(p->r, &p->exec, nodes, p->nnodes);
	free(nodes);
	for (size_t i = 0; i < p->nslots; i++) {
		struct slot *s = &p->slots[i];

		if (!s->started || !s->child.has_cg)
			continue;
		s->cgn = pn_xcalloc((size_t)p->nnodes, sizeof(*s->cgn));
		s->have_cgn = true;
		for (int k = 0; k < p->nnodes; k++)
			if (pn_cgroup_numa_stat(&p->r->cg, s->child.cg_path, p->acct[k].node,
						&s->cgn[k]))
				s->have_cgn = false;
	}
}

static void events_end(struct phase *p)
{
	struct run *r = p->r;

	p->reps = pn_xcalloc(r->ncolls + 1, sizeof(*p->reps));
	for (size_t i = 0; i < r->ncolls; i++) {
		const struct pn_collector *ops = r->colls[i].ops;

		if (ops->kind == PN_COLL_EVENT && ops->phase_end &&
		    ops->phase_end(&r->colls[i], &p->ctx, &p->reps[i]))
			pn_warn("collector %s: phase end failed", ops->name);
	}
}

static void events_begin(struct phase *p)
{
	struct run *r = p->r;

	for (size_t i = 0; i < r->ncolls; i++) {
		const struct pn_collector *ops = r->colls[i].ops;

		if (ops->kind == PN_COLL_EVENT && ops->phase_begin &&
		    ops->phase_begin(&r->colls[i], &p->ctx))
			pn_warn("collector %s: phase begin failed", ops->name);
	}
}

static void finish_slot(struct phase *p, struct slot *s)
{
	const char *expect = s->cw->expect ? s->cw->expect : "ok";
	bool as_expected;

	pn_child_finish(&s->child, 5000);
	pn_child_outcome(&s->child, &p->r->cg, &s->out);
	as_expected = pn_phase_end_matches(expect, s->out.end);
	/* a run the user interrupted stopped its workloads: no failed check */
	if (!pn_should_stop())
		pn_res_check(&s->w.res, "outcome", as_expected, "runner", expect, "%s%s%s",
			     pn_end_name(s->out.end), s->out.detail[0] ? ": " : "", s->out.detail);
	if (s->w.ops->outcome)
		s->w.ops->outcome(&s->w, &s->out);
	if (s->child.has_cg) {
		int ret = pn_cgroup_remove(s->child.cg_path);

		if (ret)
			pn_warn("cgroup %s: %s", s->child.cg_path, strerror(-ret));
	}
}

/* ------------------------------------------------------------- the phase */

static void phase_init(struct phase *p, struct run *r, const struct pn_config *c, size_t pi)
{
	memset(p, 0, sizeof(*p));
	p->r = r;
	p->c = c;
	p->ph = &c->phases[pi];
	p->exec_mode = r->o->exec_argv != NULL;
	pn_nodeset_or(&p->nodes, &r->roles.private_nodes, &r->roles.dram_nodes);
	p->nnodes = pn_nodeset_count(&p->nodes);
	p->acct = pn_xcalloc((size_t)p->nnodes + 1, sizeof(*p->acct));
	{
		int n, k = 0;

		pn_nodeset_for_each (n, &p->nodes) {
			p->acct[k].node = n;
			p->acct[k].is_private = pn_nodeset_test(&r->roles.private_nodes, n);
			k++;
		}
	}
	p->nbg = c->nbackground;
	p->nslots = p->nbg + p->ph->nwl;
	p->slots = pn_xcalloc(p->nslots + 1, sizeof(*p->slots));
	p->pids = pn_xcalloc(p->nslots + 1, sizeof(*p->pids)); /* + the --exec command */
	p->flags = mmap(NULL, (p->nslots + 1) * sizeof(*p->flags), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->flags == MAP_FAILED)
		p->flags = NULL; /* children then stop on SIGTERM only */
	p->ctx.phase = p->ph->name;
	p->ctx.iteration = r->global_iter;
	p->ctx.private_nodes = &r->roles.private_nodes;
	p->ctx.pids = p->pids;
	r->phase_seq++;
}

static void phase_free(struct phase *p)
{
	for (size_t i = 0; i < p->nslots; i++) {
		struct slot *s = &p->slots[i];

		if ((s->setup_ok || s->setup_called || s->started) && s->w.ops->teardown) {
			s->w.in_child = false;
			s->w.ops->teardown(&s->w);
		}
		pn_child_release(&s->child);
		pn_res_free(&s->w.res);
		free(s->cgn);
	}
	for (int k = 0; k < p->nnodes; k++)
		pn_node_acct_free(&p->acct[k]);
	if (p->flags)
		munmap((void *)p->flags, (p->nslots + 1) * sizeof(*p->flags));
	pn_knobs_free(&p->knobs);
	if (p->exec.have_pfnmap)
		pn_pfnnode_free(&p->exec.pfnmap);
	free(p->exec.cgn);
	free(p->reps);
	free(p->slots);
	free(p->pids);
	free(p->acct);
}

/* Everything between the before- and the after-read. */
static int run_children(struct phase *p)
{
	struct run *r = p->r;
	int ret = 0;

	start_children(p);
	/* The command exists, held at its exec trap, and is registered before
	 * the event collectors' phase begins: they follow it and its forks. */
	if (p->exec_mode && (ret = pn_exec_start(r, &p->exec)) == 0)
		p->pids[p->ctx.npids++] = (struct pn_phase_pid){
			.pid = p->exec.pid,
			.explicit_alloc = r->o->exec_explicit,
			.workload = "--exec",
		};
	events_begin(p);
	sample_all(p);
	if (pthread_create(&p->sth, NULL, sampler_main, p)) {
		pn_exec_abort(&p->exec);
		return pn_error(-EAGAIN, "cannot start the sampler thread");
	}
	p->t0 = pn_now_ns();
	go_children(p);
	pn_exec_go(&p->exec);
	wait_slots(p, p->nbg, p->nslots, p->exec_mode);
	for (size_t i = 0; i < p->nbg; i++)
		if (p->slots[i].started)
			pn_child_stop(&p->slots[i].child);
	wait_slots(p, 0, p->nbg, false);
	p->t1 = pn_now_ns();
	p->done = 1;
	pthread_join(p->sth, NULL);
	return ret;
}

int pn_run_phase(struct run *r, const struct pn_config *c, size_t pi, int iter, cJSON *phases_json)
{
	struct phase p;
	int ret;

	phase_init(&p, r, c, pi);
	p.iter = iter;
	pn_info("iteration %d/%d, phase %s: %zu workload(s)%s", iter + 1, c->iterations, p.ph->name,
		p.ph->nwl, p.exec_mode ? " + command" : "");
	for (size_t i = 0; i < p.nslots; i++)
		slot_init(&p, &p.slots[i], i < p.nbg ? &c->background[i] : &p.ph->wl[i - p.nbg],
			  i < p.nbg, p.flags ? &p.flags[i] : NULL);
	pn_phase_check_budget(&p);
	ret = set_knobs(&p);
	if (!ret) {
		make_leaves(&p);
		read_nodes(&p, false);
		ret = run_children(&p);
		/* every child's memory is still mapped here */
		read_nodes(&p, true);
		read_cgroups(&p);
		events_end(&p);
		sample_all(&p);
	}
	if (p.exec_mode)
		pn_exec_end_survivors(&p.exec);
	for (size_t i = 0; i < p.nslots; i++)
		if (p.slots[i].started)
			finish_slot(&p, &p.slots[i]);
	if (pn_knobs_restore(&p.knobs) && !ret)
		ret = -EIO;
	pn_phase_explain(&p);
	cJSON_AddItemToArray(phases_json, pn_phase_json(&p, ret));
	for (size_t i = 0; i < r->ncolls; i++)
		pn_series_flush(&r->colls[i].series);
	phase_free(&p);
	return ret;
}
