/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * configtest.h - helpers of the config unit tests (test_config.c,
 * test_config_files.c): parse a config from a string with stderr captured,
 * expect it to load or to fail with a message, and skip when this build lacks
 * the registry entries the tests use.  Header only (static inline), for
 * cmocka tests: include after <cmocka.h>.
 */
#ifndef PN_CONFIGTEST_H
#define PN_CONFIGTEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "core/config/config.h"
#include "core/api/params.h"

/* snprintf that fails the test instead of truncating */
#define fmt(buf, ...)                                                                              \
	do {                                                                                       \
		int n_ = snprintf((buf), sizeof(buf), __VA_ARGS__);                                \
		if (n_ < 0 || (size_t)n_ >= sizeof(buf))                                           \
			fail_msg("path or message too long for %s", #buf);                         \
	} while (0)

static inline bool wl_has_opt(const char *wl, const char *opt)
{
	const struct pn_workload *w = pn_workload_find(wl);

	if (!w)
		return false;
	for (const struct pn_opt *o = w->opts; o && o->name; o++)
		if (!strcmp(o->name, opt))
			return true;
	return false;
}

/* The registry entries these tests rely on; false (with a message) if
 * this build lacks them. */
static inline bool have_registry(void)
{
	static const char *const opts[] = { "size", "policy", "nodes" };
	static const char *const colls[] = { "vmstat", "nodestat", "zoneinfo" };

	for (size_t i = 0; i < PN_ARRAY_SIZE(opts); i++) {
		if (!wl_has_opt("explicit", opts[i])) {
			print_message("skip: this build has no workload \"explicit\" with option "
				      "\"%s\"\n",
				      opts[i]);
			return false;
		}
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(colls); i++) {
		if (!pn_collector_find(colls[i])) {
			print_message("skip: this build has no collector \"%s\"\n", colls[i]);
			return false;
		}
	}
	return true;
}

#define NEED_REGISTRY()                                                                            \
	do {                                                                                       \
		if (!have_registry()) {                                                            \
			skip();                                                                    \
			return;                                                                    \
		}                                                                                  \
	} while (0)

static inline int parse(const char *json, struct pn_config_set *cs, const char **msg)
{
	int ret;

	capture_begin();
	ret = pn_config_parse(json, strlen(json), "t.json", cs);
	*msg = capture_end();
	return ret;
}

static inline void parse_ok(const char *json, struct pn_config_set *cs)
{
	const char *msg;
	int ret = parse(json, cs, &msg);

	if (ret)
		fail_msg("unexpected error %d: %s\nconfig: %s", ret, msg, json);
	assert_string_equal(msg, "");
	assert_true(cs->n >= 1);
}

static inline void parse_err(const char *json, const char *substr)
{
	struct pn_config_set cs = { .n = 99 };
	const char *msg;
	int ret = parse(json, &cs, &msg);

	assert_int_equal(ret, -EINVAL);
	assert_int_equal(cs.n, 0);
	assert_null(cs.points);
	if (!strstr(msg, substr))
		fail_msg("error was: %s  expected to contain: %s", msg, substr);
	assert_non_null(strstr(msg, "pnbench: error: t.json"));
}

#define MINIMAL_PHASES                                                                             \
	"\"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": \"explicit\"}]}]"

#endif /* PN_CONFIGTEST_H */
