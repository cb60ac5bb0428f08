// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - `pnbench run CONFIG` and `run --exec -- CMD`: the options, handed
 * to the runner (core/runner/run.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/config/config.h"
#include "core/config/config_set.h"
#include "core/lib/outdir.h"
#include "core/lib/pn.h"
#include "core/runner/run.h"
#include "core/sys/knob.h"

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
	      "      --private LIST   nodes that play the private-device role: auto, or a\n"
	      "                       list in numactl's forms (1,2  1-2  all  !0  +1)\n"
	      "      --set KEY=VALUE  override the config without editing it: WORKLOAD.PARAM,\n"
	      "                       COLLECTOR.PARAM, collectors.interval, thresholds.KEY,\n"
	      "                       iterations (repeatable; checked as the file is)\n"
	      "      --format FMT     the summary on stdout: text (default), json (the verdict\n"
	      "                       and each point's metrics) or csv (one row per metric)\n"
	      "      --dry-run        print the expanded matrix and what would run, exit 0\n"
	      "                       without touching the machine (--format json: the\n"
	      "                       resolved config of every point)\n"
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
	      "      --progress       phases done, elapsed time and the time left on stderr\n"
	      "                       after every phase and every 10 s (default: on a\n"
	      "                       terminal, once a run has taken 3 s; --no-progress: never)\n"
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

/* Everything after the first "--" is the command of --exec and is never
 * parsed here: the options end there (argc without one). */
static int options_end(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return i;
	return argc;
}

/* --iterations: the same range as a config's "iterations"; 0 or the exit code. */
static int parse_iterations(const char *arg, struct pn_run_opts *o)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > PN_CONFIG_MAX_ITERATIONS)
		return pn_cli_error(PN_EXIT_USAGE,
				    "--iterations: \"%.80s\" is not a count in [1, %d]", arg,
				    PN_CONFIG_MAX_ITERATIONS);
	o->iterations_override = (int)v;
	return 0;
}

/* What the command line adds to the runner's options. */
struct run_cli {
	const char **sets; /* --set, in order */
	size_t nsets;
	bool dry;
	enum pn_cli_fmt format;
	char private_buf[256];
};

/* --set, --private's numactl forms, --dry-run: an exit code, or -1 = run. */
static int run_cli_apply(struct pn_run_opts *o, struct run_cli *x)
{
	struct pn_config_set cs;
	struct pn_nodeset ns;
	int ret;

	pn_config_set_overrides(x->sets, x->nsets);
	if (o->private_override && strcmp(o->private_override, "auto") != 0 &&
	    pn_nodeset_parse(&ns, o->private_override)) {
		ret = pn_cli_nodes("--private", o->private_override, &ns);
		if (ret)
			return ret;
		pn_nodeset_format(&ns, x->private_buf, sizeof(x->private_buf));
		o->private_override = x->private_buf;
	}
	o->summary_format = (int)x->format; /* PN_FMT_TEXT 0, JSON 1, CSV 2 */
	if (!x->dry)
		return -1;
	if (!o->config_path)
		return pn_cli_error(PN_EXIT_USAGE, "--dry-run needs a CONFIG");
	if (pn_config_load(o->config_path, &cs))
		return PN_EXIT_USAGE; /* the loader named the file and field */
	for (size_t p = 0; p < cs.n && o->iterations_override; p++)
		cs.points[p].iterations = o->iterations_override;
	ret = pn_dry_run(&(struct pn_dry_run){ .cs = &cs,
					       .private_override = o->private_override,
					       .exec_argv = o->exec_argv,
					       .format = x->format });
	pn_config_set_free(&cs);
	return ret;
}

/* The options, before or after CONFIG, in argv[0..nopt).  0: go on; -1:
 * --help was printed; else the exit code. */
static int run_parse(int nopt, char **argv, struct pn_run_opts *o, bool *exec, struct run_cli *x)
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
		{ "set", required_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "progress", no_argument, NULL, 'G' },
		{ "no-progress", no_argument, NULL, 'g' },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	while ((c = getopt_long(nopt, argv, "o:n:qvh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->outdir = optarg; break;
		case 'F': o->force = true; break;
		case 'W': o->no_wait = true; break;
		case 'n':
			ret = parse_iterations(optarg, o);
			if (ret)
				return ret;
			break;
		case 'P': o->private_override = optarg; break;
		case 'x': *exec = true; break;
		case 'E': o->exec_explicit = true; break;
		case 'N': o->no_events = true; break;
		case 'K': pn_knob_allow(optarg); break;
		case 'S': x->sets[x->nsets++] = optarg; break;
		case 'D': x->dry = true; break;
		case 'G': o->progress = 1; break;
		case 'g': o->progress = -1; break;
		case 'f':
			if (pn_cli_format(optarg, &x->format))
				return PN_EXIT_USAGE;
			break;
		case 'q': pn_log_level = PN_LOG_WARN; break;
		case 'v': pn_log_level = PN_LOG_DEBUG; break;
		case 'h': run_usage(stdout); return -1;
		default: run_usage(stderr); return PN_EXIT_USAGE;
		}
	}
	return 0;
}

/* CONFIG (argv[optind]) and the command after "--" (argv[nopt]); 0 or the
 * exit code. */
static int run_operands(int argc, char **argv, int nopt, bool exec, struct pn_run_opts *o)
{
	if (optind < nopt)
		o->config_path = argv[optind++];
	if (optind < nopt)
		return pn_cli_error(PN_EXIT_USAGE,
				    "unexpected argument \"%s\" (one CONFIG; the "
				    "command of --exec goes after --)",
				    argv[optind]);
	if (exec) {
		if (nopt + 1 >= argc)
			return pn_cli_error(PN_EXIT_USAGE, "--exec: no command after `--`");
		o->exec_argv = &argv[nopt + 1];
	} else if (nopt < argc) {
		return pn_cli_error(PN_EXIT_USAGE, "a command after -- needs --exec");
	}
	if (o->exec_explicit && !exec)
		return pn_cli_error(PN_EXIT_USAGE, "--explicit only goes with --exec");
	if (!o->config_path && !exec)
		return pn_cli_error(PN_EXIT_USAGE, "missing CONFIG (or --exec -- CMD); "
						   "pnbench help run for the options");
	return 0;
}

int pn_cmd_run(int argc, char **argv)
{
	struct pn_run_opts o = { .argc = argc, .argv = argv };
	struct run_cli x = { .sets = pn_xcalloc((size_t)argc, sizeof(char *)) };
	bool exec = false;
	int nopt = options_end(argc, argv);
	int ret = run_parse(nopt, argv, &o, &exec, &x);

	if (ret) {
		free(x.sets);
		return ret < 0 ? 0 : ret; /* -1: --help */
	}
	ret = run_operands(argc, argv, nopt, exec, &o);
	if (!ret && o.outdir && pn_outdir_check_arg(o.outdir))
		ret = PN_EXIT_USAGE;
	if (!ret)
		ret = run_cli_apply(&o, &x);
	if (ret < 0)
		ret = pn_run(&o);
	free(x.sets);
	return ret;
}
