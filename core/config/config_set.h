/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config_set.h - `run --set KEY=VALUE` overrides (config_set.c), applied to
 * every config the process loads, between reading its JSON and checking it.
 */
#ifndef PN_CONFIG_SET_H
#define PN_CONFIG_SET_H

#include <stddef.h>

struct cJSON;

/* The overrides in command-line order (the strings must outlive the loads);
 * n = 0 clears them. */
void pn_config_set_overrides(const char *const *sets, size_t n);

/* Apply them to a config's root object: 0, or -EINVAL with a message naming
 * the --set (called by the loader). */
int pn_config_apply_overrides(struct cJSON *root);

#endif /* PN_CONFIG_SET_H */
