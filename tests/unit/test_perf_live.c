// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_perf_live.c - the perf collector on this machine (root, tracefs):
 * a child faults a known number of pages; node 0 plays the private role, so
 * the collector must attribute at least that many mm_page_alloc pages (and
 * events: THP is off for the range) on node 0 to the child's pid, and see
 * them freed after it exits; nothing lost.  The same child declared an
 * explicit workload gives explicit pages and no general ones.  Software
 * events of a child (pn_perf_proc_*) count its faults.  Skips, with the
 * collector's reason, where it cannot run.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/api/collector.h"
#include "core/sys/perfproc.h"
#include "core/api/workload.h"

extern const struct pn_collector pn_collector_perf;

#define NPAGES 16384

struct child {
	pid_t pid;
	int go[2], done[2];
};

/* The child waits for "go", faults NPAGES pages, says so, waits for "exit". */
static void child_body(struct child *ch)
{
	long page = sysconf(_SC_PAGESIZE);
	char b;
	unsigned char *m;

	if (read(ch->go[0], &b, 1) != 1)
		_exit(2);
	m = mmap(NULL, NPAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (m == MAP_FAILED)
		_exit(3);
	(void)madvise(m, NPAGES * (size_t)page, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < NPAGES; i++)
		m[i * (size_t)page] = 1;
	if (write(ch->done[1], "d", 1) != 1 || read(ch->go[0], &b, 1) != 1)
		_exit(4);
	_exit(0);
}

static void spawn(struct child *ch)
{
	assert_int_equal(pipe(ch->go), 0);
	assert_int_equal(pipe(ch->done), 0);
	ch->pid = fork();
	assert_true(ch->pid >= 0);
	if (ch->pid == 0)
		child_body(ch);
}

static void step(struct child *ch)
{
	char b;

	assert_int_equal(write(ch->go[1], "g", 1), 1);
	assert_int_equal(read(ch->done[0], &b, 1), 1);
}

/*
 * Pages of an exited process can still be held by another CPU's LRU batch
 * (a folio_batch of 31) until that CPU drains it.  move_pages() drains every
 * CPU's batches first (lru_cache_disable()): moving one of our own pages to
 * the node it is on is the cheapest way to ask for that.
 */
static void drain_lru_batches(void)
{
	static char page[4096] __attribute__((aligned(4096)));
	void *pages[1] = { page };
	int node = 0, status = 0;

	page[0] = 1;
	(void)syscall(SYS_move_pages, 0, 1UL, pages, &node, &status, 0);
}

static void finish(struct child *ch)
{
	int st;

	assert_int_equal(write(ch->go[1], "x", 1), 1);
	assert_int_equal(waitpid(ch->pid, &st, 0), ch->pid);
	drain_lru_batches();
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (int i = 0; i < 2; i++) {
		close(ch->go[i]);
		close(ch->done[i]);
	}
}

struct live {
	struct pn_roles roles;
	struct pn_env env;
	struct pn_coll c;
	cJSON *params;
};

static int setup(void **state)
{
	static struct live L;
	cJSON *in = cJSON_Parse("{\"nodes\": \"0\"}");
	char why[512] = "";

	memset(&L, 0, sizeof(L));
	pn_nodeset_set(&L.roles.private_nodes, 0);
	L.env.roles = &L.roles;
	L.env.is_root = geteuid() == 0;
	if (pn_collector_perf.supported(&L.env, why, sizeof(why))) {
		print_message("perf collector unavailable here: %s\n", why);
		cJSON_Delete(in);
		*state = NULL;
		return 0;
	}
	assert_int_equal(pn_params_resolve(pn_collector_perf.opts, in, "test", "$", &L.params), 0);
	cJSON_Delete(in);
	L.c.ops = &pn_collector_perf;
	L.c.params.opts = pn_collector_perf.opts;
	L.c.params.obj = L.params;
	L.c.env = &L.env;
	pn_series_init(&L.c.series, "perf");
	*state = &L;
	return 0;
}

static const cJSON *find_pid(const struct pn_event_report *rep, pid_t pid)
{
	const cJSON *n = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(rep->details, "private_nodes"), 0);
	const cJSON *p;

	cJSON_ArrayForEach (p, cJSON_GetObjectItemCaseSensitive(n, "by_process"))
		if ((pid_t)cJSON_GetNumberValue(cJSON_GetObjectItem(p, "pid")) == pid)
			return p;
	return NULL;
}

static double num(const cJSON *o, const char *k)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* One phase around a child; returns its by_process entry (rep kept). */
static const cJSON *phase(struct live *L, bool expl, struct pn_event_report *rep)
{
	struct child ch;
	struct pn_phase_pid pp;
	struct pn_phase_ctx ctx = { "live", 0, &L->roles.private_nodes, 1, &pp };

	spawn(&ch);
	pp = (struct pn_phase_pid){ ch.pid, expl, false, "child" };
	assert_int_equal(L->c.ops->phase_begin(&L->c, &ctx), 0);
	step(&ch);
	finish(&ch);
	assert_int_equal(L->c.ops->phase_end(&L->c, &ctx, rep), 0);
	assert_int_equal(rep->nnodes, 1);
	assert_int_equal(rep->nodes[0].node, 0);
	assert_int_equal(rep->lost_events, 0);
	assert_false(rep->nodes[0].inconclusive);
	return find_pid(rep, ch.pid);
}

