// SPDX-License-Identifier: MIT
/*
 * scriptkey.c - what an interpreter image runs (scriptkey.h).
 *
 * One argv parser, driven by a table of each family's syntax: the options
 * that take an argument, so that "python3 -X dev -W ignore app.py" finds
 * app.py and not "dev", and those that give inline code or a module; an
 * option the table does not know is taken as a flag without argument. Content
 * hashes are taken on the loop, bounded by SCRIPT_HASH_MAX and cached by
 * (dev, ino, size, mtime), so a script run a thousand times is read once.
 */
#include "identity/scriptkey.h"

#include "cleanup.h"
#include "sha256fd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS 64          /* argv entries looked at */
#define CACHE_SLOTS 256      /* direct-mapped, a collision rehashes */
#define HASH_HEX 16          /* hex digits of the content hash kept in the key */

/* ---- interpreters ---- */

static const struct {
	const char *name;
	enum interp_family f;
} interpreters[] = {
	{ "python", INTERP_PYTHON }, { "pypy", INTERP_PYTHON },	{ "sh", INTERP_SHELL },	  { "bash", INTERP_SHELL },
	{ "dash", INTERP_SHELL },    { "zsh", INTERP_SHELL },	{ "ksh", INTERP_SHELL },  { "mksh", INTERP_SHELL },
	{ "ash", INTERP_SHELL },     { "rbash", INTERP_SHELL }, { "perl", INTERP_PERL },  { "node", INTERP_NODE },
	{ "nodejs", INTERP_NODE },   { "ruby", INTERP_RUBY },	{ "php", INTERP_PHP },
};

enum interp_family scriptkey__interpreter(const char *exe)
{
	const char *base;

	if (!exe)
		return INTERP_NONE;
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	for (size_t i = 0; i < sizeof(interpreters) / sizeof(interpreters[0]); i++) {
		size_t n = strlen(interpreters[i].name);
		const char *v;

		if (strncmp(base, interpreters[i].name, n) != 0)
			continue;
		/* a version suffix: python3, python3.11, perl5.36.0 */
		for (v = base + n; *v && ((*v >= '0' && *v <= '9') || *v == '.'); v++)
			;
		if (!*v)
			return interpreters[i].f;
	}
	return INTERP_NONE;
}

/* ---- argv ---- */

static const struct script_arg none = { SCRIPT_NONE, NULL };

static struct script_arg make(enum script_kind k, const char *text)
{
	return text ? (struct script_arg){ k, text } : none;
}

static bool is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The option character c of a cluster takes an argument: the rest of the
 * cluster (at + 1) or, when that is empty, the next argument. */
