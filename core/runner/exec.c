// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec.c - the --exec command as a phase's workload, `perf stat` style.
 *
 * The command is forked into its own cgroup leaf (exec_cg.c: made with the
 * workloads' leaves, before the phase's first node read; the child enters
 * it before execve), so the leaf holds its whole process tree.  It runs
 * under ptrace: held at its exec trap until the phase's event collectors
 * have begun with its pid registered (they follow its forks), and stopped
 * at exit (PTRACE_O_TRACEEXIT) with its memory still mapped for a last
 * census.  Processes it leaves in its leaf keep running through the
 * after-read, so what they hold is in the leaf's memory.numa_stat and
 * attributed to "--exec"; then they get SIGTERM and, PN_EXEC_GRACE_MS
 * later, SIGKILL, and the results count them.  A stop request ends the
 * command and its leaf the same way.  Without a memory cgroup the command
 * is a plain child: a note in the results, its children neither followed
 * nor ended.
 *
 * Where the command's own pages live comes from its page table:
 * /proc/PID/pagemap PFNs mapped to nodes by the memory-block layout (root),
 * else move_pages(pid, ..., NULL) over its mappings -- the kernel's own
 * answer per page, which unlike numa_maps also sees nodes a kernel leaves
 * out of its reports.  It is sampled every interval and, exactly, once more
 * at exit.  With --explicit, what it holds on a private node -- that census
 * or its leaf's numa_stat, whichever is more -- is explicit (phase_json.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <numaif.h>

#include "core/sys/pagemap.h"
#include "run_int.h"

#define CENSUS_BATCH 1024

/* Add the pages of [lo, hi) of pid to pages[node]; -errno if move_pages fails. */
static int census_range(pid_t pid, uintptr_t lo, uintptr_t hi, long ps, int64_t *pages)
{
	void *addr[CENSUS_BATCH];
	int status[CENSUS_BATCH];

	while (lo < hi) {
		unsigned long n = 0;

		while (n < CENSUS_BATCH && lo < hi) {
			addr[n++] =
				(void *)lo; /* NOLINT(performance-no-int-to-ptr): another process */
			lo += (uintptr_t)ps;
		}
		if (move_pages(pid, n, addr, NULL, status, 0) < 0)
			return -errno;
		for (unsigned long i = 0; i < n; i++)
			if (status[i] >= 0 && status[i] < PN_MAX_NODES)
				pages[status[i]]++;
	}
	return 0;
}

/* A VMA larger than this is not walked page by page with move_pages (a
 * sanitizer's shadow reservation spans terabytes); pagemap scans it. */
#define CENSUS_WALK_MAX (UINT64_C(64) << 30)

/* pagemap census (root: PFNs -> nodes), anonymous and file VMAs apart. */
static int census_pagemap(pid_t pid, const struct pn_maps *m, const struct pn_pfnnode *map,
			  int64_t *pages, int64_t *anon)
{
	struct pn_range *r = pn_xcalloc(m->n + 1, sizeof(*r));
	struct pn_census c;
	int ret = 0;

	for (int pass = 0; pass < 2 && !ret; pass++) {
		size_t n = 0;

		for (size_t i = 0; i < m->n; i++)
			if ((m->v[i].inode == 0) == (pass == 0) &&
			    strcmp(m->v[i].name, "[vsyscall]") != 0)
				r[n++] = (struct pn_range){ m->v[i].start, m->v[i].end };
		ret = n ? pn_pagemap_census_ranges(pid, r, n, map, &c) : 0;
		for (int k = 0; !ret && n && k < PN_MAX_NODES; k++)
			(pass == 0 ? anon : pages)[k] = (int64_t)c.node_pages[k];
	}
	free(r);
	return ret;
}

/* move_pages census (without root), VMAs larger than CENSUS_WALK_MAX skipped. */
static int census_move_pages(pid_t pid, const struct pn_maps *m, int64_t *pages, int64_t *anon,
			     uint64_t *skipped)
{
	long ps = sysconf(_SC_PAGESIZE);
	int ret = 0;

	for (size_t i = 0; i < m->n && !ret; i++) {
		const struct pn_vma *v = &m->v[i];

		if (!strcmp(v->name, "[vsyscall]"))
			continue;
		if (v->end - v->start > CENSUS_WALK_MAX) {
			*skipped += v->end - v->start;
			continue;
		}
		ret = census_range(pid, v->start, v->end, ps > 0 ? ps : 4096,
				   v->inode ? pages : anon);
	}
	return ret;
}

/* Pages per node of pid's mappings, all and anonymous only (inode 0). */
static int census(struct pn_exec_state *x, int64_t *pages, int64_t *anon)
{
	struct pn_maps m;
	int ret = pn_maps_read(x->pid, &m);

	if (ret)
		return ret;
	memset(pages, 0, PN_MAX_NODES * sizeof(*pages));
	memset(anon, 0, PN_MAX_NODES * sizeof(*anon));
	ret = -EPERM;
	if (x->have_pfnmap)
		ret = census_pagemap(x->pid, &m, &x->pfnmap, pages, anon);
	if (ret == -EPERM) {
		x->method = "move_pages";
		x->skipped_bytes = 0;
		ret = census_move_pages(x->pid, &m, pages, anon, &x->skipped_bytes);
	} else if (!ret) {
		x->method = "pagemap";
	}
	pn_maps_free(&m);
	for (int n = 0; n < PN_MAX_NODES; n++)
		pages[n] += anon[n];
	return ret;
}

