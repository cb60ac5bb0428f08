// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - the pnbench command line: a {name, fn} table of thin subcommands;
 * the work is in the core library.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench.h"
#include "core/api/collector.h"
#include "core/lib/outdir.h"
#include "core/config/config.h"
#include "core/sys/journal.h"
#include "recover.h"
#include "core/sys/knob.h"
#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"
#include "core/runner/run.h"
#include "testbed.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);

/* ------------------------------------------------------------------- run */

static void run_usage(FILE *f)
{
	fputs("usage: pnbench run CONFIG [-o DIR] [--force] [--no-wait] [--iterations N] "
	      "[--private LIST|auto]\n"
	      "       pnbench run [CONFIG] [-o DIR] --exec [--explicit] -- CMD [ARGS...]\n"
	      "\n"
	      "Run the suite CONFIG (JSON; see configs/README.md) and write one results\n"
	      "directory: run.json (schema results/schema/run.schema.json), topology.xml and\n"
	      "one CSV time series per collector.  With --exec, characterize CMD the way\n"
	      "`perf stat -- CMD` does: collectors around it, where its pages landed, the "
	      "verdict.\n"
	      "\n"
	      "  -o, --output DIR     results directory (default results/runs/<name>-<utc time>)\n"
	      "      --force          reuse a DIR that already holds a run.json\n"
	      "      --no-wait        refuse (exit 2) instead of waiting while another run\n"
	      "                       holds the host lock (" PN_HOST_LOCK ")\n"
	      "  -n, --iterations N   override the config's iterations\n"
	      "      --private LIST   nodes that play the private-device role (e.g. 1,2), or auto\n"
	      "      --exec           run the command after `--` in every phase\n"
	      "      --explicit       with --exec: what the command and its children hold on\n"
	      "                       private nodes is intended (it binds them itself) and does\n"
	      "                       not count as a leak\n"
	      "      --no-events      no event collector: a counters-only verdict, which\n"
	      "                       names what it cannot see (by default the perf\n"
	      "                       collector runs wherever the kernel allows it)\n"
	      "      --allow-knob K   let the config set knob K (a key or path) outside the\n"
	      "                       allow-list (configs/README.md); repeatable\n"
	      "  -q, --quiet          no progress lines\n"
	      "  -v, --verbose        debug lines\n"
	      "\n"
	      "Every workload runs in its own process and memory cgroup leaf; its death\n"
	      "(OOM kill, SIGBUS, timeout) is recorded as its outcome.  So does the --exec\n"
	      "command: what it leaves running is counted, then ended (SIGTERM, SIGKILL\n"
	      "2 s later).  DIR is locked for the run (a second run into it is refused)\n"
	      "and never written through a symlink (a symlinked DIR is refused).  Runs as\n"
	      "root on the live system (knobs, cgroups, mounts) take the host lock one at\n"
	      "a time.  SIGINT, SIGTERM, SIGHUP and SIGQUIT stop a run: knobs, cgroups\n"
	      "and mounts put back, results kept and marked incomplete; SIGPIPE is\n"
	      "ignored.\n"
	      "\n"
	      "Exit (run.json's verdict.exit_code is the same number):\n"
	      "      0 verdict passed (something was judged and nothing failed)\n"
	      "      1 verdict failed (general pages on a private node, a failed check,\n"
	      "        explicit pages off their nodes); a leak found wins over 3 and 4\n"
	      "      2 bad usage or config (the message names the file and field), or a\n"
	      "        killed run's changes are still in its journal: pnbench recover\n"
	      "      3 the run failed (a workload or the --exec command failed, I/O)\n"
	      "      4 nothing could run or be judged here (every workload skipped, or no\n"
	      "        private node and no check: verdict not_applicable)\n"
	      "      5 inconclusive: nothing failed, but a source the verdict depends on\n"
	      "        failed (counters unreadable or never settled, lost events, a listed\n"
	      "        collector that did not run, events required and missing)\n"
	      "      128+N interrupted by signal N (results kept, marked incomplete)\n",
	      f);
}

