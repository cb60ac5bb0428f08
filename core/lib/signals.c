// SPDX-License-Identifier: GPL-2.0-only
/*
 * signals.c - stop requests: INT, TERM, HUP and QUIT set pn_stop_signal,
 * which long loops poll (pn_should_stop()); SIGPIPE ignored; the defaults
 * restored in a child before exec.  See pn.h.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "pn.h"

volatile sig_atomic_t pn_stop_signal;

static void stop_handler(int sig)
{
	pn_stop_signal = sig;
}

/*
 * INT, TERM, HUP (the terminal or SSH session closed) and QUIT all stop the
 * run the same way: cleanup, results marked incomplete, exit 128+N.  SIGPIPE
 * is ignored: a reader that went away (stdout piped into `head`) makes writes
 * fail with EPIPE, which never stops the cleanup or changes the exit code.
 */
int pn_install_stop_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stop_handler;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < PN_ARRAY_SIZE(sigs); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	/* No SA_RESTART: blocking reads and sleeps return EINTR so loops notice. */
	for (size_t i = 0; i < PN_ARRAY_SIZE(sigs); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return -errno;
	return 0;
}

void pn_default_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

	for (size_t i = 0; i < PN_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
}
