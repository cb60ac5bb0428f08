/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - what the command files of core/cli share: one entry point per
 * command, called by main.c's table with argv[0] the command's name, and
 * the command line's error convention (cli.c).  A command returns the
 * process's exit code (PN_EXIT_* in core/lib/pn.h), never an -errno.
 */
#ifndef PN_CLI_H
#define PN_CLI_H

int pn_cmd_run(int argc, char **argv);	    /* run.c */
int pn_cmd_list(int argc, char **argv);	    /* list.c */
int pn_cmd_topology(int argc, char **argv); /* topology.c */
int pn_cmd_collect(int argc, char **argv);  /* collect.c */
int pn_cmd_report(int argc, char **argv);   /* report.c */

/* cliopt.c: options several commands share. */
struct pn_nodeset;
enum pn_cli_fmt { PN_FMT_TEXT, PN_FMT_JSON, PN_FMT_CSV };
/* A node list in numactl's forms (all, 0-2,4, !0, +1) against this
 * machine's memory nodes; 0, or an exit code with the option named. */
int pn_cli_nodes(const char *opt, const char *str, struct pn_nodeset *out);
/* --format text|json|csv; 0, or PN_EXIT_USAGE with the message printed. */
int pn_cli_format(const char *arg, enum pn_cli_fmt *out);

/* dryrun.c: `run --dry-run`, the loaded config set printed. */
struct pn_config_set;
struct pn_dry_run {
	const struct pn_config_set *cs;
	const char *private_override; /* --private, canonical, or NULL */
	char **exec_argv;	      /* --exec's command or NULL */
	enum pn_cli_fmt format;
};
int pn_dry_run(const struct pn_dry_run *d);

/* Text tables and listings fit this many columns (test-cli.sh checks). */
#define PN_CLI_WIDTH 100

/* The command being run (main sets it before dispatch; NULL before). */
void pn_cli_set_command(const char *name);
const char *pn_cli_command(void);

/* Log "pnbench: error: CMD: message" (no "CMD: " before main chose one)
 * and return code as an exit code
 * (pn_cli_exit_code: an -errno passed by mistake is PN_EXIT_ERROR).  The
 * arguments may include pn_last_error(). */
__attribute__((format(printf, 2, 3))) int pn_cli_error(int code, const char *fmt, ...);

/* code if it is an exit code of the table (0-5, or 128+N for signal N),
 * else PN_EXIT_ERROR: what main returns, so an -errno never becomes an
 * exit status modulo 256. */
int pn_cli_exit_code(int code);

#endif /* PN_CLI_H */
