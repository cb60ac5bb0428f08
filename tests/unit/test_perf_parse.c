// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_perf_parse.c - the perf collector's parsers against replayed
 * fixtures: tracepoint formats (captured on 6.18, the reference series'
 * events, fields in another order, a field missing), raw entries read at the
 * format's offsets, gfp flags decoded as libtraceevent prints them,
 * truncated samples and records -> an error, never a read past the end; and
 * the time-ordered merge of per-CPU rings.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "collectors/perf/perfring.h"
#include "perftest.h"
#include "collectors/perf/tpfmt.h"

const char *__lsan_default_suppressions(void);

/* test_garbage_format: libtraceevent 1.7.1 leaks a token inside
 * tep_parse_format() on malformed text; not ours. */
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

struct fx {
	struct pn_tp tp;
	struct tep_event *ev;
};

static void load(struct fx *x, const char *tree, const char *name)
{
	char dir[4096];

	fixture(dir, sizeof(dir), tree);
	assert_int_equal(pn_tp_init(&x->tp), 0);
	assert_int_equal(pn_tp_load(&x->tp, dir, "kmem", name, &x->ev), 0);
}

static void field(const struct fx *x, const char *name, struct pn_tpfield *f)
{
	assert_int_equal(pn_tp_field(x->ev, name, 1, f), 0);
}

static void test_captured_alloc(void **state)
{
	struct pn_tpfield pfn, order, gfp, mt, ct;
	struct fx x;

	(void)state;
	load(&x, "tracefs-6.18", "mm_page_alloc");
	assert_int_equal(pn_tp_event_id(x.ev), 653);
	field(&x, "pfn", &pfn);
	field(&x, "order", &order);
	field(&x, "gfp_flags", &gfp);
	field(&x, "migratetype", &mt);
	field(&x, "common_type", &ct);
	assert_int_equal(pfn.offset, 8);
	assert_int_equal(pfn.size, 8);
	assert_int_equal(order.offset, 16);
	assert_int_equal(gfp.offset, 24);
	assert_int_equal(mt.offset, 32);
	assert_true(mt.is_signed);
	assert_false(order.is_signed);
	assert_int_equal(ct.size, 2);
	assert_int_equal(pn_tp_field(x.ev, "nid", 1, &pfn), -ENOENT);
	assert_false(pfn.present);
	pn_tp_free(&x.tp);
}

/* The same event with its fields in another order: the values come from
 * the format's offsets, not from where they usually are. */
