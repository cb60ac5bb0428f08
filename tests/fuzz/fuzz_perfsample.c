// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_perfsample.c - libFuzzer target for the perf collector's parsers.
 *
 * Input: one selector byte, then (for the synthetic format) 12 bytes of
 * field offsets/sizes, then a stream of raw perf records as a ring holds
 * them.  The selector picks a captured format file (tests/fixtures/tracefs-*,
 * loaded once) or a synthetic mm_page_alloc format whose field offsets,
 * sizes and signedness come from the input - so the formats libtraceevent
 * sees are well formed (they come from the kernel's tracefs, never from
 * users: libtraceevent 1.7.1 itself crashes and leaks on malformed format
 * text), while our handling of whatever offsets and sizes a format declares
 * is fuzzed.  The records go through pn_perfrec_parse(); every field read
 * from a sample must lie inside its raw data; the gfp flag table decodes
 * into short and long buffers consistently; samples are decoded
 * (pn_pgdec_decode) and accounted (pn_pgacct, reports with decoded kinds)
 * as the collector does.  Nothing may crash or read out of
 * bounds.  Seed corpus: tests/fuzz/corpus/perfsample/.
 */
#include <assert.h>
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/perf/pgacct.h"
#include "collectors/perf/perfring.h"
#include "collectors/perf/pgdecode.h"
#include "collectors/perf/tpfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const char *const fixtures[] = {
	"tracefs-6.18/events/kmem/mm_page_alloc/format",
	"tracefs-reordered/events/kmem/mm_page_alloc/format",
	"tracefs-series/events/kmem/mm_page_alloc/format",
	"tracefs-series/events/kmem/mm_private_alloc/format",
};
#define NFMT (sizeof(fixtures) / sizeof(fixtures[0]))
static char *fmt_text[NFMT];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *base = getenv("PNBENCH_FIXTURES");
	char path[4096];

	(void)argc, (void)argv;
	for (size_t i = 0; i < NFMT; i++) {
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/%s", base ? base : "tests/fixtures", fixtures[i]);
		f = fopen(path, "re");
		if (!f)
			continue; /* the synthetic format still runs */
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		fmt_text[i] = calloc(1, (size_t)n + 1);
		if (fread(fmt_text[i], 1, (size_t)n, f) != (size_t)n) {
			free(fmt_text[i]);
			fmt_text[i] = NULL;
		}
		fclose(f);
	}
	return 0;
}

/* A well-formed mm_page_alloc format with the input's offsets and sizes. */
static size_t synth(char *out, size_t len, const uint8_t *p)
{
	static const char *const fn[4] = { "unsigned long pfn", "unsigned int order",
					   "unsigned long gfp_flags", "int migratetype" };
	int off = 0;

	off += snprintf(out + off, len - (size_t)off,
			"name: mm_page_alloc\nID: 653\nformat:\n"
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	for (int i = 0; i < 4; i++)
		off += snprintf(out + off, len - (size_t)off,
				"\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n", fn[i],
				(unsigned)p[(size_t)3 * i], (unsigned)p[(size_t)3 * i + 1] % 17,
				(unsigned)p[(size_t)3 * i + 2] & 1);
	off += snprintf(out + off, len - (size_t)off,
			"\nprint fmt: \"pfn=0x%%lx gfp_flags=%%s\", REC->pfn, "
			"__print_flags(REC->gfp_flags, \"|\", {0x200, \"__GFP_PRIVATE\"}, "
			"{0x140cca, \"GFP_HIGHUSER_MOVABLE\"}, {0x40000, \"__GFP_COMP\"})\n");
	return (size_t)off;
}

static const char *const names[] = { "pfn", "order", "gfp_flags", "migratetype", "common_type" };

static void flags(const struct tep_event *ev)
{
	static const uint64_t vals[] = { 0, 1, 0x140cca, 0x200, UINT64_MAX };
	struct pn_tpflags t;
	char big[4096], small[12];

	if (pn_tp_flags(ev, "gfp_flags", &t))
		return;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		int n = pn_tpflags_decode(&t, vals[i], big, sizeof(big));
		int m = pn_tpflags_decode(&t, vals[i], small, sizeof(small));

		assert(n == -28 || (size_t)n == strlen(big));
		/* a truncated decode is a prefix of the full one */
		assert(m == -28 || (size_t)m == strlen(small));
		if (n >= 0)
			assert(!strncmp(big, small, strlen(small)));
	}
	pn_tpflags_free(&t);
}

