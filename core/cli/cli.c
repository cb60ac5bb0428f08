// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli.c - the command line's own error convention.  The core returns 0 or
 * -errno (pn_error); a command returns a process exit code (PN_EXIT_*), and
 * these two keep the two apart: pn_cli_error() says what went wrong with the
 * command's name in front and returns an exit code, pn_cli_exit_code() is
 * the one place an -errno that reached main becomes one.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "core/lib/pn.h"

static const char *cli_command; /* NULL: before a command was chosen */

void pn_cli_set_command(const char *name)
{
	cli_command = name && name[0] ? name : NULL;
}

const char *pn_cli_command(void)
{
	return cli_command;
}

int pn_cli_exit_code(int code)
{
	if (code >= PN_EXIT_PASS && code <= PN_EXIT_INCONCLUSIVE)
		return code;
	if (code > 128 && code < 128 + 65) /* 128+N: interrupted by signal N */
		return code;
	return PN_EXIT_ERROR;
}

int pn_cli_error(int code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	/* Formatted here first: an argument may be pn_last_error() itself,
	 * the buffer pn_error() writes. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cli_command)
		pn_error(0, "%s: %s", cli_command, msg);
	else
		pn_error(0, "%s", msg);
	return pn_cli_exit_code(code);
}
