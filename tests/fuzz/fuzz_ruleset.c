// SPDX-License-Identifier: MIT
/*
 * fuzz_ruleset.c - libFuzzer target: arbitrary bytes as a rule file.
 *
 * Whatever the input, loading must terminate, stay within its bounds, and
 * free everything (ASan/LSan check that); a valid ruleset is also evaluated
 * once per kind on an empty event so compiled trees get exercised.
 */
#include <stddef.h>
#include <stdint.h>

#include "ruleset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rl_kind kinds[] = {RL_KIND_EXEC, RL_KIND_WINDOW, RL_KIND_EXIT};
	struct rl_diags diags = {0};
	struct rl_ruleset *rs = NULL;
	static struct pl_sample ev;

	if (rl_ruleset__load_buffer("fuzz.yaml", (const char *)data, size, &rs, &diags) == 0) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			pl_sample__init(&ev, (enum pl_moment)kinds[i]);
			rl_ruleset__eval(rs, &ev, NULL, NULL, NULL);
		}
		rl_ruleset__free(rs);
	}
	rl_diags__free(&diags);
	return 0;
}
