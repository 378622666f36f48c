// SPDX-License-Identifier: MIT
/*
 * scriptkey.c - what an interpreter image runs (scriptkey.h).
 *
 * The argv parsers know each family's options that take an argument, so
 * that "python3 -X dev -W ignore app.py" finds app.py and not "dev"; an
 * option they do not know is taken as a flag without argument. Content
 * hashes are taken on the loop, bounded by SCRIPT_HASH_MAX and cached by
 * (dev, ino, size, mtime), so a script run a thousand times is read once.
 */
#include "scriptkey.h"

#include "cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
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

static struct script_arg parse_python(char **argv, int argc)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "--"))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (a[0] != '-')
			return make(SCRIPT_FILE, a);
		if (is(a, "-"))
			return none;
		if (a[1] == '-') {
			if (is(a, "--check-hash-based-pycs"))
				i++;
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'c')
				return make(SCRIPT_INLINE, "-c");
			if (*c == 'm')
				return make(SCRIPT_MODULE, opt_arg(c, argv, argc, &i));
			if (*c == 'W' || *c == 'X') {
				opt_arg(c, argv, argc, &i);
				break;
			}
		}
	}
	return none;
}

static struct script_arg parse_shell(char **argv, int argc)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "--") || is(a, "-"))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (a[0] != '-' && a[0] != '+')
			return make(SCRIPT_FILE, a);
		if (a[0] == '-' && a[1] == '-') {
			if (is(a, "--rcfile") || is(a, "--init-file"))
				i++;
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'c' && a[0] == '-')
				return make(SCRIPT_INLINE, "-c");
			if (*c == 's' && a[0] == '-')
				return none; /* commands from stdin */
			if (*c == 'o' || *c == 'O')
				i++; /* -o pipefail, -O extglob: the name is the next argument */
		}
	}
	return none;
}

static struct script_arg parse_perl(char **argv, int argc)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "--"))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (a[0] != '-')
			return make(SCRIPT_FILE, a);
		if (is(a, "-"))
			return none;
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'e' || *c == 'E')
				return make(SCRIPT_INLINE, "-e");
			if (*c == 'I' || *c == 'M' || *c == 'm') {
				opt_arg(c, argv, argc, &i);
				break;
			}
			if (*c == 'l' || *c == '0' || *c == 'C') {
				/* an optional number: -lne, -0777e */
				while (c[1] >= '0' && c[1] <= '9')
					c++;
				continue;
			}
			if (strchr("dDFix", *c))
				break; /* the rest of the cluster is the option's argument */
		}
	}
	return none;
}

static struct script_arg parse_node(char **argv, int argc)
{
	static const char *const with_arg[] = { "-r",	     "--require", "--import", "--loader", "--experimental-loader",
						"-C",	     "--conditions", "--title", "--inspect-port", "--env-file" };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "--"))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (a[0] != '-')
			return make(SCRIPT_FILE, a);
		if (is(a, "-"))
			return none;
		if (is(a, "-e") || is(a, "--eval") || is(a, "-p") || is(a, "--print") || is(a, "-pe"))
			return make(SCRIPT_INLINE, "-e");
		for (size_t k = 0; k < sizeof(with_arg) / sizeof(with_arg[0]); k++)
			if (is(a, with_arg[k])) {
				i++;
				break;
			}
	}
	return none;
}

static struct script_arg parse_ruby(char **argv, int argc)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "--"))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (a[0] != '-')
			return make(SCRIPT_FILE, a);
		if (is(a, "-"))
			return none;
		if (a[1] == '-')
			continue;
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'e')
				return make(SCRIPT_INLINE, "-e");
			if (*c == 'I' || *c == 'r' || *c == 'C') {
				opt_arg(c, argv, argc, &i);
				break;
			}
			if (strchr("0EFiKTWx", *c))
				break;
		}
	}
	return none;
}

static struct script_arg parse_php(char **argv, int argc)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "--"))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (a[0] != '-')
			return make(SCRIPT_FILE, a);
		if (is(a, "-r"))
			return make(SCRIPT_INLINE, "-r");
		if (is(a, "-f"))
			return make(SCRIPT_FILE, i + 1 < argc ? argv[i + 1] : NULL);
		if (is(a, "-d") || is(a, "-c") || is(a, "-z") || is(a, "-t") || is(a, "-S"))
			i++;
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
	switch (f) {
	case INTERP_PYTHON:
		return parse_python(argv, argc);
	case INTERP_SHELL:
		return parse_shell(argv, argc);
	case INTERP_PERL:
		return parse_perl(argv, argc);
	case INTERP_NODE:
		return parse_node(argv, argc);
	case INTERP_RUBY:
		return parse_ruby(argv, argc);
	case INTERP_PHP:
		return parse_php(argv, argc);
	case INTERP_NONE:
		break;
	}
	return none;
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

/* The first HASH_HEX hex digits of the SHA-256 of fd (size bytes). */
static int hash_fd(int fd, off_t size, char hex[HASH_HEX + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	off_t off = 0;
	int r = 0;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return -ENOMEM;
	}
	while (off <= size) { /* reads to EOF, but no further than the bound */
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		if (!EVP_DigestUpdate(ctx, buf, (size_t)n)) {
			r = -ENOMEM;
			break;
		}
		off += n;
		if (off > (off_t)SCRIPT_HASH_MAX) {
			r = -EFBIG; /* grew while read */
			break;
		}
	}
	if (!r && (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen < HASH_HEX / 2))
		r = -EIO;
	EVP_MD_CTX_free(ctx);
	if (r)
		return r;
	for (int i = 0; i < HASH_HEX / 2; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
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
	if (hash_fd(fd, st.st_size, hex) < 0)
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
