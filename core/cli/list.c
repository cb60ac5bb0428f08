// SPDX-License-Identifier: GPL-2.0-only
/*
 * list.c - `pnbench list`: every workload and collector, whether it can run
 * here and why not, and with -v their options.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/api/collector.h"
#include "core/api/params.h"
#include "core/api/workload.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"
#include "core/sys/topology.h"

/* One line of a table as it stands (its alignment kept), broken before
 * PN_CLI_WIDTH at spaces, continued at column indent. */
static void put_wrapped(const char *line, int indent)
{
	int len = (int)strlen(line), width = PN_CLI_WIDTH;

	while (len > width) {
		int cut = width;

		while (cut > indent + 1 && line[cut] != ' ')
			cut--;
		if (cut <= indent + 1)
			cut = width; /* one word longer than the room: cut it */
		printf("%.*s\n%*s", cut, line, indent, "");
		while (line[cut] == ' ')
			cut++;
		line += cut;
		len -= cut;
		width = PN_CLI_WIDTH - indent;
	}
	printf("%s\n", line);
}

/* printf into a line, then put_wrapped. */
__attribute__((format(printf, 2, 3))) static void putf(int indent, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	put_wrapped(line, indent);
}

static void print_opts(const struct pn_opt *opts)
{
	for (const struct pn_opt *o = opts; o && o->name; o++) {
		char choices[512] = "";
		size_t off = 0;

		if (o->type == PN_OPT_ENUM && o->choices) {
			for (const char *const *ch = o->choices; *ch && off < sizeof(choices); ch++)
				off += (size_t)snprintf(choices + off, sizeof(choices) - off,
							"%s%s", ch == o->choices ? " [" : "|", *ch);
			if (off < sizeof(choices) - 1)
				snprintf(choices + off, sizeof(choices) - off, "]");
		}
		putf(51, "      %-16s %-8s default %-10s %s%s", o->name, pn_opt_type_name(o->type),
		     o->def ? o->def : "(required)", o->help ? o->help : "", choices);
	}
}

/* A workload's own listing (probes: its catalogue), lines wrapped. */
static void print_wl_list(const struct pn_workload *w, const struct pn_env *env)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	w->list(env, f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		put_wrapped(line, 28);
	free(buf);
}

/* The "ok" lines above mean little if the nodes' counters cannot be read:
 * then exit 3 with the file named (as collect does).  Frees topo. */
static int list_counters_readable(struct pn_topology *topo)
{
	struct pn_nodeset all;
	struct pn_nodemem m;
	int n, ret = 0;

	if (!topo)
		return pn_cli_error(PN_EXIT_ERROR, "this machine's topology cannot be read: %s",
				    pn_last_error());
	pn_nodeset_or(&all, &topo->with_memory, &topo->with_private_memory);
	pn_topology_free(topo);
	pn_nodeset_for_each (n, &all) {
		ret = pn_nodemem_read(n, &m);
		if (ret)
			return pn_cli_error(PN_EXIT_ERROR, "node %d: cannot read its counters: %s",
					    n, strerror(-ret));
	}
	return 0;
}

struct list_opts {
	bool verbose;
	const char *private; /* --private LIST */
	enum pn_cli_fmt format;
	char **names; /* NAME operands: only these, shown as with -v */
	int nnames;
};

static bool wanted(const struct list_opts *lo, const char *name)
{
	if (!lo->nnames)
		return true;
	for (int i = 0; i < lo->nnames; i++)
		if (!strcmp(lo->names[i], name))
			return true;
	return false;
}

/* Each NAME must be a workload or a collector; 0 or PN_EXIT_USAGE. */
static int check_names(const struct list_opts *lo)
{
	for (int i = 0; i < lo->nnames; i++) {
		const char *n = lo->names[i], *best = NULL;
		size_t bestd = 3;

		if (pn_workload_find(n) || pn_collector_find(n))
			continue;
		for (size_t k = 0; k < pn_nworkloads + pn_ncollectors; k++) {
			const char *c = k < pn_nworkloads ? pn_workloads[k]->name
							  : pn_collectors[k - pn_nworkloads]->name;
			size_t d = pn_edit_distance(n, c);

			if (d < bestd)
				bestd = d, best = c;
		}
		return pn_cli_error(PN_EXIT_USAGE,
				    "\"%.60s\" is no workload or collector%s%s%s (pnbench list "
				    "names them all)",
				    n, best ? "; did you mean \"" : "", best ? best : "",
				    best ? "\"?" : "");
	}
	return 0;
}

