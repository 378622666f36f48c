// SPDX-License-Identifier: MIT
/*
 * test_config.c - the config file: its line format (common/conffile.c) with
 * the exact position of each error, and its meaning (sensor/config/config.c): keys
 * checked by run's own option parser, repeated keys, the command line over
 * the file, and every run option described as a key.
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conffile.h"
#include "config/config.h"
#include "config/options.h"
#include "unit_helpers.h"

#define PARSE_STR(cf, s) conffile__parse((s), strlen(s), (cf))

static void assert_error(const struct conffile *cf, size_t i, int line, int col, const char *needle)
{
	assert_true(i < cf->nerr);
	assert_int_equal(cf->err[i].line, line);
	assert_int_equal(cf->err[i].col, col);
	if (!strstr(cf->err[i].msg, needle))
		fail_msg("error '%s' lacks '%s'", cf->err[i].msg, needle);
}

static void test_conffile_parses_keys_values_comments_and_blank_lines(void **state)
{
	struct conffile cf;

	(void)state;
	assert_int_equal(PARSE_STR(&cf, "# a comment\n\n   \t\njson = /var/log/x.jsonl\n"
					"  sample-hz\t=\t49   # samples\n"
					"rules=/a\r\n"
					"rules = /b\n"
					"state-dir = /no/newline/at/end"),
			 0);
	assert_int_equal(cf.n, 5);
	assert_string_equal(cf.e[0].key, "json");
	assert_string_equal(cf.e[0].value, "/var/log/x.jsonl");
	assert_int_equal(cf.e[0].line, 4);
	assert_int_equal(cf.e[0].col, 1);
	assert_int_equal(cf.e[0].vcol, 8);
	assert_string_equal(cf.e[1].key, "sample-hz");
	assert_string_equal(cf.e[1].value, "49"); /* trailing blanks and the comment gone */
	assert_int_equal(cf.e[1].col, 3);
	assert_int_equal(cf.e[1].vcol, 15);
	assert_string_equal(cf.e[2].value, "/a"); /* CRLF */
	assert_string_equal(cf.e[3].value, "/b");
	assert_string_equal(cf.e[4].value, "/no/newline/at/end");
	assert_int_equal(cf.e[4].line, 8);
	conffile__free(&cf);
}

static void test_conffile_quoted_values_keep_hash_blanks_and_escapes(void **state)
{
	struct conffile cf;

	(void)state;
	assert_int_equal(PARSE_STR(&cf, "json = \" /a b # c \"  # a real comment\n"
					"rules = \"q\\\"uote\\\\d\"\n"
					"ocsf = \"\"\n"
					"json = /var/log/caf\xc3\xa9 # \xe2\x9c\x93 UTF-8 is text\n"),
			 0);
	assert_int_equal(cf.n, 4);
	assert_string_equal(cf.e[3].value, "/var/log/caf\xc3\xa9");
	assert_string_equal(cf.e[0].value, " /a b # c ");
	assert_true(cf.e[0].quoted);
	assert_int_equal(cf.e[0].vcol, 8);
	assert_string_equal(cf.e[1].value, "q\"uote\\d");
	assert_string_equal(cf.e[2].value, "");
	conffile__free(&cf);
}

static void test_conffile_reports_each_syntax_error_at_its_byte(void **state)
{
	struct conffile cf;

	(void)state;
	assert_int_equal(PARSE_STR(&cf, "json /x\n"			 /* 1:6 no '=' */
					"  = 3\n"			 /* 2:3 no key */
					"rules = \"open\n"		 /* 3:9 unterminated */
					"rules = \"a\\tb\"\n"		 /* 4:11 bad escape */
					"rules = \"a\" b\n"		 /* 4:13 text after quotes */
					"sample-hz =   \n"		 /* 6:15 no value */
					"Sample_hz = 3\n"		 /* 7:1 upper case key */
					"json = a\"b\n"			 /* 8:9 quote in a bare value */
					"json = a\x01z\n"		 /* 9:9 control character */
					"json = /x\xff\n"		 /* 10:10 not UTF-8 */
					"rules = \"\xc3\xa9\xc0\xaf\"\n" /* 11:12 overlong '/' */
					"ok = 1\n"),
			 -EINVAL);
	assert_int_equal(cf.errors, 11);
	assert_error(&cf, 0, 1, 6, "expected '=' after 'json'");
	assert_error(&cf, 1, 2, 3, "expected a key");
	assert_error(&cf, 2, 3, 9, "unterminated");
	assert_error(&cf, 3, 4, 11, "unknown escape");
	assert_error(&cf, 4, 5, 13, "unexpected text after the quoted value");
	assert_error(&cf, 5, 6, 15, "has no value");
	assert_error(&cf, 6, 7, 1, "expected a key");
	assert_error(&cf, 7, 8, 9, "quote the whole value");
	assert_error(&cf, 8, 9, 9, "control character 0x01");
	assert_error(&cf, 9, 10, 10, "byte 0xff is not valid UTF-8");
	assert_error(&cf, 10, 11, 12, "byte 0xc0 is not valid UTF-8");
	/* the good line is still there */
	assert_int_equal(cf.n, 1);
	assert_string_equal(cf.e[0].key, "ok");
	conffile__free(&cf);
}

