// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_guest_leak.c - the perf collector's event path against a known leak,
 * for reference-kernel guests (tests/integration/test-perf-guest.sh).
 *
 *   perf_guest_leak NODE PAGES
 *
 * NODE plays the private role.  Three phases, one line each on stdout:
 *   LEAK      a foreign process binds PAGES pages to NODE (mbind) and faults
 *             them; it still holds them when the phase ends -> the events
 *             must report exactly PAGES general pages on NODE
 *   EXPLICIT  the same, by a process the phase declares an explicit
 *             workload -> PAGES explicit pages, 0 general
 *   QUIET     nothing -> 0 general pages
 * Lines: "<PHASE> general=N general_alloc=N explicit=N net=N lost=N
 * inconclusive=0|1 series_alloc=N".  Exit 0 when it could measure, 4 when
 * the collector cannot run here (reason on stderr), 3 on errors.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/api/collector.h"
#include "core/api/workload.h"

extern const struct pn_collector pn_collector_perf;

#define MPOL_BIND_ 2

static int leak(int node, long pages, int go, int done)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)pages * (size_t)psz;
	unsigned long mask[16] = { 0 };
	unsigned char *m;
	char b;

	if (read(go, &b, 1) != 1)
		return 2;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 3;
	mask[node / 64] |= 1UL << (node % 64);
	if (syscall(SYS_mbind, m, len, MPOL_BIND_, mask, 1024UL, 0U))
		return 4;
	(void)madvise(m, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		m[(size_t)i * (size_t)psz] = 1;
	if (write(done, "d", 1) != 1 || read(go, &b, 1) != 1)
		return 5;
	return 0;
}

static double num(const cJSON *o, const char *k)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void print(const char *name, const struct pn_event_report *rep)
{
	const struct pn_event_node *n = &rep->nodes[0];
	const cJSON *d = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(rep->details, "private_nodes"), 0);

	printf("%s general=%lld general_alloc=%lld explicit=%lld net=%lld lost=%lld "
	       "inconclusive=%d series_alloc=%.0f\n",
	       name, (long long)n->general_pages, (long long)n->general_alloc_pages,
	       (long long)n->explicit_pages, (long long)n->net_pages, (long long)n->lost_events,
	       n->inconclusive, num(cJSON_GetObjectItem(d, "series"), "private_alloc_pages"));
	{
		/* page_owner forensics where the guest booted with page_owner=on */
		const cJSON *po = cJSON_GetObjectItem(d, "page_owner");
		const cJSON *top = cJSON_GetArrayItem(cJSON_GetObjectItem(po, "top_stacks"), 0);
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(po, "skipped"));

		if (!po || why)
			printf("%s owner=0 owner_skipped=%s\n", name, why ? why : "absent");
		else
			printf("%s owner=1 owner_general=%.0f owner_explicit=%.0f owner_top=%.0f "
			       "owner_top_comm=%s\n",
			       name, num(po, "general_pages"), num(po, "explicit_pages"),
			       top ? num(top, "pages") : 0,
			       top ? cJSON_GetStringValue(cJSON_GetObjectItem(top, "first_comm"))
				   : "-");
	}
	fflush(stdout);
}

/* One phase: a child leaking (or not, pages 0), explicit or foreign. */
static int phase(struct pn_coll *c, const char *name, int node, long pages, bool expl)
{
	struct pn_phase_pid pp = { 0, expl, false, "leak" };
	struct pn_phase_ctx ctx = { name, 0, NULL, 0, &pp };
	struct pn_event_report rep = { 0 };
	int go[2], done[2], st = 0;
	pid_t pid = -1;
	char b;

	if (pipe(go) || pipe(done))
		return -errno;
	if (pages) {
		pid = fork();
		if (pid == 0)
			_exit(leak(node, pages, go[0], done[1]));
		pp.pid = pid;
		ctx.npids = 1;
	}
	if (c->ops->phase_begin(c, &ctx))
		return -EIO;
	if (pages && (write(go[1], "g", 1) != 1 || read(done[0], &b, 1) != 1))
		return -EIO;
	if (c->ops->phase_end(c, &ctx, &rep)) /* the pages are still held */
		return -EIO;
	print(name, &rep);
	cJSON_Delete(rep.details);
	if (pages) {
		if (write(go[1], "x", 1) != 1)
			return -EIO;
		waitpid(pid, &st, 0);
	}
	close(go[0]), close(go[1]), close(done[0]), close(done[1]);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

int main(int argc, char **argv)
{
	struct pn_roles roles = { 0 };
	struct pn_env env = { .roles = &roles, .is_root = geteuid() == 0 };
	struct pn_coll c = { .ops = &pn_collector_perf, .env = &env };
	cJSON *in = cJSON_CreateObject(), *params = NULL;
	char why[512] = "";
	int node, ret;
	long pages;

	if (argc != 3)
		return 2;
	node = atoi(argv[1]);
	pages = atol(argv[2]);
	pn_nodeset_set(&roles.private_nodes, node);
	if (pn_collector_perf.supported(&env, why, sizeof(why))) {
		fprintf(stderr, "perf collector unavailable: %s\n", why);
		return 4;
	}
	cJSON_AddStringToObject(in, "nodes", argv[1]);
	if (pn_params_resolve(pn_collector_perf.opts, in, "guest", "$", &params))
		return 3;
	c.params.opts = pn_collector_perf.opts;
	c.params.obj = params;
	pn_series_init(&c.series, "perf");
	if (c.ops->open(&c) || c.ops->start(&c))
		return 3;
	ret = phase(&c, "LEAK", node, pages, false);
	if (!ret)
		ret = phase(&c, "EXPLICIT", node, pages, true);
	if (!ret)
		ret = phase(&c, "QUIET", node, 0, false);
	c.ops->close(&c);
	pn_series_free(&c.series);
	cJSON_Delete(params);
	cJSON_Delete(in);
	return ret ? 3 : 0;
}