static cJSON *choices_json(const char *const *choices)
{
	cJSON *a = cJSON_CreateArray();

	for (const char *const *c = choices; *c; c++)
		cJSON_AddItemToArray(a, cJSON_CreateString(*c));
	return a;
}

/* One entry as JSON: name, summary, status, why, needs or kind, options. */
static cJSON *entry_json(const char *name, const char *summary, int ret, const char *why,
			 const struct pn_opt *opts)
{
	cJSON *e = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(e, "options");

	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "summary", summary);
	cJSON_AddStringToObject(e, "status", ret ? "skip" : "ok");
	if (ret)
		cJSON_AddStringToObject(e, "why", why);
	for (const struct pn_opt *o = opts; o && o->name; o++) {
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "name", o->name);
		cJSON_AddStringToObject(j, "type", pn_opt_type_name(o->type));
		if (o->def)
			cJSON_AddStringToObject(j, "default", o->def);
		else
			cJSON_AddBoolToObject(j, "required", true);
		cJSON_AddStringToObject(j, "help", o->help ? o->help : "");
		if (o->type == PN_OPT_ENUM && o->choices)
			cJSON_AddItemToObject(j, "choices", choices_json(o->choices));
		cJSON_AddItemToArray(a, j);
	}
	return e;
}

/* A CSV field, quoted when it holds a comma, quote or newline. */
static void csv_field(const char *s, const char *sep)
{
	if (strpbrk(s, ",\"\n")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
	fputs(sep, stdout);
}

static void emit(const struct list_opts *lo, cJSON *arr, const char *kind, const char *name,
		 const char *summary, int ret, const char *why, const struct pn_opt *opts)
{
	if (lo->format == PN_FMT_JSON) {
		cJSON_AddItemToArray(arr, entry_json(name, summary, ret, why, opts));
	} else if (lo->format == PN_FMT_CSV) {
		csv_field(kind, ",");
		csv_field(name, ",");
		csv_field(ret ? "skip" : "ok", ",");
		csv_field(ret ? why : "", ",");
		csv_field(summary, "\n");
	} else {
		putf(23, "  %-14s %-5s %s", name, ret ? "skip" : "ok", summary);
		if (ret)
			putf(28, "  %-14s       why: %s", "", why);
	}
}

static void list_workloads(const struct pn_env *env, const struct list_opts *lo, cJSON *arr)
{
	bool verbose = lo->verbose || lo->nnames;

	if (lo->format == PN_FMT_TEXT && !lo->nnames)
		printf("workloads:\n");
	for (size_t i = 0; i < pn_nworkloads; i++) {
		const struct pn_workload *w = pn_workloads[i];
		char why[256] = "";
		int ret = env->topo ? pn_workload_supported(w, env, why, sizeof(why)) : 0;

		if (!wanted(lo, w->name))
			continue;
		if (!env->topo)
			snprintf(why, sizeof(why), "topology unavailable"), ret = -ENODEV;
		emit(lo, arr, "workload", w->name, w->summary, ret, why, w->opts);
		if (lo->format != PN_FMT_TEXT)
			continue;
		if (w->list && env->topo)
			print_wl_list(w, env);
		if (verbose) {
			char needs[64];

			printf("      needs: %s\n",
			       pn_workload_needs_format(w->needs, needs, sizeof(needs)));
			print_opts(w->opts);
		}
	}
}

static void list_collectors(const struct pn_env *env, const struct list_opts *lo, cJSON *arr)
{
	bool verbose = lo->verbose || lo->nnames;

	if (lo->format == PN_FMT_TEXT && !lo->nnames)
		printf("collectors:\n");
	for (size_t i = 0; i < pn_ncollectors; i++) {
		const struct pn_collector *col = pn_collectors[i];
		char why[256] = "", summary[256];
		int ret = col->supported ? col->supported(env, why, sizeof(why)) : 0;

		if (!wanted(lo, col->name))
			continue;
		snprintf(summary, sizeof(summary), "%s (%s)", col->summary,
			 col->kind == PN_COLL_EVENT ? "events" : "sampled");
		emit(lo, arr, "collector", col->name, summary, ret, why, col->opts);
		if (verbose && lo->format == PN_FMT_TEXT)
			print_opts(col->opts);
	}
}

/* 0: go on; -1: --help was printed; else the exit code. */
static int list_parse(int argc, char **argv, struct list_opts *o)
{
	static const struct option lo[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "private", required_argument, NULL, 'P' },
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "vjh", lo, NULL)) != -1) {
		switch (c) {
		case 'v': o->verbose = true; break;
		case 'P': o->private = optarg; break;
		case 'f':
			if (pn_cli_format(optarg, &o->format))
				return PN_EXIT_USAGE;
			break;
		case 'j': o->format = PN_FMT_JSON; break;
		case 'h':
			puts("usage: pnbench list [-v] [--private LIST] [--format text|json|csv] "
			     "[NAME...]\n\n"
			     "Every workload and collector, and whether it can run here (with the\n"
			     "reason when not).  NAME: only these workloads or collectors, with\n"
			     "their needs and options.\n"
			     "  -v, --verbose        also list each workload's needs and each "
			     "one's\n"
			     "                       options\n"
			     "      --private LIST   judge with these nodes as the private ones "
			     "(as\n"
			     "                       run --private; numactl's forms: 1,2 all !0 "
			     "+1)\n"
			     "      --format FMT     text (default), json (with the options) or "
			     "csv\n"
			     "  -j, --json           --format json");
			return -1;
		default: return PN_EXIT_USAGE;
		}
	}
	o->names = argv + optind;
	o->nnames = argc - optind;
	return check_names(o);
}

