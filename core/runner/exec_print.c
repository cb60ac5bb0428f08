// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec_print.c - what `run --exec` prints after the verdict, numastat and
 * perf stat style, from the runs kept in r->exec_log (exec_stat.h), one
 * block per matrix point and phase the command ran in:
 *
 *   where its pages went: per node its peak and last census, anonymous and
 *     file-backed, numa_maps beside it, and how they count (explicit with
 *     --explicit on a private node, general there without, placement only
 *     elsewhere);
 *   what else grew on each private node: the node's general pages at the
 *     moment the verdict judged, what the command's cgroup held of them, the
 *     rest by kind;
 *   with an event collector: the top allocation sites on each private node
 *     (gfp, order) and the top processes (comm, pid);
 *   its metrics: mean and, over -r N runs, the sample standard deviation.
 *
 * Numbers go through core/lib/fmt.h; every line fits 100 columns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lib/fmt.h"
#include "exec_stat.h"

#define TOP 5

struct group {
	const struct pn_exec_run **runs;
	size_t n;
};

static const struct pn_exec_node *find_node(const struct pn_exec_run *e, int node)
{
	for (int i = 0; i < e->nnodes; i++)
		if (e->nodes[i].node == node)
			return &e->nodes[i];
	return NULL;
}

static const char *counted_as(const struct run *r, const struct pn_exec_node *n)
{
	if (!n->is_private)
		return n->role ? "placement" : "not a role";
	return r->o->exec_explicit ? "explicit" : "general";
}

static void print_pages(const struct run *r, const struct group *g)
{
	const struct pn_exec_run *last = g->runs[g->n - 1];
	char b[6][PN_FMT_LEN];
	int64_t tot[5] = { 0 };

	printf("where its pages went (pages of %ld KiB; census %s at its exit%s)\n",
	       r->page_size / 1024, last->census,
	       g->n > 1 ? "; peak of every run, the rest of the last" : "");
	printf("  %4s  %-10s %-10s %11s %11s %11s %11s %11s\n", "node", "role", "counted as",
	       "peak", "last", "anon", "file", "numa_maps");
	for (int i = 0; i < last->nnodes; i++) {
		const struct pn_exec_node *n = &last->nodes[i];
		int64_t peak = 0;

		for (size_t k = 0; k < g->n; k++) {
			const struct pn_exec_node *o = find_node(g->runs[k], n->node);

			if (o && o->peak > peak)
				peak = o->peak;
		}
		printf("  %4d  %-10s %-10s %11s %11s %11s %11s %11s\n", n->node,
		       n->is_private ? "private"
		       : n->role     ? "dram"
				     : "-",
		       counted_as(r, n), pn_fmt_count(peak, b[0], sizeof(b[0])),
		       pn_fmt_count(n->last, b[1], sizeof(b[1])),
		       pn_fmt_count(n->anon, b[2], sizeof(b[2])),
		       pn_fmt_count(n->last - n->anon, b[3], sizeof(b[3])),
		       n->numa_maps < 0 ? "-" : pn_fmt_count(n->numa_maps, b[4], sizeof(b[4])));
		tot[0] += peak;
		tot[1] += n->last;
		tot[2] += n->anon;
		tot[3] += n->numa_maps > 0 ? n->numa_maps : 0;
	}
	printf("  %-27s %11s %11s %11s %11s %11s\n", "total", pn_fmt_count(tot[0], b[0], 32),
	       pn_fmt_count(tot[1], b[1], 32), pn_fmt_count(tot[2], b[2], 32),
	       pn_fmt_count(tot[1] - tot[2], b[3], 32), pn_fmt_count(tot[3], b[4], 32));
}

/* Per private node, the run whose general pages were the most. */
static void print_others(const struct run *r, const struct group *g)
{
	const struct pn_exec_run *last = g->runs[g->n - 1];
	char b[8][PN_FMT_LEN];
	bool head = false;

	for (int i = 0; i < last->nnodes; i++) {
		const struct pn_exec_node *n = &last->nodes[i], *w = NULL;
		int64_t mine, others, rest;

		if (!n->is_private)
			continue;
		for (size_t k = 0; k < g->n; k++) {
			const struct pn_exec_node *o = find_node(g->runs[k], n->node);

			if (o && (!w || o->general > w->general))
				w = o;
		}
		if (!head) {
			printf("what else grew on the private nodes (general pages at the moment "
			       "judged%s)\n",
			       g->n > 1 ? ", the run with the most" : "");
			printf("  %4s %9s %9s %11s %9s %9s %9s %9s %9s\n", "node", "grew",
			       "general", "its cgroup", "others", "anon", "file", "slab", "other");
			head = true;
		}
		mine = r->o->exec_explicit ? 0 : w->in_leaf;
		others = w->general > mine ? w->general - mine : 0;
		rest = w->general - w->general_kind[PN_KIND_ANON] - w->general_kind[PN_KIND_FILE] -
		       w->general_kind[PN_KIND_SLAB];
		printf("  %4d %9s %9s %11s %9s %9s %9s %9s %9s\n", w->node,
		       pn_fmt_count(w->growth, b[0], 32), pn_fmt_count(w->general, b[1], 32),
		       pn_fmt_count(mine, b[2], 32), pn_fmt_count(others, b[3], 32),
		       pn_fmt_count(w->general_kind[PN_KIND_ANON], b[4], 32),
		       pn_fmt_count(w->general_kind[PN_KIND_FILE], b[5], 32),
		       pn_fmt_count(w->general_kind[PN_KIND_SLAB], b[6], 32),
		       pn_fmt_count(rest, b[7], 32));
	}
}

