// SPDX-License-Identifier: GPL-2.0-only
/*
 * probes.c - leak probes: user-triggerable kernel paths that allocate on a
 * named node or on every node of a node-state mask (workloads/probes/probe.h has the
 * model, workloads/probes/probe_table.c the catalogue with each probe's 6.12 kernel
 * path, trigger, expected private-node behaviour and cleanup).
 *
 * run() drives every selected probe against the device nodes, one after
 * the other, and keeps what each made the kernel allocate (huge pages, map
 * fds, cgroups, buffers, a holding child) until teardown(), so the runner's
 * snapshot after run() sees all of it.  Per probe and device node it reports
 * the probe's own exact measure as a check "probe <name> node<N>" expecting
 * 0 pages (what a private-node kernel must give), the whole-node used-memory
 * growth beside it as a metric, and one row of the "probes" table.  A probe
 * that cannot run here is a table row with its reason, never a check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/probes/probe.h"
#include "core/api/workload.h"

static const struct pn_opt probes_opts[] = {
	{ "probes", PN_OPT_STRING, "all",
	  "comma-separated probes to run, in table order (all: every probe; see "
	  "configs/README.md)",
	  NULL, 0, 0 },
	{ "nodes", PN_OPT_NODES, "private", "device nodes the probes aim at", NULL, 0, 0 },
	{ "hugetlb_spread_count", PN_OPT_INT, "0", "2 MiB pages added per N_MEMORY node (0 = 8)",
	  NULL, 0, 4096 },
	{ "hugetlb_node_count", PN_OPT_INT, "0", "2 MiB pages asked of each device node (0 = 8)",
	  NULL, 0, 4096 },
	{ "bpf_array_count", PN_OPT_INT, "0", "4 KiB array entries per map (0 = 256)", NULL, 0,
	  262144 },
	{ "bpf_ringbuf_count", PN_OPT_INT, "0", "ring buffer pages per map (0 = 256)", NULL, 0,
	  262144 },
	{ "bpf_lpm_trie_count", PN_OPT_INT, "0", "prefixes inserted per trie (0 = 256)", NULL, 0,
	  65536 },
	{ "memcg_create_count", PN_OPT_INT, "0", "memory cgroups created (0 = 64)", NULL, 0, 4096 },
	{ "hugetlb_cgroup_count", PN_OPT_INT, "0", "hugetlb cgroups created (0 = 512)", NULL, 0,
	  8192 },
	{ "move_pages_count", PN_OPT_INT, "0", "pages moved per device node (0 = 256)", NULL, 0,
	  262144 },
	{ "migrate_pages_count", PN_OPT_INT, "0", "pages migrated per device node (0 = 256)", NULL,
	  0, 262144 },
	{ "demotion_count", PN_OPT_INT, "0", "pages faulted then reclaimed (0 = 4096)", NULL, 0,
	  262144 },
	{ "damon_migrate_count", PN_OPT_INT, "0", "pages under the DAMON scheme (0 = 1024)", NULL,
	  0, 262144 },
	{ "damon_settle", PN_OPT_DURATION, "3s", "how long the DAMON scheme runs per node", NULL, 0,
	  600000 },
	{ NULL },
};

static const struct pn_metric_decl probes_metrics[] = {
	{ "probe_pages", PN_UNIT_PAGES, PN_BETTER_LOWER, PN_AGG_MAX,
	  "pages the probe's kernel path put on the device node (exact measure)" },
	{ "probe_used_growth", PN_UNIT_PAGES, PN_BETTER_LOWER, PN_AGG_MAX,
	  "growth of the node's MemTotal-MemFree while the probe held its objects" },
	{ "probes_leaking", PN_UNIT_COUNT, PN_BETTER_LOWER, PN_AGG_MAX,
	  "probes that put pages on a device node" },
	{ NULL },
};

static const struct pn_col probes_cols[] = {
	{ "probe", PN_COL_STR, PN_UNIT_NONE },
	{ "kernel_path", PN_COL_STR, PN_UNIT_NONE },
	{ "kind", PN_COL_STR, PN_UNIT_NONE },
	{ "needs_zone_normal", PN_COL_BOOL, PN_UNIT_NONE },
	{ "node", PN_COL_INT, PN_UNIT_NONE },
	{ "status", PN_COL_STR, PN_UNIT_NONE },
	{ "pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "used_growth", PN_COL_INT, PN_UNIT_PAGES },
	{ "triggered", PN_COL_INT, PN_UNIT_COUNT },
	{ "refused", PN_COL_INT, PN_UNIT_COUNT },
	{ "source", PN_COL_STR, PN_UNIT_NONE },
	{ "note", PN_COL_STR, PN_UNIT_NONE },
};

struct probes_priv {
	bool want[64];
	struct pn_probe_env env;
	struct pn_probe_out *outs; /* held until teardown, one per probe */
	size_t nouts;
};

