// SPDX-License-Identifier: MIT
/*
 * test_expr.c - rule conditions: the lexer through compile errors and
 * successes, every operator both ways on a hand-filled event, precedence,
 * absent values, macros, lists, bare words, [NAME] fields, regex limits,
 * constant folding, kinds, and that reordering operands never changes a
 * result. Error tests check the exact message and offset: they are what a
 * rule author sees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>

#include <cmocka.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "expr.h"
#include "fields.h"
#include "syscalls.h"

/* --- a resolver with a few macros and lists --- */

static const struct {
	const char *name, *src;
} macros[] = {
    {"is_shell", "proc.name in (bash, sh, zsh)"},
    {"shell_under_sshd", "is_shell and proc.pname = sshd"},
    {"spawned_by_sshd", "shell_under_sshd"},
    {"cyc_a", "proc.pid = 1 or cyc_b"},
    {"cyc_b", "true and cyc_a"},
    {"self_loop", "self_loop"},
    {"typo_inside", "proc.pid = 1 and proc.nme = x"},
    {"typo_deeper", "true and typo_inside"},
    {"a_number", "1 + 2"},
    {"ready", "baseline.ready"},
    {"pid_is_42", "proc.pid = 42"},
};

static const char *const shells[] = {"bash", "sh", "zsh"};
static const char *const all_shells[] = {"shells", "fish"};
static const char *const loop[] = {"x", "loop"};
static const char *const uids[] = {"0", "1000"};
static const char *const many[] = {"a01", "a02", "a03", "a04", "a05", "a06", "a07", "a08", "a09", "a10",
				   "a11", "a12", "a13", "a14", "a15", "a16", "a17", "a18", "a19", "sshd"};
static const char *const sys_dirs[] = {"/etc/", "/usr/lib"};

static const struct {
	const char *name;
	const char *const *items;
	size_t n;
} lists[] = {
    {"shells", shells, 3}, {"all_shells", all_shells, 2}, {"loop", loop, 2}, {"uids", uids, 2},
    {"many", many, 20},	   {"sys_dirs", sys_dirs, 2},
};

static const char *test_macro(void *ctx, const char *name)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++)
		if (strcmp(macros[i].name, name) == 0)
			return macros[i].src;
	return NULL;
}

static bool test_list(void *ctx, const char *name, const char *const **items, size_t *n)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (strcmp(lists[i].name, name) == 0) {
			*items = lists[i].items;
			*n = lists[i].n;
			return true;
		}
	return false;
}

static const struct rl_resolver resolver = {.macro = test_macro, .list = test_list};

/* --- helpers --- */

static struct pl_sample ev;

/* sshd started by systemd, pid 42, 500 ms of CPU against a p99 of 100,
 * baseline ready, a window sample */
static void fill(struct pl_sample *e)
{
	pl_sample__init(e, PL_AT_WINDOW);
	e->comm = "sshd";
	e->exe = "/usr/sbin/sshd";
	e->parent_exe = "systemd";
	e->cmdline = "sshd -D -o LogLevel=VERBOSE";
	e->pid = 42;
	e->uid = 0;
	e->life.cpu_ns = 500000000;
	e->bl.key = "build-id:aa@build-id:bb";
	e->bl.q[PL_LIFE_CPU][2] = 100e6;
	e->bl.ready = true;
	e->partial = false;
	e->ancestors[0] = "/usr/bin/bash";
	e->ancestors[1] = "/usr/lib/systemd/systemd";
	e->nancestors = 2;
}

static int setup(void **state)
{
	(void)state;
	fill(&ev);
	return 0;
}

static struct rl_expr *compile_ok(const char *src)
{
	struct rl_expr *e = NULL;
	struct rl_error err;
	int r = rl_expr__compile(src, &resolver, &e, &err);

	if (r != 0)
		fail_msg("'%s' failed at %zu (macro '%s'): %s", src, err.offset, err.macro, err.msg);
	return e;
}

/* Compile, evaluate against ev, free. */
static bool eval_src(const char *src, const struct pl_sample *e)
{
	struct rl_expr *x = compile_ok(src);
	bool b = rl_expr__eval(x, e, NULL);

	rl_expr__free(x);
	return b;
}

static bool T(const char *src)
{
	return eval_src(src, &ev);
}

#define assert_true_src(s)  assert_true(T(s))
#define assert_false_src(s) assert_false(T(s))

