/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procfs_int.h - the lexing the /proc and /sys parsers share (procfs.c,
 * procfs_zoneinfo.c): blanks, counter-name characters, lines, tokens.  The
 * number and line rules are in procfs.c's opening comment.
 */
#ifndef PN_PROCFS_INT_H
#define PN_PROCFS_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* [A-Za-z0-9_()]: the characters of every counter name the kernel prints
 * ("Active(anon)"); a table because the parsers sit in the sampling path. */
static const bool key_char[256] = {
	['0' ... '9'] = true, ['A' ... 'Z'] = true, ['a' ... 'z'] = true,
	['_'] = true,	      ['('] = true,	    [')'] = true,
};

static inline bool is_key_char(char c)
{
	return key_char[(unsigned char)c];
}

/* Does p start with the literal lit?  (Inlined: no strncmp call per line.) */
#define starts(p, lit) (!memcmp((p), (lit), sizeof(lit) - 1))

static inline const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* End of the line starting at p (points at '\n' or the final NUL). */
static inline const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

/* Copy [s, e) into out (NUL-terminated); -EINVAL if empty or too long. */
static inline int copy_tok(char *out, size_t outlen, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	if (n == 0 || n >= outlen)
		return -EINVAL;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/* A key token [s, e): key characters only. */
static inline const char *scan_key(const char *p)
{
	while (is_key_char(*p))
		p++;
	return p;
}

static inline bool rest_is_blank(const char *p, const char *e)
{
	for (; p < e; p++)
		if (!is_blank(*p))
			return false;
	return true;
}

static inline int kb_to_bytes(int64_t kb, int64_t *bytes)
{
	if (__builtin_mul_overflow(kb, (int64_t)1024, bytes))
		return -EINVAL;
	return 0;
}

#endif /* PN_PROCFS_INT_H */