static void records(const uint8_t *p, size_t left, const struct pn_tpfield *f,
		    const struct pn_pgdec *dec, struct pn_pgacct *a)
{
	struct pn_perfrec r;

	while (left >= 8 && !pn_perfrec_parse(p, left, &r)) {
		struct pn_pgev e = { 0 };
		uint64_t v;
		uint16_t sz;

		memcpy(&sz, p + 6, 2);
		assert(sz >= 8 && sz <= left);
		if (r.type == PERF_RECORD_SAMPLE) {
			assert(r.raw + r.raw_size <= p + sz);
			for (int i = 0; i < 5; i++)
				if (f[i].present && !pn_tpfield_read(&f[i], r.raw, r.raw_size, &v))
					assert((size_t)f[i].offset + (size_t)f[i].size <=
					       r.raw_size);
			/* the collector's own decoding, then its accounting */
			e.time_ns = r.time_ns;
			e.pid = r.pid;
			if (!pn_pgdec_decode(dec, r.raw, r.raw_size, &e)) {
				if (e.kind == PN_PGEV_ALLOC || e.kind == PN_PGEV_FREE)
					e.node = (int32_t)(e.pfn % 4) - 1;
				pn_pgacct_apply(a, &e);
			}
		}
		p += sz;
		left -= sz;
	}
}

static int merged(void *arg, size_t ring, const struct pn_perfrec *r)
{
	size_t *n = arg;

	assert(ring < 2);
	if (r->type == PERF_RECORD_SAMPLE)
		assert(r->raw && r->raw_size < PN_PERFREC_MAX);
	(*n)++;
	return 0;
}

/* The same bytes as two rings read in place (pn_perfmerge): the first
 * starting near its end so that records wrap around. */
static void rings(const uint8_t *p, size_t left)
{
	static unsigned char d[2][256], bounce[2][PN_PERFREC_MAX];
	struct pn_ringview v[2];
	struct pn_perfmerge_stats st = { 0 };
	size_t n = 0, half = left / 2;

	memset(v, 0, sizeof(v));
	for (int i = 0; i < 2; i++) {
		const uint8_t *src = p + (i ? half : 0);
		size_t len = i ? left - half : half;

		len = len < sizeof(d[i]) ? len : sizeof(d[i]);
		v[i].data = d[i];
		v[i].size = sizeof(d[i]);
		v[i].bounce = bounce[i];
		v[i].tail = v[i].head = i ? 0 : sizeof(d[i]) - 24;
		for (size_t k = 0; k < len; k++)
			d[i][(v[i].head + k) % sizeof(d[i])] = src[k];
		v[i].head += len;
	}
	(void)pn_perfmerge(v, 2, UINT64_MAX, merged, &n, &st);
	assert(st.records == n);
	for (int i = 0; i < 2; i++)
		assert(v[i].tail <= v[i].head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pn_pgacct_cfg cfg = { .private_gfp = 0x200, .nexamples = 2 };
	struct pn_event_report rep = { 0 };
	struct pn_tpfield f[5];
	struct tep_event *ev = NULL;
	struct pn_pgacct *a;
	struct pn_pgdec dec;
	char buf[2048];
	const char *fmt = buf;
	size_t used = 1, flen;

	if (size < 13)
		return 0;
	if (data[0] % (NFMT + 1) < NFMT && fmt_text[data[0] % (NFMT + 1)]) {
		fmt = fmt_text[data[0] % (NFMT + 1)];
		flen = strlen(fmt);
	} else {
		flen = synth(buf, sizeof(buf), data + 1);
		used += 12;
	}
	memset(f, 0, sizeof(f));
	if (pn_pgdec_init(&dec))
		return 0;
	if (!pn_tp_parse(&dec.tp, "kmem", fmt, flen, &ev)) {
		for (int i = 0; i < 5; i++)
			(void)pn_tp_field(ev, names[i], 1, &f[i]);
		flags(ev);
		/* the fourth fixture is mm_private_alloc, the rest mm_page_alloc */
		(void)pn_pgdec_add(&dec, fmt == fmt_text[3] ? PN_TP_PALLOC : PN_TP_ALLOC, ev);
	}
	cfg.gfp_names = &dec.gfp_names;
	pn_nodeset_zero(&cfg.private_nodes);
	pn_nodeset_set(&cfg.private_nodes, 1);
	pn_nodeset_set(&cfg.private_nodes, 2);
	pn_pgacct_new(&a, &cfg);
	pn_pgacct_phase_begin(a, NULL);
	records(data + used, size - used, f, &dec, a);
	rings(data + used, size - used);
	pn_pgacct_phase_end(a, 0, &rep);
	cJSON_Delete(rep.details);
	pn_pgacct_free(a);
	pn_pgdec_free(&dec);
	return 0;
}