static void check_error(const char *src, size_t off, const char *macro, const char *msg)
{
	struct rl_expr *e = NULL;
	struct rl_error err;
	int r = rl_expr__compile(src, &resolver, &e, &err);

	if (r != -EINVAL)
		fail_msg("'%s' compiled (r=%d)", src, r);
	assert_null(e);
	if (strcmp(err.msg, msg) != 0 || err.offset != off || strcmp(err.macro, macro) != 0)
		fail_msg("'%s':\n got  %zu [%s] %s\n want %zu [%s] %s", src, err.offset, err.macro, err.msg, off, macro,
			 msg);
}

#define ERR(src, off, msg) check_error(src, off, "", msg)

/* --- lexer --- */

static void test_expr_lexer_accepts_every_token_form(void **state)
{
	assert_true_src("proc.pid == 42");
	assert_true_src("proc.pid=42");
	assert_true_src("proc.pid!=41");
	assert_true_src(
	    "proc.cpu_ms >= 5e2 and proc.cpu_ms <= 5.0E+2 and proc.cpu_ms < 500.5 and proc.cpu_ms > 4.99e2");
	assert_true_src("proc.cpu_ms = 5000e-1");
	assert_true_src("proc.name = 'sshd' and proc.name = \"sshd\"");
	assert_true_src("proc.cmdline contains \"LogLevel=VERBOSE\"");
	assert_true_src("'it\\'s' = \"it's\" and \"q\\\"\" = 'q\"' and 'a\\\\b' = \"a\\x5cb\"");
	assert_true_src("'\\x41\\x62' = 'Ab' and '\\n' != 'n' and '\\t' != 't'");
	assert_true_src("\tproc.pid\n=\r42 ");
	assert_true_src("(proc.pid=42)and(proc.uid=0)");
	assert_true_src("proc.pid = 40+2 and proc.pid = 84/2 and proc.pid = 21*2 and proc.pid = 43-1");
}

static void test_expr_lexer_reports_bad_tokens(void **state)
{
	ERR("proc.name = \"abc", 12, "unterminated string");
	ERR("proc.name = 'abc\\'", 12, "unterminated string");
	ERR("proc.name = \"a\\qb\"", 14, "unknown escape '\\q' in string");
	ERR("proc.name = \"\\x4\"", 13, "'\\x' needs two hex digits");
	ERR("proc.name = \"\\x00\"", 13, "a string can't contain \\x00");
	ERR("proc.pid = 1 @", 13, "unexpected character '@'");
	ERR("proc.pid ! 1", 9, "unexpected character '!' (did you mean '!=' or 'not'?)");
	ERR("proc.pid = 12abc", 11, "bad number");
	ERR("proc.syscall[open", 17, "expected NAME] after '[' at offset 12");
	ERR("proc.syscall[] > 1", 13, "expected NAME] after '[' at offset 12");
	ERR("proc.pid = 1 \x01", 13, "unexpected byte 0x01");
}

/* --- parser errors --- */

static void test_expr_reports_syntax_errors_with_offsets(void **state)
{
	ERR("(proc.pid = 1", 13, "expected ')' to close '(' at offset 0");
	ERR("proc.pid = 1 and (proc.pid = 2 or proc.pid = 3", 46, "expected ')' to close '(' at offset 17");
	ERR("(proc.pid = 1 proc.uid = 0)", 14, "expected ')' to close '(' at offset 0");
	ERR("proc.pid =", 10, "unexpected end of condition");
	ERR("", 0, "unexpected end of condition");
	ERR("   ", 3, "unexpected end of condition");
	ERR("proc.pid = 1 and", 16, "unexpected end of condition");
	ERR("proc.name = sshd foo", 17, "unexpected token 'foo'");
	ERR("proc.pid = 1)", 12, "unexpected token ')'");
	ERR("proc.pid = 1 and and", 17, "unexpected token 'and'");
	ERR("proc.name in sshd", 13, "'in' needs a parenthesized list");
	ERR("proc.name pmatch /etc", 17, "'pmatch' needs a parenthesized list");
	ERR("proc.name in (a, b", 18, "expected ')' to close '(' at offset 13");
	ERR("proc.name in (", 14, "expected ')' to close '(' at offset 13");
	ERR("proc.name in (a,,b)", 16, "empty item in the list of 'in'");
	ERR("proc.name in (a,)", 16, "empty item in the list of 'in'");
	ERR("proc.name in (a b)", 16, "expected ',' or ')' in the list of 'in'");
	ERR("proc.name in ('a", 14, "unterminated string");
	ERR("proc.pid = 1 = 2", 13, "comparisons don't chain: unexpected '=' (use 'and')");
	ERR("proc.pid < 2 < 3", 13, "comparisons don't chain: unexpected '<' (use 'and')");
}