static void test_child_pages(void **state)
{
	struct live *L = *state;
	struct pn_event_report rep = { 0 };
	const cJSON *p;

	if (!L) {
		skip();
		return;
	}
	assert_int_equal(L->c.ops->open(&L->c), 0);
	assert_int_equal(L->c.ops->start(&L->c), 0);

	p = phase(L, false, &rep);
	assert_non_null(p);
	print_message("child: %.0f general pages in %.0f events, %.0f freed; phase: %lld events\n",
		      num(p, "general_pages"), num(p, "events"), num(p, "freed_pages"),
		      (long long)rep.events);
	assert_true(num(p, "general_pages") >= NPAGES);
	assert_true(num(p, "events") >= NPAGES);
	assert_true(num(p, "freed_pages") >= NPAGES);
	assert_int_equal(num(p, "explicit_pages"), 0);
	assert_true(rep.nodes[0].general_alloc_pages >= NPAGES);
	{
		/* page_owner forensics: stacks where the kernel has it on, else
		 * skipped with the reason (this host's kernel has none) */
		const cJSON *po = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(
				cJSON_GetObjectItemCaseSensitive(rep.details, "private_nodes"), 0),
			"page_owner");
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(po, "skipped"));

		assert_non_null(po);
		if (why)
			print_message("page_owner skipped: %s\n", why);
		else
			assert_true(num(po, "pages") > 0);
	}
	cJSON_Delete(rep.details);

	/* the same child as an explicit workload */
	p = phase(L, true, &rep);
	assert_non_null(p);
	assert_true(num(p, "explicit_pages") >= NPAGES);
	assert_int_equal(num(p, "general_pages"), 0);
	assert_true(rep.nodes[0].explicit_pages >= NPAGES);
	cJSON_Delete(rep.details);

	{
		int64_t row[5];

		assert_int_equal(L->c.series.ncols, 5);
		assert_int_equal(L->c.ops->sample(&L->c, row), 0);
		assert_true(row[0] >= 2 * (int64_t)NPAGES);
		assert_int_equal(row[1], 0);
	}
	L->c.ops->close(&L->c);
	assert_null(L->c.priv);
}

/* A ring far too small, woken only by the reader's poll timeout: samples
 * are lost, the node is inconclusive and the details say where. */
static void test_lost(void **state)
{
	struct live *L = *state;
	cJSON *in = cJSON_Parse("{\"nodes\": \"0\", \"ring_pages\": 8, \"wakeup\": \"1M\"}");
	struct pn_coll c = { .ops = &pn_collector_perf };
	struct pn_event_report rep = { 0 };
	struct pn_phase_ctx ctx = { "lost", 0, NULL, 0, NULL };
	cJSON *params = NULL, *why;
	struct child ch;
	const char *s;

	if (!L) {
		cJSON_Delete(in);
		skip();
		return;
	}
	assert_int_equal(pn_params_resolve(pn_collector_perf.opts, in, "test", "$", &params), 0);
	c.params.opts = pn_collector_perf.opts;
	c.params.obj = params;
	c.env = &L->env;
	pn_series_init(&c.series, "perf");
	assert_int_equal(c.ops->open(&c), 0);
	assert_int_equal(c.ops->start(&c), 0);
	spawn(&ch);
	assert_int_equal(c.ops->phase_begin(&c, &ctx), 0);
	step(&ch);
	finish(&ch);
	assert_int_equal(c.ops->phase_end(&c, &ctx, &rep), 0);
	print_message("lost %lld of %lld events\n", (long long)rep.lost_events,
		      (long long)rep.events);
	assert_true(rep.lost_events > 0);
	assert_true(rep.nodes[0].inconclusive);
	assert_int_equal(rep.nodes[0].lost_events, rep.lost_events);
	why = cJSON_GetArrayItem(cJSON_GetObjectItem(rep.details, "inconclusive_reasons"), 0);
	s = cJSON_GetStringValue(why);
	assert_non_null(s);
	assert_non_null(strstr(s, "events lost on CPU"));
	cJSON_Delete(rep.details);
	c.ops->close(&c);
	pn_series_free(&c.series);
	cJSON_Delete(params);
	cJSON_Delete(in);
}

static void test_proc_events(void **state)
{
	struct pn_perf_proc *pp;
	struct pn_perf_proc_counts cnt;
	struct child ch;
	int ret;

	(void)state;
	spawn(&ch);
	ret = pn_perf_proc_open(ch.pid, &pp);
	if (ret == -ENOSYS || ret == -EACCES || ret == -EPERM) {
		finish(&ch);
		print_message("software events unavailable: %s\n", strerror(-ret));
		skip();
	}
	assert_int_equal(ret, 0);
	step(&ch);
	finish(&ch);
	assert_int_equal(pn_perf_proc_read(pp, &cnt), 0);
	for (int i = 0; i < PN_PP_N; i++)
		print_message("%s %llu\n", pn_perf_proc_names[i], (unsigned long long)cnt.v[i]);
	assert_true(cnt.v[PN_PP_PAGE_FAULTS] >= NPAGES);
	assert_true(cnt.v[PN_PP_MINOR_FAULTS] >= NPAGES);
	assert_true(cnt.v[PN_PP_CPU_CLOCK_NS] > 0);
	assert_true(cnt.enabled_ns >= cnt.running_ns);
	pn_perf_proc_close(pp);
}

static int teardown(void **state)
{
	struct live *L = *state;

	if (L) {
		pn_series_free(&L->c.series);
		cJSON_Delete(L->params);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_pages),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_proc_events),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
