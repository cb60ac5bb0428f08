/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cfg_json.h - the JSON layer under the config parser (cfg_json.c): the
 * config text parsed into a tree, and the field getters the parser checks
 * every value with.  Not an API: only core/config includes it.
 *
 * Every getter returns 0 or -EINVAL after logging one error line that names
 * the file and the JSON path ("FILE: $.phases[0].name: ..."); `file` is the
 * config's name as the user gave it.
 */
#ifndef PN_CFG_JSON_H
#define PN_CFG_JSON_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;

#define PN_CONFIG_NAME_MAX	64
#define PN_COLL_INTERVAL_DEF_MS 200
#define PN_COLL_INTERVAL_MIN_MS 1
#define PN_COLL_INTERVAL_MAX_MS 3600000

/* Parse len bytes of config text into *root (the caller deletes it).  An
 * error names file:line:column, a NUL byte, too deep a nesting or a string
 * that is not UTF-8 (by its JSON path); *root is NULL then. */
int pn_cfg_json_parse(const char *buf, size_t len, const char *file, struct cJSON **root);

/* A user string made safe for one log line: printable ASCII, bounded. */
const char *pn_cfg_clean(const char *s, char *buf, size_t len);
__attribute__((format(printf, 3, 4))) int pn_cfg_perr(const char *file, const char *jpath,
						      const char *fmt, ...);
/* Reject unknown and duplicate keys: a typo must never be ignored. */
int pn_cfg_check_keys(const char *file, const struct cJSON *obj, const char *jpath,
		      const char *const *allowed);
/* obj.name, NULL if obj is NULL or has no such key */
const struct cJSON *pn_cfg_field(const struct cJSON *obj, const char *name);
int pn_cfg_get_object(const char *file, const struct cJSON *v, const char *jpath);
int pn_cfg_get_int(const char *file, const struct cJSON *v, const char *jpath, int64_t min,
		   int64_t max, int64_t *out);
/* A name: 1 to PN_CONFIG_NAME_MAX characters of [a-z0-9_-], required. */
int pn_cfg_get_name(const char *file, const struct cJSON *v, const char *jpath);
/* A collector interval: a duration of PN_COLL_INTERVAL_MIN_MS to _MAX_MS. */
int pn_cfg_get_duration(const char *file, const struct cJSON *v, const char *jpath, uint64_t *ms);

#endif /* PN_CFG_JSON_H */
