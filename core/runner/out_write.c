// SPDX-License-Identifier: GPL-2.0-only
/*
 * out_write.c - the CI output files a run was asked for (run --junit, --tap,
 * --openmetrics; out_ci.h): each path checked before the run, each file
 * rendered by its format (out_junit.c, out_tap.c, out_openmetrics.c) and
 * written atomically with run.json.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "core/lib/atomicfile.h"
#include "core/lib/pn.h"
#include "out_ci.h"
#include "run.h"

/* ------------------------------------------------------------ the files */

static const struct {
	const char *opt;
	size_t off;
	char *(*render)(const cJSON *root);
} outputs[] = {
	{ "--junit", offsetof(struct pn_run_opts, junit_path), pn_out_junit },
	{ "--tap", offsetof(struct pn_run_opts, tap_path), pn_out_tap },
	{ "--openmetrics", offsetof(struct pn_run_opts, openmetrics_path), pn_out_openmetrics },
};

static const char *path_of(const struct pn_run_opts *o, size_t k)
{
	return *(const char *const *)((const char *)o + outputs[k].off);
}

/* dir is the -o directory the run is to make ("a/b/" and "a/b" alike) */
static bool is_outdir(const char *dir, const char *outdir)
{
	size_t a = strlen(dir), b = outdir ? strlen(outdir) : 0;

	while (a > 1 && dir[a - 1] == '/')
		a--;
	while (b > 1 && outdir[b - 1] == '/')
		b--;
	return outdir && a == b && !strncmp(dir, outdir, a);
}

static int check_one(const struct pn_run_opts *o, size_t k)
{
	const char *path = path_of(o, k), *opt = outputs[k].opt;
	char *copy, *dir;
	struct stat st;
	int ret = 0;

	if (!*path)
		return pn_error(PN_EXIT_USAGE, "%s: an empty file name", opt);
	if (pn_outfile_check(AT_FDCWD, NULL, path))
		return pn_error(PN_EXIT_USAGE, "%s %s: cannot be written (above)", opt, path);
	copy = pn_strdup(path);
	dir = dirname(copy);
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		ret = pn_error(PN_EXIT_USAGE, "%s %s: %s is not a directory", opt, path, dir);
	else if (stat(dir, &st) && (errno != ENOENT || !is_outdir(dir, o->outdir)))
		ret = pn_error(PN_EXIT_USAGE, "%s %s: directory %s: %s", opt, path, dir,
			       strerror(errno));
	free(copy);
	for (size_t j = 0; !ret && j < k; j++)
		if (path_of(o, j) && !strcmp(path_of(o, j), path))
			ret = pn_error(PN_EXIT_USAGE, "%s and %s name the same file %s",
				       outputs[j].opt, opt, path);
	return ret;
}

int pn_out_check(const struct pn_run_opts *o)
{
	for (size_t k = 0; k < PN_ARRAY_SIZE(outputs); k++)
		if (path_of(o, k) && check_one(o, k))
			return PN_EXIT_USAGE;
	return 0;
}

int pn_out_write(const struct pn_run_opts *o, const cJSON *root)
{
	for (size_t k = 0; k < PN_ARRAY_SIZE(outputs); k++) {
		const char *path = path_of(o, k);
		char *text;
		int ret;

		if (!path)
			continue;
		text = outputs[k].render(root);
		ret = pn_atomic_write(path, text, strlen(text));
		free(text);
		if (ret)
			return pn_error(ret, "%s %s: %s", outputs[k].opt, path, strerror(-ret));
	}
	return 0;
}
