// SPDX-License-Identifier: GPL-2.0-only
/*
 * workload.c - whether a workload can run here: the needs it declares
 * (struct pn_workload's needs, PN_NEED_*) checked in one place, with one
 * reason each, then the workload's own supported() for what flags cannot
 * say.  The runner and `pnbench list` both ask pn_workload_supported().
 */
#include <errno.h>
#include <stdio.h>

#include <numa.h>

#include "workload.h"

static const struct need {
	unsigned bit;
	const char *name;
} needs_table[] = {
	{ PN_NEED_NUMA, "numa" },
	{ PN_NEED_NODES, "nodes" },
};

/* 0 if the need is met, else -errno with the reason in why. */
static int need_met(unsigned bit, const struct pn_env *env, char *why, size_t whylen)
{
	if (bit == PN_NEED_NUMA) {
		if (numa_available() >= 0)
			return 0;
		snprintf(why, whylen,
			 "NUMA is not available here (numa_available() < 0: "
			 "kernel without CONFIG_NUMA, or memory policy calls are blocked)");
		return -EOPNOTSUPP;
	}
	if (bit == PN_NEED_NODES) {
		/* The node set itself depends on params, which setup() resolves. */
		if (!env || !env->roles || !pn_nodeset_empty(&env->roles->private_nodes) ||
		    !pn_nodeset_empty(&env->roles->dram_nodes))
			return 0;
		snprintf(why, whylen, "the run has no private or dram nodes to allocate on");
		return -ENODEV;
	}
	snprintf(why, whylen, "an unknown need 0x%x", bit);
	return -EINVAL;
}

int pn_workload_supported(const struct pn_workload *w, const struct pn_env *env, char *why,
			  size_t whylen)
{
	int ret;

	if (w->needs & ~PN_NEED_ALL)
		return need_met(w->needs & ~PN_NEED_ALL, env, why, whylen);
	for (size_t i = 0; i < PN_ARRAY_SIZE(needs_table); i++) {
		if (!(w->needs & needs_table[i].bit))
			continue;
		ret = need_met(needs_table[i].bit, env, why, whylen);
		if (ret)
			return ret;
	}
	return w->supported ? w->supported(env, why, whylen) : 0;
}

const char *pn_workload_needs_format(unsigned needs, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < PN_ARRAY_SIZE(needs_table); i++) {
		int n;

		if (!(needs & needs_table[i].bit))
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", needs_table[i].name);
		if (n < 0 || (size_t)n >= len - off)
			return buf;
		off += (size_t)n;
	}
	if (!off)
		snprintf(buf, len, "none");
	return buf;
}
