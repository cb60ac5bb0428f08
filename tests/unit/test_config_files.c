// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_config_files.c - configs as files and bytes: malformed JSON reported
 * with file, line and column, a missing file, UTF-8 checked in every key and
 * string, every broken config in tests/configs-bad/ against its expected
 * message, and every shipped config in configs/.
 *
 * Uses the real registry (see configtest.h); a test whose workload or option
 * is missing from this build SKIPs and says why.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "configtest.h"
#include "core/lib/utf8.h"

static char srcdir[PATH_MAX];

static void test_json_errors_line_col(void **state)
{
	static const char nul[] = "{\"name\": \"x\"\0}";
	struct pn_config_set cs;
	const char *msg;

	(void)state;
	parse_err("", "t.json:1:1: invalid JSON at line 1, column 1 (unexpected end");
	/* cJSON reports the position just after the offending character */
	parse_err("{\n  \"name\": \"x\",\n\t\"iterations\": 2,,\n}",
		  "t.json:3:19: invalid JSON at line 3, column 19 (at the end of the line)");
	parse_err("{\n  \"name\": \"x\",\n  \"iterations\": 2\n  \"phases\": []\n}",
		  "t.json:4:3: invalid JSON at line 4, column 3, near '\"phases\": []'");
	parse_err("{\"name\": \"x\"",
		  "t.json:1:13: invalid JSON at line 1, column 13 (unexpected end of file)");
	parse_err("\n\n  {\"name\": tru}", "t.json:3:12: invalid JSON");
	parse_err("{} {}", "t.json:1:4: invalid JSON");
	parse_err("42", "t.json: $: a config must be a JSON object, not a number");
	capture_begin();
	assert_int_equal(pn_config_parse(nul, sizeof(nul) - 1, "t.json", &cs), -EINVAL);
	msg = capture_end();
	assert_non_null(strstr(msg, "t.json:1:13: invalid JSON at line 1, column 13 (a NUL byte)"));
}

static void test_load_missing_file(void **state)
{
	struct pn_config_set cs;
	const char *msg;

	(void)state;
	capture_begin();
	assert_int_equal(pn_config_load("/nonexistent/pnbench.json", &cs), -ENOENT);
	msg = capture_end();
	assert_non_null(strstr(msg, "cannot open config /nonexistent/pnbench.json"));
	assert_int_equal(cs.n, 0);
}

/* Strings end up in run.json: every key and string value must be valid
 * UTF-8, checked at load with the JSON path and the offset of the bad byte. */
static void test_utf8(void **state)
{
	static const struct {
		const char *desc, *want;
	} bad[] = {
		{ "caf\xe9", "$.description: not valid UTF-8 (byte 0xe9 at offset 3)" },
		{ "\x80", "(byte 0x80 at offset 0)" },		    /* lone continuation */
		{ "a\xc0\xaf", "(byte 0xc0 at offset 1)" },	    /* overlong '/' */
		{ "ab\xe0\x80\xaf", "(byte 0xe0 at offset 2)" },    /* overlong, 3 bytes */
		{ "\xed\xa0\x80", "(byte 0xed at offset 0)" },	    /* surrogate U+D800 */
		{ "x\xf4\x90\x80\x80", "(byte 0xf4 at offset 1)" }, /* U+110000 */
		{ "ok \xe2\x82", "(byte 0xe2 at offset 3)" },	    /* truncated at the end */
		{ "\xe2\x82x", "(byte 0xe2 at offset 0)" },	    /* truncated inside */
		{ "\xff", "(byte 0xff at offset 0)" },
	};
	struct pn_config_set cs;
	const cJSON *d;
	char json[512];

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		fmt(json,
		    "{\"name\": \"x\", \"description\": \"%s\", \"phases\": [{\"name\": "
		    "\"p\", \"workloads\": []}]}",
		    bad[i].desc);
		parse_err(json, bad[i].want);
		parse_err(json, "$.description: not valid UTF-8");
	}
	/* a key, and a string deep inside a matrix array of params */
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"p\", \"workloads\": []}], "
		  "\"o\xfek\": 1}",
		  "t.json: $.o\\xfek: key not valid UTF-8 (byte 0xfe at offset 1)");
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"p\", \"workloads\": [{\"workload\": "
		  "\"explicit\", \"params\": {\"nodes\": [\"0\", \"1\xa0\"]}}]}]}",
		  "t.json: $.phases[0].workloads[0].params.nodes[1]: not valid UTF-8 (byte 0xa0 "
		  "at offset 1)");
	/* \u escapes are decoded by cJSON and are as good as raw UTF-8 */
	NEED_REGISTRY();
	parse_ok("{\"name\": \"x\", \"description\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e "
		 "\\u00e9\", \"phases\": [{\"name\": \"p\", \"workloads\": []}]}",
		 &cs);
	d = cJSON_GetObjectItemCaseSensitive(cs.points[0].resolved, "description");
	assert_non_null(d);
	assert_string_equal(d->valuestring, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xc3\xa9");
	pn_config_set_free(&cs);
}

