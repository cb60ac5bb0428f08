// SPDX-License-Identifier: GPL-2.0-only
/*
 * testbed.c - configs of the QEMU testbed (topologies, kernel variants) and
 * the `pnbench demo`, `pnbench vm` and `pnbench testbed` commands.
 *
 * The demo and the vm command are shell scripts (scripts/demo.sh,
 * scripts/vm.sh) because they drive QEMU, make and the kernel-series
 * tooling; what they read from JSON is read here and printed as key=value
 * lines of checked values (`pnbench testbed topology FILE`), so the scripts
 * never parse JSON and a bad config fails before any guest boots.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "core/lib/pn.h"
#include "testbed.h"

#define CFG_MAX_BYTES 65536

/* The file's text, NUL-terminated (caller frees), or NULL after an error. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f) {
		pn_error(-errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = pn_xmalloc(CFG_MAX_BYTES + 1);
	n = fread(buf, 1, CFG_MAX_BYTES + 1, f);
	fclose(f);
	if (n > CFG_MAX_BYTES) {
		pn_error(-EFBIG, "%s: larger than %d bytes", path, CFG_MAX_BYTES);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* Parse an object; unknown and duplicate keys are errors (allowed: NULL-ended). */
static cJSON *parse_object(const char *path, const char *const *allowed)
{
	char *text = slurp(path);
	const char *end = NULL;
	cJSON *doc, *a, *b;

	if (!text)
		return NULL;
	doc = cJSON_ParseWithOpts(text, &end, 1);
	if (!doc || !cJSON_IsObject(doc)) {
		pn_error(-EINVAL, "%s: not a JSON object (near byte %ld)", path,
			 end ? (long)(end - text) : 0L);
		goto fail;
	}
	for (a = doc->child; a; a = a->next) {
		size_t i;

		for (i = 0; allowed[i] && strcmp(allowed[i], a->string) != 0; i++)
			;
		if (!allowed[i]) {
			pn_error(-EINVAL, "%s: $.%s: unknown key", path, a->string);
			goto fail;
		}
		for (b = a->next; b; b = b->next)
			if (!strcmp(a->string, b->string)) {
				pn_error(-EINVAL, "%s: $.%s: duplicate key", path, a->string);
				goto fail;
			}
	}
	free(text);
	return doc;
fail:
	cJSON_Delete(doc);
	free(text);
	return NULL;
}

#define SAFE_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=,-"

/* A string field of at most len-1 characters; with safe, only from
 * SAFE_CHARS and spaces (values that reach a shell script and a kernel
 * command line). */
static int get_str(const char *path, const cJSON *doc, const char *key, char *out, size_t len,
		   const char *def, bool safe)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
	const char *s = def;

	if (v) {
		if (!cJSON_IsString(v))
			return pn_error(-EINVAL, "%s: $.%s: not a string", path, key);
		s = v->valuestring;
	}
	if (!s)
		return pn_error(-EINVAL, "%s: $.%s: missing", path, key);
	if (strlen(s) >= len)
		return pn_error(-EINVAL, "%s: $.%s: longer than %zu characters", path, key,
				len - 1);
	if (safe && s[strspn(s, SAFE_CHARS " ")])
		return pn_error(-EINVAL,
				"%s: $.%s: \"%s\" has characters outside [A-Za-z0-9_./=,- ]", path,
				key, s);
	snprintf(out, len, "%s", s);
	return 0;
}

/* An integer field in [min, max] and a multiple of mult. */
static int get_uint(const char *path, const cJSON *doc, const char *key, unsigned int *out,
		    unsigned int min, unsigned int max, unsigned int mult)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);

	if (!v)
		return pn_error(-EINVAL, "%s: $.%s: missing", path, key);
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long long)v->valuedouble ||
	    v->valuedouble < min || v->valuedouble > max || (unsigned int)v->valuedouble % mult)
		return pn_error(-EINVAL, "%s: $.%s: wants an integer in %u..%u, a multiple of %u",
				path, key, min, max, mult);
	*out = (unsigned int)v->valuedouble;
	return 0;
}