static const char *opt_arg(const char *at, char **argv, int argc, int *i)
{
	if (at[1])
		return at + 1;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

/* What to do with a lone "-". */
enum lone_dash {
	DASH_STDIN,	/* the program is read from stdin: no script */
	DASH_THEN_FILE, /* an end of options, as "--" (sh -) */
	DASH_IGNORED,	/* nothing (php) */
};

/*
 * The argv syntax of an interpreter family. Whole words are matched first
 * (long options, and the options of families without clusters), then each
 * letter of a cluster ("-Wdefault", "-lne") in turn. A letter or word found
 * in no list is a flag without argument. Inline and stdin letters count
 * only after '-' ('+' turns a shell option off).
 */
struct syntax {
	const char *inline_text;	      /* the label of an inline program: "-c", "-e", "-r" */
	enum lone_dash dash;
	bool plus;			      /* "+o name" is an option too (sh) */
	bool clusters;			      /* single letters may be grouped after one '-' */
	bool long_in_cluster;		      /* "--x" is walked as a cluster (perl has no long options) */
	const char *const *inline_words;      /* the next text is the program: INLINE */
	const char *const *file_words;	      /* the next argument is the script (php -f) */
	const char *const *arg_words;	      /* take the next argument */
	const char *inline_letters;	      /* INLINE */
	const char *stdin_letters;	      /* commands from stdin: no script */
	const char *module_letters;	      /* MODULE, named by its argument */
	const char *arg_letters;	      /* take an argument: the rest of the cluster, else the next one */
	const char *next_arg_letters;	      /* take the next argument; the cluster goes on (sh -o name) */
	const char *num_letters;	      /* followed by an optional number (perl -l, -0777) */
	const char *rest_letters;	      /* the rest of the cluster is their argument */
};

static const char *const py_args[] = { "--check-hash-based-pycs", NULL };
static const char *const sh_args[] = { "--rcfile", "--init-file", NULL };
static const char *const node_inline[] = { "-e", "--eval", "-p", "--print", "-pe", NULL };
static const char *const node_args[] = { "-r",	    "--require",      "--import", "--loader",
					 "--experimental-loader", "-C", "--conditions", "--title",
					 "--inspect-port",	   "--env-file", NULL };
static const char *const php_inline[] = { "-r", NULL };
static const char *const php_file[] = { "-f", NULL };
static const char *const php_args[] = { "-d", "-c", "-z", "-t", "-S", NULL };

static const struct syntax syntaxes[] = {
	[INTERP_PYTHON] = { .inline_text = "-c", .dash = DASH_STDIN, .clusters = true, .arg_words = py_args,
			    .inline_letters = "c", .module_letters = "m", .arg_letters = "WX" },
	[INTERP_SHELL] = { .inline_text = "-c", .dash = DASH_THEN_FILE, .plus = true, .clusters = true,
			   .arg_words = sh_args, .inline_letters = "c", .stdin_letters = "s", .next_arg_letters = "oO" },
	[INTERP_PERL] = { .inline_text = "-e", .dash = DASH_STDIN, .clusters = true, .long_in_cluster = true,
			  .inline_letters = "eE", .arg_letters = "IMm", .num_letters = "l0C", .rest_letters = "dDFix" },
	[INTERP_NODE] = { .inline_text = "-e", .dash = DASH_STDIN, .inline_words = node_inline, .arg_words = node_args },
	[INTERP_RUBY] = { .inline_text = "-e", .dash = DASH_STDIN, .clusters = true, .inline_letters = "e",
			  .arg_letters = "IrC", .rest_letters = "0EFiKTWx" },
	[INTERP_PHP] = { .inline_text = "-r", .dash = DASH_IGNORED, .inline_words = php_inline, .file_words = php_file,
			 .arg_words = php_args },
};

static bool in_words(const char *const *words, const char *a)
{
	for (; words && *words; words++)
		if (is(*words, a))
			return true;
	return false;
}

static bool in_letters(const char *letters, char c)
{
	return letters && strchr(letters, c);
}

/* Walk the cluster of argument *i (its letters from at): true with *ret when
 * it decides the script, false when the parse goes on (*i may have moved). */
static bool walk_cluster(const struct syntax *x, const char *at, bool minus, char **argv, int argc, int *i,
			 struct script_arg *ret)
{
	for (const char *c = at; *c; c++) {
		if (minus && in_letters(x->inline_letters, *c)) {
			*ret = make(SCRIPT_INLINE, x->inline_text);
			return true;
		}
		if (minus && in_letters(x->stdin_letters, *c)) {
			*ret = none;
			return true;
		}
		if (in_letters(x->module_letters, *c)) {
			*ret = make(SCRIPT_MODULE, opt_arg(c, argv, argc, i));
			return true;
		}
		if (in_letters(x->arg_letters, *c)) {
			opt_arg(c, argv, argc, i);
			return false;
		}
		if (in_letters(x->rest_letters, *c))
			return false;
		if (in_letters(x->next_arg_letters, *c))
			++*i;
		if (in_letters(x->num_letters, *c))
			while (c[1] >= '0' && c[1] <= '9')
				c++;
	}
	return false;
}

static struct script_arg parse_argv(const struct syntax *x, char **argv, int argc)
{
	struct script_arg sa;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "--") || (is(a, "-") && x->dash == DASH_THEN_FILE))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (a[0] != '-' && !(x->plus && a[0] == '+'))
			return make(SCRIPT_FILE, a);
		if (is(a, "-") && x->dash == DASH_STDIN)
			return none;
		if (in_words(x->inline_words, a))
			return make(SCRIPT_INLINE, x->inline_text);
		if (in_words(x->file_words, a))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (in_words(x->arg_words, a)) {
			i++;
			continue;
		}
		if ((a[0] == '-' && a[1] == '-' && !x->long_in_cluster) || !x->clusters)
			continue;
		if (walk_cluster(x, a + 1, a[0] == '-', argv, argc, &i, &sa))
			return sa;
	}
	return none;
}

struct script_arg scriptkey__parse(enum interp_family f, const char *args, size_t len)
{
	char *argv[MAX_ARGS];
	int argc = 0;
	size_t off = 0;

	if (f == INTERP_NONE || !args)
		return none;
	/* only NUL-terminated arguments: a cut last one is no name to key by */
	while (off < len && argc < MAX_ARGS) {
		const char *end = memchr(args + off, '\0', len - off);

		if (!end)
			break;
		argv[argc++] = (char *)(args + off);
		off = (size_t)(end - args) + 1;
	}
	if (argc < 1)
		return none;
	return parse_argv(&syntaxes[f], argv, argc);
}

/* ---- content hashes ---- */

