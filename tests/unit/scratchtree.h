/* SPDX-License-Identifier: GPL-2.0-only
 *
 * scratchtree.h - a scratch /proc and /sys tree under a temporary directory,
 * made file by file with put() and replayed through the sysroot: the test
 * writes exactly the kernel files its case needs.  tree_setup() and
 * tree_teardown() are cmocka setup/teardown functions; define
 * SCRATCHTREE_NAME (e.g. "cgroup") before including to name the directory.
 * Include after <cmocka.h>.
 */
#ifndef PN_TEST_SCRATCHTREE_H
#define PN_TEST_SCRATCHTREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/lib/pn.h"

static char tree[256];

/* rel (starting with '/') with text, its directories made */
static void put(const char *rel, const char *text)
{
	char p[512], *slash;
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	for (slash = strchr(p + strlen(tree) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int tree_setup(void **state)
{
	(void)state;
	snprintf(tree, sizeof(tree), "/tmp/pn-test-%s.XXXXXX", SCRATCHTREE_NAME);
	assert_non_null(mkdtemp(tree));
	pn_sysroot_set(tree);
	return 0;
}

static int tree_teardown(void **state)
{
	char cmd[300];

	(void)state;
	pn_sysroot_set("");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd) == 0 ? 0 : -1;
}

#endif /* PN_TEST_SCRATCHTREE_H */