static void test_expr_bounds_length_and_nesting(void **state)
{
	char *big = malloc(70000), deep[1024];
	size_t n = 0;

	assert_non_null(big);
	memset(big, ' ', 69999);
	memcpy(big, "true", 4);
	big[65537] = '\0';
	ERR(big, 65536, "condition longer than 65536 bytes");
	big[65536] = '\0'; /* exactly 64 KiB is fine */
	assert_true(T(big));
	free(big);

	for (int i = 0; i < 64; i++)
		deep[n++] = '(';
	memcpy(deep + n, "true", 4);
	n += 4;
	for (int i = 0; i < 64; i++)
		deep[n++] = ')';
	deep[n] = '\0';
	assert_true(T(deep));
	memmove(deep + 1, deep, n + 1);
	deep[0] = '(';
	ERR(deep, 64, "nesting deeper than 64 (parentheses, not, minus, macros)");

	n = 0;
	for (int i = 0; i < 65; i++) {
		memcpy(deep + n, "not ", 4);
		n += 4;
	}
	memcpy(deep + n, "true", 5);
	ERR(deep, 256, "nesting deeper than 64 (parentheses, not, minus, macros)");
	assert_true(T(deep + 4)); /* 64 nots: fine, and an even count */
	assert_false(T(deep + 8));

	/* a long arithmetic chain is not nesting, but still bounded */
	n = 0;
	memcpy(deep, "proc.pid", 8);
	n = 8;
	for (int i = 0; i < 200 && n < sizeof(deep) - 16; i++) {
		memcpy(deep + n, "+1", 2);
		n += 2;
	}
	memcpy(deep + n, " > 0", 5);
	assert_true(T(deep));
}

/* --- names --- */

static void test_expr_reports_unknown_names(void **state)
{
	ERR("proc.nme = sshd", 0, "unknown field 'proc.nme' (did you mean 'proc.name'?)");
	ERR("proc.pid = 1 and proc.exe_nam = x", 17, "unknown field 'proc.exe_nam' (did you mean 'proc.exe_name'?)");
	ERR("foo", 0, "undefined macro 'foo'");
	ERR("proc.pid = 1 and not foo", 21, "undefined macro 'foo'");
	ERR("zzzzzzzzzzzz = 1", 0, "unknown field 'zzzzzzzzzzzz'");
	/* the names a Falco user types first: what to write here instead */
	ERR("fd.name startswith /etc", 0,
	    "unknown field 'fd.name': a Falco field; here: file.path (a watched file's event), map.path (an "
	    "executable mapping), proc.top_fail_path or proc.open_failures_under[PREFIX] (failed opens)");
	ERR("proc.pid = 1 and evt.type = open", 17,
	    "unknown field 'evt.type': a Falco field; here: evt.when (exec, window, exit, connect, file, map); calls "
	    "by syscall: proc.syscall[NAME]");
	ERR("user.name = root", 0, "unknown field 'user.name': a Falco field; here: proc.uid (the alert names the user)");
	ERR("container.image.repository = x", 0,
	    "unknown field 'container.image.repository': a Falco field; here: proc.cgroup (containers are not named yet)");
	ERR("fd.sport = 22", 0, "unknown field 'fd.sport': a Falco field; here: net.port (a connect's peer)");
	/* a path prefix is a [PREFIX]: the failed opens under it */
	ERR("proc.open_failures_under > 1", 0,
	    "field 'proc.open_failures_under' needs a path prefix: proc.open_failures_under[PREFIX]");
	ERR("proc.cpu_ms > 4 * zork", 18, "unknown field 'zork'");
	ERR("totally.unknown.thing", 0, "unknown field 'totally.unknown.thing'");
	ERR("proc.syscall > 1", 0, "field 'proc.syscall' needs a syscall name: proc.syscall[NAME]");
	ERR("proc.pid[x] = 1", 8, "field 'proc.pid' takes no [parameter]");
	ERR("proc.syscall[nosuchcall] > 1", 13, "unknown syscall 'nosuchcall' in proc.syscall[nosuchcall]");
	ERR("win.syscall_per_s[bogus] > 1", 18, "unknown syscall 'bogus' in win.syscall_per_s[bogus]");
}