/* "all" or a comma list of probe names -> want[]; -EINVAL names the bad one. */
static int parse_selection(const char *list, bool *want)
{
	char buf[1024], *tok, *save = NULL;

	if (!strcmp(list, "all")) {
		for (size_t i = 0; i < pn_nprobes; i++)
			want[i] = true;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		const struct pn_probe *p = pn_probe_find(tok);

		if (!p)
			return pn_error(-EINVAL,
					"probes: unknown probe '%s' (see configs/README.md)", tok);
		want[p - pn_probes] = true;
	}
	return 0;
}

static int first_node(const struct pn_nodeset *s)
{
	int n = pn_nodeset_next(s, -1);

	return n < 0 ? 0 : n;
}

static int probes_supported(const struct pn_env *env, char *why, size_t whylen)
{
	struct pn_probe_env pe = { .is_root = env->is_root };
	size_t i, runs = 0, len = 0;
	char r[256];

	pe.dev_nodes = env->roles->private_nodes;
	pe.home_node = first_node(&env->roles->dram_nodes);
	why[0] = '\0';
	if (!env->is_root)
		return snprintf(why, whylen, "needs root"), -EPERM;
	if (pn_nodeset_empty(&pe.dev_nodes))
		return snprintf(why, whylen,
				"no private node to aim at (nodes.private or --private)"),
		       -ENODEV;
	for (i = 0; i < pn_nprobes; i++) {
		if (!pn_probe_supported(&pn_probes[i], &pe, r, sizeof(r))) {
			runs++;
			continue;
		}
		if (len < whylen)
			len += (size_t)snprintf(why + len, whylen - len, "%s%s: %s",
						len ? "; " : "", pn_probes[i].name, r);
	}
	/* with some probes runnable the others are rows of the results table */
	return runs ? 0 : -ENOTSUP;
}

static void add_knob(void *ctx, const char *path, const char *value)
{
	struct pn_wl *w = ctx;

	/* Its current value: the runner restores it after the phase, even when
	 * the child dies before the probe's own release.  The runner takes knobs
	 * under /proc/sys, /sys/kernel/mm and /sys/module only; the per-node
	 * hugetlb counts and the private-node opt-ins are restored by the probes
	 * alone. */
	if (strncmp(path, "/proc/sys/", 10) != 0 && strncmp(path, "/sys/kernel/mm/", 15) != 0 &&
	    strncmp(path, "/sys/module/", 12) != 0)
		return;
	if (pn_wl_knob(w, path, value))
		pn_warn("probes: cannot register knob %s", path);
}

static int probes_setup(struct pn_wl *w)
{
	struct probes_priv *pv = pn_xcalloc(1, sizeof(*pv));
	int err;

	w->priv = pv;
	if (pn_nprobes > PN_ARRAY_SIZE(pv->want))
		return pn_error(-E2BIG, "probes: table larger than the selection");
	err = parse_selection(pn_param_str(&w->params, "probes"), pv->want);
	if (err)
		return err;
	err = pn_param_nodes(&w->params, "nodes", w->roles, &pv->env.dev_nodes);
	if (err)
		return pn_error(err, "probes: nodes: no device node to aim at");
	pv->env.home_node = first_node(&w->roles->dram_nodes);
	pv->env.is_root = geteuid() == 0;
	for (size_t i = 0; i < pn_nprobes; i++)
		if (pv->want[i])
			pn_probe_knobs(&pn_probes[i], &pv->env, add_knob, w);
	/* demotion 16 MiB, DAMON 4 MiB and migration buffers per device node */
	w->mem_bytes = 64ULL << 20;
	return 0;
}

static unsigned int count_of(const struct pn_wl *w, const struct pn_probe *p)
{
	char name[96];
	size_t i;

	snprintf(name, sizeof(name), "%s_count", p->name);
	for (i = 0; probes_opts[i].name; i++)
		if (!strcmp(probes_opts[i].name, name))
			return (unsigned int)pn_param_int(&w->params, name);
	return 0;
}

/* Pages a probe placed on purpose (and holds): the runner's census
 * explains them, so they are not counted as general allocations. */
static void census_explicit(struct pn_wl *w, const struct pn_probe_out *o)
{
	int n;

	for (n = 0; n < PN_PROBE_MAX_NODES && n < PN_MAX_NODES; n++) {
		if (o->explicit_pages[n] <= 0)
			continue;
		w->res.placed_pages[n] += (uint64_t)o->explicit_pages[n];
		w->res.explicit_pages += (uint64_t)o->explicit_pages[n];
		w->res.intended_pages += (uint64_t)o->explicit_pages[n];
		w->res.verified = true;
	}
}

