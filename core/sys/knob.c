// SPDX-License-Identifier: GPL-2.0-only
/*
 * knob.c - set global kernel knobs for a phase and put them back (knob.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "journal.h"
#include "knob.h"
#include "mpol.h"
#include "core/lib/pn.h"

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool safe_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.' || *s == '/'))
			return false;
	return true;
}

int pn_knob_path(const char *key, char *path, size_t len, char *why, size_t whylen)
{
	static const struct {
		const char *alias, *dir;
	} dirs[] = {
		{ "thp.khugepaged.", "/sys/kernel/mm/transparent_hugepage/khugepaged/" },
		{ "thp.", "/sys/kernel/mm/transparent_hugepage/" },
		{ "weighted_interleave.", "/sys/kernel/mm/mempolicy/weighted_interleave/node" },
		{ "zswap.", "/sys/module/zswap/parameters/" },
	};

	if (!safe_name(key) || strstr(key, "..")) {
		snprintf(why, whylen, "\"%s\" is not a knob name", key);
		return -EINVAL;
	}
	if (key[0] == '/') {
		if (!prefix(key, "/proc/sys/") && !prefix(key, "/sys/kernel/mm/") &&
		    !prefix(key, "/sys/module/")) {
			snprintf(
				why, whylen,
				"knob path %s is outside /proc/sys, /sys/kernel/mm and /sys/module",
				key);
			return -EINVAL;
		}
		snprintf(path, len, "%s", key);
		return 0;
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(dirs); i++) {
		if (prefix(key, dirs[i].alias)) {
			const char *rest = key + strlen(dirs[i].alias);

			if (!*rest || strchr(rest, '/'))
				break;
			snprintf(path, len, "%s%s", dirs[i].dir, rest);
			return 0;
		}
	}
	if (prefix(key, "private_node.")) {
		/* private_node.<N>.<attr>: the series' per-node opt-ins */
		const char *rest = key + strlen("private_node."), *dot = strchr(rest, '.');
		size_t digits = strspn(rest, "0123456789");

		if (!digits || dot != rest + digits || !dot[1] || strchr(dot + 1, '.') ||
		    strchr(dot + 1, '/'))
			goto bad;
		snprintf(path, len, "/sys/devices/system/node/node%.*s/private/%s", (int)digits,
			 rest, dot + 1);
		return 0;
	}
	if (prefix(key, "kernel.") || prefix(key, "vm.") || prefix(key, "net.") ||
	    prefix(key, "fs.")) {
		char *p;

		if (strchr(key, '/'))
			goto bad;
		snprintf(path, len, "/proc/sys/%s", key);
		for (p = path + strlen("/proc/sys/"); *p; p++)
			if (*p == '.')
				*p = '/';
		return 0;
	}
bad:
	snprintf(why, whylen,
		 "\"%s\" is not a known knob: use a sysctl name (kernel.numa_balancing), "
		 "thp.<file>, thp.khugepaged.<file>, weighted_interleave.<node>, zswap.<param>, "
		 "private_node.<node>.<attr> or a path under /proc/sys, /sys/kernel/mm, "
		 "/sys/module",
		 key);
	return -EINVAL;
}

/* ---- the allow-list of config knobs ---- */

/*
 * What the workloads need, by file: sysctls under vm, NUMA balancing, the
 * mm sysfs trees the code knows (THP and khugepaged, weighted interleave,
 * NUMA demotion, hugepages, KSM), zswap's parameters and the series'
 * private-node opt-ins.  Nothing here can make the kernel run a program
 * (kernel.core_pattern, kernel.modprobe, fs.binfmt_misc do): those need
 * --allow-knob.
 */
