// SPDX-License-Identifier: MIT
/*
 * test_ruleset.c - rule files: every kind of item, both of Falco's append
 * and override forms, exceptions (checked by evaluating hand-filled
 * events, including values that try to inject syntax), enabling by name
 * and tag, evaluation order and per-kind selection, duplicates, engine
 * versions, several files and directories, and the diagnostics' exact text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ruleset.h"
#include "unit_helpers.h"

static int load(const char *yaml, struct rl_ruleset **rs, struct rl_diags *d)
{
	memset(d, 0, sizeof(*d));
	*rs = NULL;
	return rl_ruleset__load_buffer("t.yaml", yaml, strlen(yaml), rs, d);
}

/* The printed diagnostics (caller frees). */
static char *printed(const struct rl_diags *d)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	rl_diags__print(d, f);
	fclose(f);
	return s;
}

static void assert_diags(const struct rl_diags *d, const char *want)
{
	char *got = printed(d);

	assert_string_equal(got, want);
	free(got);
}

static struct rl_ruleset *load_ok(const char *yaml)
{
	struct rl_ruleset *rs;
	struct rl_diags d;
	int r = load(yaml, &rs, &d);

	if (r != 0) {
		char *s = printed(&d);

		fprintf(stderr, "unexpected diagnostics:\n%s", s);
		free(s);
	}
	assert_int_equal(r, 0);
	assert_int_equal(d.errors, 0);
	rl_diags__free(&d);
	return rs;
}

static const struct rl_rule *find(const struct rl_ruleset *rs, const char *name)
{
	for (size_t i = 0; i < rl_ruleset__count(rs); i++)
		if (strcmp(rl_ruleset__rule(rs, i)->name, name) == 0)
			return rl_ruleset__rule(rs, i);
	return NULL;
}

/* Matches as "name,name," */
static void collect(const struct rl_rule *r, const struct pl_sample *ev, void *ctx)
{
	char *buf = ctx;
	size_t n = strlen(buf);

	snprintf(buf + n, 512 - n, "%s,", r->name);
}

static struct pl_sample ev;

static void proc(enum rl_kind k, const char *name, const char *exe, double uid)
{
	pl_sample__init(&ev, (enum pl_moment)k);
	ev.comm = name;
	ev.exe = exe;
	ev.uid = (uint32_t)uid;
}

static const char *matches(const struct rl_ruleset *rs)
{
	static char buf[512];

	buf[0] = '\0';
	rl_ruleset__eval(rs, &ev, collect, buf, NULL);
	return buf;
}

#define RULE(name, cond)                                                                                               \
	"- rule: " name "\n  desc: d\n  condition: " cond "\n  output: \"%proc.name\"\n  priority: NOTICE\n"

static void test_ruleset_loads_each_kind_of_item(void **state)
{
	struct rl_ruleset *rs = load_ok("- required_engine_version: 1\n"
					"- list: shells\n  items: [bash, sh]\n"
					"- macro: is_shell\n  condition: proc.name in (shells)\n"
					"- rule: Shell\n"
					"  desc: a shell\n"
					"  condition: is_shell and proc.uid = 0\n"
					"  output: \"shell %proc.name\"\n"
					"  priority: info\n"
					"  tags: [shell, root]\n"
					"  evidence: [ancestry, syscalls]\n"
					"  throttle: 2m\n"
					"  enabled: true\n");
	const struct rl_rule *r = find(rs, "Shell");

	assert_int_equal(rl_ruleset__count(rs), 1);
	assert_non_null(r);
	assert_string_equal(r->desc, "a shell");
	assert_string_equal(r->condition_src, "is_shell and proc.uid = 0");
	assert_string_equal(r->output_src, "shell %proc.name");
	assert_int_equal(r->priority, RL_PRIO_INFORMATIONAL);
	assert_string_equal(rl_priority__name(r->priority), "Informational");
	assert_int_equal(r->ntags, 2);
	assert_string_equal(r->tags[1], "root");
	assert_int_equal(r->evidence, RL_EV_ANCESTRY | RL_EV_SYSCALLS);
	assert_int_equal(r->throttle_s, 120);
	assert_int_equal(r->kinds, RL_E | RL_W | RL_X);
	assert_true(r->enabled);
	assert_string_equal(r->file, "t.yaml");
	assert_int_equal(r->line, 6);
	proc(RL_KIND_EXEC, "sh", "/bin/sh", 0);
	assert_string_equal(matches(rs), "Shell,");
	proc(RL_KIND_EXEC, "sh", "/bin/sh", 1000);
	assert_string_equal(matches(rs), "");
	rl_ruleset__free(rs);
}

