// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_config.c - libFuzzer target for the config parser: any bytes go
 * through pn_config_parse(); it must either load a config set or return
 * -EINVAL, never crash, leak or read out of bounds.  Seed corpus:
 * tests/fuzz/corpus/config/ (the shipped configs and the broken ones).
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pn_config_set cs;
	int ret;

	pn_log_level = PN_LOG_QUIET;
	ret = pn_config_parse((const char *)data, size, "fuzz.json", &cs);
	if (ret == 0) {
		/* a loaded set is complete: every point has its canonical form */
		assert(cs.n >= 1 && cs.n <= PN_CONFIG_MAX_POINTS);
		for (size_t i = 0; i < cs.n; i++) {
			char *text = cJSON_PrintUnformatted(cs.points[i].resolved);

			assert(text);
			cJSON_free(text);
		}
		pn_config_set_free(&cs);
	} else {
		assert(ret == -EINVAL && cs.n == 0 && !cs.points);
	}
	return 0;
}