static bool allowed_path(const char *path)
{
	static const struct {
		const char *dir;
		int subdirs; /* directory levels allowed below dir */
	} prefixes[] = {
		{ "/proc/sys/vm/", 0 },
		{ "/proc/sys/kernel/numa_balancing", 0 },
		{ "/sys/kernel/mm/transparent_hugepage/", 0 },
		{ "/sys/kernel/mm/transparent_hugepage/khugepaged/", 0 },
		{ "/sys/kernel/mm/mempolicy/weighted_interleave/", 0 },
		{ "/sys/kernel/mm/numa/", 0 },
		{ "/sys/kernel/mm/hugepages/", 1 }, /* hugepages-<size>kB/<file> */
		{ "/sys/kernel/mm/ksm/", 0 },
		{ "/sys/module/zswap/parameters/", 0 },
	};
	const char *pn = "/sys/devices/system/node/node";

	if (strstr(path, "/.."))
		return false;
	for (size_t i = 0; i < PN_ARRAY_SIZE(prefixes); i++) {
		const char *rest = path + strlen(prefixes[i].dir);
		int slashes = 0;

		if (!prefix(path, prefixes[i].dir) || (!*rest && rest[-1] == '/'))
			continue;
		for (; *rest; rest++)
			slashes += *rest == '/';
		if (slashes <= prefixes[i].subdirs)
			return true;
	}
	if (prefix(path, pn)) { /* node<N>/private/<attr> */
		const char *p = path + strlen(pn);
		size_t digits = strspn(p, "0123456789");

		return digits && prefix(p + digits, "/private/") &&
		       !strchr(p + digits + strlen("/private/"), '/');
	}
	return false;
}

static char **allow_extra;
static size_t nallow_extra;

void pn_knob_allow(const char *name)
{
	allow_extra = pn_xrealloc(allow_extra, (nallow_extra + 1) * sizeof(*allow_extra));
	allow_extra[nallow_extra++] = pn_strdup(name);
}

bool pn_knob_allowed(const char *key, const char *path)
{
	for (size_t i = 0; i < nallow_extra; i++)
		if (!strcmp(allow_extra[i], key) || !strcmp(allow_extra[i], path))
			return true;
	return allowed_path(path);
}

/* The weighted interleave mode file, under either name (mpol.h). */
static bool is_wil_auto(const char *path)
{
	char rel[128];

	return !pn_mpol_wil_auto_path(rel, sizeof(rel)) && !strcmp(rel, path);
}

/* "always [madvise] never" -> "madvise"; otherwise the first line, trimmed. */
static void current_value(char *text)
{
	char *o = strchr(text, '['), *c = o ? strchr(o, ']') : NULL;
	size_t n;

	if (o && c) {
		memmove(text, o + 1, (size_t)(c - o - 1));
		text[c - o - 1] = '\0';
		return;
	}
	text[strcspn(text, "\n")] = '\0';
	n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t'))
		text[--n] = '\0';
}

const char *pn_knob_control_char(const char *value)
{
	for (; *value; value++)
		if ((unsigned char)*value < 0x20 || *value == 0x7f)
			return value;
	return NULL;
}

/*
 * A write that failed may still have been partly applied (the kernel took
 * "5" of "5 7" and reported a short write): read the file back and, if the
 * value moved, put the old one back now.  The record says what happened.
 */
static void undo_failed_write(struct pn_knob *k, int err)
{
	char now[sizeof(k->old)];
	ssize_t n = pn_read_text(k->path, now, sizeof(now));
	int ret;

	if (n >= 0) {
		current_value(now);
		if (!strcmp(now, k->old)) {
			snprintf(k->error, sizeof(k->error), "write failed: %s; value unchanged",
				 strerror(-err));
			return;
		}
	}
	k->changed = true; /* the file moved (or cannot be read): treat it as changed */
	ret = pn_write_text(k->path, k->old);
	k->restored = !ret;
	if (n < 0)
		snprintf(k->error, sizeof(k->error),
			 "write failed: %s; cannot read it back (%s); old value %s", strerror(-err),
			 strerror((int)-n), ret ? "not restored" : "written back");
	else
		snprintf(k->error, sizeof(k->error),
			 "write failed: %s; the file then read \"%.32s\"; old value %s",
			 strerror(-err), now, ret ? "not restored" : "written back");
	if (ret)
		pn_warn("knob %s: cannot restore \"%s\" to %s: %s", k->key, k->old, k->path,
			strerror(-ret));
}

