// SPDX-License-Identifier: GPL-2.0-only
/*
 * out_tap.c - `run --tap FILE`: the run's test cases (out_ci.h) as TAP
 * version 13, one line each, the plan first.  A failed case is `not ok`
 * with a YAML block (message, and a check's expected and observed); a
 * skipped workload or node `ok ... # SKIP REASON`; an inconclusive node or
 * run `not ok ... (inconclusive)` with no directive, so that no harness
 * counts what could not be seen as a pass (a # TODO would); the run's own
 * verdict is the last line, `not ok` while the run is incomplete.
 */
#include <stdbool.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "out_ci.h"

static void yaml_field(FILE *f, const char *key, const char *value)
{
	if (!value)
		return;
	fprintf(f, "  %s: \"", key);
	pn_out_yaml(f, value);
	fputs("\"\n", f);
}

static void tap_case(FILE *f, size_t num, const struct pn_out_case *c)
{
	static const char *const verdict[] = {
		[PN_CASE_PASS] = "pass",
		[PN_CASE_FAIL] = "fail",
		[PN_CASE_ERROR] = "error",
		[PN_CASE_SKIP] = "skipped",
		[PN_CASE_INCONCLUSIVE] = "inconclusive",
	};
	bool ok = c->state == PN_CASE_PASS || c->state == PN_CASE_SKIP;

	fprintf(f, "%s %zu - ", ok ? "ok" : "not ok", num);
	if (c->point >= 0)
		fprintf(f, "point %d iteration %d: ", c->point, c->iteration);
	pn_out_tap_desc(f, c->name);
	if (c->state == PN_CASE_INCONCLUSIVE)
		fputs(" (inconclusive)", f);
	if (c->state == PN_CASE_SKIP) {
		fputs(" # SKIP ", f);
		pn_out_tap_desc(f, c->message);
	}
	fputc('\n', f);
	if (ok)
		return;
	fputs("  ---\n", f);
	fprintf(f, "  verdict: %s\n  kind: %s\n", verdict[c->state], c->kind);
	yaml_field(f, "message", c->message);
	yaml_field(f, "expected", c->expected);
	yaml_field(f, "observed", c->observed);
	fputs("  ...\n", f);
}

char *pn_out_tap(const cJSON *root)
{
	struct pn_out_cases cs;
	char *out = NULL, *blind;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		abort();
	pn_out_cases_build(root, &cs);
	fprintf(f, "TAP version 13\n1..%zu\n# pnbench ", cs.n);
	pn_out_tap_desc(f, pn_out_str(cJSON_GetObjectItem(root, "config"), "name", "run"));
	fputs(" on ", f);
	pn_out_tap_desc(f, pn_out_str(cJSON_GetObjectItem(root, "host"), "hostname", "?"));
	fputs(", kernel ", f);
	pn_out_tap_desc(f, pn_out_str(cJSON_GetObjectItem(root, "kernel"), "release", "?"));
	fputs(": ", f);
	pn_out_tap_desc(f, pn_out_str(cJSON_GetObjectItem(root, "status"), "state", "incomplete"));
	fputc('\n', f);
	for (size_t i = 0; i < cs.n; i++)
		tap_case(f, i + 1, &cs.v[i]);
	blind = pn_out_blind_spot(root);
	if (blind) {
		fputs("# ", f);
		pn_out_tap_desc(f, blind);
		fputc('\n', f);
		free(blind);
	}
	fprintf(f, "# %d passed, %d failed, %d errors, %d skipped, %d inconclusive\n", cs.passed,
		cs.failed, cs.errors, cs.skipped, cs.inconclusive);
	fclose(f);
	pn_out_cases_free(&cs);
	return out;
}
