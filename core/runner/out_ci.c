// SPDX-License-Identifier: GPL-2.0-only
/*
 * out_ci.c - the CI outputs' common part (out_ci.h): the escaping of each
 * format and the one list of test cases JUnit and TAP print.  Writing the
 * requested files is out_write.c's (it calls the three formats, which call
 * this file: calls only go down).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "core/lib/atomicfile.h"
#include "core/lib/pn.h"
#include "core/lib/utf8.h"
#include "out_ci.h"
#include "run.h"

/* ------------------------------------------------------------ escaping */

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/*
 * The code point at s (NUL-terminated) and its length in bytes; a byte
 * that does not start a well-formed sequence is one byte of U+FFFD.
 */
static uint32_t next_cp(const unsigned char *s, size_t *len)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	uint32_t cp;

	*len = 1;
	if (n == 1)
		return s[0];
	for (size_t i = 1; i < n; i++)
		if (!s[i])
			return 0xfffd;
	if (pn_utf8_check((const char *)s, n) >= 0)
		return 0xfffd;
	*len = n;
	cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* Bytes of the code point at s as they were (or U+FFFD when invalid). */
static void put_cp(FILE *f, const unsigned char *s, size_t len, uint32_t cp)
{
	if (cp == 0xfffd && len == 1)
		fputs(REPLACEMENT, f);
	else
		fwrite(s, 1, len, f);
}

void pn_out_xml(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len;

	for (; *s; s += len) {
		uint32_t cp = next_cp(s, &len);

		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\t': fputs("&#9;", f); break;
		case '\n': fputs("&#10;", f); break;
		case '\r': fputs("&#13;", f); break;
		default:
			if (cp < 0x20 || cp == 0xfffe || cp == 0xffff)
				fputs(REPLACEMENT, f);
			else
				put_cp(f, s, len, cp);
		}
	}
}

void pn_out_om_label(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len;

	for (; *s; s += len) {
		uint32_t cp = next_cp(s, &len);

		if (cp == '\\')
			fputs("\\\\", f);
		else if (cp == '"')
			fputs("\\\"", f);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp < 0x20 && cp != '\t')
			fputs(REPLACEMENT, f);
		else
			put_cp(f, s, len, cp);
	}
}

void pn_out_tap_desc(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len;

	for (; *s; s += len) {
		uint32_t cp = next_cp(s, &len);

		if (cp == '#')
			fputs("\\#", f);
		else if (cp == '\\')
			fputs("\\\\", f);
		else if (cp < 0x20 || cp == 0x7f)
			fputc(' ', f);
		else
			put_cp(f, s, len, cp);
	}
}

void pn_out_yaml(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len;

	for (; *s; s += len) {
		uint32_t cp = next_cp(s, &len);

		switch (cp) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (cp < 0x20 || cp == 0x7f)
				fprintf(f, "\\x%02x", (unsigned int)cp);
			else
				put_cp(f, s, len, cp);
		}
	}
}

void pn_out_om_value(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

const char *pn_out_str(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* ------------------------------------------------------------ the cases */

__attribute__((format(printf, 1, 2))) static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort(); /* allocation failure is fatal (pn_xmalloc) */
	return s;
}

static struct pn_out_case *add_case(struct pn_out_cases *cs, enum pn_case_state st,
				    const char *kind, int point, int iteration, char *name,
				    char *message)
{
	struct pn_out_case *c;

	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 32;
		cs->v = pn_xrealloc(cs->v, cs->cap * sizeof(*cs->v));
	}
	c = &cs->v[cs->n++];
	*c = (struct pn_out_case){ st, kind, point, iteration, name, message, NULL, NULL };
	switch (st) {
	case PN_CASE_PASS: cs->passed++; break;
	case PN_CASE_FAIL: cs->failed++; break;
	case PN_CASE_ERROR: cs->errors++; break;
	case PN_CASE_SKIP: cs->skipped++; break;
	case PN_CASE_INCONCLUSIVE: cs->inconclusive++; break;
	}
	return c;
}

static int int_of(const cJSON *o, const char *key, int dflt)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valueint : dflt;
}