/* Fold s into the list by key (what, cls, order; processes by comm). */
static void fold(struct pn_exec_site **list, int *n, const struct pn_exec_site *s, bool procs)
{
	for (int i = 0; i < *n; i++) {
		struct pn_exec_site *t = &(*list)[i];

		if (strcmp(t->what, s->what) != 0 ||
		    (!procs && (strcmp(t->cls, s->cls) != 0 || t->order != s->order)))
			continue;
		if (procs && t->order != s->order)
			t->npids++;
		t->pages += s->pages;
		t->pages2 += s->pages2;
		t->events += s->events;
		return;
	}
	*list = pn_xrealloc(*list, (size_t)(*n + 1) * sizeof(**list));
	(*list)[(*n)++] = *s;
}

static int by_pages(const void *a, const void *b)
{
	const struct pn_exec_site *x = a, *y = b;
	int64_t px = x->pages + x->pages2, py = y->pages + y->pages2;

	return px < py ? 1 : px > py ? -1 : strcmp(x->what, y->what);
}

/* The rest of a line from column col on, within 100 columns: gfp flag lists
 * are cut at their '|' and go on below, indented to col (none is dropped). */
static void print_tail(const char *s, int col)
{
	int room = 100 - col;

	while ((int)strlen(s) > room) {
		int cut = room;

		while (cut > 0 && s[cut - 1] != '|')
			cut--;
		if (cut == 0)
			cut = room; /* one flag longer than the room */
		printf("%.*s\n%*s", cut, s, col, "");
		s += cut;
	}
	printf("%s\n", s);
}

static void print_sites(const struct pn_exec_site *s, int n, bool procs)
{
	char b[3][PN_FMT_LEN], pid[24];

	if (procs)
		printf("    %11s %11s  %-16s %s\n", "general", "explicit", "pid", "comm");
	else
		printf("    %11s %11s %5s  %-9s %s\n", "pages", "events", "order", "class", "gfp");
	for (int i = 0; i < n && i < TOP; i++) {
		if (procs) {
			if (s[i].npids > 1)
				snprintf(pid, sizeof(pid), "%d pids", s[i].npids);
			else
				snprintf(pid, sizeof(pid), "%d", s[i].order);
			printf("    %11s %11s  %-16s ", pn_fmt_count(s[i].pages, b[0], 32),
			       pn_fmt_count(s[i].pages2, b[1], 32), pid);
			print_tail(s[i].what, 46);
		} else {
			printf("    %11s %11s %5d  %-9s ", pn_fmt_count(s[i].pages, b[0], 32),
			       pn_fmt_count(s[i].events, b[1], 32), s[i].order, s[i].cls);
			print_tail(s[i].what, 45);
		}
	}
	if (n > TOP)
		printf("    ... %d more (run.json: events.<collector>.details)\n", n - TOP);
}

static void print_events(const struct group *g)
{
	const struct pn_exec_run *last = g->runs[g->n - 1];
	char b[2][PN_FMT_LEN];

	for (int i = 0; i < last->nev; i++) {
		int node = last->ev[i].node, nsites = 0, nprocs = 0;
		struct pn_exec_site *sites = NULL, *procs = NULL;
		int64_t gen = 0, expl = 0;

		for (size_t k = 0; k < g->n; k++) {
			for (int j = 0; j < g->runs[k]->nev; j++) {
				const struct pn_exec_events *ev = &g->runs[k]->ev[j];

				if (ev->node != node)
					continue;
				gen += ev->general_alloc;
				expl += ev->explicit_pages;
				for (int s = 0; s < ev->nsites; s++)
					fold(&sites, &nsites, &ev->sites[s], false);
				for (int s = 0; s < ev->nprocs; s++)
					fold(&procs, &nprocs, &ev->procs[s], true);
			}
		}
		if (nsites)
			qsort(sites, (size_t)nsites, sizeof(*sites), by_pages);
		if (nprocs)
			qsort(procs, (size_t)nprocs, sizeof(*procs), by_pages);
		printf("allocations on private node %d (events%s): %s pages general, %s explicit\n",
		       node, g->n > 1 ? ", every run" : "", pn_fmt_count(gen, b[0], 32),
		       pn_fmt_count(expl, b[1], 32));
		if (nsites) {
			printf("  top sites (gfp flags, order)\n");
			print_sites(sites, nsites, false);
		}
		if (nprocs) {
			printf("  top processes\n");
			print_sites(procs, nprocs, true);
		}
		free(sites);
		free(procs);
	}
}

