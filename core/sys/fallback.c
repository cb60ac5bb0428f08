// SPDX-License-Identifier: GPL-2.0-only
/*
 * fallback.c - the kernel's fallback counters (see fallback.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fallback.h"
#include "procfs.h"

int64_t pn_vmstat_item(const char *key)
{
	char *buf = NULL, *p;
	size_t len = 0, kl = strlen(key);
	int64_t v = -1;

	if (pn_read_all_max("/proc/vmstat", &buf, &len, PN_FILE_MAX_BYTES))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			v = strtoll(p + kl + 1, NULL, 10);
			break;
		}
	}
	free(buf);
	return v;
}

void pn_fallback_read(const struct pn_nodeset *policy, const struct pn_nodeset *others,
		      struct pn_fallback *c)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct pn_nodemem m;
	int n;

	memset(c, 0, sizeof(*c));
	c->private_fallback = pn_vmstat_item("pgalloc_private_fallback");
	c->oom_kill = pn_vmstat_item("oom_kill");
	c->node_private_fallback = -1;
	pn_nodeset_for_each (n, policy) {
		if (pn_nodemem_read(n, &m))
			continue;
		c->foreign_policy += m.numa_foreign;
		c->free_policy[n] = m.free / (psz > 0 ? psz : 4096);
		if (m.numa_private_fallback >= 0)
			c->node_private_fallback =
				(c->node_private_fallback < 0 ? 0 : c->node_private_fallback) +
				m.numa_private_fallback;
	}
	pn_nodeset_for_each (n, others)
		if (!pn_nodemem_read(n, &m))
			c->miss_elsewhere += m.numa_miss;
}