static int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'F' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "private", required_argument, NULL, 'P' },
		{ "exec", no_argument, NULL, 'x' },
		{ "explicit", no_argument, NULL, 'E' },
		{ "no-events", no_argument, NULL, 'N' },
		{ "allow-knob", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pn_run_opts o = { .argc = argc, .argv = argv };
	bool exec = false;
	int c, nopt = argc;

	/* Options may come before or after CONFIG; everything after the first
	 * "--" is the command of --exec and is never parsed here. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			nopt = i;
			break;
		}
	}
	while ((c = getopt_long(nopt, argv, "o:n:qvh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o.outdir = optarg; break;
		case 'F': o.force = true; break;
		case 'W': o.no_wait = true; break;
		case 'n': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			/* the same range as a config's "iterations" */
			if (errno || end == optarg || *end || v < 1 || v > PN_CONFIG_MAX_ITERATIONS)
				return pn_error(PN_EXIT_USAGE,
						"--iterations: \"%.80s\" is not a count in [1, %d]",
						optarg, PN_CONFIG_MAX_ITERATIONS);
			o.iterations_override = (int)v;
			break;
		}
		case 'P': o.private_override = optarg; break;
		case 'x': exec = true; break;
		case 'E': o.exec_explicit = true; break;
		case 'N': o.no_events = true; break;
		case 'K': pn_knob_allow(optarg); break;
		case 'q': pn_log_level = PN_LOG_WARN; break;
		case 'v': pn_log_level = PN_LOG_DEBUG; break;
		case 'h': run_usage(stdout); return 0;
		default: run_usage(stderr); return PN_EXIT_USAGE;
		}
	}
	if (optind < nopt)
		o.config_path = argv[optind++];
	if (optind < nopt)
		return pn_error(PN_EXIT_USAGE,
				"run: unexpected argument \"%s\" (one CONFIG; the "
				"command of --exec goes after --)",
				argv[optind]);
	if (exec) {
		if (nopt + 1 >= argc)
			return pn_error(PN_EXIT_USAGE, "run --exec: no command after `--`");
		o.exec_argv = &argv[nopt + 1];
	} else if (nopt < argc) {
		return pn_error(PN_EXIT_USAGE, "run: a command after -- needs --exec");
	}
	if (o.exec_explicit && !exec)
		return pn_error(PN_EXIT_USAGE, "run: --explicit only goes with --exec");
	if (!o.config_path && !exec) {
		run_usage(stderr);
		return PN_EXIT_USAGE;
	}
	if (o.outdir && pn_outdir_check_arg(o.outdir))
		return PN_EXIT_USAGE;
	return pn_run(&o);
}

/* ------------------------------------------------------------------ list */

static void print_opts(const struct pn_opt *opts)
{
	for (const struct pn_opt *o = opts; o && o->name; o++) {
		printf("      %-16s %-8s default %-10s %s", o->name, pn_opt_type_name(o->type),
		       o->def ? o->def : "(required)", o->help ? o->help : "");
		if (o->type == PN_OPT_ENUM && o->choices) {
			printf(" [");
			for (const char *const *ch = o->choices; *ch; ch++)
				printf("%s%s", ch == o->choices ? "" : "|", *ch);
			printf("]");
		}
		printf("\n");
	}
}

/* The "ok" lines above mean little if the nodes' counters cannot be read:
 * then exit 3 with the file named (as collect does).  Frees topo. */