static void test_ruleset_legacy_append(void **state)
{
	struct rl_ruleset *rs =
	    load_ok("- list: shells\n  items: [bash]\n"
		    "- list: shells\n  append: true\n  items: [zsh]\n"
		    "- macro: m\n  condition: proc.name in (shells)\n"
		    "- macro: m\n  append: true\n  condition: and proc.uid = 0\n" RULE(
			"R", "m") "- rule: R\n  append: true\n  condition: and not proc.exe = /bin/ok\n");

	assert_string_equal(find(rs, "R")->condition_src, "m and not proc.exe = /bin/ok");
	proc(RL_KIND_EXEC, "zsh", "/bin/zsh", 0);
	assert_string_equal(matches(rs), "R,");
	proc(RL_KIND_EXEC, "zsh", "/bin/ok", 0);
	assert_string_equal(matches(rs), "");
	proc(RL_KIND_EXEC, "zsh", "/bin/zsh", 1);
	assert_string_equal(matches(rs), "");
	rl_ruleset__free(rs);
}

static void test_ruleset_override_forms(void **state)
{
	struct rl_ruleset *rs =
	    load_ok("- list: l\n  items: [a]\n"
		    "- list: l\n  items: [b]\n  override:\n    items: replace\n"
		    "- macro: m\n  condition: proc.name in (l)\n" RULE(
			"R", "m") "- rule: R\n  condition: and proc.uid = 0\n  desc: more\n  tags: [x]\n"
				  "  priority: critical\n  output: \"%proc.exe\"\n"
				  "  override:\n    condition: append\n    desc: append\n    tags: append\n"
				  "    priority: replace\n    output: replace\n"
				  "- rule: R\n  tags: [y]\n  when: exit\n  override: {tags: append, when: replace}\n");
	const struct rl_rule *r = find(rs, "R");

	assert_string_equal(r->condition_src, "m and proc.uid = 0");
	assert_string_equal(r->desc, "d more");
	assert_string_equal(r->output_src, "%proc.exe");
	assert_int_equal(r->priority, RL_PRIO_CRITICAL);
	assert_int_equal(r->ntags, 2);
	assert_string_equal(r->tags[0], "x");
	assert_string_equal(r->tags[1], "y");
	assert_int_equal(r->kinds, RL_X);
	proc(RL_KIND_EXIT, "a", "/a", 0);
	assert_string_equal(matches(rs), "");
	proc(RL_KIND_EXIT, "b", "/b", 0);
	assert_string_equal(matches(rs), "R,");
	proc(RL_KIND_EXEC, "b", "/b", 0);
	assert_string_equal(matches(rs), "");
	rl_ruleset__free(rs);

	/* Falco's enable/disable form */
	rs = load_ok(RULE("R", "proc.uid = 0") "- rule: R\n  enabled: false\n");
	assert_false(find(rs, "R")->enabled);
	assert_int_equal(rl_ruleset__kinds(rs), 0);
	rl_ruleset__free(rs);
}

static void test_ruleset_rejects_bad_overrides(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	assert_int_equal(
	    load("- rule: X\n  append: true\n  condition: and true\n"
		 "- macro: m\n  condition: true\n  override:\n    condition: append\n"
		 "- list: l\n  items: [a]\n  override: {items: append}\n" RULE(
		     "R",
		     "proc.uid = 0") "- rule: R\n  priority: ERROR\n  override:\n    priority: append\n"
				     "- rule: R\n  priority: ERROR\n  desc: y\n  override:\n    priority: replace\n",
		 &rs, &d),
	    -EINVAL);
	assert_null(rs);
	assert_diags(&d, "t.yaml:1:9: error: rule 'X': cannot append to undefined rule 'X'\n"
			 "t.yaml:4:10: error: macro 'm': cannot override undefined macro 'm'\n"
			 "t.yaml:8:9: error: list 'l': cannot override undefined list 'l'\n"
			 "t.yaml:19:15: error: rule 'R': 'priority' can only be replaced, not appended to\n"
			 "t.yaml:22:3: error: rule 'R': 'desc' is not named in 'override'\n");
	rl_diags__free(&d);
}