static void test_reordered(void **state)
{
	struct pn_tpfield pfn = { 0 }, order = { 0 }, gfp = { 0 }, mt = { 0 };
	unsigned char raw[40] = { 0 };
	uint64_t v = 0;
	struct fx x;

	(void)state;
	load(&x, "tracefs-reordered", "mm_page_alloc");
	field(&x, "pfn", &pfn);
	field(&x, "order", &order);
	field(&x, "gfp_flags", &gfp);
	field(&x, "migratetype", &mt);
	assert_int_equal(pfn.offset, 24);
	assert_int_equal(gfp.offset, 8);
	put_field(raw, &pfn, 0x123456);
	put_field(raw, &order, 3);
	put_field(raw, &gfp, 0x140cca);
	put_field(raw, &mt, (uint64_t)-1);
	assert_int_equal(pn_tpfield_read(&pfn, raw, sizeof(raw), &v), 0);
	assert_int_equal(v, 0x123456);
	assert_int_equal(pn_tpfield_read(&order, raw, sizeof(raw), &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(pn_tpfield_read(&mt, raw, sizeof(raw), &v), 0);
	assert_int_equal((int64_t)v, -1); /* sign-extended */
	/* truncated: the entry ends inside pfn */
	assert_int_equal(pn_tpfield_read(&pfn, raw, 28, &v), -EINVAL);
	assert_int_equal(pn_tpfield_read(&pfn, raw, 0, &v), -EINVAL);
	pn_tp_free(&x.tp);
}

static void test_missing_field(void **state)
{
	struct pn_tpfield f;
	struct fx x;

	(void)state;
	load(&x, "tracefs-malformed", "mm_page_alloc");
	assert_int_equal(pn_tp_field(x.ev, "order", 1, &f), -ENOENT);
	/* a field too narrow for what the caller needs */
	assert_int_equal(pn_tp_field(x.ev, "common_flags", 2, &f), -EINVAL);
	pn_tp_free(&x.tp);
}

static void test_garbage_format(void **state)
{
	static const char junk[] = "name: x\nID: zz\nformat:\n\tfield:int";
	struct tep_event *ev = NULL;
	struct pn_tp tp;

	(void)state;
	assert_int_equal(pn_tp_init(&tp), 0);
	assert_int_not_equal(pn_tp_parse(&tp, "kmem", junk, sizeof(junk) - 1, &ev), 0);
	pn_tp_free(&tp);
}

/* Our decoding of gfp flags must print what libtraceevent prints. */
static void check_gfp(struct fx *x, const struct pn_tpflags *t, uint64_t v)
{
	struct tep_record rec = { 0 };
	struct pn_tpfield gfp, ct;
	unsigned char raw[40] = { 0 };
	struct trace_seq s;
	char mine[512];
	const char *want;

	field(x, "gfp_flags", &gfp);
	field(x, "common_type", &ct);
	put_field(raw, &ct, (uint64_t)pn_tp_event_id(x->ev));
	put_field(raw, &gfp, v);
	rec.data = raw;
	rec.size = sizeof(raw);
	trace_seq_init(&s);
	tep_print_event(x->tp.tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	want = strstr(s.buffer, "gfp_flags=");
	assert_non_null(want);
	assert_true(pn_tpflags_decode(t, v, mine, sizeof(mine)) > 0);
	assert_string_equal(mine, want + strlen("gfp_flags="));
	trace_seq_destroy(&s);
}

static void test_gfp_decode(void **state)
{
	static const uint64_t vals[] = { 0x140cca, 0xcc0, 0x2800, 0x0, 0x1, 0x400000, 0x40000000 };
	struct pn_tpflags t;
	uint64_t bit = 0;
	char small[8];
	struct fx x;

	(void)state;
	load(&x, "tracefs-6.18", "mm_page_alloc");
	assert_int_equal(pn_tp_flags(x.ev, "gfp_flags", &t), 0);
	assert_true(t.n > 20);
	assert_int_equal(pn_tpflags_value(&t, "__GFP_PRIVATE", &bit), -ENOENT);
	assert_int_equal(pn_tpflags_value(&t, "__GFP_COMP", &bit), 0);
	assert_int_equal(bit, 1 << 18);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		check_gfp(&x, &t, vals[i]);
	assert_int_equal(pn_tpflags_decode(&t, 0x140cca, small, sizeof(small)), -ENOSPC);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	pn_tpflags_free(&t);
	pn_tp_free(&x.tp);
}

static void test_series_formats(void **state)
{
	struct pn_tpflags t, r;
	struct pn_tpfield f;
	uint64_t bit = 0;
	char buf[64];
	struct fx x, y, z;

	(void)state;
	load(&x, "tracefs-series", "mm_page_alloc");
	assert_int_equal(pn_tp_flags(x.ev, "gfp_flags", &t), 0);
	assert_int_equal(pn_tpflags_value(&t, "__GFP_PRIVATE", &bit), 0);
	assert_int_equal(bit, 0x200);
	check_gfp(&x, &t, 0x140cca | 0x200);
	pn_tpflags_free(&t);
	load(&y, "tracefs-series", "mm_private_alloc");
	assert_int_equal(pn_tp_field(y.ev, "fallback", 1, &f), 0);
	assert_int_equal(f.offset, 32);
	assert_int_equal(pn_tp_flags(y.ev, "gfp_flags", &t), 0);
	pn_tpflags_free(&t);
	load(&z, "tracefs-series", "mm_private_skip");
	assert_int_equal(pn_tp_flags(z.ev, "reason", &r), 0);
	assert_true(r.symbolic);
	assert_int_equal(pn_tpflags_decode(&r, 6, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "gate");
	assert_true(pn_tpflags_decode(&r, 99, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "0x63");
	pn_tpflags_free(&r);
	pn_tp_free(&x.tp);
	pn_tp_free(&y.tp);
	pn_tp_free(&z.tp);
}

static void test_records(void **state)
{
	unsigned char raw[36] = { 1, 2, 3 }, buf[256];
	struct pn_perfrec r;
	size_t n = make_sample(buf, 42, 1000, 1, raw, sizeof(raw));

	(void)state;
	assert_int_equal(pn_perfrec_parse(buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_SAMPLE);
	assert_int_equal(r.pid, 42);
	assert_int_equal(r.time_ns, 1000);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(r.raw_size, 36);
	assert_memory_equal(r.raw, raw, 3);
	/* the buffer ends before the record does */
	for (size_t cut = 0; cut < n; cut++)
		assert_int_equal(pn_perfrec_parse(buf, cut, &r), -EINVAL);
	/* a raw size that runs past the record */
	{
		uint32_t big = 200;

		memcpy(buf + 32, &big, 4);
		assert_int_equal(pn_perfrec_parse(buf, n, &r), -EINVAL);
	}
	/* a LOST record with its sample_id trailer */
	{
		struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 8 + 16 + 24 };
		uint64_t body[5] = { 7, 57, 0, 2000, 1 };

		memcpy(buf, &h, 8);
		memcpy(buf + 8, body, sizeof(body));
		assert_int_equal(pn_perfrec_parse(buf, h.size, &r), 0);
		assert_int_equal(r.lost, 57);
		assert_int_equal(r.cpu, 1);
		assert_int_equal(r.time_ns, 2000);
		h.size = 8 + 16; /* without the trailer it is truncated */
		memcpy(buf, &h, 8);
		assert_int_equal(pn_perfrec_parse(buf, h.size, &r), -EINVAL);
	}
	/* COMM without its NUL */
	{
		struct perf_event_header h = { .type = PERF_RECORD_COMM, .size = 8 + 8 + 8 };
		uint32_t ids[2] = { 5, 5 };

		memcpy(buf, &h, 8);
		memcpy(buf + 8, ids, 8);
		memcpy(buf + 16, "abcdefgh", 8);
		assert_int_equal(pn_perfrec_parse(buf, h.size, &r), -EINVAL);
		buf[23] = '\0';
		assert_int_equal(pn_perfrec_parse(buf, h.size, &r), 0);
		assert_string_equal(r.comm, "abcdefg");
	}
}

static size_t nmalformed;

static int count_malformed(void *arg, size_t ring, const struct pn_perfrec *r)
{
	(void)arg, (void)ring;
	nmalformed += r->type == 0;
	return 0;
}

static uint64_t seen[64];
static int seen_ring[64];
static size_t nseen;

static int collect(void *arg, size_t ring, const struct pn_perfrec *r)
{
	(void)arg;
	assert_int_equal(r->type, PERF_RECORD_SAMPLE);
	assert_int_equal(r->raw_size, 12);
	assert_int_equal(r->raw[0], (unsigned char)r->time_ns); /* intact, even across the end */
	seen_ring[nseen] = (int)ring;
	seen[nseen++] = r->time_ns;
	return 0;
}

/* Samples stamped ts[0..n) into a ring of size bytes, starting at byte
 * position start (free-running: the data wraps around the end). */
static void fill_ring(struct pn_ringview *v, unsigned char *data, uint64_t size, uint64_t start,
		      const uint64_t *ts, size_t n)
{
	unsigned char rec[64], raw[12] = { 0 };

	memset(v, 0, sizeof(*v));
	v->data = data;
	v->size = size;
	v->tail = v->head = start;
	v->bounce = malloc(PN_PERFREC_MAX);
	for (size_t i = 0; i < n; i++) {
		size_t len;

		raw[0] = (unsigned char)ts[i];
		len = make_sample(rec, 1, ts[i], 0, raw, sizeof(raw));
		for (size_t k = 0; k < len; k++)
			data[(v->head + k) & (size - 1)] = rec[k];
		v->head += len;
	}
}

static void test_merge(void **state)
{
	static const uint64_t r0[] = { 1, 4, 5, 9 }, r1[] = { 2, 3, 8, 10, 11 };
	static unsigned char d0[256], d1[512];
	struct pn_perfmerge_stats st = { 0 };
	struct pn_ringview v[2];

	(void)state;
	/* ring 0 starts 40 bytes before its end: its second record wraps */
	fill_ring(&v[0], d0, sizeof(d0), 1000 * sizeof(d0) - 40, r0, 4);
	fill_ring(&v[1], d1, sizeof(d1), 0, r1, 5);
	nseen = 0;
	/* only what is older than the limit: the rest stays in its ring */
	assert_int_equal(pn_perfmerge(v, 2, 9, collect, NULL, &st), 0);
	assert_int_equal(nseen, 6);
	{
		static const uint64_t want[] = { 1, 2, 3, 4, 5, 8 };
		static const int ring[] = { 0, 1, 1, 0, 0, 1 };

		for (size_t i = 0; i < 6; i++) {
			assert_int_equal(seen[i], want[i]);
			assert_int_equal(seen_ring[i], ring[i]);
		}
	}
	assert_true(v[0].tail < v[0].head && v[1].tail < v[1].head);
	/* the writer adds one more; a sync round takes everything, in order */
	{
		static const uint64_t more[] = { 12 };
		struct pn_ringview w;

		fill_ring(&w, d0, sizeof(d0), v[0].head, more, 1);
		v[0].head = w.head;
		free(w.bounce);
	}
	assert_int_equal(pn_perfmerge(v, 2, UINT64_MAX, collect, NULL, &st), 0);
	assert_int_equal(nseen, 10);
	assert_int_equal(seen[6], 9);
	assert_int_equal(seen[9], 12);
	assert_int_equal(st.out_of_order, 0);
	assert_int_equal(st.records, 10);
	assert_true(v[0].tail == v[0].head && v[1].tail == v[1].head);
	/* a record whose size runs past head: handed over as malformed, and
	 * the rest of that ring is skipped */
	{
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 4096 };

		memcpy(d1 + (v[1].head & (sizeof(d1) - 1)), &h, sizeof(h));
		v[1].head += 64;
		nmalformed = 0;
		assert_int_equal(pn_perfmerge(v, 2, UINT64_MAX, count_malformed, NULL, &st), 0);
		assert_int_equal(nmalformed, 1);
		assert_true(v[1].tail == v[1].head);
	}
	free(v[0].bounce);
	free(v[1].bounce);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured_alloc), cmocka_unit_test(test_reordered),
		cmocka_unit_test(test_missing_field),  cmocka_unit_test(test_garbage_format),
		cmocka_unit_test(test_gfp_decode),     cmocka_unit_test(test_series_formats),
		cmocka_unit_test(test_records),	       cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
