/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * probe_impl.h - the probe implementations behind the table in
 * probe_table.c (probe_mm.c, probe_kernel.c).  Not for workloads: they use
 * probe.h.
 */
#ifndef PN_PROBE_IMPL_H
#define PN_PROBE_IMPL_H

#include "probe.h"

#define PN_PROBE_FN(name)                                                                          \
	int pn_probe_##name(const struct pn_probe_env *env, const struct pn_probe_params *p,       \
			    struct pn_probe_out *out)
#define PN_PROBE_SUPPORTED_FN(name)                                                                \
	int pn_probe_##name##_supported(const struct pn_probe_env *env, char *why, size_t len)

PN_PROBE_FN(hugetlb_spread);
PN_PROBE_FN(hugetlb_node);
PN_PROBE_SUPPORTED_FN(hugetlb);
PN_PROBE_FN(move_pages);
PN_PROBE_FN(migrate_pages);
PN_PROBE_FN(collapse);
PN_PROBE_SUPPORTED_FN(collapse);
PN_PROBE_FN(demotion);
PN_PROBE_SUPPORTED_FN(demotion);
PN_PROBE_FN(damon);
PN_PROBE_SUPPORTED_FN(damon);
PN_PROBE_FN(bpf_array);
PN_PROBE_FN(bpf_ringbuf);
PN_PROBE_SUPPORTED_FN(bpf);
PN_PROBE_FN(memcg);
PN_PROBE_SUPPORTED_FN(memcg);
PN_PROBE_FN(hugetlb_cg);
PN_PROBE_SUPPORTED_FN(hugetlb_cg);
PN_PROBE_FN(bpf_lpm);

/* cgroup v2 mounted with controller ctrl available, or -errno and why. */
int pn_probe_cgroup_supported(const char *ctrl, char *why, size_t len);
/* Fold per-CPU counters into the node counters (best effort). */
void pn_stat_refresh_quiet(void);

#endif /* PN_PROBE_IMPL_H */