static void test_conffile_bounds_lines_files_and_errors(void **state)
{
	size_t big = CF_FILE_MAX + 1, n = 0;
	char *buf = malloc(big);
	struct conffile cf;

	(void)state;
	assert_non_null(buf);
	memset(buf, '#', big);
	assert_int_equal(conffile__parse(buf, big, &cf), -EFBIG);
	assert_int_equal(cf.n, 0);
	conffile__free(&cf);
	/* a line past CF_LINE_MAX: one error at the first byte past it */
	memset(buf, 'a', CF_LINE_MAX + 10);
	assert_int_equal(conffile__parse(buf, CF_LINE_MAX + 10, &cf), -EINVAL);
	assert_error(&cf, 0, 1, CF_LINE_MAX + 1, "line longer than");
	conffile__free(&cf);
	/* 300 bad lines: 100 kept, all counted */
	for (int i = 0; i < 300; i++)
		buf[n++] = '=', buf[n++] = '\n';
	assert_int_equal(conffile__parse(buf, n, &cf), -EINVAL);
	assert_int_equal(cf.errors, 300);
	assert_int_equal(cf.nerr, CF_ERRORS_MAX);
	conffile__free(&cf);
	/* a NUL byte is an error, not the end of the file */
	assert_int_equal(conffile__parse("a = b\0c = d\n", 12, &cf), -EINVAL);
	assert_error(&cf, 0, 1, 6, "control character 0x00");
	conffile__free(&cf);
	free(buf);
}

/* ---- the meaning: sensor/config/config.c ---- */

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/unit_config.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "%s/plumbline.conf", dir);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/out", dir);
	unlink(cmd);
	rmdir(dir);
	return 0;
}

static const char *write_conf(const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plumbline.conf", dir);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0644);
	return path;
}

