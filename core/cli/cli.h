/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - what the command files of core/cli share: one entry point per
 * command, called by main.c's table with argv[0] the command's name.  Each
 * returns the process's exit code (PN_EXIT_* in core/lib/pn.h).
 */
#ifndef PN_CLI_H
#define PN_CLI_H

int pn_cmd_run(int argc, char **argv);	    /* run.c */
int pn_cmd_list(int argc, char **argv);	    /* list.c */
int pn_cmd_topology(int argc, char **argv); /* topology.c */
int pn_cmd_collect(int argc, char **argv);  /* collect.c */
int pn_cmd_report(int argc, char **argv);   /* report.c */

#endif /* PN_CLI_H */