static void test_expr_reports_type_mismatches(void **state)
{
	ERR("proc.name = 1", 12, "type mismatch: = needs string, got number");
	ERR("proc.pid = \"x\"", 11, "type mismatch: = needs number, got string");
	ERR("proc.pid != 'x'", 12, "type mismatch: != needs number, got string");
	ERR("proc.pid = sshd", 11, "unknown field 'sshd'");
	ERR("proc.name > 3", 0, "type mismatch: > needs number, got string");
	ERR("3 <= proc.name", 5, "type mismatch: <= needs number, got string");
	ERR("proc.pid contains 1", 0, "type mismatch: contains needs string or string list, got number");
	ERR("proc.name startswith 1", 21, "type mismatch: startswith needs string, got number");
	ERR("proc.name + 1 > 2", 0, "type mismatch: + needs number, got string");
	ERR("proc.pid * 'x' > 2", 11, "type mismatch: * needs number, got string");
	ERR("-proc.name = 1", 1, "type mismatch: - needs number, got string");
	ERR("proc.pid and true", 0, "type mismatch: and needs boolean, got number");
	ERR("true or proc.name", 8, "type mismatch: or needs boolean, got string");
	ERR("not proc.pid", 4, "type mismatch: not needs boolean, got number");
	ERR("proc.pid", 0, "the condition must be boolean, got number");
	ERR("(proc.pid + 1)", 0, "the condition must be boolean, got number");
	ERR("proc.name regex proc.exe", 16,
	    "type mismatch: regex needs a string literal (a pattern), got field 'proc.exe'");
	ERR("proc.name glob proc.exe", 15,
	    "type mismatch: glob needs a string literal (a pattern), got field 'proc.exe'");
	ERR("1 exists", 0, "'exists' needs a field");
	ERR("baseline.ready in (true)", 0, "type mismatch: in needs string, string list or number, got boolean");
	ERR("proc.pid in (1, x)", 16, "type mismatch: in needs numbers for a number, got 'x'");
	ERR("proc.pid in (1, shells)", 16, "type mismatch: in needs numbers for a number, got 'bash'");
	ERR("proc.pid pmatch (/x)", 0, "type mismatch: pmatch needs string, got number");
	ERR("proc.aname startswith x", 0, "type mismatch: startswith needs string, got string list");
	ERR("proc.aname = x", 0, "type mismatch: = needs number, boolean or string, got string list");
	ERR("baseline.ready = 1", 17, "type mismatch: = needs boolean, got number");
	check_error("a_number", 0, "a_number", "a macro must be a condition (boolean), got number");
}

/* --- operators --- */

static void test_expr_equality_and_order(void **state)
{
	assert_true_src("proc.pid = 42");
	assert_false_src("proc.pid = 43");
	assert_true_src("proc.pid != 43");
	assert_false_src("proc.pid != 42");
	assert_true_src("proc.pid < 43");
	assert_false_src("proc.pid < 42");
	assert_true_src("proc.pid <= 42");
	assert_false_src("proc.pid <= 41");
	assert_true_src("proc.pid > 41");
	assert_false_src("proc.pid > 42");
	assert_true_src("proc.pid >= 42");
	assert_false_src("proc.pid >= 43");
	assert_true_src("proc.name = sshd");
	assert_false_src("proc.name = ssh");
	assert_true_src("proc.name != ssh");
	assert_false_src("proc.name != sshd");
	assert_true_src("proc.name = proc.name and proc.name != proc.exe");
	assert_true_src("baseline.ready = true and baseline.ready != false");
	assert_false_src("baseline.ready = false");
	assert_true_src("proc.partial = false");
	assert_true_src("(proc.pid = 42) = true");
	/* exact on doubles: 0.1 + 0.2 is not 0.3 */
	assert_false_src("proc.pid + 0.1 + 0.2 = 42.3");
	assert_true_src("proc.pid + 0.5 = 42.5");
}

static void test_expr_string_operators(void **state)
{
	assert_true_src("proc.cmdline contains LogLevel");
	assert_false_src("proc.cmdline contains loglevel");
	assert_true_src("proc.cmdline icontains loglevel");
	assert_true_src("proc.cmdline icontains 'LOGLEVEL=verbose'");
	assert_false_src("proc.cmdline icontains 'LogLevel=quiet'");
	assert_true_src("proc.exe startswith /usr/sbin/");
	assert_false_src("proc.exe startswith /usr/bin/");
	assert_true_src("proc.exe endswith /sshd");
	assert_false_src("proc.exe endswith /sshd2");
	assert_false_src("proc.name endswith xsshd");
	assert_true_src("proc.exe glob '/usr/*/ssh?'");
	assert_true_src("proc.exe glob /usr/s[a-c]in/*");
	assert_true_src("proc.exe glob '*sshd'");
	assert_true_src("proc.exe glob '*'");
	assert_false_src("proc.exe glob '/usr/s[!b]in/*'");
	assert_false_src("proc.exe glob '/usr/*/ssh'");
	assert_true_src("proc.exe glob '/usr/*/*d'");
	assert_true_src("proc.exe regex '^/usr/s?bin/ssh'");
	assert_true_src("proc.exe regex sshd$");
	assert_false_src("proc.exe regex '^sshd'");
	assert_true_src("proc.exe contains proc.name");
	assert_true_src("proc.aname contains bash");
	assert_false_src("proc.aname contains bas");
	assert_true_src("proc.aname icontains BASH");
	assert_false_src("proc.aname icontains BAS");
}