static int list_counters_readable(struct pn_topology *topo)
{
	struct pn_nodeset all;
	struct pn_nodemem m;
	int n, ret = 0;

	if (!topo)
		return pn_error(PN_EXIT_ERROR, "list: this machine's topology cannot be read: %s",
				pn_last_error());
	pn_nodeset_or(&all, &topo->with_memory, &topo->with_private_memory);
	pn_topology_free(topo);
	pn_nodeset_for_each (n, &all) {
		ret = pn_nodemem_read(n, &m);
		if (ret)
			return pn_error(PN_EXIT_ERROR,
					"list: node %d: cannot read its counters: %s", n,
					strerror(-ret));
	}
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	struct pn_topology topo;
	struct pn_roles roles;
	struct pn_env env;
	bool verbose = false, have_topo;
	int c;

	static const struct option lo[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 'v': verbose = true; break;
		case 'h':
			puts("usage: pnbench list [-v]\n\nEvery workload and collector, and "
			     "whether it "
			     "can run here (with the reason when not).\n  -v  also list each one's "
			     "options");
			return 0;
		default: return PN_EXIT_USAGE;
		}
	}
	have_topo = pn_topology_load(&topo) == 0;
	memset(&roles, 0, sizeof(roles));
	if (have_topo) {
		roles.private_nodes = topo.with_private_memory;
		roles.private_auto = true;
		pn_nodeset_andnot(&roles.dram_nodes, &topo.with_memory, &roles.private_nodes);
	}
	env.topo = have_topo ? &topo : NULL;
	env.roles = &roles;
	env.is_root = geteuid() == 0;

	printf("workloads:\n");
	for (size_t i = 0; i < pn_nworkloads; i++) {
		const struct pn_workload *w = pn_workloads[i];
		char why[256] = "";
		int ret = have_topo && w->supported ? w->supported(&env, why, sizeof(why)) : 0;

		if (!have_topo)
			snprintf(why, sizeof(why), "topology unavailable"), ret = -ENODEV;
		printf("  %-14s %-5s %s\n", w->name, ret ? "skip" : "ok", w->summary);
		if (ret)
			printf("  %-14s       why: %s\n", "", why);
		if (w->list && have_topo)
			w->list(&env, stdout);
		if (verbose)
			print_opts(w->opts);
	}
	printf("collectors:\n");
	for (size_t i = 0; i < pn_ncollectors; i++) {
		const struct pn_collector *col = pn_collectors[i];
		char why[256] = "";
		int ret = col->supported ? col->supported(&env, why, sizeof(why)) : 0;

		printf("  %-14s %-5s %s (%s)\n", col->name, ret ? "skip" : "ok", col->summary,
		       col->kind == PN_COLL_EVENT ? "events" : "sampled");
		if (ret)
			printf("  %-14s       why: %s\n", "", why);
		if (verbose)
			print_opts(col->opts);
	}
	if (have_topo) {
		char buf[256];

		pn_nodeset_format(&roles.private_nodes, buf, sizeof(buf));
		printf("(judged with private nodes = %s: %s)\n",
		       topo.kernel_has_private ? "the kernel's has_private_memory"
					       : "none: this kernel has no private nodes; "
						 "name them with --private or nodes.private",
		       buf[0] ? buf : "none");
	}
	return list_counters_readable(have_topo ? &topo : NULL);
}

/* -------------------------------------------------------------- topology */

static int cmd_topology(int argc, char **argv)
{
	struct pn_topology t;
	bool xml = false, json = false;
	int c, ret;

	static const struct option lo[] = {
		{ "xml", no_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "xjh", lo, NULL)) != -1) {
		switch (c) {
		case 'x': xml = true; break;
		case 'j': json = true; break;
		case 'h':
			puts("usage: pnbench topology [-x | -j]\n\nNUMA nodes (sparse ids, "
			     "CPU-less and "
			     "memory-less nodes, private nodes), distances, memory tiers and "
			     "HMAT.\n"
			     "  -x  print the hwloc XML\n  -j  print the JSON that run.json "
			     "records");
			return 0;
		default: return PN_EXIT_USAGE;
		}
	}
	ret = pn_topology_load(&t);
	if (ret)
		return PN_EXIT_ERROR;
	if (xml) {
		if (!t.hwloc_xml) {
			pn_topology_free(&t);
			return pn_error(PN_EXIT_ERROR, "hwloc gave no XML for this machine");
		}
		fputs(t.hwloc_xml, stdout);
	} else if (json) {
		struct cJSON *j = pn_topology_to_json(&t);
		char *s = cJSON_Print(j);

		puts(s);
		cJSON_free(s);
		cJSON_Delete(j);
	} else {
		pn_topology_print(&t, stdout);
	}
	pn_topology_free(&t);
	return 0;
}

/* --------------------------------------------------------------- collect */

struct collect_opts {
	uint64_t interval_ms;
	long count; /* -1: until ^C */
	const char *nodestr;
};

static void collect_usage(void)
{
	puts("usage: pnbench collect [-i INTERVAL] [-c COUNT] [-N NODES]\n\n"
	     "Per-node memory counters of the running system, like `vmstat 1` per node:\n"
	     "each line is one node over one interval (pages, and numastat events/s).\n"
	     "  -i, --interval D   sampling interval (default 1s)\n"
	     "  -c, --count N      stop after N intervals (default: until ^C)\n"
	     "  -N, --nodes LIST   nodes to show (default: every memory node)\n"
	     "Full raw series of every collector go with `pnbench run --exec -- sleep N`.");
}

