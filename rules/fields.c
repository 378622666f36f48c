// SPDX-License-Identifier: MIT
/*
 * fields.c - the field table and name lookups.
 */
#include "fields.h"

#include <string.h>

#include "syscalls.h"

static const struct rl_field_info table[RL_NFIELDS] = {
#define RL_FIELD_INFO(id, n, t, k, u, d) [RL_F_##id] = { .name = n, .type = RL_T_##t, .kinds = k, .unit = u, .desc = d },
	RL_FIELDS(RL_FIELD_INFO)
#undef RL_FIELD_INFO
};

const struct rl_field_info *rl_field__info(enum rl_field f)
{
	static struct rl_field_info with_param[RL_NFIELDS];
	static bool init;

	if (f >= RL_NFIELDS)
		return NULL;
	if (!init) {
		/* the parameterized ones are named in their descriptions as NAME[...] */
		for (int i = 0; i < RL_NFIELDS; i++) {
			with_param[i] = table[i];
			with_param[i].param = i == RL_F_PROC_SYSCALL || i == RL_F_WIN_SYSCALL_PER_S;
		}
		init = true;
	}
	return &with_param[f];
}

int rl_field__lookup(const char *name, size_t len)
{
	for (int i = 0; i < RL_NFIELDS; i++)
		if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0)
			return i;
	return -1;
}

/* Levenshtein distance, bounded: stops counting past max. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb, size_t max)
{
	size_t prev[128], cur[128];

	if (la >= 127 || lb >= 127)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t best = cur[0] = i;

		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			if (cur[j] < best)
				best = cur[j];
		}
		if (best > max)
			return max + 1;
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

const char *rl_field__suggest(const char *name, size_t len)
{
	const char *best = NULL;
	size_t bestd = 4;

	for (int i = 0; i < RL_NFIELDS; i++) {
		size_t d = distance(name, len, table[i].name, strlen(table[i].name), bestd - 1);

		if (d < bestd) {
			bestd = d;
			best = table[i].name;
		}
	}
	return best;
}

int rl_field__syscall_number(const char *name)
{
	int nr = syscall_number(name);

	return nr >= 0 && nr < 512 ? nr : -1;
}

const char *rl_type__name(enum rl_type t)
{
	switch (t) {
	case RL_T_NUM:
		return "number";
	case RL_T_BOOL:
		return "boolean";
	case RL_T_STR:
		return "string";
	case RL_T_STRLIST:
		return "string list";
	}
	return "?";
}
