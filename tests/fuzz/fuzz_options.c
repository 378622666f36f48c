// SPDX-License-Identifier: MIT
/*
 * fuzz_options.c - libFuzzer target: arbitrary bytes as the command line of
 * `plumbline run` (the arguments after "run", NUL-separated), through the
 * option table (run_opts__parse(), sensor/config/options_table.c): every
 * option's setter and range check, and the checks of combinations.
 *
 * Invariants: the parse returns 0, 1 (--help) or -EINVAL, and a refusal
 * always says why (at least one error logged); the lists stay within their
 * arrays; and parsing the same command line again gives the same options
 * (no state left from one parse to the next: a SIGHUP reload parses again).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/options.h"
#include "fuzz_input.h"
#include "log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ARGS_MAX  32
#define INPUT_MAX 4096

static unsigned nerrors;

static void count_errors(enum log_level lvl, const char *msg, void *ctx)
{
	if (lvl == LOG_LVL_ERROR)
		nerrors++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* --help's text */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	log_set_sink(count_errors, NULL);
	return 0;
}

static int parse(int argc, char **argv, struct run_opts *o, unsigned *ret_errors)
{
	int r;

	nerrors = 0;
	r = run_opts__parse(argc, argv, o);
	*ret_errors = nerrors;
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run_opts a, b;
	char *argv[ARGS_MAX + 2], *copy[ARGS_MAX + 2], *text;
	unsigned ea, eb;
	int argc = 1, ra, rb;

	if (size > INPUT_MAX || !(text = malloc(size + 1)))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	argv[0] = "run";
	for (size_t i = 0; i < size && argc <= ARGS_MAX; argc++) {
		argv[argc] = text + i;
		i += strlen(text + i) + 1;
	}
	argv[argc] = NULL;
	/* getopt_long() permutes argv: the second parse gets the first's order */
	memcpy(copy, argv, sizeof(argv));
	ra = parse(argc, argv, &a, &ea);
	FZ_ASSERT(ra == 0 || ra == 1 || ra == -EINVAL);
	FZ_ASSERT(ra != -EINVAL || ea > 0);
	FZ_ASSERT(a.nrule_paths <= sizeof(a.rule_paths) / sizeof(a.rule_paths[0]));
	FZ_ASSERT(a.nenable <= sizeof(a.enable) / sizeof(a.enable[0]));
	FZ_ASSERT(a.ndisable <= sizeof(a.disable) / sizeof(a.disable[0]));
	rb = parse(argc, copy, &b, &eb);
	FZ_ASSERT(rb == ra && eb == ea);
	if (ra == 0)
		FZ_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
	free(text);
	return 0;
}
