/* SPDX-License-Identifier: MIT */
/*
 * ruleset_int.h - the loader's working state, shared by ruleset*.c
 * (internal to rules/).
 *
 * Loading has three stages, each file calling only into the ones below it:
 * files are read and parsed into node trees (ruleset.c, yaml_doc.c); items
 * are checked and merged into definitions, appends and overrides applied in
 * order (ruleset_items.c, with exceptions in ruleset_exc.c); then every
 * rule's final condition is composed with its exceptions and compiled
 * (ruleset_compile.c), and ruleset.c makes the evaluation-ready ruleset of
 * the rules. The trees stay alive until the end, so definitions borrow
 * their strings and every piece of a composed condition remembers the YAML
 * node it came from (ruleset_text.h).
 */
#ifndef PL_RULES_RULESET_INT_H
#define PL_RULES_RULESET_INT_H

#include "diag.h"
#include "ruleset.h"
#include "ruleset_text.h"
#include "yaml_doc.h"

#define RS_MAX_NAME 256 /* rule names */

struct rs_loc {
	const struct yd_file *f;
	const struct yd_node *n;
};

struct rs_list {
	const char *name;
	struct rs_loc at;
	const char **items;
	size_t n, cap;
	bool used, bad;
};

struct rs_macro {
	const char *name;
	struct rs_loc at;
	struct rs_text cond;
	bool used, bad, reported;
};

struct rs_exc {
	const char *name;
	struct rs_loc at;	 /* the `name` value */
	const struct yd_file *f; /* where fields and comps are */
	const struct yd_node **fields;
	const struct yd_node **comps; /* per field; NULL entry = "=" */
	size_t nfields;
	bool single;	       /* `fields: f` rather than a sequence */
	struct rs_loc *values; /* tuples (or single values) */
	size_t nvalues, capvalues;
};

struct rs_rule {
	const char *name;
	struct rs_loc at;
	struct rs_text desc, cond, output;
	enum rl_priority prio;
	const char **tags;
	size_t ntags, captags;
	bool enabled, bad;
	unsigned evidence;
	uint32_t throttle_s;
	unsigned when; /* 0: derive from the fields */
	struct rs_loc when_at;
	struct rs_exc *exc;
	size_t nexc, capexc;
};

struct rs_loader {
	struct rs_report rep;
	size_t errors0; /* rep.diags->errors when the load started */
	struct yd_file **files;
	size_t nfiles, capfiles;
	struct rs_list *lists;
	size_t nlists, caplists;
	struct rs_names list_ix;
	struct rs_macro *macros;
	size_t nmacros, capmacros;
	struct rs_names macro_ix;
	struct rs_rule *rules;
	size_t nrules, caprules;
	struct rs_names rule_ix;
	size_t items;
	bool marking; /* the resolver marks what it hands out as used */
	bool hit_bad; /* the resolver handed out a broken definition */
};

/* Exceptions (ruleset_exc.c). parse: checks a sequence of exception
 * mappings into *ret (the caller frees it with rs_excs_free even on
 * failure). merge: adds them to r (new names) or adds their values (known
 * names), taking src's contents. compose: the rule's final condition. */
int rs_parse_excs(struct rs_loader *L, const struct yd_file *f, const struct yd_node *n, const char *item,
		  struct rs_exc **ret, size_t *nret);
void rs_excs_free(struct rs_exc *v, size_t n);
int rs_merge_excs(struct rs_loader *L, struct rs_rule *r, struct rs_exc *src, size_t n, const char *item);
int rs_compose(struct rs_loader *L, const struct rs_rule *rr, struct rs_text *t, const char *item);

/* Items (ruleset_items.c). add_file: check and merge the items of f (L
 * takes f); problems are diagnostics, so it returns 0 or -ENOMEM. free:
 * everything L holds, the files' trees included. */
int rs_loader__add_file(struct rs_loader *L, struct yd_file *f);
void rs_loader__free(struct rs_loader *L);

/*
 * Compiling (ruleset_compile.c). compile: every rule loaded, except broken
 * ones, into *ret (an array of *ret_n rules, to release each with
 * rs_rule__release and free), once the load has no error at all. Returns 0,
 * -EINVAL (errors were reported) or -ENOMEM. release: frees what one rule
 * owns.
 */
int rs_loader__compile(struct rs_loader *L, struct rl_rule **ret, size_t *ret_n);
void rs_rule__release(struct rl_rule *r);

#define ERR(L, f, n, item, ...) rs_diag(&(L)->rep, RL_DIAG_ERROR, f, n, item, __VA_ARGS__)

/* Append room for one more element in (arr, n, cap); 0 or -ENOMEM. */
#define GROW(arr, n, cap)                                                                                              \
	({                                                                                                             \
		int _r = 0;                                                                                            \
		if ((n) == (cap)) {                                                                                    \
			size_t _c = (cap) ? (cap)*2 : 8;                                                               \
			void *_p = realloc((arr), _c * sizeof(*(arr)));                                                \
			if (_p) {                                                                                      \
				(arr) = _p;                                                                            \
				(cap) = _c;                                                                            \
			} else {                                                                                       \
				_r = -ENOMEM;                                                                          \
			}                                                                                              \
		}                                                                                                      \
		_r;                                                                                                    \
	})

#endif