/* 0: go on; -1: --help was printed; else the exit code (PN_EXIT_USAGE) */
static int collect_parse(int argc, char **argv, struct collect_opts *o)
{
	static const struct option lo[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "i:c:N:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (pn_parse_duration_ms(optarg, &o->interval_ms) || o->interval_ms == 0)
				return pn_error(PN_EXIT_USAGE,
						"--interval: \"%s\" is not a duration "
						"(e.g. 500ms, 1s)",
						optarg);
			break;
		case 'c':
			errno = 0;
			o->count = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->count < 1)
				return pn_error(PN_EXIT_USAGE,
						"--count: \"%.80s\" is not a count in [1, %ld]",
						optarg, LONG_MAX);
			break;
		case 'N': o->nodestr = optarg; break;
		case 'h': collect_usage(); return -1;
		default: return PN_EXIT_USAGE;
		}
	}
	return 0;
}

/* The nodes to show: the list given, else every memory node. */
static int collect_nodes(const char *nodestr, struct pn_nodeset *nodes)
{
	struct pn_topology topo;

	if (pn_topology_load(&topo))
		return PN_EXIT_ERROR;
	if (nodestr && pn_nodeset_parse(nodes, nodestr)) {
		pn_topology_free(&topo);
		return pn_error(PN_EXIT_USAGE, "--nodes: \"%s\" is not a node list", nodestr);
	}
	if (!nodestr)
		pn_nodeset_or(nodes, &topo.with_memory, &topo.with_private_memory);
	pn_topology_free(&topo);
	if (pn_nodeset_empty(nodes))
		return pn_error(PN_EXIT_SKIP, "collect: no memory nodes to show");
	return 0;
}

static void collect_line(int n, const struct pn_nodemem *a, const struct pn_nodemem *b, double sec)
{
	long page = sysconf(_SC_PAGESIZE);

	printf("%-5d %10lld %10lld %10lld %10lld %10lld %10lld %10lld %9.0f %9.0f %9.0f\n", n,
	       (long long)(b->used / page), (long long)(b->free / page),
	       (long long)(b->anon / page), (long long)(b->file / page),
	       (long long)(b->slab / page), (long long)(b->kernel_stack / page),
	       (long long)((b->page_tables + b->sec_page_tables) / page),
	       (double)(b->numa_hit - a->numa_hit) / sec,
	       (double)(b->numa_miss - a->numa_miss) / sec,
	       (double)(b->numa_foreign - a->numa_foreign) / sec);
}

static int cmd_collect(int argc, char **argv)
{
	struct collect_opts o = { .interval_ms = 1000, .count = -1 };
	struct pn_nodeset nodes;
	struct pn_nodemem *prev, *cur;
	int n, i = 0, ret = collect_parse(argc, argv, &o);

	if (ret)
		return ret < 0 ? 0 : ret;
	ret = collect_nodes(o.nodestr, &nodes);
	if (ret)
		return ret;
	prev = pn_xcalloc((size_t)pn_nodeset_count(&nodes), sizeof(*prev));
	cur = pn_xcalloc((size_t)pn_nodeset_count(&nodes), sizeof(*cur));
	pn_install_stop_handlers();
	pn_nodeset_for_each (n, &nodes) {
		ret = pn_nodemem_read(n, &prev[i++]);
		if (ret) {
			free(prev);
			free(cur);
			return pn_error(PN_EXIT_ERROR, "node %d: cannot read its counters: %s", n,
					strerror(-ret));
		}
	}
	printf("%-5s %10s %10s %10s %10s %10s %10s %10s %9s %9s %9s\n", "node", "used", "free",
	       "anon", "file", "slab", "kstack", "pgtable", "hit/s", "miss/s", "foreign/s");
	fflush(stdout);
	for (long k = 0; o.count < 0 || k < o.count; k++) {
		struct timespec ts = { .tv_sec = (time_t)(o.interval_ms / 1000),
				       .tv_nsec = (long)(o.interval_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		if (pn_should_stop())
			break;
		i = 0;
		pn_nodeset_for_each (n, &nodes) {
			if (pn_nodemem_read(n, &cur[i]) == 0) {
				collect_line(n, &prev[i], &cur[i], (double)o.interval_ms / 1000.0);
				prev[i] = cur[i];
			}
			i++;
		}
		/* SIGPIPE is ignored: a reader that went away (| head) ends it */
		if (fflush(stdout) == EOF || ferror(stdout))
			break;
	}
	free(prev);
	free(cur);
	return 0;
}

/* ----------------------------------------------------------------- other */

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("pnbench %s\n", PN_VERSION);
	return 0;
}

/* ---------------------------------------------------------------- report */

/* The report is Python (report/): hand over to it, from $PNBENCH_REPORT, next
 * to this binary (build/../report), installed beside it by make install
 * (PREFIX/bin/../share/pnbench/report) or in /usr/local. */
static int cmd_report(int argc, char **argv)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], shared[PATH_MAX + 64];
	const char *env = getenv("PNBENCH_REPORT");
	char **args = pn_xcalloc((size_t)argc + 3, sizeof(*args));
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *cands[4] = { env, NULL, NULL, "/usr/local/share/pnbench/report/pnreport.py" };

	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(path, sizeof(path), "%s/../report/pnreport.py", exe);
		snprintf(shared, sizeof(shared), "%s/../share/pnbench/report/pnreport.py", exe);
		cands[1] = path;
		cands[2] = shared;
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(cands); i++) {
		if (!cands[i] || access(cands[i], R_OK))
			continue;
		args[0] = "/usr/bin/python3";
		args[1] = (char *)cands[i];
		for (int k = 1; k < argc; k++)
			args[k + 1] = argv[k];
		execv(args[0], args);
		pn_error(-errno, "report: cannot run %s %s: %s", args[0], cands[i],
			 strerror(errno));
		free(args);
		return PN_EXIT_ERROR;
	}
	free(args);
	return pn_error(PN_EXIT_USAGE, "report: report/pnreport.py not found (set PNBENCH_REPORT)");
}