static int topology_online(const char *path, const cJSON *doc, struct pn_topology_cfg *t)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "online"), *e;

	if (!v) {
		t->online_movable = t->online_kernel = true;
		return 0;
	}
	if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
		return pn_error(-EINVAL,
				"%s: $.online: wants a non-empty array of \"movable\", "
				"\"kernel\"",
				path);
	cJSON_ArrayForEach (e, v) {
		if (cJSON_IsString(e) && !strcmp(e->valuestring, "movable"))
			t->online_movable = true;
		else if (cJSON_IsString(e) && !strcmp(e->valuestring, "kernel"))
			t->online_kernel = true;
		else
			return pn_error(-EINVAL,
					"%s: $.online: entries are \"movable\" or \"kernel\"",
					path);
	}
	return 0;
}

/* An optional boolean key (false when absent). */
static int get_bool(const char *path, const cJSON *doc, const char *key, bool *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);

	*out = v && cJSON_IsTrue(v);
	if (v && !cJSON_IsBool(v))
		return pn_error(-EINVAL, "%s: $.%s: not true or false", path, key);
	return 0;
}

int pn_topology_cfg_load(const char *path, struct pn_topology_cfg *t)
{
	static const char *const keys[] = { "name",	    "description", "cpus",     "dram_mib",
					    "device_nodes", "device_mib",  "disk_mib", "online",
					    "hmat",	    "initiators",  NULL };
	cJSON *doc = parse_object(path, keys);
	char desc[1024];
	int ret;

	memset(t, 0, sizeof(*t));
	if (!doc)
		return PN_EXIT_USAGE;
	ret = get_str(path, doc, "name", t->name, sizeof(t->name), NULL, true);
	ret = ret ?: get_str(path, doc, "description", desc, sizeof(desc), "", false);
	/* run-guest.sh's limits: DRAM below the PCI hole, device nodes >= 2
	 * memory blocks of 128 MiB once the devdax metadata is taken */
	ret = ret ?: get_uint(path, doc, "cpus", &t->cpus, 1, 8, 1);
	ret = ret ?: get_uint(path, doc, "dram_mib", &t->dram_mib, 256, 3072, 16);
	ret = ret ?: get_uint(path, doc, "device_nodes", &t->device_nodes, 1, 4, 1);
	ret = ret ?: get_uint(path, doc, "device_mib", &t->device_mib, 256, 4096, 16);
	ret = ret ?: get_uint(path, doc, "disk_mib", &t->disk_mib, 0, 2048, 16);
	ret = ret ?: topology_online(path, doc, t);
	ret = ret ?: get_bool(path, doc, "hmat", &t->hmat);
	t->initiators = 1;
	if (!ret && cJSON_GetObjectItemCaseSensitive(doc, "initiators"))
		ret = get_uint(path, doc, "initiators", &t->initiators, 1, 4, 1);
	if (!ret && t->initiators > t->cpus)
		ret = pn_error(-EINVAL,
			       "%s: $.initiators: %u initiators need as many cpus (cpus is %u)",
			       path, t->initiators, t->cpus);
	if (!ret && t->hmat && t->cpus < 2)
		ret = pn_error(-EINVAL, "%s: $.cpus: hmat needs 2 or more (one per initiator)",
			       path);
	if (!ret && t->dram_mib + t->disk_mib > 3072 - 16)
		ret = pn_error(-EINVAL, "%s: $.disk_mib: dram_mib + disk_mib must stay below 3056",
			       path);
	cJSON_Delete(doc);
	return ret ? PN_EXIT_USAGE : 0;
}

/* the kernel models the truth table has an expected column for (demo_contract.MODELS) */
#define MODELS_TEXT "stock, isolate, private or june2026"
static bool model_known(const char *m)
{
	static const char *const models[] = { "stock", "isolate", "private", "june2026" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(m, models[i]))
			return true;
	return false;
}

