// SPDX-License-Identifier: GPL-2.0-only
/*
 * topology_print.c - the topology as run.json's "topology" object and as
 * the table `pnbench topology` prints.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "topology.h"
#include "topology_int.h"

static void add_nodeset(cJSON *o, const char *name, const struct pn_nodeset *s)
{
	char buf[4096];

	if (pn_nodeset_format(s, buf, sizeof(buf)))
		buf[0] = '\0';
	cJSON_AddStringToObject(o, name, buf);
}

static cJSON *hmat_json(const struct pn_hmat *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "read_latency_ns", (double)m->read_latency_ns);
	cJSON_AddNumberToObject(o, "write_latency_ns", (double)m->write_latency_ns);
	cJSON_AddNumberToObject(o, "read_bandwidth_mbps", (double)m->read_bandwidth_mbps);
	cJSON_AddNumberToObject(o, "write_bandwidth_mbps", (double)m->write_bandwidth_mbps);
	return o;
}

static bool hmat_present(const struct pn_hmat *m)
{
	return m->read_latency_ns || m->write_latency_ns || m->read_bandwidth_mbps ||
	       m->write_bandwidth_mbps;
}

cJSON *pn_topology_to_json(const struct pn_topology *t)
{
	cJSON *o = cJSON_CreateObject(), *nodes, *dist;

	cJSON_AddStringToObject(o, "hwloc_version", t->hwloc_version);
	cJSON_AddNumberToObject(o, "ncpus", t->ncpus);
	cJSON_AddBoolToObject(o, "kernel_has_private", t->kernel_has_private);
	add_nodeset(o, "possible", &t->possible);
	add_nodeset(o, "online", &t->online);
	add_nodeset(o, "has_cpu", &t->with_cpu);
	add_nodeset(o, "has_memory", &t->with_memory);
	add_nodeset(o, "has_normal_memory", &t->with_normal_memory);
	add_nodeset(o, "has_private_memory", &t->with_private_memory);

	nodes = cJSON_AddArrayToObject(o, "nodes");
	for (int i = 0; i < t->nnodes; i++) {
		const struct pn_node_info *ni = &t->nodes[i];
		cJSON *n = cJSON_CreateObject();

		cJSON_AddNumberToObject(n, "id", ni->id);
		cJSON_AddBoolToObject(n, "has_cpu", ni->has_cpu);
		cJSON_AddBoolToObject(n, "has_memory", ni->has_memory);
		cJSON_AddBoolToObject(n, "has_normal_memory", ni->has_normal_memory);
		cJSON_AddBoolToObject(n, "has_private_memory", ni->has_private_memory);
		cJSON_AddStringToObject(n, "cpus", ni->cpulist);
		cJSON_AddNumberToObject(n, "ncpus", ni->ncpus);
		cJSON_AddNumberToObject(n, "mem_total_bytes", (double)ni->mem_total_bytes);
		cJSON_AddStringToObject(n, "subtype", ni->subtype);
		cJSON_AddStringToObject(n, "dax_device", ni->dax_device);
		cJSON_AddNumberToObject(n, "memory_tier", ni->memory_tier);
		if (ni->has_hmat) {
			cJSON *hm = cJSON_AddObjectToObject(n, "hmat");

			for (int c = 0; c < 2; c++)
				if (hmat_present(&ni->hmat[c]))
					cJSON_AddItemToObject(hm, c ? "access1" : "access0",
							      hmat_json(&ni->hmat[c]));
		}
		cJSON_AddItemToArray(nodes, n);
	}

	dist = cJSON_AddObjectToObject(o, "distances");
	for (int i = 0; i < t->nnodes; i++) {
		char key[16];
		cJSON *row = cJSON_CreateObject();

		for (int j = 0; j < t->nnodes; j++) {
			int d = t->distance[i * t->nnodes + j];

			if (d < 0)
				continue;
			snprintf(key, sizeof(key), "%d", t->nodes[j].id);
			cJSON_AddNumberToObject(row, key, d);
		}
		snprintf(key, sizeof(key), "%d", t->nodes[i].id);
		cJSON_AddItemToObject(dist, key, row);
	}
	return o;
}

static void print_mask(FILE *out, const char *name, const struct pn_nodeset *s)
{
	char buf[4096];

	if (pn_nodeset_format(s, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "(too long)");
	fprintf(out, "  %-19s %s\n", name, *buf ? buf : "-");
}

void pn_topology_print(const struct pn_topology *t, FILE *out)
{
	fprintf(out, "NUMA topology: %d node%s, %d cpu%s (hwloc %s%s)\n", t->nnodes,
		t->nnodes == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s", t->hwloc_version,
		t->hwloc_xml ? "" : ", hwloc unavailable: sysfs only");
	print_mask(out, "possible", &t->possible);
	print_mask(out, "online", &t->online);
	print_mask(out, "has_cpu", &t->with_cpu);
	print_mask(out, "has_memory", &t->with_memory);
	print_mask(out, "has_normal_memory", &t->with_normal_memory);
	if (t->kernel_has_private)
		print_mask(out, "has_private_memory", &t->with_private_memory);
	else
		fprintf(out, "  %-19s %s\n", "has_private_memory",
			"(kernel has no private memory nodes)");

	fprintf(out, "\n%4s  %-22s %-16s %10s  %4s  %-8s  %s\n", "node", "role", "cpus", "memory",
		"tier", "subtype", "distances");
	for (int i = 0; i < t->nnodes; i++) {
		const struct pn_node_info *ni = &t->nodes[i];
		char role[64] = "", mem[32], tier[16];

		/* Role hints from the node states; the config decides actual roles. */
		if (ni->has_private_memory)
			strcat(role, "private ");
		if (ni->has_cpu && ni->has_memory)
			strcat(role, "cpu+mem ");
		else if (ni->has_cpu)
			strcat(role, "cpu-only ");
		else if (ni->has_memory)
			strcat(role, "memory-only ");
		if (ni->has_memory && !ni->has_normal_memory)
			strcat(role, "movable ");
		if (!*role)
			strcpy(role, "-");
		pn_format_size(ni->mem_total_bytes, mem, sizeof(mem));
		if (ni->memory_tier >= 0)
			snprintf(tier, sizeof(tier), "%d", ni->memory_tier);
		else
			snprintf(tier, sizeof(tier), "-");
		fprintf(out, "%4d  %-22s %-16s %10s  %4s  %-8s ", ni->id, role,
			*ni->cpulist ? ni->cpulist : "-", mem, tier,
			*ni->subtype ? ni->subtype : "-");
		for (int j = 0; j < t->nnodes; j++) {
			int d = t->distance[i * t->nnodes + j];

			if (d < 0)
				fprintf(out, " %d:?", t->nodes[j].id);
			else
				fprintf(out, " %d:%d", t->nodes[j].id, d);
		}
		fputc('\n', out);
		if (*ni->dax_device)
			fprintf(out, "%4s  dax device %s\n", "", ni->dax_device);
		for (int c = 0; c < 2; c++) {
			const struct pn_hmat *m = &ni->hmat[c];

			if (!hmat_present(m))
				continue;
			fprintf(out,
				"%4s  hmat access%d: latency r/w %llu/%llu ns, "
				"bandwidth r/w %llu/%llu MB/s\n",
				"", c, (unsigned long long)m->read_latency_ns,
				(unsigned long long)m->write_latency_ns,
				(unsigned long long)m->read_bandwidth_mbps,
				(unsigned long long)m->write_bandwidth_mbps);
		}
	}
}
