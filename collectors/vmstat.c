// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmstat.c - collector of every /proc/vmstat counter.
 *
 * Columns: one per key, named by the key ("pgalloc_movable", "numa_miss"),
 * in the kernel's order, raw values (pages or events, as the kernel prints
 * them).  /proc/vmstat is system-wide: it cannot tell which node a page came
 * from (see nodestat for that).  Cost: one pread of ~4 KB per sample; the
 * kernel sums per-CPU counters for every item (no locks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api/collector.h"
#include "core/sys/cfile.h"

static const struct pn_opt vmstat_opts[] = {
	{ NULL },
};

static int vmstat_supported(const struct pn_env *env, char *why, size_t whylen)
{
	(void)env;
	if (!pn_exists("/proc/vmstat")) {
		snprintf(why, whylen, "no %s/proc/vmstat (procfs not mounted?)", pn_sysroot());
		return -ENOENT;
	}
	return 0;
}

static int vmstat_col(void *arg, const char *key)
{
	struct pn_coll *c = arg;
	int col = pn_series_add_col(&c->series, key);

	if (col < 0)
		return pn_error(col, "vmstat: column %s: %s", key, strerror(-col));
	return col;
}

static int vmstat_open(struct pn_coll *c)
{
	struct pn_cfile *cf = pn_xcalloc(1, sizeof(*cf));
	int ret = pn_cfile_open(cf, "/proc/vmstat", PN_CFILE_KV, -1, vmstat_col, c);

	if (ret) {
		free(cf);
		return ret;
	}
	c->priv = cf;
	return 0;
}

static int vmstat_sample(struct pn_coll *c, int64_t *row)
{
	return pn_cfile_sample(c->priv, row);
}

static void vmstat_close(struct pn_coll *c)
{
	if (!c->priv)
		return;
	pn_cfile_close(c->priv);
	free(c->priv);
	c->priv = NULL;
}

const struct pn_collector pn_collector_vmstat = {
	.name = "vmstat",
	.summary = "every /proc/vmstat counter (system-wide), raw",
	.opts = vmstat_opts,
	.supported = vmstat_supported,
	.open = vmstat_open,
	.sample = vmstat_sample,
	.close = vmstat_close,
};
