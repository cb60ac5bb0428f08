// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec_cg.c - the --exec command's cgroup leaf.
 *
 * The leaf is made with the workloads' leaves, before the phase's first
 * node read (phase.c make_leaves(): a memory cgroup's mkdir allocates on
 * every node), under the same run-scoped parent.  The forked command enters
 * it before execve (exec.c), so the leaf holds the command's whole process
 * tree: its memory.numa_stat, read at the after-read, counts what the tree
 * holds then, and its cgroup.procs names what the command left running.
 * Those survivors run on through the after-read (what they hold is counted
 * and attributed to "--exec"), then get SIGTERM and, PN_EXEC_GRACE_MS
 * later, SIGKILL; the leaf is removed once empty.  A stop request
 * (SIGINT/SIGTERM to the runner) ends the leaf the same way.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "run_int.h"

#define LEAF_MAX_PIDS 512
/* After SIGKILL a process leaves cgroup.procs as soon as it has exited;
 * one stopped in uninterruptible sleep can take a while.  Past this the
 * leaf is left behind with a warning rather than the run held up. */
#define KILL_WAIT_MS 10000

void pn_exec_leaf_make(struct run *r, struct pn_exec_state *x)
{
	char name[64];
	int ret;

	x->have_leaf = false;
	if (!r->cg.version) {
		snprintf(x->cg_note, sizeof(x->cg_note),
			 "no cgroup: its child processes are neither followed nor ended (%.120s)",
			 r->cg.reason);
		return;
	}
	snprintf(name, sizeof(name), "p%d-exec", r->phase_seq);
	ret = pn_cgroup_leaf(&r->cg, name, x->leaf, sizeof(x->leaf));
	if (ret) {
		snprintf(x->cg_note, sizeof(x->cg_note), "cannot make cgroup %.80s/%.20s: %.60s",
			 r->cg.base, name, strerror(-ret));
		pn_warn("--exec: %s: the command runs without a cgroup", x->cg_note);
		return;
	}
	x->have_leaf = true;
}

void pn_exec_leaf_read(struct run *r, struct pn_exec_state *x, const int *nodes, int n)
{
	if (!x->have_leaf || !x->started)
		return;
	x->cgn = pn_xcalloc((size_t)n + 1, sizeof(*x->cgn));
	for (int k = 0; k < n; k++) {
		int ret = pn_cgroup_numa_stat(&r->cg, x->leaf, nodes[k], &x->cgn[k]);

		if (ret) {
			pn_warn("--exec: %s/memory.numa_stat: %s", x->leaf, strerror(-ret));
			free(x->cgn);
			x->cgn = NULL;
			return;
		}
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void comm_of(pid_t pid, char *comm, size_t len)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "/proc/%d/comm", (int)pid);
	if (pn_read_text(rel, comm, len) > 0)
		comm[strcspn(comm, "\n")] = '\0';
	else
		snprintf(comm, len, "?");
}

/* "pid 123 (sleep), pid 124 (sh)" for the first pids of the leaf; returns
 * how many processes it holds (or -errno). */
static int describe(const char *leaf, char *buf, size_t len)
{
	pid_t pids[PN_EXEC_SURVIVOR_EXAMPLES];
	int n = pn_cgroup_procs(leaf, pids, PN_ARRAY_SIZE(pids));
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && i < (int)PN_ARRAY_SIZE(pids) && off < len; i++) {
		char comm[64];

		comm_of(pids[i], comm, sizeof(comm));
		off += (size_t)snprintf(buf + off, len - off, "%spid %d (%s)", i ? ", " : "",
					(int)pids[i], comm);
	}
	if (n > (int)PN_ARRAY_SIZE(pids) && off < len)
		snprintf(buf + off, len - off, ", ...");
	return n;
}

void pn_exec_interrupt(struct pn_exec_state *x)
{
	int n = 0;

	if (!x->started || x->kill_stage)
		return;
	x->kill_stage = 1;
	x->kill_at_ns = pn_now_ns() + PN_EXEC_GRACE_MS * 1000000ULL;
	if (x->have_leaf)
		n = pn_cgroup_signal(x->leaf, SIGTERM);
	if (!x->exited && !x->have_leaf && kill(x->pid, SIGTERM) == 0)
		n = 1;
	if (n > 0)
		pn_warn("--exec: stop request: SIGTERM to %d process(es) of the command; SIGKILL "
			"in %d ms to what is left",
			n, PN_EXEC_GRACE_MS);
}

