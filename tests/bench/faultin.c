// SPDX-License-Identifier: GPL-2.0-only
/*
 * faultin.c - fault-in throughput of the explicit and interleave workloads,
 * side by side in one run, against numactl's memhog on the same node and
 * bytes (goal >= 1.0x) and against the kernel's own floor, MAP_POPULATE of
 * the same range under the same policy (goal >= 0.85x).
 *
 *   build/bench/faultin [-s SIZE] [-r ROUNDS] [-n NODE]
 *
 * Every round runs the four methods once, in a rotating order (so drift of
 * a loaded machine hits each alike), each on fresh memory with THP off; the
 * figures are medians over rounds.  A benchmark, not a test: it prints
 * figures and never fails on time.
 *   explicit    its alloc_fault_throughput: mmap + mbind(bind) + fault-in
 *               (MADV_POPULATE_WRITE, the default fault=populate), per 2 MiB
 *               chunk
 *   interleave  its fault_throughput: fault-in of one mapping with
 *               MPOL_INTERLEAVE over the node (THP off), one populate call
 *               per run of pages bound for one node
 *   explicit/w, interleave/w   the same with fault=write: one write per
 *               page, the page-fault path memhog takes too
 *   memhog      memhog -H SIZE membind NODE, wall time of the process
 *               (exec, mmap, one memset of every byte)
 *   populate    mmap(MAP_POPULATE) under set_mempolicy(MPOL_BIND, node)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <numa.h>
#include <numaif.h>

#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"

extern const struct pn_workload pn_workload_explicit;
extern const struct pn_workload pn_workload_interleave;

enum { M_EXPLICIT, M_INTERLEAVE, M_EXPLICIT_W, M_INTERLEAVE_W, M_MEMHOG, M_POPULATE, M_N };
static const char *const mname[M_N] = { "explicit",	"interleave", "explicit/w",
					"interleave/w", "memhog",     "populate" };

static struct pn_topology topo;

/* Run a workload in-process (setup, run, teardown) and read one metric. */
static double workload_bps(const struct pn_workload *ops, const char *json, const char *metric)
{
	struct pn_roles roles;
	struct pn_wl w;
	cJSON *in = cJSON_Parse(json), *obj = NULL;
	const cJSON *m;
	double v = -1.0;

	memset(&w, 0, sizeof(w));
	memset(&roles, 0, sizeof(roles));
	if (!in || pn_params_resolve(ops->opts, in, "bench", "$.params", &obj)) {
		cJSON_Delete(in);
		return -1.0;
	}
	cJSON_Delete(in);
	pn_nodes_with_memory(&roles.dram_nodes);
	w.ops = ops;
	w.params.opts = ops->opts;
	w.params.obj = obj;
	w.roles = &roles;
	w.topo = &topo;
	pn_res_init(&w.res, ops->metrics, ops->name);
	if (ops->setup(&w) == 0 && ops->run(&w) == 0) {
		cJSON_ArrayForEach (m, cJSON_GetObjectItem(w.res.root, "metrics"))
			if (!strcmp(cJSON_GetObjectItem(m, "name")->valuestring, metric) &&
			    !cJSON_GetArraySize(cJSON_GetObjectItem(m, "labels")))
				v = cJSON_GetObjectItem(m, "value")->valuedouble;
	}
	w.in_child = true;
	ops->teardown(&w);
	pn_res_free(&w.res);
	cJSON_Delete(obj);
	return v;
}

