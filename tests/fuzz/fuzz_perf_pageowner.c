// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_perf_pageowner.c - the page_owner record parser and its grouping over
 * arbitrary text: the input is split into records at blank lines as the
 * reader splits the file, fed to pn_pgowner_feed() with one pfn range, and
 * the result turned into JSON.  Every pfn a record reports must be
 * accounted consistently (pages >= explicit pages, stacks within records).
 */
#include <assert.h>
#include <cjson/cJSON.h>
#include <stdint.h>
#include <string.h>

#include "collectors/perf/pgowner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pn_pfnrange r[] = { { 0x40000, 0x50000, 1 }, { 0x10, 0x20, 1 } };
	static const uint32_t xp[] = { 7 };
	const char *p = (const char *)data, *end = p + size;
	struct pn_pgowner o;
	int64_t sum = 0;
	cJSON *j;

	pn_pgowner_init(&o, r, 2, xp, 1);
	while (p < end) {
		const char *e = memmem(p, (size_t)(end - p), "\n\n", 2);
		size_t n = e ? (size_t)(e - p) + 1 : (size_t)(end - p);

		(void)pn_pgowner_feed(&o, p, n);
		p += n + (e ? 1 : 0);
	}
	assert(o.pages >= o.explicit_pages && o.explicit_pages >= 0);
	for (size_t i = 0; i < o.n; i++)
		sum += o.s[i].pages;
	assert(sum == o.pages - o.explicit_pages);
	j = pn_pgowner_json(&o, 3);
	assert(cJSON_GetArraySize(cJSON_GetObjectItem(j, "top_stacks")) <= 3);
	cJSON_Delete(j);
	pn_pgowner_free(&o);
	return 0;
}
