// SPDX-License-Identifier: GPL-2.0-only
/*
 * pgdecode.c - page allocator tracepoints decoded.  See pgdecode.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/sys/pfnnode.h"
#include "pgdecode.h"
#include "core/lib/pn.h"

const char *const pn_pgdec_names[PN_TP_N] = { "mm_page_alloc", "mm_page_free", "mm_private_alloc",
					      "mm_private_skip" };

/* the fields of each event, in the order decode() reads them */
static const char *const field_names[PN_TP_N][5] = {
	[PN_TP_ALLOC] = { "pfn", "order", "gfp_flags", "migratetype", NULL },
	[PN_TP_FREE] = { "pfn", "order", NULL, NULL, NULL },
	[PN_TP_PALLOC] = { "nid", "order", "gfp_flags", "preferred_nid", "fallback" },
	[PN_TP_PSKIP] = { "nid", "pfn", "reason", NULL, NULL },
};

int pn_tracefs_find(char *out, size_t len, bool may_mount)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[4096];

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < PN_ARRAY_SIZE(dirs); i++) {
			snprintf(p, sizeof(p), "%s/events/kmem", dirs[i]);
			if (pn_exists(p))
				return pn_path(out, len, dirs[i]);
		}
		if (!may_mount || pass || *pn_sysroot())
			break;
		/* tracefs is not mounted everywhere by default (it is not here) */
		if (pn_mount_temp("tracefs", "/sys/kernel/tracing") &&
		    !pn_exists("/sys/kernel/debug/tracing"))
			(void)pn_mount_temp("debugfs", "/sys/kernel/debug");
	}
	return -ENOENT;
}

int pn_pgdec_init(struct pn_pgdec *d)
{
	memset(d, 0, sizeof(*d));
	return pn_tp_init(&d->tp);
}

int pn_pgdec_add(struct pn_pgdec *d, int i, const struct tep_event *ev)
{
	uint32_t end;
	int ret;

	if (i < 0 || i >= PN_TP_N)
		return -EINVAL;
	for (int k = 0; k < 5; k++) {
		if (!field_names[i][k])
			continue;
		ret = pn_tp_field(ev, field_names[i][k], 1, &d->td[i].f[k]);
		if (ret)
			return pn_error(ret, "kmem:%s has no usable field %s", pn_pgdec_names[i],
					field_names[i][k]);
		end = (uint32_t)(d->td[i].f[k].offset + d->td[i].f[k].size);
		d->td[i].need = end > d->td[i].need ? end : d->td[i].need;
	}
	if (!d->common_type.present && pn_tp_field(ev, "common_type", 2, &d->common_type))
		return pn_error(-EINVAL, "kmem:%s has no common_type", pn_pgdec_names[i]);
	if (i == PN_TP_ALLOC) {
		/* the series prints __GFP_PRIVATE by name: take its value from there */
		if (!pn_tp_flags(ev, "gfp_flags", &d->gfp_names))
			(void)pn_tpflags_value(&d->gfp_names, "__GFP_PRIVATE", &d->private_gfp);
	}
	if (i == PN_TP_PSKIP)
		(void)pn_tp_flags(ev, "reason", &d->skip_reasons);
	d->td[i].id = pn_tp_event_id(ev);
	d->td[i].present = true;
	return 0;
}

static int load_one(struct pn_pgdec *d, const char *tracefs, int i)
{
	struct tep_event *ev;
	int ret = pn_tp_load(&d->tp, tracefs, "kmem", pn_pgdec_names[i], &ev);

	return ret ? ret : pn_pgdec_add(d, i, ev);
}

int pn_pgdec_load(struct pn_pgdec *d, const char *tracefs, bool series)
{
	int ret = pn_pgdec_init(d);

	if (ret)
		return pn_error(ret, "libtraceevent: %s", strerror(-ret));
	for (int i = 0; i < PN_TP_N; i++) {
		if (i >= PN_TP_PALLOC && !series)
			continue;
		ret = load_one(d, tracefs, i);
		if (ret == -ENOENT && i >= PN_TP_PALLOC)
			continue; /* a kernel without the reference series */
		if (ret)
			return pn_error(ret, "format of kmem:%s under %s: %s", pn_pgdec_names[i],
					tracefs, strerror(-ret));
	}
	return 0;
}

void pn_pgdec_free(struct pn_pgdec *d)
{
	pn_tpflags_free(&d->gfp_names);
	pn_tpflags_free(&d->skip_reasons);
	pn_tp_free(&d->tp);
}

int pn_pgdec_decode(const struct pn_pgdec *d, const void *raw, size_t len, struct pn_pgev *e)
{
	int ret = pn_pgdec_page(d, raw, len, e);

	if (!ret)
		pn_pgdec_rest(d, raw, e);
	return ret;
}