/* One workload of a phase: its checks, or its status when it has none. */
static void workload_cases(struct pn_out_cases *cs, int pt, int it, const char *phase, int idx,
			   const cJSON *wl)
{
	const char *w = pn_out_str(wl, "workload", "?"), *st = pn_out_str(wl, "status", "?");
	const cJSON *checks = cJSON_GetObjectItem(wl, "checks"), *ck;

	if (cJSON_GetArraySize(checks) == 0 && strcmp(st, "ok") != 0) {
		bool skipped = !strcmp(st, "skipped");

		add_case(cs, skipped ? PN_CASE_SKIP : PN_CASE_ERROR, "workload", pt, it,
			 xasprintf("%s/%d:%s: %s", phase, idx, w, st),
			 xasprintf("%s", pn_out_str(wl, "reason", st)));
		return;
	}
	cJSON_ArrayForEach (ck, checks) {
		bool pass = cJSON_IsTrue(cJSON_GetObjectItem(ck, "pass"));
		const char *e = pn_out_str(ck, "expected", ""), *o = pn_out_str(ck, "observed", "");
		struct pn_out_case *c;

		c = add_case(cs, pass ? PN_CASE_PASS : PN_CASE_FAIL, "check", pt, it,
			     xasprintf("%s/%d:%s: %s", phase, idx, w, pn_out_str(ck, "name", "?")),
			     pass ? NULL : xasprintf("expected %s, observed %s", e, o));
		c->expected = e;
		c->observed = o;
	}
}

/* The --exec command's exit status: a check, as verdict.c counts it. */
static void exec_case(struct pn_out_cases *cs, int pt, int it, const char *phase, const cJSON *ex)
{
	const cJSON *code = cJSON_GetObjectItem(ex, "exit_code");
	bool pass = cJSON_IsNumber(code) && code->valueint == 0;
	char *obs = cJSON_IsNumber(code) ? xasprintf("exit %d", code->valueint)
					 : xasprintf("signal %d", int_of(ex, "signal", 0));

	add_case(cs, pass ? PN_CASE_PASS : PN_CASE_FAIL, "check", pt, it,
		 xasprintf("%s/--exec: command exit status", phase),
		 pass ? NULL : xasprintf("expected exit 0, observed %s", obs));
	free(obs);
}

static void point_cases(struct pn_out_cases *cs, const cJSON *pj)
{
	int pt = int_of(pj, "index", 0);
	const cJSON *itj, *ph, *wl;

	cJSON_ArrayForEach (itj, cJSON_GetObjectItem(pj, "iterations")) {
		int it = int_of(itj, "index", 0);

		cJSON_ArrayForEach (ph, cJSON_GetObjectItem(itj, "phases")) {
			const char *name = pn_out_str(ph, "name", "?");
			const cJSON *ex = cJSON_GetObjectItem(ph, "exec");
			int idx = 0;

			cJSON_ArrayForEach (wl, cJSON_GetObjectItem(ph, "workloads"))
				workload_cases(cs, pt, it, name, idx++, wl);
			if (ex)
				exec_case(cs, pt, it, name, ex);
		}
	}
}

/* The verdict's reasons that contain needle ("" for all), joined by "; ". */
static char *reasons_with(const cJSON *v, const char *needle)
{
	const cJSON *r;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		abort();
	cJSON_ArrayForEach (r, cJSON_GetObjectItem(v, "reasons")) {
		if (!cJSON_IsString(r) || !strstr(r->valuestring, needle))
			continue;
		fprintf(f, "%s%s", ftell(f) ? "; " : "", r->valuestring);
	}
	fclose(f);
	return out;
}

static double num_of(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static bool incomplete(const cJSON *root)
{
	return !strcmp(pn_out_str(cJSON_GetObjectItem(root, "status"), "state", "incomplete"),
		       "incomplete");
}

enum pn_case_state pn_out_node_state(const cJSON *root, int n)
{
	const cJSON *v = cJSON_GetObjectItem(root, "verdict"), *nj;
	char key[16];

	snprintf(key, sizeof(key), "%d", n);
	nj = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "nodes"), key);
	if (!nj)
		return PN_CASE_SKIP;
	if (!cJSON_IsTrue(cJSON_GetObjectItem(nj, "pass")))
		return PN_CASE_FAIL;
	if (cJSON_IsTrue(cJSON_GetObjectItem(nj, "inconclusive")))
		return PN_CASE_INCONCLUSIVE;
	if (num_of(cJSON_GetObjectItem(v, "thresholds"), "general_pages", 0) < 0)
		return PN_CASE_SKIP;
	/* nothing over the threshold so far: not a pass until the run ends */
	return incomplete(root) ? PN_CASE_INCONCLUSIVE : PN_CASE_PASS;
}