static void test_expr_membership_and_paths(void **state)
{
	assert_true_src("proc.name in (sshd, sudo)");
	assert_false_src("proc.name in (sudo, su)");
	assert_false_src("proc.name in ()");
	assert_true_src("proc.name in ('sshd')");
	assert_true_src("proc.pid in (1, 42, 7)");
	assert_false_src("proc.pid in (1, 2)");
	assert_true_src("proc.uid in (uids)");
	assert_true_src("proc.pid in (-1, 42.0)");
	assert_true_src("proc.aname in (zsh, bash)");
	assert_false_src("proc.aname in (zsh, fish)");
	/* past the linear scan: a sorted set, binary-searched */
	assert_true_src("proc.name in (many)");
	assert_false_src("proc.pname in (many)");
	assert_true_src("proc.name in (z9, z8, z7, z6, z5, z4, z3, z2, z1, z0, sshd, z0, a)");
	assert_false_src("proc.name in (z9, z8, z7, z6, z5, z4, z3, z2, z1, z0, ssh, z0, a)");
	assert_true_src("proc.exe pmatch (/usr/sbin)");
	assert_true_src("proc.exe pmatch (/usr/sbin/)");
	assert_true_src("proc.exe pmatch (/opt, /usr)");
	assert_true_src("proc.exe pmatch (/usr/sbin/sshd)");
	assert_true_src("proc.exe pmatch (/)");
	assert_false_src("proc.exe pmatch (/usr/sb)");
	assert_false_src("proc.exe pmatch (/usr/sbin/ssh)");
	assert_false_src("proc.exe pmatch (sys_dirs)");
	ev.exe = "/etc/x";
	assert_true_src("proc.exe pmatch (sys_dirs)");
	ev.exe = "/etcx";
	assert_false_src("proc.exe pmatch (/etc)");
	ev.exe = "/etc";
	assert_true_src("proc.exe pmatch (/etc)");
	assert_true_src("proc.exe pmatch (/etc/)");
}

static void test_expr_exists_and_absent_values(void **state)
{
	assert_true_src("proc.pid exists");
	assert_false_src("proc.exit_code exists");
	assert_true_src("not proc.exit_code exists");
	assert_false_src("proc.exit_code = 0");
	assert_false_src("proc.exit_code != 0");
	assert_true_src("not proc.exit_code = 0");
	assert_false_src("proc.exit_code < 1 or proc.exit_code >= 1");
	assert_false_src("proc.exit_code + 1 > 0");
	assert_false_src("proc.pid + proc.exit_code > 0");
	assert_false_src("proc.pid - proc.exit_code != 0");
	assert_false_src("proc.cgroup = x or proc.cgroup != x");
	assert_false_src("proc.cgroup contains '' or proc.cgroup startswith ''");
	assert_false_src("proc.cgroup regex '.*' or proc.cgroup glob '*'");
	assert_false_src("proc.cgroup in (a) or proc.cgroup pmatch (/)");
	assert_false_src("proc.apath contains x or proc.apath in (x)");
	assert_false_src("baseline.anomalous");
	assert_true_src("not baseline.anomalous");
	assert_false_src("baseline.anomalous = false");
	/* division by zero has no value */
	assert_false_src("proc.pid / proc.uid > 0");
	assert_false_src("proc.pid / proc.uid <= 0");
	assert_true_src("not proc.pid / proc.uid > 0");
}

/* --- precedence --- */

static void test_expr_precedence(void **state)
{
	/* or < and: true or (false and false) */
	assert_true_src("proc.pid = 42 or proc.pid = 1 and proc.pid = 2");
	/* (false or true) and false would be false */
	assert_false_src("(proc.pid = 42 or proc.pid = 1) and proc.pid = 2");
	/* not binds tighter than and: (not false) and true */
	assert_true_src("not proc.pid = 1 and proc.pid = 42");
	assert_false_src("not (proc.pid = 1 or proc.pid = 42)");
	assert_true_src("not not proc.pid = 42");
	/* arithmetic: * before +, unary minus before * */
	assert_true_src("proc.pid = 2 + 4 * 10");
	assert_true_src("proc.pid = (2 + 4) * 7");
	assert_true_src("proc.pid - 2 - 10 = 30");
	assert_true_src("proc.pid / 2 / 3 = 7");
	assert_true_src("-proc.pid * 2 = -84");
	assert_true_src("- -proc.pid = 42");
	assert_true_src("proc.cpu_ms > 4 * baseline.cpu_ms.p99");
	ev.life.cpu_ns = 400000000;
	assert_false_src("proc.cpu_ms > 4 * baseline.cpu_ms.p99");
	assert_true_src("proc.cpu_ms >= 4 * baseline.cpu_ms.p99");
	ev.bl.q[PL_LIFE_CPU][2] = 99.5e6;
	assert_true_src("proc.cpu_ms > 4 * baseline.cpu_ms.p99");
}

