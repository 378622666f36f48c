// SPDX-License-Identifier: MIT
/*
 * fuzz_config.c - libFuzzer target: arbitrary bytes as a config file
 * (common/conffile.c).
 *
 * Whatever the input, parsing must terminate, stay within its bounds
 * (CF_FILE_MAX, CF_LINE_MAX, CF_ENTRIES_MAX, CF_ERRORS_MAX), free
 * everything (ASan/LSan), and hand back only what the grammar allows: every
 * key of the key alphabet, every position inside the input, and a value
 * that conffile__needs_quotes() round-trips.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conffile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conffile cf;
	int r = conffile__parse((const char *)data, size, &cf);

	if (r != 0 && r != -22 /* EINVAL */ && r != -27 /* EFBIG */)
		abort();
	if (cf.n > CF_ENTRIES_MAX || cf.nerr > CF_ERRORS_MAX || cf.nerr > cf.errors || (r == 0) != (cf.errors == 0))
		abort();
	for (size_t i = 0; i < cf.n; i++) {
		const struct cf_entry *e = &cf.e[i];
		size_t klen = strlen(e->key);

		if (!klen || klen > CF_KEY_MAX || strspn(e->key, "abcdefghijklmnopqrstuvwxyz0123456789-") != klen ||
		    e->key[0] == '-')
			abort();
		if (e->line < 1 || (size_t)e->line > size || e->col < 1 || e->col > CF_LINE_MAX || e->vcol <= e->col)
			abort();
		/* a bare value never needs quotes, or it would not have parsed back */
		if (!e->quoted && conffile__needs_quotes(e->value))
			abort();
	}
	for (size_t i = 0; i < cf.nerr; i++)
		if (cf.err[i].line < 1 || (size_t)cf.err[i].line > size || cf.err[i].col < 1 ||
		    cf.err[i].col > CF_LINE_MAX + 1 || !cf.err[i].msg[0])
			abort();
	conffile__free(&cf);
	return 0;
}