static void test_ruleset_exceptions_exclude_matching_tuples(void **state)
{
	struct rl_ruleset *rs =
	    load_ok(RULE("Busy", "proc.cpu_ms > 100") "  exceptions:\n"
						      "    - name: known\n"
						      "      fields: [proc.exe, proc.name]\n"
						      "      comps: [=, startswith]\n"
						      "      values:\n"
						      "        - [/usr/bin/make, ma]\n"
						      "        - [/usr/bin/cc, cc1]\n"
						      "    - name: names\n"
						      "      fields: proc.name\n"
						      "      comps: in\n"
						      "      values: [[rustc, ld]]\n"
						      "    - name: cpu\n"
						      "      fields: proc.cpu_ms\n"
						      "      values: [12345]\n"
						      "    - name: empty\n"
						      "      fields: proc.uid\n"
						      "- rule: Busy\n  append: true\n  exceptions:\n    - name: "
						      "names\n      values: [[java]]\n");
	const struct {
		const char *name, *exe;
		double cpu;
		bool match;
	} cases[] = {
	    {"make", "/usr/bin/make", 500, false},  /* tuple 1 */
	    {"xmake", "/usr/bin/make", 500, true},  /* name doesn't start with ma */
	    {"cc1plus", "/usr/bin/cc", 500, false}, /* tuple 2 */
	    {"cc1", "/usr/bin/gcc", 500, true},	    /* exe differs */
	    {"rustc", "/x", 500, false},	    /* in */
	    {"java", "/x", 500, false},		    /* appended value */
	    {"python", "/x", 500, true},
	    {"python", "/x", 12345, false}, /* numeric value */
	    {"python", "/x", 50, false},    /* the condition itself */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		proc(RL_KIND_WINDOW, cases[i].name, cases[i].exe, 0);
		ev.life.cpu_ns = (uint64_t)(cases[i].cpu * 1e6);
		assert_string_equal(matches(rs), cases[i].match ? "Busy," : "");
	}
	assert_int_equal(find(rs, "Busy")->kinds, RL_W | RL_X);
	rl_ruleset__free(rs);
}

static void test_ruleset_exception_values_cannot_inject(void **state)
{
	struct rl_ruleset *rs =
	    load_ok(RULE("R", "proc.uid = 0") "  exceptions:\n"
					      "    - name: e\n"
					      "      fields: [proc.name]\n"
					      "      values: [['x\" or proc.uid = \"0'], ['a\\b'], [\"q'q\"]]\n");

	/* the would-be injection is one string, matched literally */
	proc(RL_KIND_EXEC, "sh", "/bin/sh", 0);
	assert_string_equal(matches(rs), "R,");
	proc(RL_KIND_EXEC, "x\" or proc.uid = \"0", "/bin/sh", 0);
	assert_string_equal(matches(rs), "");
	proc(RL_KIND_EXEC, "a\\b", "/bin/sh", 0);
	assert_string_equal(matches(rs), "");
	proc(RL_KIND_EXEC, "q'q", "/bin/sh", 0);
	assert_string_equal(matches(rs), "");
	rl_ruleset__free(rs);
}

static void test_ruleset_rejects_bad_exceptions(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	assert_int_equal(load(RULE("R", "proc.uid = 0") "  exceptions:\n"
							"    - name: e\n"
							"      fields: [proc.exe, proc.nam]\n"
							"      comps: [=, like]\n"
							"      values: [[a, b]]\n",
			      &rs, &d),
			 -EINVAL);
	assert_diags(&d, "t.yaml:8:26: error: rule 'R': exception 'e': unknown field 'proc.nam' (did you mean "
			 "'proc.name'?)\n"
			 "t.yaml:9:18: error: rule 'R': exception 'e': unknown operator 'like'\n");
	rl_diags__free(&d);
}

static void test_ruleset_enable_by_name_and_tag(void **state)
{
	struct rl_ruleset *rs = load_ok(RULE("A", "proc.uid = 0") "  tags: [t1]\n" RULE(
	    "B", "proc.uid = 0") "  tags: [t1, t2]\n" RULE("C", "proc.cpu_ms > 1") "  tags: [t2]\n");

	proc(RL_KIND_EXEC, "x", "/x", 0);
	assert_string_equal(matches(rs), "A,B,");
	assert_int_equal(rl_ruleset__kinds(rs), RL_E | RL_W | RL_X);
	assert_int_equal(rl_ruleset__enable_tag(rs, "t1", false), 2);
	assert_string_equal(matches(rs), "");
	assert_int_equal(rl_ruleset__kinds(rs), RL_W | RL_X);
	assert_int_equal(rl_ruleset__enable_name(rs, "B", true), 1);
	assert_string_equal(matches(rs), "B,");
	assert_int_equal(rl_ruleset__enable_tag(rs, "t2", false), 2);
	assert_int_equal(rl_ruleset__kinds(rs), 0);
	assert_int_equal(rl_ruleset__enable_name(rs, "nope", true), 0);
	assert_int_equal(rl_ruleset__enable_tag(rs, "nope", true), 0);
	rl_ruleset__free(rs);
}