/* --- macros --- */

static void test_expr_macros_inline_nested(void **state)
{
	assert_false_src("is_shell");
	assert_true_src("not is_shell");
	assert_true_src("ready and pid_is_42");
	ev.comm = "bash";
	ev.parent_exe = "sshd";
	assert_true_src("is_shell");
	assert_true_src("shell_under_sshd");
	assert_true_src("spawned_by_sshd and proc.pid = 42");
	ev.parent_exe = "cron";
	assert_false_src("spawned_by_sshd");
	/* a macro is one operand: not applies to all of it */
	assert_true_src("not spawned_by_sshd");
}

static void test_expr_macro_errors_name_the_macro(void **state)
{
	check_error("cyc_a", 9, "cyc_b", "macro cycle: cyc_a -> cyc_b -> cyc_a");
	check_error("proc.pid = 1 and self_loop", 0, "self_loop", "macro cycle: self_loop -> self_loop");
	check_error("typo_inside", 17, "typo_inside", "unknown field 'proc.nme' (did you mean 'proc.name'?)");
	check_error("typo_deeper", 17, "typo_inside", "unknown field 'proc.nme' (did you mean 'proc.name'?)");
	check_error("proc.pid = 1 or a_number", 0, "a_number", "a macro must be a condition (boolean), got number");
	check_error("is_shell + 1 > 0", 0, "", "type mismatch: + needs number, got boolean");
	check_error("nosuchmacro or true", 0, "", "undefined macro 'nosuchmacro'");
}

/* --- lists and bare words --- */

static void test_expr_lists_expand_recursively(void **state)
{
	assert_false_src("proc.name in (shells)");
	ev.comm = "fish";
	assert_false_src("proc.name in (shells)");
	assert_true_src("proc.name in (all_shells)");
	assert_true_src("proc.name in (sudo, all_shells, su)");
	ev.comm = "zsh";
	assert_true_src("proc.name in (all_shells)");
	/* quoted, a list name is just a string */
	assert_false_src("proc.name in ('shells')");
	ev.comm = "shells";
	assert_true_src("proc.name in ('shells')");
	ERR("proc.name in (x, loop)", 17, "list cycle: list 'loop' contains itself");
}

static void test_expr_bare_words(void **state)
{
	ev.exe = "/usr/bin/ssh";
	assert_true_src("proc.exe = /usr/bin/ssh");
	assert_true_src("proc.exe=/usr/bin/ssh");
	assert_true_src("(proc.exe = /usr/bin/ssh)");
	assert_true_src("proc.exe startswith /usr/bin/ and proc.name = sshd");
	assert_true_src("proc.exe in (/usr/bin/ssh, /bin/ssh)");
	assert_true_src("proc.cmdline contains -D");
	assert_true_src("proc.cmdline contains LogLevel=VERBOSE");
	assert_true_src("proc.cmdline icontains -o");
	assert_false_src("proc.name = proc.nme"); /* not a field: the word itself */
	assert_true_src("proc.name != is.not.a.field");
	assert_true_src("proc.name = proc.name"); /* a field stays a field */
	ev.comm = "123abc";
	assert_true_src("proc.name = 123abc");
	assert_true_src("proc.name in (123abc, 7)");
	ev.comm = "7";
	assert_true_src("proc.name in (123abc, 7)");
	assert_true_src("proc.name = '7'");
	ERR("proc.name = 7", 12, "type mismatch: = needs string, got number");
	/* a macro name or keyword is not a bare word */
	ERR("proc.name = ready", 12, "type mismatch: = needs string, got boolean");
	ERR("proc.name = true", 12, "type mismatch: = needs string, got boolean");
}

/* --- [NAME] fields --- */

