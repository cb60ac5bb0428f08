/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * capture.h - capture what the code under test prints on stderr, so tests
 * check error messages by their text.  Include after <cmocka.h>.
 */
#ifndef PN_TEST_CAPTURE_H
#define PN_TEST_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static char captured[16384];
static int cap_fd = -1;
static FILE *cap_file;

static void capture_begin(void)
{
	fflush(stderr);
	cap_file = tmpfile();
	assert_non_null(cap_file);
	cap_fd = dup(2);
	assert_true(cap_fd >= 0);
	assert_true(dup2(fileno(cap_file), 2) >= 0);
}

/* Restore stderr; returns the captured text (valid until the next capture). */
static const char *capture_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(cap_fd, 2);
	close(cap_fd);
	rewind(cap_file);
	n = fread(captured, 1, sizeof(captured) - 1, cap_file);
	captured[n] = '\0';
	fclose(cap_file);
	return captured;
}

#endif
