// SPDX-License-Identifier: GPL-2.0-only
/*
 * provenance.c - the facts every result carries so two runs can be compared
 * honestly: host, kernel release and command line, a hash of the kernel
 * config, the reference-series build id and mode, and the sysctls that change
 * placement (NUMA balancing, demotion, zone reclaim, THP).
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "journal.h"
#include "procfs.h"
#include "provenance.h"
#include "core/lib/pn.h"

int pn_sha256_file(const char *path, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ctx = EVP_MD_CTX_new();
	if (!ctx) {
		close(fd);
		return -ENOMEM;
	}
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	if (n < 0) {
		n = -errno;
		EVP_MD_CTX_free(ctx);
		close(fd);
		return (int)n;
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	close(fd);
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		snprintf(out + 2 * (size_t)i, 3, "%02x", md[i]);
	out[64] = '\0';
	return 0;
}

static void strip(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

cJSON *pn_provenance_host(void)
{
	cJSON *h = cJSON_CreateObject();
	char name[256] = "";
	uint64_t avail;
	struct utsname u;

	gethostname(name, sizeof(name) - 1);
	cJSON_AddStringToObject(h, "hostname", name);
	if (uname(&u) == 0)
		cJSON_AddStringToObject(h, "machine", u.machine);
	cJSON_AddNumberToObject(h, "ncpus_online", (double)sysconf(_SC_NPROCESSORS_ONLN));
	cJSON_AddNumberToObject(h, "page_size", (double)sysconf(_SC_PAGESIZE));
	cJSON_AddNumberToObject(h, "mem_total_bytes",
				(double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE));
	if (pn_mem_available(&avail) == 0)
		cJSON_AddNumberToObject(h, "mem_available_bytes_at_start", (double)avail);
	return h;
}

/* Sysctls that decide where pages go or whether they move. */
static const char *const sysctls[][2] = {
	{ "kernel.numa_balancing", "/proc/sys/kernel/numa_balancing" },
	{ "vm.zone_reclaim_mode", "/proc/sys/vm/zone_reclaim_mode" },
	{ "vm.numa_stat", "/proc/sys/vm/numa_stat" },
	{ "vm.overcommit_memory", "/proc/sys/vm/overcommit_memory" },
	{ "vm.nr_hugepages", "/proc/sys/vm/nr_hugepages" },
	{ "vm.compaction_proactiveness", "/proc/sys/vm/compaction_proactiveness" },
	{ "vm.stat_interval", "/proc/sys/vm/stat_interval" },
	{ "mm.numa.demotion_enabled", "/sys/kernel/mm/numa/demotion_enabled" },
	{ "mm.transparent_hugepage.enabled", "/sys/kernel/mm/transparent_hugepage/enabled" },
	{ "mm.transparent_hugepage.defrag", "/sys/kernel/mm/transparent_hugepage/defrag" },
	{ "mm.ksm.run", "/sys/kernel/mm/ksm/run" },
	{ "mm.ksm.merge_across_nodes", "/sys/kernel/mm/ksm/merge_across_nodes" },
};

static void add_text_or_null(cJSON *o, const char *key, const char *rel)
{
	char buf[4096];

	if (pn_read_text(rel, buf, sizeof(buf)) >= 0) {
		strip(buf);
		cJSON_AddStringToObject(o, key, buf);
	} else {
		cJSON_AddNullToObject(o, key);
	}
}

/* A sysctl another live run has changed (its journal says so) is not the
 * machine's own value: sysctls_altered names the run and the value it found. */
static void add_altered(cJSON *k)
{
	cJSON *alt = NULL;

	for (size_t i = 0; i < PN_ARRAY_SIZE(sysctls); i++) {
		char old[256];
		int pid;
		cJSON *o;

		if (!pn_journal_altered(sysctls[i][1], old, sizeof(old), &pid))
			continue;
		if (!alt)
			alt = cJSON_AddObjectToObject(k, "sysctls_altered");
		o = cJSON_AddObjectToObject(alt, sysctls[i][0]);
		cJSON_AddStringToObject(o, "machine_value", old);
		cJSON_AddNumberToObject(o, "by_pid", pid);
		pn_warn("%s was changed by run %d (machine value %s): recorded as altered",
			sysctls[i][0], pid, old);
	}
}

static void add_kconfig_hash(cJSON *k, const char *release)
{
	char path[512], hex[65];
	const char *src = NULL;

	snprintf(path, sizeof(path), "%s/boot/config-%s", pn_sysroot(), release);
	if (pn_sha256_file(path, hex) == 0) {
		src = "/boot/config";
	} else {
		snprintf(path, sizeof(path), "%s/proc/config.gz", pn_sysroot());
		if (pn_sha256_file(path, hex) == 0)
			src = "/proc/config.gz";
	}
	if (src) {
		cJSON_AddStringToObject(k, "kconfig_sha256", hex);
		cJSON_AddStringToObject(k, "kconfig_source", src);
	} else {
		cJSON_AddNullToObject(k, "kconfig_sha256");
		cJSON_AddNullToObject(k, "kconfig_source");
	}
}

cJSON *pn_provenance_kernel(void)
{
	cJSON *k = cJSON_CreateObject(), *sc, *series;
	struct utsname u;
	const char *tag;

	if (uname(&u) == 0) {
		cJSON_AddStringToObject(k, "release", u.release);
		cJSON_AddStringToObject(k, "version", u.version);
	} else {
		memset(&u, 0, sizeof(u));
	}
	add_text_or_null(k, "cmdline", "/proc/cmdline");
	add_kconfig_hash(k, u.release);

	/* Reference-series builds carry "-pnbench-<kind>-<key>" in the release. */
	series = cJSON_AddObjectToObject(k, "series");
	tag = strstr(u.release, "-pnbench-");
	if (tag)
		cJSON_AddStringToObject(series, "id", tag + 1);
	else
		cJSON_AddNullToObject(series, "id");
	cJSON_AddBoolToObject(series, "private_nodes_supported",
			      pn_exists("/sys/devices/system/node/has_private_memory"));
	/* series v2: a sysfs attribute; v1 kernels had it in debugfs */
	add_text_or_null(series, "mode",
			 pn_exists("/sys/devices/system/node/private_node_mode")
				 ? "/sys/devices/system/node/private_node_mode"
				 : "/sys/kernel/debug/private_node/mode");

	sc = cJSON_AddObjectToObject(k, "sysctls");
	for (size_t i = 0; i < PN_ARRAY_SIZE(sysctls); i++)
		add_text_or_null(sc, sysctls[i][0], sysctls[i][1]);
	add_altered(k);
	return k;
}