void pn_exec_sample(struct pn_exec_state *x)
{
	int64_t *pages = pn_xcalloc((size_t)2 * PN_MAX_NODES, sizeof(*pages));

	if (census(x, pages, pages + PN_MAX_NODES) == 0) {
		memcpy(x->last_pages, pages, sizeof(x->last_pages));
		memcpy(x->last_anon_pages, pages + PN_MAX_NODES, sizeof(x->last_anon_pages));
		for (int n = 0; n < PN_MAX_NODES; n++)
			if (pages[n] > x->peak_pages[n])
				x->peak_pages[n] = pages[n];
		x->samples++;
	}
	free(pages);
}

/* The command is in its leaf: cgroup.procs lists it (it entered before
 * execve; a failed write leaves it where the runner is). */
static void check_leaf(struct pn_exec_state *x)
{
	pid_t pids[64];
	int n = pn_cgroup_procs(x->leaf, pids, PN_ARRAY_SIZE(pids));

	for (int i = 0; i < n && i < (int)PN_ARRAY_SIZE(pids); i++)
		if (pids[i] == x->pid)
			return;
	snprintf(x->cg_note, sizeof(x->cg_note), "the command did not enter cgroup %.160s",
		 x->leaf);
	pn_warn("--exec: %s: its memory.numa_stat is not the command's", x->cg_note);
	x->have_leaf = false;
}

int pn_exec_start(struct run *r, struct pn_exec_state *x)
{
	int st;

	fflush(NULL);
	x->pid = fork();
	if (x->pid < 0)
		return pn_error(-errno, "--exec: fork: %s", strerror(errno));
	if (x->pid == 0) {
		/* Into its leaf before execve: what the exec allocates is the
		 * leaf's, and so is everything the command forks. */
		int ret = x->have_leaf ? pn_cgroup_enter(x->leaf) : 0;

		if (ret)
			fprintf(stderr, "pnbench: warning: --exec: cannot enter cgroup %s: %s\n",
				x->leaf, strerror(-ret));
		/* Traced: held at the exec trap until pn_exec_go(), and stopped
		 * at exit for a last census. */
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		pn_default_signals(); /* the runner ignores SIGPIPE; the command must not */
		execvp(r->o->exec_argv[0], r->o->exec_argv);
		fprintf(stderr, "pnbench: error: --exec: %s: %s\n", r->o->exec_argv[0],
			strerror(errno));
		_exit(127);
	}
	x->started = true;
	x->method = "move_pages";
	/* PFN -> node for the pagemap census; reloaded at exit (hot-plug) */
	x->have_pfnmap = geteuid() == 0 && pn_pfnnode_load(&x->pfnmap) == 0;
	/* The tracee stops with SIGTRAP at a successful execve; a signal that
	 * reaches it before is delivered. */
	for (;;) {
		pid_t w = waitpid(x->pid, &st, 0);

		if (w < 0 && errno == EINTR)
			continue;
		if (w != x->pid) {
			pn_warn("--exec: cannot wait for the command: %s", strerror(errno));
			st = 127 << 8; /* as if it could not run: the run fails */
			break;
		}
		if (!WIFSTOPPED(st) || WSTOPSIG(st) == SIGTRAP)
			break;
		/* NOLINTNEXTLINE(performance-no-int-to-ptr): ptrace's data argument */
		ptrace(PTRACE_CONT, x->pid, NULL, (void *)(long)WSTOPSIG(st));
	}
	if (WIFSTOPPED(st)) {
		if (ptrace(PTRACE_SETOPTIONS, x->pid, NULL,
			   /* NOLINTNEXTLINE(performance-no-int-to-ptr): ptrace's data argument */
			   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) == 0)
			x->exit_census = true;
		x->stopped = true;
		if (x->have_leaf)
			check_leaf(x);
	} else if (WIFEXITED(st) || WIFSIGNALED(st)) {
		x->exited = true;
		x->status = st;
	}
	return 0;
}

void pn_exec_go(struct pn_exec_state *x)
{
	if (x->stopped && !x->exited)
		ptrace(PTRACE_CONT, x->pid, NULL, NULL);
	x->stopped = false;
}

void pn_exec_abort(struct pn_exec_state *x)
{
	struct timespec ts = { 0, 1000000L };

	if (!x->started || x->exited)
		return;
	kill(x->pid, SIGKILL);
	pn_exec_go(x);
	while (!pn_exec_poll(x))
		nanosleep(&ts, NULL);
}

