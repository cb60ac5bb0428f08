// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - the pnbench command line: a {name, fn} table of thin subcommands;
 * the work is in the core library.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "core/lib/pn.h"
#include "recover.h"
#include "testbed.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("pnbench %s\n", PN_VERSION);
	return 0;
}

static const struct cmd cmds[] = {
	{ "run", pn_cmd_run, "run a suite config (or --exec -- CMD) and write results" },
	{ "list", pn_cmd_list, "list workloads and collectors, and why each would skip here" },
	{ "topology", pn_cmd_topology, "show NUMA nodes, roles, distances, tiers, HMAT" },
	{ "collect", pn_cmd_collect, "per-node memory counters of the running system" },
	{ "bench", pn_cmd_bench, "benchmarks of the suite itself (bench collectors)" },
	{ "demo", pn_cmd_demo, "the QEMU testbed: stock, isolate, private kernels, truth table" },
	{ "vm", pn_cmd_vm, "run a program in a testbed guest and show where its pages went" },
	{ "testbed", pn_cmd_testbed, "checked values of a testbed topology or kernel config" },
	{ "recover", pn_cmd_recover, "undo what a killed run left changed (knobs, mounts, ...)" },
	{ "report", pn_cmd_report, "reports from results (report/pnreport.py: run, compare, ...)" },
	{ "version", cmd_version, "print the version" },
	{ "help", cmd_help, "this text; help COMMAND: that command's help" },
};

static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return pn_cli_error(PN_EXIT_USAGE, "one COMMAND: pnbench help COMMAND");
	if (argc == 2) { /* `pnbench help run` is `pnbench run --help` */
		for (size_t k = 0; k < PN_ARRAY_SIZE(cmds); k++) {
			char *args[] = { (char *)cmds[k].name, (char *)"--help", NULL };

			if (strcmp(argv[1], cmds[k].name) != 0 || cmds[k].fn == cmd_help)
				continue;
			pn_cli_set_command(cmds[k].name);
			return cmds[k].fn(2, args);
		}
		return pn_cli_error(PN_EXIT_USAGE, "no command \"%.40s\" (pnbench help lists them)",
				    argv[1]);
	}
	printf("usage: pnbench [--sysroot DIR] COMMAND [ARGS]\n\n"
	       "A benchmark and workload-characterization suite for private memory nodes.\n\n"
	       "commands:\n");
	for (size_t i = 0; i < PN_ARRAY_SIZE(cmds); i++)
		printf("  %-10s %s\n", cmds[i].name, cmds[i].summary);
	printf("\n`pnbench help COMMAND` (or COMMAND --help) for each.  --sysroot DIR (or\n"
	       "$PNBENCH_SYSROOT) reads /proc and /sys under DIR, to replay a captured machine.\n");
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	if (i < argc && !strcmp(argv[i], "--sysroot")) {
		if (i + 1 >= argc || !argv[i + 1][0])
			return pn_cli_error(PN_EXIT_USAGE, "--sysroot needs a directory");
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
			int rc;

			pn_cli_set_command(cmds[k].name);
			rc = cmds[k].fn(argc - i, argv + i);
			pn_mounts_undo(); /* tracefs, debugfs: only what the command mounted */
			return pn_cli_exit_code(rc);
		}
	}
	return pn_cli_error(PN_EXIT_USAGE, "unknown command \"%s\" (see pnbench help)", argv[i]);
}
