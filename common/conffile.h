/* SPDX-License-Identifier: MIT */
/*
 * conffile.h - the `key = value` line format of plumbline.conf (docs/config.md).
 *
 * Only the syntax: which keys exist and what their values mean is the
 * caller's (sensor/config/config.c drives `plumbline run`'s own option parser with
 * them). The input is untrusted and bounded (CF_FILE_MAX bytes, CF_LINE_MAX
 * a line, CF_ENTRIES_MAX settings); every error carries its exact 1-based
 * line and byte column. The library never prints.
 */
#ifndef PL_CONFFILE_H
#define PL_CONFFILE_H

#include <stddef.h>

#define CF_FILE_MAX    (256u << 10) /* the largest config file read */
#define CF_LINE_MAX    4096	    /* bytes of one line, without its newline */
#define CF_ENTRIES_MAX 1024	    /* settings in one file */
#define CF_KEY_MAX     64	    /* bytes of a key */
#define CF_ERRORS_MAX  100	    /* errors kept; past it they are only counted */

struct cf_entry {
	char *key;   /* [a-z0-9][a-z0-9-]*, at most CF_KEY_MAX bytes */
	char *value; /* unquoted; never NULL, may be "" when quoted */
	int line;    /* 1-based */
	int col;     /* of the key, 1-based */
	int vcol;    /* of the value (its opening quote when quoted) */
	int quoted;  /* 1: the value was written in double quotes */
};

struct cf_error {
	int line, col; /* 1-based; line 0: the whole file */
	char msg[192];
};

struct conffile {
	struct cf_entry *e;
	size_t n;
	struct cf_error *err;
	size_t nerr;	     /* kept in err[] */
	size_t errors;	     /* counted, >= nerr */
	size_t cap, err_cap; /* allocated in e[] and err[] */
};

/*
 * Parse len bytes of buf (not NUL-terminated; NUL bytes, control characters
 * other than tab and bytes that are not valid UTF-8 are errors, at their
 * byte). The grammar, one setting a line:
 *
 *   # a comment line; blank lines are ignored
 *   key = bare value            # a comment may follow any value
 *   key = "quoted value"        # \" and \\ are its only escapes
 *
 * A bare value runs to the end of the line or to a '#', trailing blanks
 * removed; it cannot be empty. Spaces and tabs around '=' are free. CRLF
 * line ends are accepted. Returns 0 (no error), -EINVAL (errors in
 * ret->err; the lines without errors are still in ret->e), -EFBIG (more
 * than CF_FILE_MAX bytes: nothing parsed) or -ENOMEM. *ret is always
 * initialized and must be freed with conffile__free().
 */
int conffile__parse(const char *buf, size_t len, struct conffile *ret);
void conffile__free(struct conffile *cf);

/*
 * Record an error at line:col (for the caller's own checks of keys and
 * values, so they land in the same list). Returns 0 or -ENOMEM (still
 * counted).
 */
int conffile__error(struct conffile *cf, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Whether v must be written quoted to read back as itself (empty, blanks at
 * either end, a '#' or a '"'). */
int conffile__needs_quotes(const char *v);

#endif
