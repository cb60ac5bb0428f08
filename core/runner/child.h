/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * child.h - a workload in its own process (and cgroup leaf).
 *
 * The runner forks one child per workload.  The child enters its cgroup,
 * calls run(), sends its result (JSON text, result.h) over a socket and
 * waits, its memory still mapped, until the runner has taken its
 * after-snapshot; then it tears down and exits.  Whatever happens to it
 * (OOM kill, SIGBUS, SIGSEGV, a hang past its timeout) becomes a struct
 * pn_outcome, never a crash of the runner: stress-ng's oomable child,
 * fio's processes reporting back to the parent.
 */
#ifndef PN_CHILD_H
#define PN_CHILD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/api/workload.h"

struct pn_cgroup_root;

struct pn_child {
	struct pn_wl *w;
	pid_t pid;
	int sock; /* parent's end, -1 when closed */
	char cg_path[PATH_MAX];
	bool has_cg;
	int64_t oom_kills_before;
	/* what came back */
	char *buf;
	size_t len, cap;
	bool got_result; /* run() returned and its result arrived */
	int run_rc;
	uint64_t t0_ns, t1_ns; /* run() start and end, CLOCK_MONOTONIC */
	bool reaped;
	int status; /* waitpid status */
	/* timeout handling */
	uint64_t deadline_ns; /* 0 = none */
	int kill_stage;	      /* 0, 1 = SIGTERM sent, 2 = SIGKILL sent */
	uint64_t kill_at_ns;
	bool timed_out;
};

/* Start w in a child; cg_path may be NULL.  close_fds are the parent's
 * sockets of other children (closed in the new child). */
int pn_child_start(struct pn_child *c, struct pn_wl *w, const char *cg_path, const int *close_fds,
		   size_t nclose);
/* Read what is there and reap the child if it ended; non-blocking.
 * Returns true when the child is "settled": its result arrived or it died. */
bool pn_child_poll(struct pn_child *c);
/* Wait up to timeout_ms for any of the children to make progress. */
void pn_child_wait_any(struct pn_child *const *cs, size_t n, int timeout_ms);
/* Let it run (after the runner's before-read). */
void pn_child_go(struct pn_child *c);
/* Ask a child to stop its run() (background workloads). */
void pn_child_stop(struct pn_child *c);
/* Interrupted run: stop request, SIGTERM, SIGKILL 2 s later. */
void pn_child_interrupt(struct pn_child *c);
/* Let the child tear down and exit; waits up to grace_ms, then SIGKILL. */
void pn_child_finish(struct pn_child *c, int grace_ms);
/* Escalate: SIGTERM at the deadline, SIGKILL 2 s later. */
void pn_child_check_deadline(struct pn_child *c, uint64_t now_ns);
/* How it ended (after pn_child_finish); parses the result into c->w->res. */
void pn_child_outcome(struct pn_child *c, const struct pn_cgroup_root *cr, struct pn_outcome *o);
void pn_child_release(struct pn_child *c);

#endif /* PN_CHILD_H */