/* mean and sample standard deviation of v[0..n) */
static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(q / (double)(n - 1)) : NAN;
}

/* One metric line: "  elapsed   215.3 ms  +- 2.6 ms (1.2 %)" */
static void metric_line(const char *name, const double *v, size_t n, bool ns)
{
	char m[PN_FMT_LEN], s[PN_FMT_LEN], pct[PN_FMT_LEN];
	double mean, sd;

	mean_sd(v, n, &mean, &sd);
	if (ns) {
		pn_fmt_ns(mean, m, sizeof(m));
		pn_fmt_ns(sd, s, sizeof(s));
	} else {
		pn_fmt_number(mean, m, sizeof(m)); /* a mean of counts need not be whole */
		pn_fmt_number(sd, s, sizeof(s));
	}
	if (n > 1)
		printf("  %-18s %14s  +- %-12s (%s)\n", name, m, s,
		       pn_fmt_pct(mean ? 100 * sd / mean : 0, pct, sizeof(pct)));
	else
		printf("  %-18s %14s\n", name, m);
}

static void print_metrics(const struct run *r, const struct group *g)
{
	double *v = pn_xcalloc(g->n + 1, sizeof(*v));
	char cmd[72] = "";
	size_t n = 0, off = 0;

	for (char **a = r->o->exec_argv; *a && off < sizeof(cmd); a++)
		off += (size_t)snprintf(cmd + off, sizeof(cmd) - off, "%s%s", off ? " " : "", *a);
	if (off >= sizeof(cmd))
		memcpy(cmd + sizeof(cmd) - 4, "...", 4);
	printf("metrics of '%s' (%zu run%s%s)\n", cmd, g->n, g->n == 1 ? "" : "s",
	       g->n > 1 ? "; mean +- sample standard deviation" : "");
	for (size_t k = 0; k < g->n; k++)
		if (g->runs[k]->have_elapsed)
			v[n++] = (double)g->runs[k]->elapsed_ns;
	if (n)
		metric_line("elapsed", v, n, true);
	for (int c = 0; c < PN_PP_N; c++) {
		n = 0;
		for (size_t k = 0; k < g->n; k++)
			if (g->runs[k]->have_counts)
				v[n++] = (double)g->runs[k]->counts.v[c];
		if (n)
			metric_line(pn_perf_proc_names[c], v, n, c == PN_PP_CPU_CLOCK_NS);
	}
	if (!g->runs[g->n - 1]->have_counts)
		printf("  software events absent: %s\n", g->runs[g->n - 1]->sw_why);
	free(v);
}

static void print_status(const struct group *g)
{
	int bad = 0, first = 0;

	for (size_t k = 0; k < g->n; k++)
		if (!g->runs[k]->exited || g->runs[k]->status) {
			if (!bad++)
				first = g->runs[k]->exited ? g->runs[k]->status : -1;
		}
	if (!bad)
		printf("exit status 0%s\n", g->n > 1 ? " in every run" : "");
	else if (first < 0)
		printf("exit status: the command did not end on its own (%d of %zu runs)\n", bad,
		       g->n);
	else
		printf("exit status %d%s (%d of %zu runs not 0)\n", first,
		       first > 128 ? " (128 + signal)" : "", bad, g->n);
}

void pn_exec_print(const struct run *r)
{
	const struct pn_exec_log *l = r->exec_log;
	bool *done;

	if (!l || !l->n || r->o->summary_format != 0)
		return; /* --format json|csv: stdout is that document alone */
	done = pn_xcalloc(l->n, sizeof(*done));
	for (size_t i = 0; i < l->n; i++) {
		struct group g = { NULL, 0 };

		if (done[i])
			continue;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
		g.runs = pn_xcalloc(l->n, sizeof(*g.runs));
		for (size_t k = i; k < l->n; k++) {
			if (done[k] || l->runs[k].point != l->runs[i].point ||
			    strcmp(l->runs[k].phase, l->runs[i].phase) != 0)
				continue;
			done[k] = true;
			g.runs[g.n++] = &l->runs[k];
		}
		printf("\n--exec in phase %s", l->runs[i].phase);
		if (r->cs.n > 1)
			printf(", point %zu", l->runs[i].point);
		printf(": ");
		print_status(&g);
		print_pages(r, &g);
		print_others(r, &g);
		print_events(&g);
		print_metrics(r, &g);
		free(g.runs);
	}
	free(done);
}