static void test_utf8_check(void **state)
{
	(void)state;
	assert_int_equal(pn_utf8_check("", 0), -1);
	assert_int_equal(pn_utf8_check("plain", 5), -1);
	assert_int_equal(pn_utf8_check("\xc2\x80\xdf\xbf", 4), -1);	    /* U+0080, U+07FF */
	assert_int_equal(pn_utf8_check("\xe0\xa0\x80\xef\xbf\xbf", 6), -1); /* U+0800, U+FFFF */
	assert_int_equal(pn_utf8_check("\xed\x9f\xbf\xee\x80\x80", 6), -1); /* around surrogates */
	assert_int_equal(pn_utf8_check("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8), -1);
	assert_int_equal(pn_utf8_check("\xc1\xbf", 2), 0);
	assert_int_equal(pn_utf8_check("\xed\xbf\xbf", 3), 0);
	assert_int_equal(pn_utf8_check("\xf0\x8f\xbf\xbf", 4), 0);
	assert_int_equal(pn_utf8_check("\xf5\x80\x80\x80", 4), 0);
	assert_int_equal(pn_utf8_check("ab\xc3", 3), 2);
	/* the length bounds the check: a cut sequence is bad even before a NUL */
	assert_int_equal(pn_utf8_check("\xc3\xa9", 1), 0);
}

/* Every file in tests/configs-bad/ is listed in EXPECTED and fails with
 * exactly one error line that names the file and the expected text. */
static void test_bad_configs(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], line[1024];
	char listed[64][256];
	size_t nlisted = 0;
	struct dirent *de;
	FILE *f;
	DIR *d;

	(void)state;
	NEED_REGISTRY();
	fmt(dir, "%s/tests/configs-bad", srcdir);
	fmt(path, "%s/EXPECTED", dir);
	f = fopen(path, "r");
	if (!f) {
		fail_msg("cannot open %s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		struct pn_config_set cs = { .n = 99 };
		char *sp, want[PATH_MAX + 1600];
		const char *msg;
		int ret, nerr = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		sp = strchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		assert_true(nlisted < PN_ARRAY_SIZE(listed));
		fmt(listed[nlisted], "%s", line);
		nlisted++;
		fmt(path, "%s/%s", dir, line);
		capture_begin();
		ret = pn_config_load(path, &cs);
		msg = capture_end();
		if (ret != -EINVAL)
			fail_msg("%s: expected -EINVAL, got %d; stderr: %s", line, ret, msg);
		assert_int_equal(cs.n, 0);
		/* file name then the expected text */
		fmt(want, "pnbench: error: %s%s", path, sp + 1);
		if (!strstr(msg, want))
			fail_msg("%s: error was:\n  %s\nexpected to contain:\n  %s", line, msg,
				 want);
		for (const char *m = msg; (m = strstr(m, "pnbench: error:")); m++)
			nerr++;
		if (nerr != 1)
			fail_msg("%s: %d error lines, expected exactly one:\n%s", line, nerr, msg);
	}
	fclose(f);
	assert_true(nlisted >= 15);

	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), i;

		if (len < 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		for (i = 0; i < nlisted; i++)
			if (!strcmp(listed[i], de->d_name))
				break;
		if (i == nlisted)
			fail_msg("%s/%s is not listed in EXPECTED", dir, de->d_name);
	}
	closedir(d);
}

/* Every shipped config validates. */
/* Every config in DIR (relative to the source tree) loads and is named after
 * its file; returns how many there were. */
static int load_configs_in(const char *sub)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	fmt(dir, "%s/%s", srcdir, sub);
	d = opendir(dir);
	if (!d) {
		fail_msg("cannot open %s: %s", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		struct pn_config_set cs;
		size_t len = strlen(de->d_name);
		const char *msg;
		int ret;

		if (len < 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		fmt(path, "%s/%s", dir, de->d_name);
		capture_begin();
		ret = pn_config_load(path, &cs);
		msg = capture_end();
		if (ret)
			fail_msg("%s does not load: %s", path, msg);
		/* the config's name is its file name */
		assert_int_equal(strncmp(cs.points[0].name, de->d_name, len - 5), 0);
		assert_int_equal(strlen(cs.points[0].name), len - 5);
		pn_config_set_free(&cs);
		n++;
	}
	closedir(d);
	return n;
}

/* configs/ and the suite `pnbench demo` runs in its guests (configs/demo/) */
static void test_shipped_configs(void **state)
{
	(void)state;
	NEED_REGISTRY();
	assert_true(load_configs_in("configs") >= 4);
	assert_true(load_configs_in("configs/demo") >= 5);
}

/* Test data lives in the source tree: $PNBENCH_SRCDIR, the current
 * directory (tests/run.sh runs from the top), or two levels above the
 * binary (build/tests/test_config). */
static void find_srcdir(const char *argv0)
{
	char exe[PATH_MAX];
	const char *env = getenv("PNBENCH_SRCDIR");
	int n;

	if (env)
		n = snprintf(srcdir, sizeof(srcdir), "%s", env);
	else if (access("tests/configs-bad/EXPECTED", R_OK) == 0)
		n = snprintf(srcdir, sizeof(srcdir), ".");
	else {
		n = snprintf(exe, sizeof(exe), "%s", argv0);
		if (n >= 0 && (size_t)n < sizeof(exe))
			n = snprintf(srcdir, sizeof(srcdir), "%s/../..", dirname(exe));
	}
	if (n < 0 || (size_t)n >= sizeof(srcdir))
		srcdir[0] = '\0'; /* the tests that need it fail with the path */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_errors_line_col),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_utf8_check),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_shipped_configs),
	};

	(void)argc;
	find_srcdir(argv[0]);
	return cmocka_run_group_tests_name("config_files", tests, NULL, NULL);
}