static const struct cmd cmds[] = {
	{ "run", cmd_run, "run a suite config (or --exec -- CMD) and write results" },
	{ "list", cmd_list, "list workloads and collectors, and why each would skip here" },
	{ "topology", cmd_topology, "show NUMA nodes, roles, distances, tiers, HMAT" },
	{ "collect", cmd_collect, "per-node memory counters of the running system" },
	{ "bench", pn_cmd_bench, "benchmarks of the suite itself (bench collectors)" },
	{ "demo", pn_cmd_demo, "the QEMU testbed: stock, isolate, private kernels, truth table" },
	{ "vm", pn_cmd_vm, "run a program in a testbed guest and show where its pages went" },
	{ "testbed", pn_cmd_testbed, "checked values of a testbed topology or kernel config" },
	{ "recover", pn_cmd_recover, "undo what a killed run left changed (knobs, mounts, ...)" },
	{ "report", cmd_report, "reports from results (report/pnreport.py: run, compare, ...)" },
	{ "version", cmd_version, "print the version" },
	{ "help", cmd_help, "this text" },
};

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("usage: pnbench [--sysroot DIR] COMMAND [ARGS]\n\n"
	       "A benchmark and workload-characterization suite for private memory nodes.\n\n"
	       "commands:\n");
	for (size_t i = 0; i < PN_ARRAY_SIZE(cmds); i++)
		printf("  %-10s %s\n", cmds[i].name, cmds[i].summary);
	printf("\n`pnbench COMMAND --help` for each.  --sysroot DIR (or $PNBENCH_SYSROOT) reads\n"
	       "/proc and /sys under DIR, to replay a captured machine.\n");
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	if (i < argc && !strcmp(argv[i], "--sysroot")) {
		if (i + 1 >= argc || !argv[i + 1][0])
			return pn_error(PN_EXIT_USAGE, "--sysroot needs a directory");
		pn_sysroot_set(argv[i + 1]);
		i += 2;
	}
	if (i >= argc) {
		cmd_help(0, NULL);
		return PN_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
		return cmd_help(0, NULL);
	if (!strcmp(argv[i], "--version"))
		return cmd_version(0, NULL);
	for (size_t k = 0; k < PN_ARRAY_SIZE(cmds); k++) {
		if (!strcmp(argv[i], cmds[k].name)) {
			int rc = cmds[k].fn(argc - i, argv + i);

			pn_mounts_undo(); /* tracefs, debugfs: only what the command mounted */
			return rc;
		}
	}
	pn_error(0, "unknown command \"%s\" (see pnbench help)", argv[i]);
	return PN_EXIT_USAGE;
}
