// SPDX-License-Identifier: GPL-2.0-only
/*
 * nodelist.c - node lists as a user types them on the command line, in
 * numactl's forms: "all", "0-2,4", "!0" (every node of the set but 0) and
 * "+1" or "+0-1" (relative: the 2nd, the 1st and 2nd node of the set).  The
 * set they are read against is the caller's (the machine's memory nodes);
 * a node outside it is an error, as numactl refuses a node that is not
 * allowed.  Config files keep their own forms (params.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api/params.h"

/* The n-th node of set (from 0), or -1. */
static int nth_node(const struct pn_nodeset *set, int nth)
{
	int n, i = 0;

	pn_nodeset_for_each (n, set) {
		if (i++ == nth)
			return n;
	}
	return -1;
}

/* "0-2,4" (absolute, or relative to set) into out; why on error. */
static int parse_ranges(const char *p, const struct pn_nodeset *set, bool relative,
			struct pn_nodeset *out, char *why, size_t whylen)
{
	struct pn_nodeset ids;
	int n;

	if (!*p || !isdigit((unsigned char)*p) || pn_nodeset_parse(&ids, p) ||
	    pn_nodeset_empty(&ids)) {
		snprintf(why, whylen, "\"%.40s\" is not a node list (e.g. 0-2,4)", p);
		return -EINVAL;
	}
	pn_nodeset_zero(out);
	pn_nodeset_for_each (n, &ids) {
		int node = relative ? nth_node(set, n) : n;

		if (node < 0) {
			snprintf(why, whylen, "+%d: there are only %d nodes", n,
				 pn_nodeset_count(set));
			return -EINVAL;
		}
		if (!relative && !pn_nodeset_test(set, node)) {
			char have[128];

			pn_nodeset_format(set, have, sizeof(have));
			snprintf(why, whylen, "node %d is not a memory node here (nodes: %s)", node,
				 have[0] ? have : "none");
			return -EINVAL;
		}
		pn_nodeset_set(out, node);
	}
	return 0;
}

int pn_nodelist_parse(const char *str, const struct pn_nodeset *set, struct pn_nodeset *out,
		      char *why, size_t whylen)
{
	struct pn_nodeset sel;
	const char *p = str ? str : "";
	bool invert = false, relative = false;
	int ret;

	pn_nodeset_zero(out);
	if (!strcmp(p, "all")) {
		*out = *set;
		if (pn_nodeset_empty(out)) {
			snprintf(why, whylen, "all: there are no nodes");
			return -EINVAL;
		}
		return 0;
	}
	if (*p == '!') {
		invert = true;
		p++;
	}
	if (*p == '+') {
		relative = true;
		p++;
	}
	ret = parse_ranges(p, set, relative, &sel, why, whylen);
	if (ret)
		return ret;
	if (invert)
		pn_nodeset_andnot(out, set, &sel);
	else
		*out = sel;
	if (pn_nodeset_empty(out)) {
		snprintf(why, whylen, "\"%.40s\" leaves no node", str);
		return -EINVAL;
	}
	return 0;
}