/* The roles to judge with: --private, else the kernel's private nodes. */
static int list_roles(const struct list_opts *lo, const struct pn_topology *topo,
		      struct pn_roles *roles)
{
	struct pn_nodeset mem;
	char why[192];

	memset(roles, 0, sizeof(*roles));
	roles->private_nodes = topo->with_private_memory;
	roles->private_auto = true;
	pn_nodeset_or(&mem, &topo->with_memory, &topo->with_private_memory);
	if (lo->private && strcmp(lo->private, "auto") != 0) {
		if (pn_nodelist_parse(lo->private, &mem, &roles->private_nodes, why, sizeof(why)))
			return pn_cli_error(PN_EXIT_USAGE, "--private: %s", why);
		roles->private_auto = false;
	}
	pn_nodeset_andnot(&roles->dram_nodes, &mem, &roles->private_nodes);
	return 0;
}

static void list_footer(const struct list_opts *lo, const struct pn_topology *topo,
			const struct pn_roles *roles, cJSON *doc)
{
	char buf[256];

	pn_nodeset_format(&roles->private_nodes, buf, sizeof(buf));
	if (doc) {
		cJSON_AddStringToObject(doc, "private_nodes", buf);
		cJSON_AddStringToObject(doc, "private_from",
					!roles->private_auto	   ? "--private"
					: topo->kernel_has_private ? "has_private_memory"
								   : "none");
		return;
	}
	if (lo->format != PN_FMT_TEXT || lo->nnames)
		return;
	putf(1, "(judged with private nodes = %s: %s)",
	     !roles->private_auto	? "--private"
	     : topo->kernel_has_private ? "the kernel's has_private_memory"
					: "none: this kernel has no private nodes; "
					  "name them with --private or nodes.private",
	     buf[0] ? buf : "none");
}

static void print_json(cJSON *doc)
{
	char *s = cJSON_Print(doc);

	puts(s);
	cJSON_free(s);
	cJSON_Delete(doc);
}

int pn_cmd_list(int argc, char **argv)
{
	struct list_opts lo = { 0 };
	struct pn_topology topo;
	struct pn_roles roles;
	struct pn_env env = { 0 };
	cJSON *doc = NULL;
	bool have_topo;
	int ret = list_parse(argc, argv, &lo);

	if (ret)
		return ret < 0 ? 0 : ret;
	have_topo = pn_topology_load(&topo) == 0;
	memset(&roles, 0, sizeof(roles));
	if (have_topo && list_roles(&lo, &topo, &roles)) {
		pn_topology_free(&topo);
		return PN_EXIT_USAGE;
	}
	env.topo = have_topo ? &topo : NULL;
	env.roles = &roles;
	env.is_root = geteuid() == 0;
	if (lo.format == PN_FMT_JSON)
		doc = cJSON_CreateObject();
	else if (lo.format == PN_FMT_CSV)
		puts("kind,name,status,why,summary");
	list_workloads(&env, &lo, doc ? cJSON_AddArrayToObject(doc, "workloads") : NULL);
	list_collectors(&env, &lo, doc ? cJSON_AddArrayToObject(doc, "collectors") : NULL);
	if (have_topo)
		list_footer(&lo, &topo, &roles, doc);
	if (doc)
		print_json(doc);
	return list_counters_readable(have_topo ? &topo : NULL);
}
