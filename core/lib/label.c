// SPDX-License-Identifier: GPL-2.0-only
/*
 * label.c - readable matrix point labels (label.h): the shortest unique
 * suffix of each JSONPath, then "=value" (strings as written, anything else
 * as compact JSON).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "label.h"

/* Where the last n steps of path start ("$." and dots separate steps), or
 * NULL when path has fewer than n steps. */
static const char *suffix(const char *path, int n)
{
	const char *start = path;
	const char *p;

	if (!strncmp(start, "$.", 2))
		start += 2;
	p = start + strlen(start);
	while (p > start) {
		if (p[-1] == '.' && --n == 0)
			return p;
		p--;
	}
	return n == 1 ? start : NULL;
}

static bool shared(const cJSON *matrix, const cJSON *self, const char *suf, int n)
{
	const cJSON *o;

	cJSON_ArrayForEach (o, matrix) {
		const char *t;

		if (o == self || !o->string)
			continue;
		t = suffix(o->string, n);
		if (t && !strcmp(t, suf))
			return true;
	}
	return false;
}

static const char *short_key(const cJSON *matrix, const cJSON *self)
{
	const char *best = self->string;

	for (int n = 1;; n++) {
		const char *s = suffix(self->string, n);

		if (!s)
			return best;
		best = s;
		if (!shared(matrix, self, s, n))
			return s;
	}
}

const char *pn_point_label(const struct cJSON *matrix, char *buf, size_t len)
{
	const cJSON *it;
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	cJSON_ArrayForEach (it, matrix) {
		char *js = cJSON_IsString(it) ? NULL : cJSON_PrintUnformatted(it);
		int w;

		if (!it->string)
			continue;
		w = snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "", short_key(matrix, it),
			     js ? js : it->valuestring);
		free(js);
		if (w < 0 || (size_t)w >= len - off) {
			if (len >= 4)
				memcpy(buf + len - 4, "...", 4);
			break;
		}
		off += (size_t)w;
	}
	return buf;
}
