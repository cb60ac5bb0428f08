/* SPDX-License-Identifier: GPL-2.0-only */
/* provenance.h - who/what/where of a run: host, kernel, kconfig hash, series id, sysctls. */
#ifndef PN_PROVENANCE_H
#define PN_PROVENANCE_H

#include <stddef.h>

struct cJSON;

/* sha256 of a file (not through the sysroot); -errno if unreadable. */
int pn_sha256_file(const char *path, char out[65]);

struct cJSON *pn_provenance_host(void);
/* kernel: release, version, cmdline, kconfig hash, series id and mode, sysctls. */
struct cJSON *pn_provenance_kernel(void);

#endif
