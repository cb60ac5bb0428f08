// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec_status.c - run --exit-status: the --exec command's own status
 * becomes pnbench's exit status, from the runs kept in r->exec_log
 * (exec_stat.h).  The verdict calls it as it writes verdict.exit_code.
 */
#include <cjson/cJSON.h>

#include "exec_stat.h"

/*
 * --exit-status: the process exits with the command's own status (its exit
 * code, 128+N when signal N killed it; with -r N the first non-zero one),
 * as perf stat and time do.  What stays pnbench's: 128+N when pnbench
 * itself was interrupted, 3 when the run failed on its own (a phase, the
 * results), 2 before anything ran.  The verdict is still in run.json
 * (verdict.result, verdict.verdict_exit_code).
 */
int pn_exec_exit_status(struct run *r, cJSON *v, int code)
{
	const struct pn_exec_log *l = r->exec_log;
	int status = 0;

	if (!r->o->exit_status)
		return code;
	cJSON_AddNumberToObject(v, "verdict_exit_code", code);
	if (!l || !l->n || r->stop_signal || r->run_error) {
		cJSON_AddStringToObject(v, "exit_code_from", "verdict");
		return code;
	}
	for (size_t i = 0; i < l->n && !status; i++)
		status = l->runs[i].exited ? l->runs[i].status : PN_EXIT_ERROR;
	cJSON_AddStringToObject(v, "exit_code_from", "command");
	return status;
}
