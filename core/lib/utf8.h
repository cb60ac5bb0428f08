/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * utf8.h - UTF-8 checks for text that ends up in results (run.json must be
 * valid JSON, and JSON text is UTF-8: RFC 8259 section 8.1).
 */
#ifndef PN_UTF8_H
#define PN_UTF8_H

#include <stddef.h>
#include <sys/types.h>

struct cJSON;

/*
 * Offset of the first byte of s[0, len) that does not belong to a
 * well-formed UTF-8 sequence (RFC 3629: no overlong forms, no UTF-16
 * surrogates U+D800..U+DFFF, nothing above U+10FFFF, no truncated
 * sequence), or -1 when all of it is well-formed.  For a sequence that
 * starts well and breaks, the offset is that of its lead byte.
 */
ssize_t pn_utf8_check(const char *s, size_t len);

/*
 * Every object key and every string value under root must be valid UTF-8.
 * Returns 0, or -EINVAL after printing one error line
 *   FILE: JPATH: not valid UTF-8 (byte 0xNN at offset K)
 * (for a key: "FILE: JPATH: key not valid UTF-8 (...)", JPATH being the
 * key's own path with the bad bytes escaped).  K is the byte offset in the
 * decoded string; jpath is root's path, normally "$".
 */
int pn_json_check_utf8(const struct cJSON *root, const char *file, const char *jpath);

#endif /* PN_UTF8_H */