struct cache_slot {
	bool used;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char hex[HASH_HEX + 1];
};

struct scriptkey_cache {
	struct cache_slot slot[CACHE_SLOTS];
};

int scriptkey_cache__new(struct scriptkey_cache **ret)
{
	struct scriptkey_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	*ret = c;
	return 0;
}

void scriptkey_cache__free(struct scriptkey_cache *c)
{
	free(c);
}

/* The first HASH_HEX hex digits of the SHA-256 of fd. */
static int hash_fd(int fd, char hex[HASH_HEX + 1])
{
	char full[SHA256_HEX_LEN + 1];
	int r = sha256_fd(fd, SCRIPT_HASH_MAX, NULL, full);

	if (r < 0)
		return r;
	memcpy(hex, full, HASH_HEX);
	hex[HASH_HEX] = '\0';
	return 0;
}

/* The content hash of the script at abs as process pid sees it; false when
 * it is not a readable regular file within the bound. */
static bool script_hash(struct scriptkey_cache *c, uint32_t pid, const char *abs, char hex[HASH_HEX + 1])
{
	char path[SCRIPT_PATH_MAX + 64];
	_cleanup_close_ int fd = -1;
	struct cache_slot *s;
	struct stat st;

	if (!c)
		return false;
	if (snprintf(path, sizeof(path), "/proc/%u/root%s", pid, abs) < (int)sizeof(path))
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) /* the process is gone: its view is most often ours */
		fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)SCRIPT_HASH_MAX)
		return false;
	s = &c->slot[(st.st_dev * 31 + st.st_ino) % CACHE_SLOTS];
	if (s->used && s->dev == st.st_dev && s->ino == st.st_ino && s->size == st.st_size &&
	    s->mtime.tv_sec == st.st_mtim.tv_sec && s->mtime.tv_nsec == st.st_mtim.tv_nsec) {
		memcpy(hex, s->hex, HASH_HEX + 1);
		return true;
	}
	if (hash_fd(fd, hex) < 0)
		return false;
	*s = (struct cache_slot){ .used = true, .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
				  .mtime = st.st_mtim };
	memcpy(s->hex, hex, HASH_HEX + 1);
	return true;
}

/* path made absolute against cwd (the process's working directory at exec),
 * cut to SCRIPT_PATH_MAX; false when it is relative and cwd is unknown. */
static bool absolute(const char *cwd, const char *path, char out[SCRIPT_PATH_MAX + 1])
{
	int w;

	if (path[0] == '/') {
		w = snprintf(out, SCRIPT_PATH_MAX + 1, "%s", path);
	} else {
		if (!cwd || cwd[0] != '/')
			return false;
		while (path[0] == '.' && path[1] == '/')
			path += 2;
		w = snprintf(out, SCRIPT_PATH_MAX + 1, "%s%s%s", cwd, cwd[1] ? "/" : "", path);
	}
	if (w > SCRIPT_PATH_MAX)
		memcpy(out + SCRIPT_PATH_MAX - 3, "...", 4);
	return true;
}

int scriptkey__derive(struct scriptkey_cache *c, uint32_t pid, const char *cwd, const char *exe, const char *args,
		      size_t len, char **ret_suffix, char **ret_script)
{
	struct script_arg sa = scriptkey__parse(scriptkey__interpreter(exe), args, len);
	char abs[SCRIPT_PATH_MAX + 1], hex[HASH_HEX + 1];
	_cleanup_free_ char *suffix = NULL, *script = NULL;
	int r = 0;

	switch (sa.kind) {
	case SCRIPT_NONE:
		break;
	case SCRIPT_INLINE:
		suffix = strdup("+inline");
		script = strdup(sa.text);
		r = suffix && script ? 0 : -ENOMEM;
		break;
	case SCRIPT_MODULE:
		r = asprintf(&suffix, "+module:%.*s", SCRIPT_PATH_MAX, sa.text) < 0 ||
				    asprintf(&script, "-m %.*s", SCRIPT_PATH_MAX, sa.text) < 0
			    ? -ENOMEM
			    : 0;
		break;
	case SCRIPT_FILE:
		if (!absolute(cwd, sa.text, abs))
			snprintf(abs, sizeof(abs), "%s", sa.text);
		if (abs[0] == '/' && script_hash(c, pid, abs, hex))
			r = asprintf(&suffix, "+script:%s#sha256:%s", abs, hex);
		else
			r = asprintf(&suffix, "+script:%s", abs);
		r = r < 0 || !(script = strdup(abs)) ? -ENOMEM : 0;
		break;
	}
	if (r < 0)
		return r;
	*ret_suffix = TAKE_PTR(suffix);
	*ret_script = TAKE_PTR(script);
	return 0;
}