/* Why node n did not pass, for its state st (malloc'd; NULL for a pass). */
static char *node_why(const cJSON *root, int n, enum pn_case_state st)
{
	const cJSON *v = cJSON_GetObjectItem(root, "verdict"), *nj;
	double thr = num_of(cJSON_GetObjectItem(v, "thresholds"), "general_pages", 0);
	char key[16], needle[48], *why;

	snprintf(key, sizeof(key), "%d", n);
	snprintf(needle, sizeof(needle), "private node %d:", n);
	nj = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "nodes"), key);
	switch (st) {
	case PN_CASE_FAIL:
		why = reasons_with(v, needle);
		if (*why)
			return why;
		free(why);
		return xasprintf("%.0f general pages on private node %d (threshold %.0f)",
				 num_of(nj, "general_pages_max", 0), n, thr);
	case PN_CASE_INCONCLUSIVE:
		if (cJSON_IsTrue(cJSON_GetObjectItem(nj, "inconclusive")))
			return xasprintf("inconclusive: %s",
					 pn_out_str(nj, "inconclusive_reason", "a source failed"));
		return xasprintf("inconclusive: the run is incomplete (%s); %.0f general pages "
				 "so far",
				 pn_out_str(cJSON_GetObjectItem(root, "status"), "reason", "?"),
				 num_of(nj, "general_pages_max", 0));
	case PN_CASE_SKIP:
		return nj ? xasprintf("not judged: thresholds.general_pages is %.0f (figures only)",
				      thr)
			  : xasprintf("not judged: no reading of node %d", n);
	default: return NULL;
	}
}

/* The run's verdict: what verdict.result says, and incomplete while the
 * status is (running, interrupted, killed before its last write). */
static void run_case(struct pn_out_cases *cs, const cJSON *root, const cJSON *v)
{
	const cJSON *st = cJSON_GetObjectItem(root, "status");
	const char *res = pn_out_str(v, "result", "incomplete");
	char *why = reasons_with(v, "");
	char *name = xasprintf("verdict: %s", res);
	enum pn_case_state s;

	if (incomplete(root) || !strcmp(res, "incomplete")) {
		add_case(cs, PN_CASE_ERROR, "verdict", -1, -1, name,
			 xasprintf("incomplete: %s%s%s", pn_out_str(st, "reason", "not finished"),
				   *why ? "; so far: " : "", why));
		free(why);
		return;
	}
	s = !strcmp(res, "pass")	     ? PN_CASE_PASS
	    : !strcmp(res, "fail")	     ? PN_CASE_FAIL
	    : !strcmp(res, "inconclusive")   ? PN_CASE_INCONCLUSIVE
	    : !strcmp(res, "not_applicable") ? PN_CASE_SKIP
					     : PN_CASE_ERROR;
	if (s == PN_CASE_PASS) {
		free(why);
		why = NULL;
	} else if (!*why) {
		free(why);
		why = xasprintf("%s: %s", res, pn_out_str(st, "reason", "no reason given"));
	}
	add_case(cs, s, "verdict", -1, -1, name, why);
}

void pn_out_cases_build(const cJSON *root, struct pn_out_cases *cs)
{
	const cJSON *pj;
	struct pn_nodeset priv;
	int n;

	memset(cs, 0, sizeof(*cs));
	cJSON_ArrayForEach (pj, cJSON_GetObjectItem(root, "points"))
		point_cases(cs, pj);
	if (pn_nodeset_parse(&priv,
			     pn_out_str(cJSON_GetObjectItem(root, "roles"), "private", "")) == 0)
		pn_nodeset_for_each (n, &priv) {
			enum pn_case_state st = pn_out_node_state(root, n);

			add_case(cs, st, "node", -1, -1,
				 xasprintf("private node %d: general allocations", n),
				 node_why(root, n, st));
		}
	run_case(cs, root, cJSON_GetObjectItem(root, "verdict"));
}

char *pn_out_blind_spot(const cJSON *root)
{
	const cJSON *bs = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "verdict"), "blind_spot");

	if (!cJSON_IsObject(bs))
		return NULL;
	return xasprintf("counters only (%s): invisible are %s (sample interval %.0f ms)",
			 pn_out_str(bs, "why", "no events"), pn_out_str(bs, "invisible", "?"),
			 num_of(bs, "sample_interval_ms", 0));
}

void pn_out_cases_free(struct pn_out_cases *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].name);
		free(cs->v[i].message);
	}
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}
