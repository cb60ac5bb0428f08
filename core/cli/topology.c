// SPDX-License-Identifier: GPL-2.0-only
/*
 * topology.c - `pnbench topology`: the NUMA nodes as text, hwloc XML or the
 * JSON run.json records.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "cli.h"
#include "core/lib/pn.h"
#include "core/sys/topology.h"

/* A JSON scalar as a CSV field ("" for null or absent). */
static void csv_cell(const cJSON *v, const char *sep)
{
	if (cJSON_IsString(v) && strpbrk(v->valuestring, ",\"\n")) {
		putchar('"');
		for (const char *c = v->valuestring; *c; c++)
			printf(*c == '"' ? "\"\"" : "%c", *c);
		putchar('"');
	} else if (cJSON_IsString(v))
		printf("%s", v->valuestring);
	else if (cJSON_IsBool(v))
		printf("%s", cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNumber(v))
		printf("%.0f", v->valuedouble);
	printf("%s", sep);
}

/* One row per node: the fields run.json records, HMAT access0 flattened. */
static void topology_csv(const cJSON *j)
{
	static const char *const keys[] = {
		"id",	"has_cpu", "has_memory",      "has_normal_memory", "has_private_memory",
		"cpus", "ncpus",   "mem_total_bytes", "memory_tier",	   NULL
	};
	static const char *const hmat[] = { "read_latency_ns", "write_latency_ns",
					    "read_bandwidth_mbps", "write_bandwidth_mbps", NULL };
	const cJSON *n;

	for (const char *const *k = keys; *k; k++)
		printf("%s%s", k == keys ? "" : ",", strcmp(*k, "id") ? *k : "node");
	for (const char *const *k = hmat; *k; k++)
		printf(",hmat_%s", *k);
	printf("\n");
	cJSON_ArrayForEach (n, cJSON_GetObjectItem(j, "nodes")) {
		const cJSON *a0 = cJSON_GetObjectItem(cJSON_GetObjectItem(n, "hmat"), "access0");

		for (const char *const *k = keys; *k; k++)
			csv_cell(cJSON_GetObjectItem(n, *k), ",");
		for (const char *const *k = hmat; *k; k++)
			csv_cell(cJSON_GetObjectItem(a0, *k), k[1] ? "," : "\n");
	}
}

int pn_cmd_topology(int argc, char **argv)
{
	struct pn_topology t;
	bool xml = false, json = false;
	enum pn_cli_fmt fmt = PN_FMT_TEXT;
	int c, ret;

	static const struct option lo[] = {
		{ "xml", no_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "xjh", lo, NULL)) != -1) {
		switch (c) {
		case 'x': xml = true; break;
		case 'j': json = true; break;
		case 'f':
			if (pn_cli_format(optarg, &fmt))
				return PN_EXIT_USAGE;
			json = fmt == PN_FMT_JSON;
			break;
		case 'h':
			puts("usage: pnbench topology [-x | -j | --format text|json|csv]\n\n"
			     "NUMA nodes (sparse ids, CPU-less and memory-less nodes, private\n"
			     "nodes), distances, memory tiers and HMAT.\n"
			     "  -x  print the hwloc XML\n"
			     "  -j  print the JSON that run.json records (--format json)\n"
			     "  --format csv  one row per node (HMAT: access class 0)");
			return 0;
		default: return PN_EXIT_USAGE;
		}
	}
	ret = pn_topology_load(&t);
	if (ret)
		return PN_EXIT_ERROR;
	if (xml) {
		if (!t.hwloc_xml) {
			pn_topology_free(&t);
			return pn_cli_error(PN_EXIT_ERROR, "hwloc gave no XML for this machine");
		}
		fputs(t.hwloc_xml, stdout);
	} else if (fmt == PN_FMT_CSV) {
		struct cJSON *j = pn_topology_to_json(&t);

		topology_csv(j);
		cJSON_Delete(j);
	} else if (json) {
		struct cJSON *j = pn_topology_to_json(&t);
		char *s = cJSON_Print(j);

		puts(s);
		cJSON_free(s);
		cJSON_Delete(j);
	} else {
		pn_topology_print(&t, stdout);
	}
	pn_topology_free(&t);
	return 0;
}