static double memhog_bps(uint64_t size, int node)
{
	char sz[32], nd[16];
	uint64_t t0 = pn_now_ns();
	int status;
	pid_t pid;

	snprintf(sz, sizeof(sz), "%lluk", (unsigned long long)(size >> 10));
	snprintf(nd, sizeof(nd), "%d", node);
	pid = fork();
	if (pid < 0)
		return -1.0;
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			dup2(devnull, 1);
		execlp("memhog", "memhog", "-H", sz, "membind", nd, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1.0;
	return (double)size * 1e9 / (double)(pn_now_ns() - t0);
}

static double populate_bps(uint64_t size, int node)
{
	unsigned long mask[PN_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
	uint64_t t0;
	double bps;
	void *a;

	mask[node / (8 * (int)sizeof(unsigned long))] |= 1UL
							 << (node % (8 * sizeof(unsigned long)));
	if (set_mempolicy(MPOL_BIND, mask, PN_MAX_NODES + 1))
		return -1.0;
	t0 = pn_now_ns();
	a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1,
		 0);
	bps = a == MAP_FAILED ? -1.0 : (double)size * 1e9 / (double)(pn_now_ns() - t0);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	if (a != MAP_FAILED)
		munmap(a, size);
	return bps;
}

static double one(int m, uint64_t size, int node)
{
	const char *fault = m == M_EXPLICIT_W || m == M_INTERLEAVE_W ? "write" : "populate";
	char json[256];

	switch (m) {
	case M_EXPLICIT:
	case M_EXPLICIT_W:
		snprintf(json, sizeof(json),
			 "{\"size\":\"%llu\",\"chunk\":\"2M\",\"nodes\":\"%d\",\"policy\":\"bind\","
			 "\"verify\":false,\"fault\":\"%s\",\"max_mem_share\":0.9}",
			 (unsigned long long)size, node, fault);
		return workload_bps(&pn_workload_explicit, json, "alloc_fault_throughput");
	case M_INTERLEAVE:
	case M_INTERLEAVE_W:
		snprintf(json, sizeof(json),
			 "{\"size\":\"%llu\",\"nodes\":\"%d\",\"policy\":\"interleave\","
			 "\"fault\":\"%s\",\"max_mem_share\":0.9}",
			 (unsigned long long)size, node, fault);
		return workload_bps(&pn_workload_interleave, json, "fault_throughput");
	case M_MEMHOG: return memhog_bps(size, node);
	default: return populate_bps(size, node);
	}
}

int main(int argc, char **argv)
{
	uint64_t size = 256ULL << 20;
	int rounds = 7, node = 0, c;
	double v[M_N][64], med[M_N];

	while ((c = getopt(argc, argv, "s:r:n:h")) != -1) {
		switch (c) {
		case 's':
			if (pn_parse_size(optarg, &size))
				return 2;
			break;
		case 'r': rounds = atoi(optarg); break;
		case 'n': node = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-s SIZE] [-r ROUNDS (1..64)] [-n NODE]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (rounds < 1 || rounds > 64 || node < 0 || node >= PN_MAX_NODES)
		return 2;
	pn_log_level = PN_LOG_ERROR;
	/* THP off for every method alike (memhog: -H) */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		perror("faultin: prctl(PR_SET_THP_DISABLE)");
	if (numa_available() < 0 || pn_topology_load(&topo)) {
		fprintf(stderr, "faultin: NUMA or the topology is not available here\n");
		return 4;
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < M_N; k++) {
			int m = (r + k) % M_N;

			v[m][r] = one(m, size, node);
		}
	printf("fault-in throughput, node %d, %llu MiB, THP off, median of %d interleaved rounds\n",
	       node, (unsigned long long)(size >> 20), rounds);
	printf("%-13s %12s %12s %12s %10s %10s\n", "method", "median MB/s", "min MB/s", "max MB/s",
	       "/memhog", "/populate");
	for (int m = 0; m < M_N; m++)
		med[m] = pn_median(v[m], (size_t)rounds);
	for (int m = 0; m < M_N; m++) {
		double lo = pn_percentile(v[m], (size_t)rounds, 0.0);
		double hi = pn_percentile(v[m], (size_t)rounds, 100.0);

		printf("%-13s %12.0f %12.0f %12.0f %9.2fx %9.2fx\n", mname[m], med[m] / 1e6,
		       lo / 1e6, hi / 1e6, med[m] / med[M_MEMHOG], med[m] / med[M_POPULATE]);
	}
	printf("goals: explicit and interleave >= 1.00x memhog, >= 0.85x populate\n"
	       "(explicit, interleave: the workloads' default fault=populate; /w: fault=write,\n"
	       " one write per page like memhog: the page-fault path, a trap per page)\n");
	pn_topology_free(&topo);
	return 0;
}