/* Table rows, metrics and checks of one probe that ran. */
static bool report_ran(struct pn_wl *w, int table, const struct pn_probe *p,
		       const struct pn_probe_out *o)
{
	const struct probes_priv *pv = w->priv;
	bool leaked = false;
	int n;

	pn_nodeset_for_each (n, &pv->env.dev_nodes) {
		char labels[96], check[128];
		int64_t pages = n < PN_PROBE_MAX_NODES ? o->pages[n] : -1;
		int64_t used = n < PN_PROBE_MAX_NODES ? o->used_delta[n] : -1;

		pn_res_table_row(&w->res, table, p->name, p->kpath, pn_probe_kind_name(p->kind),
				 (int)p->needs_normal, (int64_t)n, o->skipped ? "skip" : "ran",
				 pages, used, (int64_t)o->triggered, (int64_t)o->refused, o->source,
				 o->note);
		if (o->skipped || pages < 0)
			continue;
		snprintf(labels, sizeof(labels), "probe=%s,node=%d", p->name, n);
		pn_wl_metric(w, "probe_pages", labels, (double)pages);
		if (used >= 0)
			pn_wl_metric(w, "probe_used_growth", labels, (double)used);
		snprintf(check, sizeof(check), "probe %s node%d: pages on the device node", p->name,
			 n);
		pn_res_check_eq(&w->res, check, 0, pages, "pages");
		leaked |= pages > 0;
	}
	return leaked;
}

static int probes_run(struct pn_wl *w)
{
	struct probes_priv *pv = w->priv;
	int table = pn_res_table(&w->res, "probes",
				 "per probe and device node: pages the kernel path put there",
				 probes_cols, PN_ARRAY_SIZE(probes_cols));
	int64_t leaking = 0;
	size_t i;

	if (table < 0)
		return table;
	pv->outs = pn_xcalloc(pn_nprobes, sizeof(*pv->outs));
	for (i = 0; i < pn_nprobes && !pn_wl_should_stop(w); i++) {
		const struct pn_probe *p = &pn_probes[i];
		struct pn_probe_params pp = { count_of(w, p), 0 };
		struct pn_probe_out *o = &pv->outs[pv->nouts];
		char why[256];
		int err;

		if (!pv->want[i])
			continue;
		if (!strcmp(p->name, "damon_migrate"))
			pp.settle_ms =
				(unsigned int)pn_param_duration_ms(&w->params, "damon_settle");
		if (pn_probe_supported(p, &pv->env, why, sizeof(why))) {
			pn_res_table_row(&w->res, table, p->name, p->kpath,
					 pn_probe_kind_name(p->kind), (int)p->needs_normal,
					 (int64_t)-1, "skip", (int64_t)-1, (int64_t)-1, (int64_t)0,
					 (int64_t)0, (const char *)NULL, why);
			pn_res_note(&w->res, "probe %s skipped: %s", p->name, why);
			continue;
		}
		err = pn_probe_run(p, &pv->env, &pp, o);
		pv->nouts++;
		census_explicit(w, o);
		if (err) {
			pn_res_check(&w->res, p->name, false, "workload", "the probe runs",
				     "failed: %s", strerror(-err));
			continue;
		}
		leaking += report_ran(w, table, p, o);
	}
	pn_wl_metric(w, "probes_leaking", NULL, (double)leaking);
	return 0;
}

static void probes_teardown(struct pn_wl *w)
{
	struct probes_priv *pv = w->priv;
	size_t i;

	if (!pv)
		return;
	if (w->in_child)
		for (i = pv->nouts; i-- > 0;)
			pn_probe_release(&pv->outs[i]);
	free(pv->outs);
	free(pv);
	w->priv = NULL;
}

/* Every probe, its kernel path, and why it would skip here. */
static void probes_list(const struct pn_env *env, FILE *out)
{
	struct pn_probe_env pe = { .is_root = env->is_root };
	char why[256];

	pe.dev_nodes = env->roles->private_nodes;
	pe.home_node = first_node(&env->roles->dram_nodes);
	for (size_t i = 0; i < pn_nprobes; i++) {
		const struct pn_probe *p = &pn_probes[i];
		int ret = pn_probe_supported(p, &pe, why, sizeof(why));

		fprintf(out, "    %-16s %-5s %s%s\n", p->name, ret ? "skip" : "ok", p->kpath,
			p->needs_normal ? " (ZONE_NORMAL device memory)" : "");
		if (ret)
			fprintf(out, "    %-16s       why: %s\n", "", why);
	}
}

const struct pn_workload pn_workload_probes = {
	.name = "probes",
	.summary = "leak probes: per-node kernel allocation paths aimed at the device nodes",
	.opts = probes_opts,
	.metrics = probes_metrics,
	.supported = probes_supported,
	.setup = probes_setup,
	.run = probes_run,
	.teardown = probes_teardown,
	.list = probes_list,
};