static void test_expr_param_fields(void **state)
{
	static unsigned long long sc[RL_SC_SLOTS], win[RL_SC_SLOTS];
	int openat = syscall_number("openat"), ptrace = syscall_number("ptrace");

	assert_true(openat >= 0 && ptrace >= 0);
	assert_false_src("proc.syscall[openat] exists");
	assert_false_src("proc.syscall[openat] >= 0");
	assert_false_src("win.syscall_per_s[openat] >= 0");
	sc[openat] = 12;
	sc[ptrace] = 1;
	win[openat] = 30;
	ev.life.sc = sc;
	ev.win.sc = win;
	ev.win_start_ns = ev.win_end_ns = 1000; /* no window length */
	assert_true_src("proc.syscall[openat] = 12 and proc.syscall[ptrace] > 0 and proc.syscall[execve] = 0");
	assert_true_src("proc.syscall[openat] exists");
	assert_false_src("win.syscall_per_s[openat] exists"); /* no window length: no rate */
	ev.win_end_ns = ev.win_start_ns + 2000000000ull;
	assert_true_src("win.syscall_per_s[openat] = 15");
	assert_true_src("win.syscall_per_s[openat] > 2 * proc.syscall[ptrace]");
}

/* --- regex --- */

static void test_expr_regex_limits_and_errors(void **state)
{
	struct rl_eval_stats st = {0};
	struct rl_expr *e;
	struct rl_error err;
	struct timespec a, b;
	uint32_t jit = 0;

	pcre2_config_8(PCRE2_CONFIG_JIT, &jit);
	print_message("PCRE2 JIT %s\n", jit ? "available" : "not available");

	ev.cmdline = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!";
	e = compile_ok("proc.cmdline regex '(a+)+$'");
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_false(rl_expr__eval(e, &ev, &st));
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(st.regex_limit_hits, 1);
	assert_int_equal(st.regex_errors, 0);
	assert_int_equal(st.evaluations, 1);
	assert_true((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 0.5e9);
	rl_expr__free(e);

	/* a cheap operand decides first: the regex is never run */
	e = compile_ok("proc.cmdline regex '(a+)+$' or proc.pid = 42");
	assert_true(rl_expr__eval(e, &ev, &st));
	assert_int_equal(st.regex_limit_hits, 1);
	assert_int_equal(st.evaluations, 2);
	rl_expr__free(e);

	assert_int_equal(rl_expr__compile("proc.pid = 1 or proc.name regex 'a(b'", &resolver, &e, &err), -EINVAL);
	assert_int_equal(err.offset, 32);
	assert_string_equal(err.macro, "");
	assert_non_null(strstr(err.msg, "bad regex: missing closing parenthesis at offset 3 of the pattern"));
	assert_int_equal(rl_expr__compile("proc.name regex *x", &resolver, &e, &err), -EINVAL);
	assert_int_equal(err.offset, 16);
	assert_non_null(strstr(err.msg, "quantifier does not follow a repeatable item at offset 0"));
}

/* --- compile-time facts --- */

static void test_expr_constant_folding(void **state)
{
	static const struct {
		const char *src;
		int constant;
	} cases[] = {
	    {"1 = 1", 1},
	    {"not true", 0},
	    {"2 > 3 or false", 0},
	    {"1 + 2 * 3 = 7", 1},
	    {"'a' = 'a' and 'b' != 'a'", 1},
	    {"3 in (1, 2, 3)", 1},
	    {"1 / 0 = 1 / 0", 0},
	    {"true and proc.pid = 1", -1},
	    {"false and proc.pid = 1", 0},
	    {"proc.pid = 1 or true", 1},
	    {"proc.pid = 1 or (2 < 1)", -1},
	    {"proc.pid exists", -1},
	    {"not (1 = 2) and (true or proc.pid = 3)", 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rl_expr *e = compile_ok(cases[i].src);

		if (rl_expr__constant(e) != cases[i].constant)
			fail_msg("'%s': constant %d, want %d", cases[i].src, rl_expr__constant(e), cases[i].constant);
		if (cases[i].constant >= 0)
			assert_int_equal(rl_expr__eval(e, &ev, NULL), cases[i].constant);
		rl_expr__free(e);
	}
}

static void test_expr_kinds_and_fields(void **state)
{
	struct rl_expr *e = compile_ok("true");
	enum rl_field f[8];

	assert_int_equal(rl_expr__kinds(e), RL_ANY); /* no field: every moment, the event moments too */
	assert_int_equal(rl_expr__fields(e, f, 8), 0);
	rl_expr__free(e);
	e = compile_ok("proc.name = cat and file.class = credentials");
	assert_int_equal(rl_expr__kinds(e), RL_F); /* identity fields at every moment, file.* at file */
	rl_expr__free(e);
	e = compile_ok("file.class = credentials and proc.cpu_ms > 1");
	assert_int_equal(rl_expr__kinds(e), 0);
	rl_expr__free(e);

	e = compile_ok("proc.name = x and proc.cpu_ms > 1");
	assert_int_equal(rl_expr__kinds(e), RL_WX);
	rl_expr__free(e);
	e = compile_ok("proc.exit_code = 0 or proc.cpu_ms > 1 or proc.name = a");
	assert_int_equal(rl_expr__kinds(e), RL_X);
	assert_int_equal(rl_expr__fields(e, f, 8), 3);
	assert_int_equal(rl_expr__fields(e, f, 2), 2);
	rl_expr__free(e);
	e = compile_ok("win.cpu_ms > 1 and proc.exit_code = 0");
	assert_int_equal(rl_expr__kinds(e), 0);
	rl_expr__free(e);
	e = compile_ok("proc.pid = 1 and proc.pid = 2 and baseline.ready");
	assert_int_equal(rl_expr__fields(e, f, 8), 2);
	assert_true((f[0] == RL_F_PROC_PID && f[1] == RL_F_BL_READY) ||
		    (f[1] == RL_F_PROC_PID && f[0] == RL_F_BL_READY));
	rl_expr__free(e);
}

static void test_expr_reordering_keeps_results(void **state)
{
	static const char *const pairs[][2] = {
	    {"proc.exe regex 'ssh' and proc.pid = 42", "proc.pid = 42 and proc.exe regex 'ssh'"},
	    {"proc.name in (a, b, c, sshd) or proc.pid > 40", "proc.pid > 40 or proc.name in (a, b, c, sshd)"},
	    {"(proc.uid = 0 and proc.exit_code exists) or not baseline.ready",
	     "not baseline.ready or (proc.exit_code exists and proc.uid = 0)"},
	    {"proc.cmdline regex '^s' and (proc.pid = 1 or proc.name glob 's*') and proc.exe contains bin",
	     "proc.exe contains bin and (proc.name glob 's*' or proc.pid = 1) and proc.cmdline regex '^s'"},
	};
	static const char *const names[] = {"sshd", "a", "x"};
	static const double pids[] = {1, 42, 7};

	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		struct rl_expr *x = compile_ok(pairs[p][0]), *y = compile_ok(pairs[p][1]);

		for (size_t i = 0; i < 3; i++)
			for (size_t j = 0; j < 3; j++)
				for (int absent = 0; absent < 2; absent++) {
					struct pl_sample e;

					fill(&e);
					e.comm = names[i];
					e.pid = (uint32_t)pids[j];
					if (absent) /* a sample of no moment: every field absent */
						pl_sample__init(&e, (enum pl_moment)0);
					assert_int_equal(rl_expr__eval(x, &e, NULL), rl_expr__eval(y, &e, NULL));
				}
		rl_expr__free(x);
		rl_expr__free(y);
	}
}

static void test_expr_null_resolver(void **state)
{
	struct rl_expr *e = NULL;
	struct rl_error err;

	assert_int_equal(rl_expr__compile("proc.name in (shells)", NULL, &e, &err), 0);
	assert_false(rl_expr__eval(e, &ev, NULL));
	rl_expr__free(e);
	assert_int_equal(rl_expr__compile("is_shell", NULL, &e, &err), -EINVAL);
	assert_string_equal(err.msg, "undefined macro 'is_shell'");
	rl_expr__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_expr_lexer_accepts_every_token_form, setup),
	    cmocka_unit_test_setup(test_expr_lexer_reports_bad_tokens, setup),
	    cmocka_unit_test_setup(test_expr_reports_syntax_errors_with_offsets, setup),
	    cmocka_unit_test_setup(test_expr_bounds_length_and_nesting, setup),
	    cmocka_unit_test_setup(test_expr_reports_unknown_names, setup),
	    cmocka_unit_test_setup(test_expr_reports_type_mismatches, setup),
	    cmocka_unit_test_setup(test_expr_equality_and_order, setup),
	    cmocka_unit_test_setup(test_expr_string_operators, setup),
	    cmocka_unit_test_setup(test_expr_membership_and_paths, setup),
	    cmocka_unit_test_setup(test_expr_exists_and_absent_values, setup),
	    cmocka_unit_test_setup(test_expr_precedence, setup),
	    cmocka_unit_test_setup(test_expr_macros_inline_nested, setup),
	    cmocka_unit_test_setup(test_expr_macro_errors_name_the_macro, setup),
	    cmocka_unit_test_setup(test_expr_lists_expand_recursively, setup),
	    cmocka_unit_test_setup(test_expr_bare_words, setup),
	    cmocka_unit_test_setup(test_expr_param_fields, setup),
	    cmocka_unit_test_setup(test_expr_regex_limits_and_errors, setup),
	    cmocka_unit_test_setup(test_expr_constant_folding, setup),
	    cmocka_unit_test_setup(test_expr_kinds_and_fields, setup),
	    cmocka_unit_test_setup(test_expr_reordering_keeps_results, setup),
	    cmocka_unit_test_setup(test_expr_null_resolver, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