int pn_knobs_set(struct pn_knobs *ks, const char *key, const char *value)
{
	struct pn_knob *k;
	char why[256];
	int ret;

	if (pn_knob_control_char(value)) /* never written */
		return pn_error(-EINVAL, "knob %s: the value has a control character", key);
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? ks->cap * 2 : 8;
		ks->k = pn_xrealloc(ks->k, ks->cap * sizeof(*ks->k));
	}
	k = &ks->k[ks->n];
	memset(k, 0, sizeof(*k));
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->val, sizeof(k->val), "%s", value);
	ret = pn_knob_path(key, k->path, sizeof(k->path), why, sizeof(why));
	if (ret)
		return pn_error(ret, "knob %s", why);
	ret = (int)pn_read_text(k->path, k->old, sizeof(k->old));
	if (ret < 0)
		return pn_error(ret, "knob %s: cannot read %s: %s", key, k->path, strerror(-ret));
	current_value(k->old);
	ret = pn_journal_add("knob", k->path, k->old); /* on disk before the write */
	if (ret)
		return pn_error(ret, "knob %s: not set: the journal cannot record it", key);
	ks->n++;
	ret = pn_write_text(k->path, value);
	if (ret) {
		undo_failed_write(k, ret);
		if (!k->changed || k->restored)
			pn_journal_done("knob", k->path);
		return pn_error(ret, "knob %s: cannot write \"%s\" to %s: %s", key, value, k->path,
				k->error);
	}
	k->changed = true;
	/* as the kernel shows it ("always [never]", "5\n"): what restore compares */
	if (pn_read_text(k->path, k->now, sizeof(k->now)) >= 0)
		current_value(k->now);
	else
		k->now[0] = '\0';
	pn_debug("knob %s: %s -> %s", key, k->old, value);
	return 0;
}

/* Does the knob still read what the run left it at? */
static void check_behind(struct pn_knob *k)
{
	char seen[256];

	if (!k->now[0] || pn_read_text(k->path, seen, sizeof(seen)) < 0)
		return;
	current_value(seen);
	if (!strcmp(seen, k->now))
		return;
	snprintf(k->changed_behind, sizeof(k->changed_behind), "%s", seen);
	pn_warn("knob %s: changed behind the run's back (it set \"%s\", now \"%s\"); "
		"restoring \"%s\" all the same",
		k->key, k->now, seen, k->old);
}

int pn_knobs_restore(struct pn_knobs *ks)
{
	int first = 0;

	for (size_t i = ks->n; i-- > 0;) {
		struct pn_knob *k = &ks->k[i];
		int ret;

		if (!k->changed || k->restored)
			continue;
		check_behind(k);
		ret = pn_write_text(k->path, k->old);
		if (ret == -ENODEV && !strcmp(k->old, "true") && is_wil_auto(k->path)) {
			/*
			 * Automatic weights need HMAT bandwidth data: without it
			 * the kernel refuses "true" once a weight was written.
			 * Its default weights (all 1) equal the restored ones, so
			 * the placement is the machine's; the record says so.
			 */
			snprintf(k->error, sizeof(k->error),
				 "restore failed: %s (no bandwidth data: the kernel cannot go back "
				 "to automatic weights; the weights were restored)",
				 strerror(-ret));
			pn_warn("knob %s: %s", k->key, k->error);
			pn_journal_done("knob", k->path);
			continue;
		}
		if (ret) {
			snprintf(k->error, sizeof(k->error), "restore failed: %s", strerror(-ret));
			pn_warn("knob %s: cannot restore \"%s\" to %s: %s", k->key, k->old, k->path,
				strerror(-ret));
			if (!first)
				first = ret;
			continue;
		}
		k->restored = true;
		pn_journal_done("knob", k->path);
	}
	return first;
}

cJSON *pn_knobs_json(const struct pn_knobs *ks)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < ks->n; i++) {
		const struct pn_knob *k = &ks->k[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "key", k->key);
		cJSON_AddStringToObject(o, "path", k->path);
		cJSON_AddStringToObject(o, "old", k->old);
		cJSON_AddStringToObject(o, "new", k->val);
		cJSON_AddBoolToObject(o, "changed", k->changed);
		cJSON_AddBoolToObject(o, "restored", k->restored);
		if (k->error[0])
			cJSON_AddStringToObject(o, "error", k->error);
		else
			cJSON_AddNullToObject(o, "error");
		if (k->changed_behind[0])
			cJSON_AddStringToObject(o, "changed_behind", k->changed_behind);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

void pn_knobs_free(struct pn_knobs *ks)
{
	free(ks->k);
	memset(ks, 0, sizeof(*ks));
}