void pn_exec_escalate(struct pn_exec_state *x, uint64_t now_ns)
{
	char who[512] = "";
	int n = 0;

	if (x->kill_stage != 1 || now_ns < x->kill_at_ns)
		return;
	x->kill_stage = 2;
	if (x->have_leaf) {
		n = describe(x->leaf, who, sizeof(who));
	} else if (!x->exited) {
		snprintf(who, sizeof(who), "pid %d", (int)x->pid);
		n = 1;
	}
	if (n <= 0)
		return;
	pn_warn("--exec: %d process(es) still alive %d ms after SIGTERM (%s): SIGKILL", n,
		PN_EXEC_GRACE_MS, who);
	if (x->have_leaf)
		pn_cgroup_signal(x->leaf, SIGKILL);
	if (!x->exited)
		kill(x->pid, SIGKILL);
}

/* Wait until the leaf is empty or until_ns; SIGKILL again every round when
 * kill is set (v1 kills pid by pid: a fork may slip between).  Returns what
 * is left. */
static int wait_empty(struct pn_exec_state *x, uint64_t until_ns, bool kill)
{
	pid_t pids[LEAF_MAX_PIDS];
	int n;

	while ((n = pn_cgroup_procs(x->leaf, pids, PN_ARRAY_SIZE(pids))) > 0 &&
	       pn_now_ns() < until_ns) {
		if (kill)
			pn_cgroup_signal(x->leaf, SIGKILL);
		sleep_ms(10);
	}
	return n;
}

static void record_examples(struct pn_exec_state *x, const pid_t *pids, int n)
{
	for (int i = 0; i < n && i < PN_EXEC_SURVIVOR_EXAMPLES; i++) {
		char comm[64];

		comm_of(pids[i], comm, sizeof(comm));
		x->surv.ex[i].pid = pids[i];
		snprintf(x->surv.ex[i].comm, sizeof(x->surv.ex[i].comm), "%.15s", comm);
		x->surv.nexamples = i + 1;
	}
}

void pn_exec_end_survivors(struct pn_exec_state *x)
{
	pid_t pids[LEAF_MAX_PIDS];
	char who[512];
	int n, left, ret;

	if (!x->have_leaf) {
		if (x->leaf[0]) /* made, but the command did not enter it */
			pn_cgroup_remove(x->leaf);
		return;
	}
	n = pn_cgroup_procs(x->leaf, pids, PN_ARRAY_SIZE(pids));
	if (n < 0) {
		pn_warn("--exec: %s/cgroup.procs: %s", x->leaf, strerror(-n));
	} else {
		x->surv.checked = true;
		x->surv.count = n;
		record_examples(x, pids, n);
	}
	if (n > 0) {
		describe(x->leaf, who, sizeof(who));
		pn_warn("--exec: the command left %d process(es) running in its cgroup (%s): "
			"SIGTERM, SIGKILL %d ms later",
			n, who, PN_EXEC_GRACE_MS);
		/* a stop request already sent SIGTERM: its grace period runs on */
		if (x->kill_stage == 0) {
			x->kill_stage = 1;
			x->kill_at_ns = pn_now_ns() + PN_EXEC_GRACE_MS * 1000000ULL;
			pn_cgroup_signal(x->leaf, SIGTERM);
		}
		left = wait_empty(x, x->kill_at_ns, false);
		x->surv.killed = left > 0 ? left : 0;
		x->surv.terminated = n > x->surv.killed ? n - x->surv.killed : 0;
		if (left > 0) {
			pn_cgroup_signal(x->leaf, SIGKILL);
			left = wait_empty(x, pn_now_ns() + KILL_WAIT_MS * 1000000ULL, true);
		}
		pn_warn("--exec: of its %d process(es), %d ended on SIGTERM, %d were killed "
			"with SIGKILL%s",
			n, x->surv.terminated, x->surv.killed,
			left > 0 ? "; some are still there" : "");
	}
	ret = pn_cgroup_remove(x->leaf);
	if (ret)
		pn_warn("cgroup %s: %s", x->leaf, strerror(-ret));
}

cJSON *pn_exec_survivors_json(const struct pn_exec_state *x)
{
	cJSON *o, *ex;

	if (!x->surv.checked)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "count", x->surv.count);
	cJSON_AddNumberToObject(o, "terminated", x->surv.terminated);
	cJSON_AddNumberToObject(o, "killed", x->surv.killed);
	ex = cJSON_AddArrayToObject(o, "examples");
	for (int i = 0; i < x->surv.nexamples; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "pid", x->surv.ex[i].pid);
		cJSON_AddStringToObject(e, "comm", x->surv.ex[i].comm);
		cJSON_AddItemToArray(ex, e);
	}
	return o;
}
