/* SPDX-License-Identifier: MIT */
/*
 * ruleset_int.h - the loader's working state, shared by ruleset*.c
 * (internal to rules/).
 *
 * Loading has three stages: files are parsed into node trees (yaml_doc.c);
 * items are checked and merged into definitions, appends and overrides
 * applied in order (ruleset_items.c); then every rule's final condition is
 * composed with its exceptions and compiled (ruleset_compile.c). The trees
 * stay alive until the end, so definitions borrow their strings and every
 * piece of a composed condition remembers the YAML node it came from.
 */
#ifndef PL_RULES_RULESET_INT_H
#define PL_RULES_RULESET_INT_H

#include "diag.h"
#include "ruleset.h"
#include "yaml_doc.h"

#define RS_MAX_ITEMS 100000u		 /* items over all files of one load */
#define RS_MAX_FILE  (16u * 1024 * 1024) /* bytes per file */
#define RS_MAX_NAME  256		 /* rule names */
#define RS_MAX_TEXT  (1u << 20)		 /* a condition, output or desc after appends */

/* A source text put together from pieces of YAML scalars (appends,
 * exceptions), with a map back to the pieces. */
struct rs_seg {
	size_t start, len;	 /* in the text */
	const struct yd_file *f; /* NULL: glue we added */
	const struct yd_node *n;
	bool flat; /* any offset inside maps to n's start */
};

struct rs_text {
	char *s; /* NUL-terminated, or NULL when empty */
	size_t len, cap;
	struct rs_seg *seg;
	size_t nseg, capseg;
};

/* Returns 0, -ENOMEM, or -E2BIG past RS_MAX_TEXT. */
int rs_text__add(struct rs_text *t, const char *s, size_t len, const struct yd_file *f, const struct yd_node *n,
		 bool flat);
int rs_text__add_node(struct rs_text *t, const struct yd_file *f, const struct yd_node *n);
/* Map text[start..len) (already added as glue) to node n, flat. */
int rs_text__mark(struct rs_text *t, size_t start, const struct yd_file *f, const struct yd_node *n);
/* Append another text (its map shifted). */
int rs_text__add_text(struct rs_text *t, const struct rs_text *src);
void rs_text__free(struct rs_text *t);
/* Where offset of the text is: the file and 1-based line/col. False when
 * the text has no piece from a file. */
bool rs_text__locate(const struct rs_text *t, size_t off, const struct yd_file **f, int *line, int *col);

/* name -> index, open addressing; names are borrowed. */
struct rs_names {
	const char **name;
	size_t *idx;
	size_t cap, n;
};

/* SIZE_MAX when absent. */
size_t rs_names__get(const struct rs_names *h, const char *name);
int rs_names__put(struct rs_names *h, const char *name, size_t idx);
void rs_names__free(struct rs_names *h);

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

struct rl_ruleset {
	struct rl_rule *rules;
	size_t n;
	struct rl_rule **run[3]; /* enabled rules per kind (exec, window, exit), each of capacity n */
	size_t nrun[3];
	unsigned kinds;
};

void rs_loader__free(struct rs_loader *L);

/* Exceptions (ruleset_exc.c). parse: checks a sequence of exception
 * mappings into *ret (the caller frees it with rs_excs_free even on
 * failure). merge: adds them to r (new names) or adds their values (known
 * names), taking src's contents. compose: the rule's final condition. */
int rs_parse_excs(struct rs_loader *L, const struct yd_file *f, const struct yd_node *n, const char *item,
		  struct rs_exc **ret, size_t *nret);
void rs_excs_free(struct rs_exc *v, size_t n);
int rs_merge_excs(struct rs_loader *L, struct rs_rule *r, struct rs_exc *src, size_t n, const char *item);
int rs_compose(struct rs_loader *L, const struct rs_rule *rr, struct rs_text *t, const char *item);

/* Check and merge the items of f (L takes f). Problems are diagnostics;
 * returns only -ENOMEM. */
int rs_loader__add_file(struct rs_loader *L, struct yd_file *f);

/* Compile everything loaded; on success *ret. Returns 0, -EINVAL (errors
 * were reported) or -ENOMEM. */
int rs_loader__finish(struct rs_loader *L, struct rl_ruleset **ret);

/* Frees what an rl_rule owns. */
void rs_rule__release(struct rl_rule *r);

/* Rebuild the per-kind arrays after enabling or disabling rules. */
void rs_ruleset__select(struct rl_ruleset *rs);

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