/* `plumbline config check PATH`: its return, and what it printed. */
static int check(const char *path, char *out, size_t size)
{
	char opath[128], *text;
	char *argv[] = {(char *)"config", (char *)"check", (char *)path, NULL};
	int saved = dup(STDOUT_FILENO), fd, r;

	snprintf(opath, sizeof(opath), "%s/out", dir);
	fflush(stdout);
	fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	r = cmd_config(3, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	text = ut_read_file(opath, NULL);
	assert_non_null(text);
	snprintf(out, size, "%s", text);
	free(text);
	return r;
}

static void test_config_check_reports_unknown_keys_bad_values_and_repeats_at_their_position(void **state)
{
	const char *p = write_conf("sample-hz = 4x9\n"
				   "smaple-hz = 3\n"
				   "no-baselines = maybe\n"
				   "mode = auto\n"
				   "  mode = learn\n"
				   "rules = /a\n"
				   "rules = /b\n"
				   "config = /x\n"
				   "ringbuf-kb = 100\n");
	char out[4096], want[2048];

	(void)state;
	assert_int_equal(check(p, out, sizeof(out)), 1);
	snprintf(want, sizeof(want),
		 "%1$s:1:13: error: invalid value '4x9' for --sample-hz: expected an integer in [0, 10000]\n"
		 "%1$s:2:1: error: unknown key 'smaple-hz' (did you mean 'sample-hz'?)\n"
		 "%1$s:3:16: error: 'no-baselines' takes true or false\n"
		 "%1$s:5:3: error: 'mode' is set again (first at line 4); only rules, enable-rule and disable-rule may "
		 "repeat\n"
		 "%1$s:8:1: error: 'config' is a command-line option only\n"
		 "%1$s:9:14: error: invalid value '100' for --ringbuf-kb: must be a power of two\n"
		 "6 errors\n",
		 p);
	assert_string_equal(out, want);
}

/* A rule file in dir: name, its text; its path in path[128]. */
static const char *write_rules(const char *name, const char *text, char *path)
{
	FILE *f;

	snprintf(path, 128, "%s/%s", dir, name);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_config_check_accepts_a_valid_file_and_checks_the_whole(void **state)
{
	char out[4096], want[1024], conf[512], pa[128], pb[128];
	const char *a = write_rules("a.yaml",
				    "- rule: A\n  desc: a\n  condition: proc.pid > 0\n  output: a\n"
				    "  priority: INFO\n",
				    pa);
	const char *b = write_rules("b.yaml",
				    "- rule: B\n  desc: b\n  condition: proc.pid > 0\n  output: b\n"
				    "  priority: INFO\n",
				    pb);
	const char *p;

	(void)state;
	/* local-rules given: the default /etc/plumbline/rules.d is not read */
	snprintf(conf, sizeof(conf),
		 "# all fine\njson = -\nrules = %s\nlocal-rules = %s\nquiet = true\nno-live = false\n", a, b);
	p = write_conf(conf);
	assert_int_equal(check(p, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "5 settings OK\n2 rules OK from %s, %s (0 warnings)\n", a, b);
	assert_string_equal(out, want);
	/* the rules are checked as run loads them: a local rule of a shipped
	 * name must say it overrides, and a path that is not there is an error
	 * here, not only when run starts */
	write_rules("b.yaml", "- rule: A\n  desc: again\n  condition: proc.pid > 0\n  output: b\n  priority: INFO\n",
		    pb);
	assert_int_equal(check(p, out, sizeof(out)), 1);
	snprintf(want, sizeof(want),
		 "5 settings OK\n%s:1:9: error: rule 'A': duplicate rule 'A' (first defined at %s:1); to change it, "
		 "give override: (docs/rules.md)\n1 errors\n",
		 b, a);
	assert_string_equal(out, want);
	write_rules("b.yaml", "- rule: A\n  desc: local\n  override:\n    desc: replace\n", pb);
	assert_int_equal(check(p, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "5 settings OK\n1 rules OK from %s, %s (0 warnings)\n", a, b);
	assert_string_equal(out, want);
	snprintf(conf, sizeof(conf), "local-rules = %s/rules.d\n", dir);
	p = write_conf(conf);
	assert_int_equal(check(p, out, sizeof(out)), 1);
	snprintf(want, sizeof(want),
		 "1 settings OK\n%s/rules.d: error: cannot open: No such file or directory\n1 errors\n", dir);
	assert_string_equal(out, want);
	unlink(a);
	unlink(b);
	/* each setting is fine alone, not together: an error at the file */
	p = write_conf("json = -\nocsf = -\n");
	assert_int_equal(check(p, out, sizeof(out)), 1);
	snprintf(want, sizeof(want), "%s: error: --json and --ocsf cannot both write to standard output\n1 errors\n",
		 p);
	assert_string_equal(out, want);
}

static void test_config_check_refuses_a_file_others_can_write(void **state)
{
	char out[4096], want[512];
	const char *p = write_conf("sample-hz = 49\n");

	(void)state;
	chmod(p, 0664);
	assert_int_equal(check(p, out, sizeof(out)), 1);
	snprintf(want, sizeof(want),
		 "%1$s: error: writable by group or others (mode 0664); fix: chmod go-w %1$s\n1 errors\n", p);
	assert_string_equal(out, want);
}

static int run_with(struct run_opts *o, const char *const *args)
{
	static char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"run";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return config__parse_run(argc, argv, o);
}

/* What run loads: the rules (or the shipped ones), then the local rules, which
 * add to them; --no-rules loads none. The default local directory is read
 * only when it is one (a machine with the package installed has it). */
static void test_config_local_rules_come_after_the_rules(void **state)
{
	static struct run_opts o;
	struct stat st;
	bool etc = stat(PL_LOCAL_RULES_DEFAULT, &st) == 0 && S_ISDIR(st.st_mode);

	(void)state;
	assert_int_equal(run_with(&o, (const char *const[]){ "--no-config", NULL }), 0);
	assert_int_equal(o.nrule_list, 1 + etc);
	assert_string_equal(o.rule_list[0], run_opts__default_rules());
	if (etc)
		assert_string_equal(o.rule_list[1], PL_LOCAL_RULES_DEFAULT);
	assert_int_equal(run_with(&o, (const char *const[]){ "--no-config", "--local-rules", "/l1", "--local-rules",
							     "/l2", NULL }),
			 0);
	assert_int_equal(o.nrule_list, 3);
	assert_string_equal(o.rule_list[0], run_opts__default_rules());
	assert_string_equal(o.rule_list[1], "/l1");
	assert_string_equal(o.rule_list[2], "/l2");
	assert_int_equal(run_with(&o, (const char *const[]){ "--no-config", "--rules", "/r", "--local-rules", "/l",
							     NULL }),
			 0);
	assert_int_equal(o.nrule_list, 2);
	assert_string_equal(o.rule_list[0], "/r");
	assert_string_equal(o.rule_list[1], "/l");
	assert_int_equal(run_with(&o, (const char *const[]){ "--no-config", "--no-rules", "--local-rules", "/l",
							     NULL }),
			 0);
	assert_int_equal(o.nrule_list, 0);
}

static void test_config_command_line_overrides_the_file_key_by_key(void **state)
{
	static struct run_opts o; /* static: the config keeps it for reloads */
	const char *p = write_conf("json = /var/log/a.jsonl\n"
				   "sample-hz = 19\n"
				   "rules = /r1\n"
				   "rules = /r2\n"
				   "enable-rule = x\n"
				   "quiet = true\n"
				   "no-baselines = false\n");

	(void)state;
	/* the file alone */
	assert_int_equal(run_with(&o, (const char *const[]){"--config", p, NULL}), 0);
	assert_string_equal(o.json_path, "/var/log/a.jsonl");
	assert_int_equal(o.sample_hz, 19);
	assert_int_equal(o.nrule_paths, 2);
	assert_string_equal(o.rule_paths[0], "/r1");
	assert_string_equal(o.rule_paths[1], "/r2");
	assert_int_equal(o.nenable, 1);
	assert_true(o.quiet);
	assert_true(o.baselines); /* false: as if not given */
	/* the command line wins: scalars, and a repeated option replaces all of the file's */
	assert_int_equal(run_with(&o, (const char *const[]){"--config=", NULL}), -EINVAL);
	assert_int_equal(
	    run_with(&o, (const char *const[]){"--sample-hz", "7", "--config", p, "--rules=/c", "--sample-h=8", NULL}),
	    0);
	assert_int_equal(o.sample_hz, 8); /* an abbreviation is the same key */
	assert_int_equal(o.nrule_paths, 1);
	assert_string_equal(o.rule_paths[0], "/c");
	assert_string_equal(o.json_path, "/var/log/a.jsonl");
	/* --no-config: the file is not read */
	assert_int_equal(run_with(&o, (const char *const[]){"--config", p, "--no-config", NULL}), 0);
	assert_int_equal(o.sample_hz, 49);
	assert_null(o.json_path);
	/* a missing --config file is an error */
	assert_int_equal(run_with(&o, (const char *const[]){"--config", "/nonexistent/plumbline.conf", NULL}), -EINVAL);
}

/* Every run option (but --help) is a key with a default and a reload rule
 * here, in the shipped example and in docs/config.md. */
static void test_config_every_run_option_is_a_documented_key(void **state)
{
	char *dist = ut_read_file(PL_SOURCE_DIR "/sensor/dist/plumbline.conf", NULL);
	char *doc = ut_read_file(PL_SOURCE_DIR "/docs/config.md", NULL);

	(void)state;
	assert_non_null(dist);
	assert_non_null(doc);
	for (const struct option *o = run_opts__longopts(); o->name; o++) {
		const char *def;
		bool live;
		char key[96];

		if (strcmp(o->name, "help") == 0)
			continue;
		if (config__key_info(o->name, &def, &live) != 0)
			fail_msg("run option --%s has no entry in sensor/config/config.c key_infos", o->name);
		snprintf(key, sizeof(key), "\n#%s = ", o->name);
		if (!strstr(dist, key))
			fail_msg("sensor/dist/plumbline.conf lacks '#%s = '", o->name);
		snprintf(key, sizeof(key), "`%s`", o->name);
		if (!strstr(doc, key))
			fail_msg("docs/config.md lacks %s", key);
	}
	free(dist);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conffile_parses_keys_values_comments_and_blank_lines),
	    cmocka_unit_test(test_conffile_quoted_values_keep_hash_blanks_and_escapes),
	    cmocka_unit_test(test_conffile_reports_each_syntax_error_at_its_byte),
	    cmocka_unit_test(test_conffile_bounds_lines_files_and_errors),
	    cmocka_unit_test(test_config_check_reports_unknown_keys_bad_values_and_repeats_at_their_position),
	    cmocka_unit_test(test_config_check_accepts_a_valid_file_and_checks_the_whole),
	    cmocka_unit_test(test_config_check_refuses_a_file_others_can_write),
	    cmocka_unit_test(test_config_command_line_overrides_the_file_key_by_key),
	    cmocka_unit_test(test_config_local_rules_come_after_the_rules),
	    cmocka_unit_test(test_config_every_run_option_is_a_documented_key),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