static void test_ruleset_eval_in_file_order_per_kind(void **state)
{
	struct rl_ruleset *rs = load_ok(RULE("Exit", "proc.exit_code = 1") RULE("Any1", "proc.uid = 0") RULE(
	    "Window", "win.cpu_ms > 5") RULE("ExecOnly", "proc.uid = 0") "  when: exec\n" RULE("Any2", "proc.uid = 0"));
	struct rl_eval_stats st = {0};

	assert_int_equal(find(rs, "Exit")->kinds, RL_X);
	assert_int_equal(find(rs, "Window")->kinds, RL_W);
	proc(RL_KIND_EXEC, "x", "/x", 0);
	assert_string_equal(matches(rs), "Any1,ExecOnly,Any2,");
	proc(RL_KIND_WINDOW, "x", "/x", 0);
	ev.win_start_ns = 1000000000;
	ev.win_end_ns = 2000000000;
	ev.win.cpu_ns = 10000000;
	assert_string_equal(matches(rs), "Any1,Window,Any2,");
	proc(RL_KIND_EXIT, "x", "/x", 0);
	ev.has_exit_code = true;
	ev.exit_code = 1;
	assert_string_equal(matches(rs), "Exit,Any1,Any2,");
	assert_int_equal(rl_ruleset__eval(rs, &ev, NULL, NULL, &st), 3);
	assert_int_equal(st.evaluations > 0, 1);
	rl_ruleset__free(rs);
}

static void test_ruleset_rejects_duplicates(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	assert_int_equal(
	    load(RULE("R", "proc.uid = 0") RULE(
		     "R",
		     "proc.uid = 1") "- list: l\n  items: [a]\n- list: l\n  items: [b]\n"
				     "- macro: m\n  condition: proc.uid = 0\n- macro: m\n  condition: proc.uid = 0\n",
		 &rs, &d),
	    -EINVAL);
	assert_diags(&d, "t.yaml:6:9: error: rule 'R': duplicate rule 'R' (first defined at t.yaml:1); to change it, give override: (docs/rules.md)\n"
			 "t.yaml:13:9: error: list 'l': duplicate list 'l' (first defined at t.yaml:11)\n"
			 "t.yaml:17:10: error: macro 'm': duplicate macro 'm' (first defined at t.yaml:15)\n"
			 "t.yaml:15:3: warning: macro 'm': never used\n"
			 "t.yaml:11:3: warning: list 'l': never used\n");
	rl_diags__free(&d);
}

static void test_ruleset_required_engine_version(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	rs = load_ok("- required_engine_version: 1\n");
	assert_int_equal(rl_ruleset__count(rs), 0);
	rl_ruleset__free(rs);
	assert_int_equal(load("- required_engine_version: 2\n- required_engine_version: x\n", &rs, &d), -EINVAL);
	assert_diags(&d, "t.yaml:1:28: error: requires engine version 2, this plumbline has 1\n"
			 "t.yaml:2:28: error: 'required_engine_version' must be a non-negative integer\n");
	rl_diags__free(&d);
}

static void test_ruleset_errors_in_disabled_rules_count(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	assert_int_equal(load(RULE("R", "proc.nme = x") "  enabled: false\n", &rs, &d), -EINVAL);
	assert_diags(&d, "t.yaml:3:14: error: rule 'R': unknown field 'proc.nme' (did you mean 'proc.name'?)\n");
	rl_diags__free(&d);
}

static void test_ruleset_when_must_fit_the_fields(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	assert_int_equal(load(RULE("R", "proc.exit_code = 1") "  when: [exit, window]\n", &rs, &d), -EINVAL);
	assert_diags(&d, "t.yaml:6:9: error: rule 'R': 'when' includes window, but proc.exit_code has values only "
			 "at exit\n");
	rl_diags__free(&d);
}

