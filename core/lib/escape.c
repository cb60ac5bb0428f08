// SPDX-License-Identifier: GPL-2.0-only
/*
 * escape.c - user text made safe for one message line: bytes outside
 * printable ASCII written as \xNN, optionally cut short with "...".
 * See pn.h.
 */
#include <stdio.h>
#include <string.h>

#include "pn.h"

const char *pn_escape(const char *s, char *buf, size_t len, size_t max)
{
	size_t o = 0;

	for (; s && *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (o > max) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
	return buf;
}
