/* SPDX-License-Identifier: GPL-2.0-only
 *
 * fixture.h - replay a captured tree of tests/fixtures/ (or $PN_FIXTURES)
 * through the sysroot; a missing tree fails the test with a reason.
 * Include after <cmocka.h>.
 */
#ifndef PN_TEST_FIXTURE_H
#define PN_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/lib/pn.h"

static inline void use_fixture(const char *name)
{
	const char *d = getenv("PN_FIXTURES");
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", d ? d : "tests/fixtures", name);
	if (access(p, R_OK)) {
		print_error("fixture tree %s missing (run from the repository root or set "
			    "PN_FIXTURES)\n",
			    p);
		fail();
	}
	pn_sysroot_set(p);
}

#endif /* PN_TEST_FIXTURE_H */
