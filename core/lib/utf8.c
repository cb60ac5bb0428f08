// SPDX-License-Identifier: GPL-2.0-only
/*
 * utf8.c - UTF-8 well-formedness (see utf8.h).
 *
 * A table-free validator after the Unicode Standard, table 3-7 ("Well-Formed
 * UTF-8 Byte Sequences").  It is written out here rather than taken from a
 * library because the message must name the offset of the first bad byte,
 * and the C library's mbrtowc() depends on the process locale, which a
 * library must not change.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pn.h"
#include "utf8.h"

/* Length of the well-formed sequence at s (at most n bytes), 0 if none. */
static size_t seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0; /* continuation byte, C0/C1 (overlong), F5..FF */
	/* the second byte's range excludes overlongs, surrogates, > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

ssize_t pn_utf8_check(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t n = seq_len(p + i, len - i);

		if (!n)
			return (ssize_t)i;
		i += n;
	}
	return -1;
}

/* base.key or base[idx] (key NULL), ending in "..." when it does not fit:
 * the path only goes into a message. */
static void path_add(char *buf, size_t len, const char *base, const char *key, int idx)
{
	int n = key ? snprintf(buf, len, "%s.%s", base, key)
		    : snprintf(buf, len, "%s[%d]", base, idx);

	if (n < 0 || (size_t)n >= len)
		snprintf(buf + len - 4, 4, "...");
}

/* U+FFFF: what the config parser makes of "\u0000" (config.c). */
#define NUL_MARK "\xef\xbf\xbf"

static int bad(const char *file, const char *jpath, const char *what, const char *s)
{
	ssize_t off = pn_utf8_check(s, strlen(s));

	if (off < 0 && strstr(s, NUL_MARK))
		return pn_error(-EINVAL,
				"%s: %s: %s\\u0000 (NUL) at offset %zd: a string cannot hold "
				"one (it would end there)",
				file, jpath, what, strstr(s, NUL_MARK) - s);
	return pn_error(-EINVAL, "%s: %s: %snot valid UTF-8 (byte 0x%02x at offset %zd)", file,
			jpath, what, (unsigned char)s[off], off);
}

int pn_json_check_utf8(const cJSON *root, const char *file, const char *jpath)
{
	char path[512], k[192];
	int i = 0;

	if (!root)
		return 0;
	if (cJSON_IsString(root) && root->valuestring &&
	    (pn_utf8_check(root->valuestring, strlen(root->valuestring)) >= 0 ||
	     strstr(root->valuestring, NUL_MARK)))
		return bad(file, jpath, "", root->valuestring);
	if (!cJSON_IsObject(root) && !cJSON_IsArray(root))
		return 0;
	for (const cJSON *c = root->child; c; c = c->next, i++) {
		int ret;

		if (cJSON_IsObject(root)) {
			path_add(path, sizeof(path), jpath,
				 pn_escape(c->string, k, sizeof(k), SIZE_MAX), 0);
			if (c->string && (pn_utf8_check(c->string, strlen(c->string)) >= 0 ||
					  strstr(c->string, NUL_MARK)))
				return bad(file, path, "key ", c->string);
		} else {
			path_add(path, sizeof(path), jpath, NULL, i);
		}
		ret = pn_json_check_utf8(c, file, path);
		if (ret)
			return ret;
	}
	return 0;
}
