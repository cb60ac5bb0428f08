// SPDX-License-Identifier: GPL-2.0-only
/*
 * pn-probes - run the leak probes (workloads/probes/probe.h) without the runner, one at
 * a time, each released before the next, and print what each measured.
 * Built statically for the kernel-series guests by
 * tests/integration/test-probes-guest.sh; also usable by hand as root.
 *
 *   pn-probes [--dev LIST] [--home N] [--only a,b] [--count probe=N] [--force]
 *             [--list|--names]
 *
 * --dev defaults to has_private_memory, else the online nodes without CPUs.
 * One line per probe:
 *   PROBE <name> status=ran|skip|error kind=<k> normal=0|1 pages=<n>:<p>,..
 *         used=<n>:<d>,.. explicit=<n>:<e>,.. triggered=N refused=N errno=E why="..." note="..."
 * pages = the probe's exact measure (see source), used = growth of the
 * node's MemTotal-MemFree while the probe held its objects.
 * --force runs a probe even when it would skip for movable-only device memory
 * (to show that the kernel path then leaves the node alone).
 * Exit: 0 every selected probe ran or skipped, 1 a probe failed, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/probes/probe.h"

#define MAX_COUNTS 32

struct opts {
	struct pn_probe_env env;
	const char *only;
	bool list, names, force;
	struct {
		char name[64];
		unsigned int count;
	} counts[MAX_COUNTS];
	int ncounts;
};

static int default_dev_nodes(struct pn_nodeset *s)
{
	char buf[256];
	struct pn_nodeset online, cpu;

	if (pn_read_text("/sys/devices/system/node/has_private_memory", buf, sizeof(buf)) > 0 &&
	    !pn_nodeset_parse(s, buf) && !pn_nodeset_empty(s))
		return 0;
	if (pn_read_text("/sys/devices/system/node/online", buf, sizeof(buf)) < 0 ||
	    pn_nodeset_parse(&online, buf))
		return -ENOENT;
	if (pn_read_text("/sys/devices/system/node/has_cpu", buf, sizeof(buf)) < 0 ||
	    pn_nodeset_parse(&cpu, buf))
		return -ENOENT;
	pn_nodeset_andnot(s, &online, &cpu);
	return 0;
}

static bool selected(const char *only, const char *name)
{
	size_t len = strlen(name);
	const char *p = only;

	if (!only)
		return true;
	while ((p = strstr(p, name))) {
		if ((p == only || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", 1, NULL, 'd' },   { "home", 1, NULL, 'H' }, { "only", 1, NULL, 'o' },
		{ "count", 1, NULL, 'c' }, { "list", 0, NULL, 'l' }, { "names", 0, NULL, 'n' },
		{ "force", 0, NULL, 'f' }, { NULL, 0, NULL, 0 },
	};
	bool have_dev = false;
	int c;

	o->env.home_node = 0;
	o->env.is_root = geteuid() == 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		char *eq;

		switch (c) {
		case 'd':
			if (pn_nodeset_parse(&o->env.dev_nodes, optarg))
				return pn_error(-EINVAL, "--dev %s: not a node list", optarg);
			have_dev = true;
			break;
		case 'H': o->env.home_node = atoi(optarg); break;
		case 'o': o->only = optarg; break;
		case 'c':
			eq = strchr(optarg, '=');
			if (!eq || o->ncounts == MAX_COUNTS || eq - optarg >= 64)
				return pn_error(-EINVAL, "--count wants probe=N");
			snprintf(o->counts[o->ncounts].name, 64, "%.*s", (int)(eq - optarg),
				 optarg);
			o->counts[o->ncounts++].count = (unsigned int)strtoul(eq + 1, NULL, 0);
			break;
		case 'l': o->list = true; break;
		case 'f': o->force = true; break;
		case 'n': o->names = true; return 0;
		default: return -EINVAL;
		}
	}
	if (!have_dev && default_dev_nodes(&o->env.dev_nodes))
		return pn_error(-ENOENT, "cannot find device nodes (use --dev)");
	return 0;
}

static void print_nodes(const char *key, const struct pn_nodeset *s, const int64_t *v)
{
	int n, first = 1;

	printf(" %s=", key);
	pn_nodeset_for_each (n, s) {
		if (v[n] < 0)
			printf("%s%d:-", first ? "" : ",", n);
		else
			printf("%s%d:%lld", first ? "" : ",", n, (long long)v[n]);
		first = 0;
	}
}

static int run_one(const struct pn_probe *pr, const struct opts *o)
{
	struct pn_probe_params p = { 0, 0 };
	struct pn_probe_out out;
	char why[256];
	int i, err;

	for (i = 0; i < o->ncounts; i++)
		if (!strcmp(o->counts[i].name, pr->name))
			p.count = o->counts[i].count;
	printf("PROBE %s", pr->name);
	err = pn_probe_supported(pr, &o->env, why, sizeof(why));
	if (err && o->force && strstr(why, "movable-only")) {
		printf(" forced=1");
		err = 0;
	}
	if (err) {
		printf(" status=skip kind=%s normal=%d why=\"%s\"\n", pn_probe_kind_name(pr->kind),
		       pr->needs_normal, why);
		return 0;
	}
	fflush(stdout);
	err = pn_probe_run(pr, &o->env, &p, &out);
	printf(" status=%s kind=%s normal=%d",
	       err	     ? "error"
	       : out.skipped ? "skip"
			     : "ran",
	       pn_probe_kind_name(pr->kind), pr->needs_normal);
	print_nodes("pages", &o->env.dev_nodes, out.pages);
	print_nodes("used", &o->env.dev_nodes, out.used_delta);
	print_nodes("explicit", &o->env.dev_nodes, out.explicit_pages);
	printf(" triggered=%llu refused=%llu errno=%d why=\"%s\" note=\"%s\"\n",
	       (unsigned long long)out.triggered, (unsigned long long)out.refused, out.first_errno,
	       err ? strerror(-err) : "", out.note);
	fflush(stdout);
	pn_probe_release(&out);
	return err;
}

int main(int argc, char **argv)
{
	struct opts o;
	size_t i;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	if (parse_args(argc, argv, &o))
		return 2;
	for (i = 0; i < pn_nprobes; i++) {
		const struct pn_probe *pr = &pn_probes[i];

		if (!selected(o.only, pr->name))
			continue;
		if (o.names) {
			printf("%s\n", pr->name);
			continue;
		}
		if (o.list) {
			char why[256];
			int err = pn_probe_supported(pr, &o.env, why, sizeof(why));

			printf("%-15s %-20s %s\n    trigger: %s\n    private: %s\n    cleanup: %s\n"
			       "    kind %s, needs ZONE_NORMAL: %s, here: %s\n",
			       pr->name, pr->subsys, pr->kpath, pr->trigger, pr->private_expect,
			       pr->cleanup, pn_probe_kind_name(pr->kind),
			       pr->needs_normal ? "yes" : "no", err ? why : "runs");
			continue;
		}
		if (run_one(pr, &o))
			rc = 1;
	}
	return rc;
}
