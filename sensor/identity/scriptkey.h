/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scriptkey.h - what an interpreter image runs, for its baseline key.
 *
 * python3, bash, perl, node... are one binary each, but a Python one-liner
 * and a long-running Python service are two programs. An image whose exe is
 * a known interpreter (scriptkey__interpreter(), a built-in list documented
 * in docs/baselines.md "Keys") is keyed by what it runs, found in its argv
 * (interpreter options skipped):
 *
 *   a script file        "+script:<absolute path>#<sha256 prefix>"
 *                         (path only when the file cannot be read, is not a
 *                         regular file, or is larger than SCRIPT_HASH_MAX)
 *   -c / -e one-liners   "+inline"   (one bucket per interpreter and parent)
 *   python3 -m module    "+module:<module>"
 *   none (stdin, REPL)   no suffix: the interpreter's own key
 *
 * A script reached through a shebang is the same case: the kernel runs the
 * interpreter with argv "<interp> [<shebang arg>] <script path> <args...>".
 */
#ifndef PL_SENSOR_SCRIPTKEY_H
#define PL_SENSOR_SCRIPTKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCRIPT_HASH_MAX (16u << 20) /* larger scripts are keyed by path only */
#define SCRIPT_PATH_MAX 1024        /* longer script paths are cut (and marked "...") */

enum script_kind {
	SCRIPT_NONE,   /* not an interpreter, or it reads stdin / runs interactively */
	SCRIPT_FILE,   /* text is the script path as given in argv */
	SCRIPT_INLINE, /* text is the option that took the program text ("-c", "-e") */
	SCRIPT_MODULE, /* text is the module name (python -m) */
};

struct script_arg {
	enum script_kind kind;
	const char *text; /* SCRIPT_FILE, SCRIPT_MODULE: into the args block given, NUL-terminated
			   * there; SCRIPT_INLINE: a static "-c", "-e" or "-r" */
};

enum interp_family {
	INTERP_NONE,
	INTERP_PYTHON,
	INTERP_SHELL,
	INTERP_PERL,
	INTERP_NODE,
	INTERP_RUBY,
	INTERP_PHP,
};

/* The interpreter family of an exe path by its base name ("python3.11",
 * "dash", "perl5.36.0", "nodejs"...), INTERP_NONE when it is none. */
enum interp_family scriptkey__interpreter(const char *exe);

/* The script of argv (NUL-separated, len bytes, the last argument possibly
 * unterminated: it is then ignored) as run by an interpreter of family f. */
struct script_arg scriptkey__parse(enum interp_family f, const char *args, size_t len);

struct scriptkey_cache;

/* A cache of script content hashes by (dev, ino, size, mtime); 0 or -ENOMEM. */
int scriptkey_cache__new(struct scriptkey_cache **ret);
void scriptkey_cache__free(struct scriptkey_cache *c);

/*
 * The key suffix and the label of what the image of process pid runs, when
 * its exe is an interpreter and args name a script: *ret_suffix is the
 * binary-identity suffix above, *ret_script the label ("/srv/app.py", "-c",
 * "-m http.server"), both malloc'd, both NULL when nothing applies. A
 * relative script path is made absolute against cwd, the process's working
 * directory when it exec'd (its exec record; NULL: unknown, the path is then
 * kept as written), so the key does not depend on the process still
 * running; the file is opened through /proc/PID/root (the process's own
 * view; the sensor's when the process is gone) and hashed once per (dev,
 * ino, size, mtime) in c (c may be NULL: path only). 0 or -ENOMEM (outputs
 * then untouched).
 */
int scriptkey__derive(struct scriptkey_cache *c, uint32_t pid, const char *cwd, const char *exe, const char *args,
		      size_t len, char **ret_suffix, char **ret_script);

#endif
