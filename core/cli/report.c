// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - `pnbench report`: hands over to the Python report
 * (report/pnreport.py).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/lib/pn.h"

/* The report is Python (report/): hand over to it, from $PNBENCH_REPORT, next
 * to this binary (build/../report), installed beside it by make install
 * (PREFIX/bin/../share/pnbench/report) or in /usr/local. */
int pn_cmd_report(int argc, char **argv)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], shared[PATH_MAX + 64];
	const char *env = getenv("PNBENCH_REPORT");
	char **args = pn_xcalloc((size_t)argc + 3, sizeof(*args));
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *cands[4] = { env, NULL, NULL, "/usr/local/share/pnbench/report/pnreport.py" };
	int ret;

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
		ret = pn_cli_error(PN_EXIT_ERROR, "cannot run %s %s: %s", args[0], cands[i],
				   strerror(errno));
		free(args);
		return ret;
	}
	free(args);
	return pn_cli_error(PN_EXIT_USAGE, "report/pnreport.py not found (set PNBENCH_REPORT)");
}