int pn_kernel_cfg_load(const char *path, struct pn_kernel_cfg *k)
{
	static const char *const keys[] = { "name",  "description",   "kernel", "append",
					    "model", "private_nodes", NULL };
	cJSON *doc = parse_object(path, keys);
	char desc[1024];
	int ret;

	memset(k, 0, sizeof(*k));
	if (!doc)
		return PN_EXIT_USAGE;
	ret = get_str(path, doc, "name", k->name, sizeof(k->name), NULL, true);
	ret = ret ?: get_str(path, doc, "description", desc, sizeof(desc), "", false);
	ret = ret ?: get_str(path, doc, "kernel", k->kernel, sizeof(k->kernel), NULL, true);
	ret = ret ?: get_str(path, doc, "append", k->append, sizeof(k->append), "", true);
	ret = ret ?: get_str(path, doc, "model", k->model, sizeof(k->model), NULL, true);
	if (!ret && !model_known(k->model))
		ret = pn_error(-EINVAL, "%s: $.model: \"%s\" is not %s", path, k->model,
			       MODELS_TEXT);
	ret = ret ?: get_bool(path, doc, "private_nodes", &k->private_nodes);
	cJSON_Delete(doc);
	return ret ? PN_EXIT_USAGE : 0;
}

static int testbed_usage(FILE *f, int rc)
{
	fputs("usage: pnbench testbed topology FILE   checked values of a configs/topologies/ "
	      "file\n"
	      "       pnbench testbed kernel FILE     checked values of a configs/kernels/ file\n"
	      "Prints key=value lines for scripts/demo.sh and scripts/vm.sh; exit 2 naming the\n"
	      "file and field when the config is bad.\n",
	      f);
	return rc;
}

int pn_cmd_testbed(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return testbed_usage(stdout, 0);
	if (argc != 3)
		return testbed_usage(stderr, PN_EXIT_USAGE);
	if (!strcmp(argv[1], "topology")) {
		struct pn_topology_cfg t;

		if (pn_topology_cfg_load(argv[2], &t))
			return PN_EXIT_USAGE;
		printf("name=%s\ncpus=%u\ndram_mib=%u\ndevice_nodes=%u\ndevice_mib=%u\n"
		       "disk_mib=%u\nhmat=%d\ninitiators=%u\nonline=%s%s%s\n",
		       t.name, t.cpus, t.dram_mib, t.device_nodes, t.device_mib, t.disk_mib, t.hmat,
		       t.initiators, t.online_movable ? "movable" : "",
		       t.online_movable && t.online_kernel ? " " : "",
		       t.online_kernel ? "kernel" : "");
		return 0;
	}
	if (!strcmp(argv[1], "kernel")) {
		struct pn_kernel_cfg k;

		if (pn_kernel_cfg_load(argv[2], &k))
			return PN_EXIT_USAGE;
		printf("name=%s\nkernel=%s\nappend=%s\nmodel=%s\nprivate_nodes=%d\n", k.name,
		       k.kernel, k.append, k.model, k.private_nodes);
		return 0;
	}
	return testbed_usage(stderr, PN_EXIT_USAGE);
}

/* exec SCRIPT (relative to the source tree) with argv[1..] */
static int exec_script(const char *script, int argc, char **argv)
{
	char path[PATH_MAX + 64];
	const char *src = getenv("PNBENCH_SRCDIR");
	char **args;
	int ret;

	if (src) {
		snprintf(path, sizeof(path), "%s/%s", src, script);
	} else {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0)
			return pn_cli_error(PN_EXIT_ERROR, "/proc/self/exe: %s", strerror(errno));
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(path, sizeof(path), "%s/../%s", exe, script);
	}
	if (access(path, X_OK))
		return pn_cli_error(PN_EXIT_USAGE,
				    "%s: %s (run from the source tree, or set "
				    "PNBENCH_SRCDIR)",
				    path, strerror(errno));
	args = pn_xcalloc((size_t)argc + 1, sizeof(*args));
	args[0] = path;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	execv(path, args);
	ret = pn_cli_error(PN_EXIT_ERROR, "cannot run %s: %s", path, strerror(errno));
	free(args);
	return ret;
}

int pn_cmd_demo(int argc, char **argv)
{
	return exec_script("scripts/demo.sh", argc, argv);
}

int pn_cmd_vm(int argc, char **argv)
{
	return exec_script("scripts/vm.sh", argc, argv);
}
