// SPDX-License-Identifier: MIT
/*
 * interp.c - interpreter evaluation frames, known by their functions' names.
 */
#include "stacks/interp.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cleanup.h"

/* CPython: the evaluation loop, and the calls that enter it for a code
 * object or a function (3.7 to 3.13; the static ones are named only with
 * a debug file). */
static const char *const python[] = {
    "_PyEval_EvalFrameDefault", "PyEval_EvalFrame",	    "PyEval_EvalFrameEx",	    "PyEval_EvalCode",
    "PyEval_EvalCodeEx",	"_PyEval_EvalCode",	    "_PyEval_EvalCodeWithName",	    "_PyEval_Vector",
    "_PyFunction_Vectorcall",	"_PyFunction_FastCallDict", "_PyFunction_FastCallKeywords", "function_code_fastcall",
};

/* Perl: the run loops, the ops they run, and the calls into them. */
static const char *const perl[] = {
    "Perl_runops_standard", "Perl_runops_debug", "Perl_pp_*",	 "perl_run",
    "S_run_body",	    "Perl_call_sv",	 "Perl_eval_sv", "Perl_eval_pv",
};

/* bash's executor (execute_cmd.c), its reader loop, and the builtins that
 * run more shell code (eval, source). */
static const char *const bash[] = {
    "execute_*", "reader_loop", "parse_and_execute", "evalstring", "eval_builtin", "source_builtin", "source_file",
};

/* dash's evaluator (eval.c) and its command loop. */
static const char *const dash[] = {
    "eval*",
    "cmdloop",
};

static const struct interp {
	const char *name;
	const char *const *files; /* base names the object must have; NULL: any */
	const char *const *pats;  /* names: exact, or a prefix when it ends in '*' */
	size_t npats;
} interps[] = {
    {"python", NULL, python, ARRAY_SIZE(python)},
    {"perl", NULL, perl, ARRAY_SIZE(perl)},
    {"bash", (const char *const[]){"bash", "rbash", NULL}, bash, ARRAY_SIZE(bash)},
    {"dash", (const char *const[]){"dash", NULL}, dash, ARRAY_SIZE(dash)},
};

/* Suffixes gcc gives the parts and clones of a function ("f.cold", "f.isra.0"). */
static const char *const clone_suffixes[] = {".cold", ".part.", ".isra.", ".constprop.", ".lto_priv."};

/* The length of fn without a clone suffix. */
static size_t base_len(const char *fn)
{
	const char *dot = strchr(fn, '.');

	if (!dot)
		return strlen(fn);
	for (size_t i = 0; i < ARRAY_SIZE(clone_suffixes); i++)
		if (!strncmp(dot, clone_suffixes[i], strlen(clone_suffixes[i])))
			return (size_t)(dot - fn);
	return strlen(fn);
}

static bool matches(const char *pat, const char *fn, size_t len)
{
	size_t pl = strlen(pat);

	if (pl && pat[pl - 1] == '*')
		return len >= pl && !strncmp(fn, pat, pl - 1); /* and at least one character more */
	return len == pl && !strncmp(fn, pat, len);
}

static bool file_is(const char *const *files, const char *object)
{
	const char *slash = object ? strrchr(object, '/') : NULL;
	const char *base = slash ? slash + 1 : object;

	if (!files)
		return true;
	for (; base && *files; files++)
		if (!strcmp(base, *files))
			return true;
	return false;
}

const char *interp__of(const char *object, const char *function)
{
	size_t len;

	if (!function || !*function)
		return NULL;
	len = base_len(function);
	for (size_t i = 0; i < ARRAY_SIZE(interps); i++) {
		const struct interp *in = &interps[i];

		if (!file_is(in->files, object))
			continue;
		for (size_t k = 0; k < in->npats; k++)
			if (matches(in->pats[k], function, len))
				return in->name;
	}
	return NULL;
}