/* Non-blocking: handle stops, take the exit census; true once it exited. */
bool pn_exec_poll(struct pn_exec_state *x)
{
	int st;

	while (!x->exited) {
		pid_t w = waitpid(x->pid, &st, WNOHANG);

		if (w == 0)
			return false;
		if (w < 0) {
			x->exited = true; /* nothing to wait for */
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			x->exited = true;
			x->status = st;
			break;
		}
		if (WIFSTOPPED(st) && st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			if (x->have_pfnmap)
				x->have_pfnmap = pn_pfnnode_load(&x->pfnmap) == 0;
			pn_exec_sample(x); /* exiting, memory still mapped */
			x->exit_sampled = true;
			/* the kernel's numa_maps, to cross-check the census */
			x->have_numa_maps = pn_numa_maps_read(x->pid, &x->numa_maps) == 0;
			ptrace(PTRACE_CONT, x->pid, NULL, NULL);
		} else if (WIFSTOPPED(st)) {
			/* a signal for the command: deliver it */
			int sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);

			/* NOLINTNEXTLINE(performance-no-int-to-ptr): ptrace's data argument */
			ptrace(PTRACE_CONT, x->pid, NULL, (void *)(long)sig);
		}
	}
	return true;
}

/* numa_maps at exit beside the census: a kernel that leaves a node out of
 * its per-process reports shows here. */
static void cross_check(cJSON *ej, const struct pn_exec_state *x)
{
	long ps = sysconf(_SC_PAGESIZE);
	cJSON *nm, *dis = cJSON_AddArrayToObject(ej, "disagreements");
	char key[16], buf[200];

	if (!x->have_numa_maps) {
		cJSON_AddNullToObject(ej, "numa_maps_pages_per_node");
		return;
	}
	nm = cJSON_AddObjectToObject(ej, "numa_maps_pages_per_node");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		int64_t pages = (int64_t)(x->numa_maps.node_bytes[n] / (uint64_t)ps);

		if (pages) {
			snprintf(key, sizeof(key), "%d", n);
			cJSON_AddNumberToObject(nm, key, (double)pages);
		}
		/* numa_maps also counts mapped pages of files, as the census does;
		 * a node the census found and numa_maps does not list is blind */
		if (x->last_pages[n] && !pn_nodeset_test(&x->numa_maps.nodes, n)) {
			snprintf(
				buf, sizeof(buf),
				"/proc/PID/numa_maps does not list node %d, where move_pages found "
				"%lld of the command's pages",
				n, (long long)x->last_pages[n]);
			cJSON_AddItemToArray(dis, cJSON_CreateString(buf));
		}
	}
}

/* The command's result: exit status, census; fails the run when it failed. */
cJSON *pn_exec_json(struct run *r, const struct pn_exec_state *x)
{
	cJSON *ej = cJSON_CreateObject(), *pn;
	char key[16];
	bool failed = false;

	if (x->exited && WIFEXITED(x->status)) {
		cJSON_AddNumberToObject(ej, "exit_code", WEXITSTATUS(x->status));
		cJSON_AddNullToObject(ej, "signal");
		failed = WEXITSTATUS(x->status) != 0;
	} else {
		cJSON_AddNullToObject(ej, "exit_code");
		cJSON_AddNumberToObject(ej, "signal", x->exited ? WTERMSIG(x->status) : 0);
		failed = true;
	}
	/* stopped by the user's signal: interrupted, not a failed command */
	if (pn_should_stop())
		failed = false;
	cJSON_AddBoolToObject(ej, "interrupted", pn_should_stop() != 0);
	cJSON_AddBoolToObject(ej, "explicit", r->o->exec_explicit);
	cJSON_AddStringToObject(ej, "census", x->method ? x->method : "none");
	cJSON_AddNumberToObject(ej, "census_skipped_bytes", (double)x->skipped_bytes);
	cJSON_AddBoolToObject(ej, "exit_census", x->exit_sampled);
	cJSON_AddNumberToObject(ej, "samples", x->samples);
	pn = cJSON_AddObjectToObject(ej, "last_pages_per_node");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!x->peak_pages[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		cJSON_AddNumberToObject(pn, key, (double)x->last_pages[n]);
	}
	pn = cJSON_AddObjectToObject(ej, "last_anon_pages_per_node");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!x->last_anon_pages[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		cJSON_AddNumberToObject(pn, key, (double)x->last_anon_pages[n]);
	}
	pn = cJSON_AddObjectToObject(ej, "peak_pages_per_node");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!x->peak_pages[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		cJSON_AddNumberToObject(pn, key, (double)x->peak_pages[n]);
	}
	cross_check(ej, x);
	if (x->have_leaf)
		cJSON_AddNullToObject(ej, "cgroup_note");
	else
		cJSON_AddStringToObject(ej, "cgroup_note", x->cg_note);
	cJSON_AddItemToObject(ej, "survivors", pn_exec_survivors_json(x));
	if (failed) {
		r->exec_failed++;
		pn_warn("--exec: %s %s", r->o->exec_argv[0],
			x->exited && WIFEXITED(x->status) ? "exited with a non-zero status"
							  : "was killed by a signal");
	}
	return ej;
}
