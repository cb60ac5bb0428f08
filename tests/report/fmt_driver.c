// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt_driver.c - core/lib/fmt.c on stdin's lines, for test_fmt.py: each line
 * "KIND VALUE" (KIND one of count bytes bandwidth ns ratio pct number) is
 * answered by one line, the C formatter's string.  Built by the test with cc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lib/fmt.h"

int main(void)
{
	char line[256], kind[32], b[PN_FMT_LEN];

	while (fgets(line, sizeof(line), stdin)) {
		char *val;
		double v;

		if (sscanf(line, "%31s", kind) != 1)
			continue;
		val = line + strlen(kind);
		v = strtod(val, NULL);
		if (!strcmp(kind, "count"))
			pn_fmt_count(strtoll(val, NULL, 10), b, sizeof(b));
		else if (!strcmp(kind, "bytes"))
			pn_fmt_bytes(v, b, sizeof(b));
		else if (!strcmp(kind, "bandwidth"))
			pn_fmt_bandwidth(v, b, sizeof(b));
		else if (!strcmp(kind, "ns"))
			pn_fmt_ns(v, b, sizeof(b));
		else if (!strcmp(kind, "ratio"))
			pn_fmt_ratio(v, b, sizeof(b));
		else if (!strcmp(kind, "pct"))
			pn_fmt_pct(v, b, sizeof(b));
		else if (!strcmp(kind, "number"))
			pn_fmt_number(v, b, sizeof(b));
		else {
			fprintf(stderr, "fmt_driver: unknown kind %s\n", kind);
			return 2;
		}
		printf("%s\n", b);
	}
	return 0;
}