static void test_ruleset_warnings_keep_the_ruleset(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	assert_int_equal(
	    load(RULE("T", "proc.uid = 0 or true") RULE("N", "win.cpu_ms > 1 and proc.exit_code = 0"), &rs, &d), 0);
	assert_int_equal(d.warnings, 2);
	assert_diags(&d, "t.yaml:3:14: warning: rule 'T': the condition is always true\n"
			 "t.yaml:8:14: warning: rule 'N': the rule can never run: its fields don't all have values at "
			 "exec, at window or at exit\n");
	assert_int_equal(find(rs, "N")->kinds, 0);
	rl_ruleset__free(rs);
	rl_diags__free(&d);
}

static void test_ruleset_yaml_and_type_errors(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	assert_int_equal(load("- rule: R\n  desc: [a\n", &rs, &d), -EINVAL);
	assert_int_equal(d.errors, 1);
	assert_int_equal(d.d[0].line, 3);
	rl_diags__free(&d);
	assert_int_equal(load(RULE("R", "proc.uid = 0") "  tags: x\n  throttle: -1\n  evidnce: [stacks]\n", &rs, &d),
			 -EINVAL);
	/* unknown keys first, then each known key's problems in file order */
	assert_diags(&d, "t.yaml:8:3: error: rule 'R': unknown key 'evidnce' in rule 'R' (did you mean 'evidence'?)\n"
			 "t.yaml:6:9: error: rule 'R': 'tags' must be a sequence of strings\n"
			 "t.yaml:7:13: error: rule 'R': 'throttle' must be seconds or a duration like 30s, 5m or 1h\n");
	rl_diags__free(&d);
}

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int mk_tmpdir(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pl_ruleset_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int rm_tmpdir(void **state)
{
	ut_rm_rf(tmpdir);
	return 0;
}

static void test_ruleset_later_files_override_earlier(void **state)
{
	char a[256], b[256];
	const char *paths[] = {a, b};
	struct rl_ruleset *rs;
	struct rl_diags d = {0};

	write_file("base.yaml", "- list: l\n  items: [x]\n- macro: m\n  condition: proc.name in (l)\n" RULE("R", "m"));
	write_file("local.yaml", "- list: l\n  append: true\n  items: [y]\n"
				 "- rule: R\n  priority: ERROR\n  override: {priority: replace}\n");
	snprintf(a, sizeof(a), "%s/base.yaml", tmpdir);
	snprintf(b, sizeof(b), "%s/local.yaml", tmpdir);
	assert_int_equal(rl_ruleset__load(paths, 2, &rs, &d), 0);
	assert_int_equal(find(rs, "R")->priority, RL_PRIO_ERROR);
	proc(RL_KIND_EXEC, "y", "/y", 0);
	assert_string_equal(matches(rs), "R,");
	rl_ruleset__free(rs);
	rl_diags__free(&d);

	/* the other order: appending to what isn't defined yet */
	paths[0] = b;
	paths[1] = a;
	assert_int_equal(rl_ruleset__load(paths, 2, &rs, &d), -EINVAL);
	assert_int_equal(d.errors, 2);
	assert_non_null(strstr(d.d[0].msg, "cannot append to undefined list 'l'"));
	assert_string_equal(d.d[0].file, b);
	rl_diags__free(&d);
}

static void test_ruleset_directory_in_name_order(void **state)
{
	char dir[128];
	const char *paths[] = {dir};
	struct rl_ruleset *rs;
	struct rl_diags d = {0};

	snprintf(dir, sizeof(dir), "%s/d", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	write_file("d/20-more.yml", "- rule: R\n  append: true\n  condition: and proc.uid = 0\n" RULE("S", "m"));
	write_file("d/10-base.yaml", "- macro: m\n  condition: proc.name = sh\n" RULE("R", "m"));
	write_file("d/30-ignored.txt", "not yaml: [");
	assert_int_equal(rl_ruleset__load(paths, 1, &rs, &d), 0);
	assert_int_equal(rl_ruleset__count(rs), 2);
	assert_string_equal(rl_ruleset__rule(rs, 0)->name, "R");
	assert_string_equal(rl_ruleset__rule(rs, 0)->condition_src, "m and proc.uid = 0");
	assert_non_null(strstr(rl_ruleset__rule(rs, 1)->file, "20-more.yml"));
	rl_ruleset__free(rs);
	rl_diags__free(&d);

	/* a missing path is a diagnostic about the file */
	paths[0] = "/nonexistent/rules.yaml";
	assert_int_equal(rl_ruleset__load(paths, 1, &rs, &d), -EINVAL);
	assert_diags(&d, "/nonexistent/rules.yaml: error: cannot open: No such file or directory\n");
	rl_diags__free(&d);
}

/* A FIFO where a rule file should be: an error, at once, never a wait for a
 * writer (the sensor loads rules on SIGHUP, inside its event loop). */
static void test_ruleset_rejects_a_fifo_without_blocking(void **state)
{
	char dir[128], fifo[160], want[512];
	const char *paths[] = {fifo};
	struct rl_ruleset *rs = NULL;
	struct rl_diags d = {0};

	snprintf(dir, sizeof(dir), "%s/d", tmpdir);
	snprintf(fifo, sizeof(fifo), "%s/d/20-fifo.yaml", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	write_file("d/10-base.yaml", RULE("R", "proc.name = sh"));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10); /* a regression fails here rather than stalling */
	assert_int_equal(rl_ruleset__load(paths, 1, &rs, &d), -EINVAL);
	snprintf(want, sizeof(want), "%s: error: not a regular file (a FIFO)\n", fifo);
	assert_diags(&d, want);
	rl_diags__free(&d);

	/* in a directory: the whole load is refused, naming the FIFO */
	paths[0] = dir;
	assert_int_equal(rl_ruleset__load(paths, 1, &rs, &d), -EINVAL);
	assert_diags(&d, want);
	assert_null(rs);
	rl_diags__free(&d);
	/* and a device is named as such */
	paths[0] = "/dev/null";
	assert_int_equal(rl_ruleset__load(paths, 1, &rs, &d), -EINVAL);
	assert_diags(&d, "/dev/null: error: not a regular file (a character device)\n");
	rl_diags__free(&d);
	alarm(0);
}

static void test_ruleset_positions_inside_conditions(void **state)
{
	struct rl_ruleset *rs;
	struct rl_diags d;

	/* a literal block: the second line, at the field */
	assert_int_equal(load("- rule: R\n  desc: d\n  output: x\n  priority: DEBUG\n"
			      "  condition: |\n    proc.uid = 0\n      and proc.nme = a\n",
			      &rs, &d),
			 -EINVAL);
	assert_int_equal(d.d[0].line, 7);
	assert_int_equal(d.d[0].col, 11);
	rl_diags__free(&d);
	/* single-quoted with an escaped quote before the error */
	assert_int_equal(load(RULE("R", "'proc.name = ''a'' and proc.nme = a'"), &rs, &d), -EINVAL);
	assert_int_equal(d.d[0].line, 3);
	assert_int_equal(d.d[0].col, 37);
	rl_diags__free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ruleset_loads_each_kind_of_item),
	    cmocka_unit_test(test_ruleset_legacy_append),
	    cmocka_unit_test(test_ruleset_override_forms),
	    cmocka_unit_test(test_ruleset_rejects_bad_overrides),
	    cmocka_unit_test(test_ruleset_exceptions_exclude_matching_tuples),
	    cmocka_unit_test(test_ruleset_exception_values_cannot_inject),
	    cmocka_unit_test(test_ruleset_rejects_bad_exceptions),
	    cmocka_unit_test(test_ruleset_enable_by_name_and_tag),
	    cmocka_unit_test(test_ruleset_eval_in_file_order_per_kind),
	    cmocka_unit_test(test_ruleset_rejects_duplicates),
	    cmocka_unit_test(test_ruleset_required_engine_version),
	    cmocka_unit_test(test_ruleset_errors_in_disabled_rules_count),
	    cmocka_unit_test(test_ruleset_when_must_fit_the_fields),
	    cmocka_unit_test(test_ruleset_warnings_keep_the_ruleset),
	    cmocka_unit_test(test_ruleset_yaml_and_type_errors),
	    cmocka_unit_test_setup_teardown(test_ruleset_later_files_override_earlier, mk_tmpdir, rm_tmpdir),
	    cmocka_unit_test_setup_teardown(test_ruleset_directory_in_name_order, mk_tmpdir, rm_tmpdir),
	    cmocka_unit_test_setup_teardown(test_ruleset_rejects_a_fifo_without_blocking, mk_tmpdir, rm_tmpdir),
	    cmocka_unit_test(test_ruleset_positions_inside_conditions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
