// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec.c - the --exec command as a phase's workload, `perf stat` style.
 *
 * Where its pages live comes from move_pages(pid, ..., NULL) over its
 * mappings (/proc/PID/maps): the kernel's own answer per page, which unlike
 * numa_maps also sees nodes that a kernel leaves out of its per-node reports.
 * It is sampled every interval and, exactly, once more when the command
 * exits: the command runs under ptrace with PTRACE_O_TRACEEXIT, which stops
 * it at exit with its memory still mapped.  (Only the command's own process
 * is followed, not processes it forks.)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <numaif.h>

#include "runner.h"

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

/* Pages per node of pid's mappings, all and anonymous only (inode 0). */
static int census(pid_t pid, int64_t *pages, int64_t *anon)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct pn_maps m;
	int ret = pn_maps_read(pid, &m);

	if (ret)
		return ret;
	memset(pages, 0, PN_MAX_NODES * sizeof(*pages));
	memset(anon, 0, PN_MAX_NODES * sizeof(*anon));
	for (size_t i = 0; i < m.n && !ret; i++) {
		const struct pn_vma *v = &m.v[i];

		if (!strcmp(v->name, "[vsyscall]"))
			continue;
		ret = census_range(pid, v->start, v->end, ps > 0 ? ps : 4096,
				   v->inode ? pages : anon);
	}
	pn_maps_free(&m);
	for (int n = 0; n < PN_MAX_NODES; n++)
		pages[n] += anon[n];
	return ret;
}

void pn_exec_sample(struct pn_exec_state *x)
{
	int64_t *pages = pn_xcalloc((size_t)2 * PN_MAX_NODES, sizeof(*pages));

	if (census(x->pid, pages, pages + PN_MAX_NODES) == 0) {
		memcpy(x->last_pages, pages, sizeof(x->last_pages));
		memcpy(x->last_anon_pages, pages + PN_MAX_NODES, sizeof(x->last_anon_pages));
		for (int n = 0; n < PN_MAX_NODES; n++)
			if (pages[n] > x->peak_pages[n])
				x->peak_pages[n] = pages[n];
		x->samples++;
	}
	free(pages);
}

int pn_exec_start(struct run *r, struct pn_exec_state *x)
{
	int st;

	memset(x, 0, sizeof(*x));
	fflush(NULL);
	x->pid = fork();
	if (x->pid < 0)
		return pn_error(-errno, "--exec: fork: %s", strerror(errno));
	if (x->pid == 0) {
		/* Traced so that the exit can be stopped for a last census. */
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(r->o->exec_argv[0], r->o->exec_argv);
		fprintf(stderr, "pnbench: error: --exec: %s: %s\n", r->o->exec_argv[0],
			strerror(errno));
		_exit(127);
	}
	x->started = true;
	x->method = "move_pages";
	/* The tracee stops with SIGTRAP at a successful execve. */
	if (waitpid(x->pid, &st, 0) == x->pid && WIFSTOPPED(st)) {
		if (ptrace(PTRACE_SETOPTIONS, x->pid, NULL,
			   /* NOLINTNEXTLINE(performance-no-int-to-ptr): ptrace's data argument */
			   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) == 0)
			x->exit_census = true;
		ptrace(PTRACE_CONT, x->pid, NULL, NULL);
	} else if (WIFEXITED(st) || WIFSIGNALED(st)) {
		x->exited = true;
		x->status = st;
	}
	return 0;
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

void pn_exec_interrupt(struct pn_exec_state *x)
{
	if (x->started && !x->exited)
		kill(x->pid, SIGTERM);
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
	cJSON_AddBoolToObject(ej, "explicit", r->o->exec_explicit);
	cJSON_AddStringToObject(ej, "census", x->method ? x->method : "none");
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
	if (failed) {
		r->exec_failed++;
		pn_warn("--exec: %s %s", r->o->exec_argv[0],
			x->exited && WIFEXITED(x->status) ? "exited with a non-zero status"
							  : "was killed by a signal");
	}
	return ej;
}
