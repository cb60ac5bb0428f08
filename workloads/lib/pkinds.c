// SPDX-License-Identifier: GPL-2.0-only
/*
 * pkinds.c - the pressure workload's kinds: names and the `kinds` list
 * parser.  See pkinds.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pkinds.h"

const char *const pn_pkind_names[PN_PK_N] = {
	"anon", "thp", "numa_balancing", "pagecache", "slab", "sockets", "compaction", "reclaim",
};

/* One kind name (or "all") -> its bits; 0 if unknown. */
static unsigned kind_bits(const char *name)
{
	if (!strcmp(name, "all"))
		return PN_PK_BIT(PN_PK_N) - 1;
	for (unsigned k = 0; k < PN_PK_N; k++)
		if (!strcmp(name, pn_pkind_names[k]))
			return PN_PK_BIT(k);
	return 0;
}

int pn_pkinds_parse(const char *s, unsigned *kinds, char *why, size_t whylen)
{
	char buf[256], *p, *next, *save, *tok;

	*kinds = 0;
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf)) {
		snprintf(why, whylen, "the list is longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	for (p = buf; p; p = next) {
		bool any = false;

		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		for (tok = strtok_r(p, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			unsigned b = kind_bits(tok);

			if (!b) {
				snprintf(why, whylen,
					 "unknown kind \"%.40s\" (valid: anon, thp, "
					 "numa_balancing, pagecache, slab, sockets, compaction, "
					 "reclaim, all)",
					 tok);
				return -EINVAL;
			}
			*kinds |= b;
			any = true;
		}
		if (!any) {
			snprintf(why, whylen, "an empty kind in \"%.80s\" (a comma too many?)", s);
			return -EINVAL;
		}
	}
	return 0;
}
