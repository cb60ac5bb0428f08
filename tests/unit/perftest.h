/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perftest.h - helpers of the perf collector's tests: fixture paths, raw
 * tracepoint entries and perf records built in memory.  Include after
 * <cmocka.h>.
 */
#ifndef PN_PERFTEST_H
#define PN_PERFTEST_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/perf/tpfmt.h"

static inline void fixture(char *out, size_t len, const char *name)
{
	const char *base = getenv("PNBENCH_FIXTURES");

	snprintf(out, len, "%s/%s", base ? base : "tests/fixtures", name);
}

/* Store v into a raw entry at field f (its own size). */
static inline void put_field(unsigned char *raw, const struct pn_tpfield *f, uint64_t v)
{
	switch (f->size) {
	case 1: raw[f->offset] = (unsigned char)v; break;
	case 2: {
		uint16_t x = (uint16_t)v;
		memcpy(raw + f->offset, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;
		memcpy(raw + f->offset, &x, 4);
		break;
	}
	default: memcpy(raw + f->offset, &v, 8); break;
	}
}

/*
 * A PERF_RECORD_SAMPLE with PN_PERF_SAMPLE_TYPE around raw (rawlen bytes),
 * as the kernel lays it out: header, pid/tid, time, cpu/res, raw size, raw,
 * padding to 8.  Returns its size.
 */
static inline size_t make_sample(unsigned char *buf, uint32_t pid, uint64_t t, uint32_t cpu,
				 const void *raw, uint32_t rawlen)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint32_t u[2] = { pid, pid };
	size_t off = sizeof(h);

	memcpy(buf + off, u, 8), off += 8;
	memcpy(buf + off, &t, 8), off += 8;
	u[0] = cpu, u[1] = 0;
	memcpy(buf + off, u, 8), off += 8;
	memcpy(buf + off, &rawlen, 4), off += 4;
	memcpy(buf + off, raw, rawlen), off += rawlen;
	while (off % 8)
		buf[off++] = 0;
	h.size = (uint16_t)off;
	memcpy(buf, &h, sizeof(h));
	return off;
}

#endif /* PN_PERFTEST_H */
