// SPDX-License-Identifier: MIT
/*
 * test_scriptkey.c - what an interpreter runs, from its argv (scriptkey.h):
 * options skipped, one-liners, modules, shebang argv, non-interpreters; and
 * the key suffix of a real script file, its hash cached and bounded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identity/scriptkey.h"

/* argv as the kernel hands it: NUL-separated, each NUL-terminated */
static size_t pack(char *buf, size_t size, const char *const *argv)
{
	size_t off = 0;

	for (; *argv; argv++) {
		size_t n = strlen(*argv) + 1;

		assert_true(off + n <= size);
		memcpy(buf + off, *argv, n);
		off += n;
	}
	return off;
}

static struct script_arg parse(const char *exe, const char *const *argv)
{
	static char buf[1024];
	size_t n = pack(buf, sizeof(buf), argv);

	return scriptkey__parse(scriptkey__interpreter(exe), buf, n);
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void expect(struct script_arg sa, enum script_kind kind, const char *text)
{
	assert_int_equal(sa.kind, kind);
	if (text)
		assert_string_equal(sa.text, text);
}

static void test_interpreters_are_known_by_base_name_with_versions(void **state)
{
	assert_int_equal(scriptkey__interpreter("/usr/bin/python3.11"), INTERP_PYTHON);
	assert_int_equal(scriptkey__interpreter("/usr/bin/python3"), INTERP_PYTHON);
	assert_int_equal(scriptkey__interpreter("/usr/bin/dash"), INTERP_SHELL);
	assert_int_equal(scriptkey__interpreter("/bin/sh"), INTERP_SHELL);
	assert_int_equal(scriptkey__interpreter("/usr/bin/perl5.36.0"), INTERP_PERL);
	assert_int_equal(scriptkey__interpreter("/usr/bin/nodejs"), INTERP_NODE);
	assert_int_equal(scriptkey__interpreter("/usr/bin/python3-config"), INTERP_NONE);
	assert_int_equal(scriptkey__interpreter("/usr/bin/ssh"), INTERP_NONE);
	assert_int_equal(scriptkey__interpreter("/usr/bin/shred"), INTERP_NONE);
	assert_int_equal(scriptkey__interpreter("/usr/bin/cat"), INTERP_NONE);
	assert_int_equal(scriptkey__interpreter(NULL), INTERP_NONE);
}

static void test_python_options_are_skipped_to_the_script(void **state)
{
	expect(parse("/usr/bin/python3", ARGV("python3", "-u", "-X", "dev", "script.py", "-c", "x")), SCRIPT_FILE,
	       "script.py");
	expect(parse("/usr/bin/python3", ARGV("python3", "-Wignore", "-B", "/srv/app.py")), SCRIPT_FILE, "/srv/app.py");
	expect(parse("/usr/bin/python3", ARGV("python3", "-W", "ignore", "--", "-odd.py")), SCRIPT_FILE, "-odd.py");
	expect(parse("/usr/bin/python3", ARGV("python3", "-m", "http.server", "8000")), SCRIPT_MODULE, "http.server");
	expect(parse("/usr/bin/python3", ARGV("python3", "-um", "venv", "x")), SCRIPT_MODULE, "venv");
	expect(parse("/usr/bin/python3", ARGV("python3", "-c", "import sys; print(1)")), SCRIPT_INLINE, "-c");
	expect(parse("/usr/bin/python3", ARGV("python3", "-Ic", "pass")), SCRIPT_INLINE, "-c");
	expect(parse("/usr/bin/python3", ARGV("python3")), SCRIPT_NONE, NULL);
	expect(parse("/usr/bin/python3", ARGV("python3", "-")), SCRIPT_NONE, NULL);
}

static void test_shell_one_liners_and_scripts(void **state)
{
	expect(parse("/usr/bin/bash", ARGV("bash", "-c", "make all")), SCRIPT_INLINE, "-c");
	expect(parse("/usr/bin/dash", ARGV("sh", "-ec", "true")), SCRIPT_INLINE, "-c");
	expect(parse("/usr/bin/bash", ARGV("bash", "-o", "pipefail", "build.sh", "arg")), SCRIPT_FILE, "build.sh");
	expect(parse("/usr/bin/bash", ARGV("bash", "--norc", "-x", "./x.sh")), SCRIPT_FILE, "./x.sh");
	expect(parse("/usr/bin/bash", ARGV("bash", "+e", "x.sh")), SCRIPT_FILE, "x.sh");
	expect(parse("/usr/bin/bash", ARGV("bash", "-s", "x")), SCRIPT_NONE, NULL);
	expect(parse("/usr/bin/bash", ARGV("-bash")), SCRIPT_NONE, NULL); /* a login shell */
	expect(parse("/usr/bin/bash", ARGV("bash", "-i")), SCRIPT_NONE, NULL);
}

static void test_perl_node_ruby_php(void **state)
{
	expect(parse("/usr/bin/perl", ARGV("perl", "-e", "print 1")), SCRIPT_INLINE, "-e");
	expect(parse("/usr/bin/perl", ARGV("perl", "-lne", "print")), SCRIPT_INLINE, "-e");
	expect(parse("/usr/bin/perl", ARGV("perl", "-lane", "print $F[0]")), SCRIPT_INLINE, "-e");
	expect(parse("/usr/bin/perl", ARGV("perl", "-0777", "-ne", "print")), SCRIPT_INLINE, "-e");
	expect(parse("/usr/bin/perl", ARGV("perl", "-I", "lib", "-w", "x.pl")), SCRIPT_FILE, "x.pl");
	expect(parse("/usr/bin/perl", ARGV("perl", "-Mstrict", "-i.bak", "x.pl")), SCRIPT_FILE, "x.pl");
	expect(parse("/usr/bin/node", ARGV("node", "--max-old-space-size=512", "-r", "ts-node/register", "app.js")),
	       SCRIPT_FILE, "app.js");
	expect(parse("/usr/bin/node", ARGV("node", "-e", "1")), SCRIPT_INLINE, "-e");
	expect(parse("/usr/bin/ruby", ARGV("ruby", "-I", "lib", "-e", "1")), SCRIPT_INLINE, "-e");
	expect(parse("/usr/bin/ruby", ARGV("ruby", "-rjson", "t.rb")), SCRIPT_FILE, "t.rb");
	expect(parse("/usr/bin/php8.2", ARGV("php", "-r", "echo 1;")), SCRIPT_INLINE, "-r");
	expect(parse("/usr/bin/php8.2", ARGV("php", "-d", "x=1", "-f", "i.php")), SCRIPT_FILE, "i.php");
}

/* A shebang script: the kernel runs "<interp> [<arg>] <path> <args>"; via
 * env, env then execs the interpreter with "python3 <path> <args>". */
static void test_shebang_argv_finds_the_script(void **state)
{
	expect(parse("/usr/bin/python3", ARGV("/usr/bin/python3", "-u", "./tool.py", "--verbose")), SCRIPT_FILE,
	       "./tool.py");
	expect(parse("/usr/bin/python3", ARGV("python3", "/opt/x.py", "-c", "y")), SCRIPT_FILE, "/opt/x.py");
	expect(parse("/usr/bin/env", ARGV("/usr/bin/env", "python3", "/opt/x.py")), SCRIPT_NONE, NULL);
	expect(parse("/usr/bin/dash", ARGV("/bin/sh", "/etc/init.d/foo", "start")), SCRIPT_FILE, "/etc/init.d/foo");
}

static void test_a_cut_last_argument_is_no_script(void **state)
{
	char buf[] = { 'p', 'y', '\0', '/', 's', 'r', 'v' }; /* "py", "/srv" cut */

	expect(scriptkey__parse(INTERP_PYTHON, buf, sizeof(buf)), SCRIPT_NONE, NULL);
	expect(scriptkey__parse(INTERP_NONE, buf, sizeof(buf)), SCRIPT_NONE, NULL);
}

static void test_not_an_interpreter_has_no_suffix(void **state)
{
	char buf[64], *suffix = (char *)1, *script = (char *)1;
	size_t n = pack(buf, sizeof(buf), ARGV("cat", "x.py"));

	assert_int_equal(scriptkey__derive(NULL, (uint32_t)getpid(), "/", "/usr/bin/cat", buf, n, &suffix, &script), 0);
	assert_null(suffix);
	assert_null(script);
}

/* A real file: absolute path from our cwd, content hash; a change of
 * content changes the suffix; a one-liner's suffix is "+inline". */
static void test_derive_hashes_the_script_and_follows_changes(void **state)
{
	char dir[] = "/tmp/pl-scriptkey-XXXXXX", cwd[1024], buf[256], want[1200];
	char *s1, *s2, *s3, *script;
	struct scriptkey_cache *c;
	FILE *f;
	size_t n;

	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(scriptkey_cache__new(&c), 0);
	f = fopen("s.py", "w");
	assert_non_null(f);
	fputs("x = 1\n", f);
	fclose(f);
	n = pack(buf, sizeof(buf), ARGV("python3", "-u", "./s.py"));
	assert_int_equal(scriptkey__derive(c, (uint32_t)getpid(), dir, "/usr/bin/python3", buf, n, &s1, &script), 0);
	snprintf(want, sizeof(want), "%s/s.py", dir);
	assert_string_equal(script, want);
	free(script);
	/* sha256("x = 1\n") begins with these 16 hex digits */
	snprintf(want, sizeof(want), "+script:%s/s.py#sha256:", dir);
	assert_int_equal(strncmp(s1, want, strlen(want)), 0);
	assert_int_equal(strlen(s1), strlen(want) + 16);
	/* cached: the same answer again */
	assert_int_equal(scriptkey__derive(c, (uint32_t)getpid(), dir, "/usr/bin/python3", buf, n, &s2, &script), 0);
	assert_string_equal(s1, s2);
	free(script);
	free(s2);
	/* changed (size and mtime change): a new hash */
	f = fopen("s.py", "a");
	fputs("y = 2\n", f);
	fclose(f);
	assert_int_equal(scriptkey__derive(c, (uint32_t)getpid(), dir, "/usr/bin/python3", buf, n, &s3, &script), 0);
	assert_int_equal(strncmp(s3, want, strlen(want)), 0);
	assert_string_not_equal(s1, s3);
	free(script);
	free(s1);
	/* the cwd at exec, not the process's cwd now, nor whether it still
	 * runs: a process that is gone (no such pid) is keyed the same */
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(scriptkey__derive(c, 0x7fffff00u, dir, "/usr/bin/python3", buf, n, &s2, &script), 0);
	assert_string_equal(s2, s3);
	free(script);
	free(s2);
	/* a relative path and no cwd known: the path as written */
	assert_int_equal(scriptkey__derive(c, 0x7fffff00u, NULL, "/usr/bin/python3", buf, n, &s2, &script), 0);
	assert_string_equal(s2, "+script:./s.py");
	free(script);
	free(s2);
	assert_int_equal(chdir(dir), 0);
	free(s3);
	/* a script that does not exist: keyed by path only */
	n = pack(buf, sizeof(buf), ARGV("python3", "/nonexistent/x.py"));
	assert_int_equal(scriptkey__derive(c, (uint32_t)getpid(), dir, "/usr/bin/python3", buf, n, &s1, &script), 0);
	assert_string_equal(s1, "+script:/nonexistent/x.py");
	free(s1);
	free(script);
	/* one-liner and module */
	n = pack(buf, sizeof(buf), ARGV("sh", "-c", "echo hi"));
	assert_int_equal(scriptkey__derive(c, (uint32_t)getpid(), dir, "/usr/bin/dash", buf, n, &s1, &script), 0);
	assert_string_equal(s1, "+inline");
	assert_string_equal(script, "-c");
	free(s1);
	free(script);
	n = pack(buf, sizeof(buf), ARGV("python3", "-m", "http.server"));
	assert_int_equal(scriptkey__derive(c, (uint32_t)getpid(), dir, "/usr/bin/python3", buf, n, &s1, &script), 0);
	assert_string_equal(s1, "+module:http.server");
	assert_string_equal(script, "-m http.server");
	free(s1);
	free(script);

	scriptkey_cache__free(c);
	unlink("s.py");
	assert_int_equal(chdir(cwd), 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interpreters_are_known_by_base_name_with_versions),
		cmocka_unit_test(test_python_options_are_skipped_to_the_script),
		cmocka_unit_test(test_shell_one_liners_and_scripts),
		cmocka_unit_test(test_perl_node_ruby_php),
		cmocka_unit_test(test_shebang_argv_finds_the_script),
		cmocka_unit_test(test_a_cut_last_argument_is_no_script),
		cmocka_unit_test(test_not_an_interpreter_has_no_suffix),
		cmocka_unit_test(test_derive_hashes_the_script_and_follows_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
