// SPDX-License-Identifier: GPL-2.0-only
/*
 * log.c - messages on stderr by level (error, warning, info, debug) and the
 * last error of each thread, which a result's reason quotes.  Nothing here
 * ever reaches a result file.  See pn.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pn.h"

enum pn_log_level pn_log_level = PN_LOG_INFO;

static void vlog(const char *tag, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "pnbench: %s%s\n", tag, msg);
}

static __thread char last_error[256];

const char *pn_last_error(void)
{
	return last_error;
}

void pn_clear_error(void)
{
	last_error[0] = '\0';
}

int pn_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (pn_log_level >= PN_LOG_ERROR) {
		va_start(ap, fmt);
		vlog("error: ", fmt, ap);
		va_end(ap);
	}
	return err;
}

int pn_error_again(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (pn_log_level >= PN_LOG_DEBUG) {
		va_start(ap, fmt);
		vlog("error (again): ", fmt, ap);
		va_end(ap);
	}
	return err;
}

void pn_warn(const char *fmt, ...)
{
	va_list ap;

	if (pn_log_level < PN_LOG_WARN)
		return;
	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void pn_info(const char *fmt, ...)
{
	va_list ap;

	if (pn_log_level < PN_LOG_INFO)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void pn_debug(const char *fmt, ...)
{
	va_list ap;

	if (pn_log_level < PN_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}
