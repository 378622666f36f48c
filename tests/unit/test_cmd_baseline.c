// SPDX-License-Identifier: MIT
/*
 * test_cmd_baseline.c - `plumbline baseline list|show` on baselines whose
 * labels and members hold what a hostile process (or bundle) put there:
 * newlines, CR, ESC and OSC sequences. The listings must stay printable
 * text, one line per line they mean to print.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cli/cmd_baseline.h"
#include "bundle.h"
#include "store.h"
#include "unit_helpers.h"

#define HOSTILE_EXE "/tmp/x\nALERT Emergency forged\x1b[2J\x1b[H"
#define HOSTILE_PARENT "/bin/\x1b]0;owned\x07sh\r"
#define HOSTILE_CHILD "/tmp/\r\nALERT child\x1b[31m"
#define NOW 1700000000000000000ull

struct fixture {
	char dir[64];   /* the state directory */
	char store[96]; /* its baselines/ */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/plumbline-cmdbl-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->store, sizeof(f->store), "%s/baselines", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

static void report(void *ctx, const char *path, const char *problem)
{
	fail_msg("store: %s: %s", path, problem);
}

/* A baseline learned from a hostile process, saved through the store. */
static void learn_hostile(struct fixture *f)
{
	struct bl_policy pol;
	struct bl_store *st;
	struct baseline *b;

	bl_policy__defaults(&pol);
	assert_int_equal(bl_store__open(f->store, report, NULL, &st), 0);
	b = bl_store__obtain(st, "build-id:0123456789abcdef", "-", HOSTILE_EXE, HOSTILE_PARENT, 0, NOW);
	assert_non_null(b);
	assert_true(baseline__observe_child(b, HOSTILE_CHILD, NULL, &pol, NOW) >= 0);
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);
}

/* Run `plumbline baseline ARGS... --state-dir DIR` with stdout captured. */
static char *run(struct fixture *f, int *ret, const char *a1, const char *a2, const char *a3)
{
	char *argv[8] = { "baseline", (char *)a1 }, path[] = "/tmp/plumbline-cmdout-XXXXXX", *out;
	int argc = 2, fd = mkstemp(path), saved;
	long len;
	FILE *in;

	if (a2)
		argv[argc++] = (char *)a2;
	if (a3)
		argv[argc++] = (char *)a3;
	argv[argc++] = "--state-dir";
	argv[argc++] = f->dir;
	argv[argc] = NULL;
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDOUT_FILENO) >= 0);
	*ret = cmd_baseline(argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	in = fdopen(fd, "r");
	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	out = calloc(1, (size_t)len + 1);
	assert_non_null(out);
	assert_int_equal(fread(out, 1, (size_t)len, in), (size_t)len);
	fclose(in);
	unlink(path);
	return out;
}

/* Nothing a terminal would act on: no byte below 0x20 but the lines' own
 * newlines, no DEL, no C1 control. */
static void assert_printable(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; u[i]; i++) {
		if ((u[i] < 0x20 && u[i] != '\n') || u[i] == 0x7f)
			fail_msg("control byte 0x%02x at %zu of:\n%s", u[i], i, s);
		if (u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
			fail_msg("C1 control at %zu", i);
	}
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Every line starts as the command means it to: not with a forged "ALERT". */
static void assert_no_line_starts_with(const char *s, const char *what)
{
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, what, strlen(what)) == 0)
			fail_msg("a forged line: %.60s", l);
}

static void test_baseline_list_escapes_a_learned_exe(void **state)
{
	struct fixture *f = *state;
	char *out;
	int r;

	learn_hostile(f);
	out = run(f, &r, "list", NULL, NULL);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_no_line_starts_with(out, "ALERT");
	assert_int_equal(count_lines(out), 3); /* header, one baseline, footer */
	/* the tail of the escaped exe, cut between escapes */
	assert_non_null(strstr(out, "ALERT Emergency forged\\x1B[2J\\x1B[H"));
	assert_non_null(strstr(out, "/bin/\\x1B]0;owned\\x07sh\\x0D"));
	free(out);
}

static void test_baseline_show_escapes_labels_and_members(void **state)
{
	struct fixture *f = *state;
	char *out;
	int r;

	learn_hostile(f);
	out = run(f, &r, "show", "build-id:0123456789abcdef", NULL);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_no_line_starts_with(out, "ALERT");
	assert_non_null(strstr(out, "  exe            /tmp/x\\x0AALERT Emergency forged\\x1B[2J\\x1B[H\n"));
	assert_non_null(strstr(out, "  parent exe     /bin/\\x1B]0;owned\\x07sh\\x0D\n"));
	assert_non_null(strstr(out, "  /tmp/\\x0D\\x0AALERT child\\x1B[31m\n"));
	/* every line is the header or indented: none was added by a label */
	for (const char *l = out; *l; l = strchr(l, '\n') + 1)
		if (strncmp(l, "baseline ", 9) != 0 && strncmp(l, "  ", 2) != 0)
			fail_msg("an unexpected line: %.60s", l);
	free(out);
}

static void test_baseline_list_json_escapes_like_records(void **state)
{
	struct fixture *f = *state;
	struct json_object *arr, *e, *v;
	char *out;
	int r;

	learn_hostile(f);
	out = run(f, &r, "list", "--json", NULL);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_int_equal(count_lines(out), 1);
	arr = json_tokener_parse(out);
	assert_non_null(arr);
	e = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(e, "exe", &v));
	assert_string_equal(json_object_get_string(v), "/tmp/x\\x0AALERT Emergency forged\\x1B[2J\\x1B[H");
	json_object_put(arr);
	free(out);
	/* show --json: the baseline's file form, escaped the same way */
	out = run(f, &r, "show", "build-id:0123456789abcdef", "--json");
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_null(strstr(out, "\\u001b"));
	assert_non_null(strstr(out, "\"exe\":\"/tmp/x\\\\x0AALERT Emergency forged\\\\x1B[2J\\\\x1B[H\""));
	free(out);
}

/* The listing shows the escaped exe: it names the baseline as well. */
static void test_baseline_show_finds_an_exe_by_its_escaped_name(void **state)
{
	struct fixture *f = *state;
	char *out;
	int r;

	learn_hostile(f);
	out = run(f, &r, "show", "/tmp/x\\x0AALERT Emergency forged\\x1B[2J\\x1B[H", NULL);
	assert_int_equal(r, 0);
	assert_non_null(strstr(out, "baseline build-id:0123456789abcdef@-\n"));
	free(out);
}

#define LONG_EXE                                                                                            \
	"/opt/toolchains/x86_64-linux-gnu/gcc-12.2.0-with-a-very-long-vendor-suffix/libexec/gcc/x86_64-linux-gnu/" \
	"12/cc1plus"

/* n process samples of 2 ms of CPU, 3 ms of wall time, 100 syscalls, learned
 * into a baseline of the store at NOW + i s. */
static void learn(struct bl_store *st, const char *bin, const char *parent, const char *exe, const char *pexe,
		  unsigned n)
{
	struct bl_policy pol;
	struct baseline *b = bl_store__obtain(st, bin, parent, exe, pexe, 0, NOW);
	struct bl_verdict v;

	assert_non_null(b);
	bl_policy__defaults(&pol);
	pol.mode = BL_MODE_LEARN; /* every sample learned: no learning-rate guard */
	for (unsigned i = 0; i < n; i++) {
		struct bl_process_sample s = { .cpu_ns = 2000000, .wall_ns = 3000000, .syscalls = 100, .now_ns = NOW };

		assert_int_equal(baseline__learn_process(b, &s, &pol, NOW + i * 1000000000ull, false, &v), 0);
	}
}

/* A line of out that starts with what, copied into line. */
static bool line_starting(const char *out, const char *what, char *line, size_t size)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, what, strlen(what)) == 0) {
			snprintf(line, size, "%.*s", (int)(strchr(l, '\n') ? strchr(l, '\n') - l : (long)strlen(l)), l);
			return true;
		}
	return false;
}

/* list: sorted by exe then parent, names whole however long, and for each
 * baseline what it is armed for and what it waits for (these were learned in
 * 2023: a set with enough draws and no new member is long quiet now). */
static void test_baseline_list_sorted_whole_names_and_what_each_waits_for(void **state)
{
	struct fixture *f = *state;
	struct bl_store *st;
	char *out, line[1024];
	const char *zsh, *zsh2, *a, *lng;
	int r;

	assert_int_equal(bl_store__open(f->store, report, NULL, &st), 0);
	learn(st, "build-id:5555555555555555", "build-id:eeeeeeeeeeeeeeee", "/usr/bin/zsh", "/usr/sbin/sshd", 25);
	learn(st, "build-id:5555555555555555", "build-id:7777777777777777", "/usr/bin/zsh", "/usr/bin/tmux", 2);
	learn(st, "build-id:1111111111111111", "build-id:eeeeeeeeeeeeeeee", LONG_EXE, "/usr/bin/make", 1);
	learn(st, "build-id:aaaaaaaaaaaaaaaa", "-", "/usr/bin/a", "", 3);
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);

	out = run(f, &r, "list", "--min-samples", "20");
	assert_int_equal(r, 0);
	assert_int_equal(count_lines(out), 6);
	assert_true(line_starting(out, "EXE ", line, sizeof(line)));
	assert_non_null(strstr(line, " PARENT "));
	assert_non_null(strstr(line, " WAITING FOR"));
	a = strstr(out, "\n/usr/bin/a ");
	zsh = strstr(out, "\n/usr/bin/zsh ");
	assert_non_null(a);
	assert_non_null(zsh);
	zsh2 = strstr(zsh + 1, "\n/usr/bin/zsh ");
	lng = strstr(out, "\n" LONG_EXE " ");
	assert_non_null(zsh2);
	assert_non_null(lng);
	assert_true(lng < a && a < zsh && zsh < zsh2); /* "/opt" < "/usr"; tmux < sshd */
	assert_true(line_starting(zsh2 + 1, "/usr/bin/zsh", line, sizeof(line)));
	assert_non_null(strstr(line, "/usr/sbin/sshd"));
	assert_non_null(strstr(line, " 55555555@eeeeeeee "));
	assert_non_null(strstr(line, " 6/8  windows: 60 more; oncpu_objects, oncpu_functions: 20 more CPU samples"));
	assert_true(line_starting(a + 1, "/usr/bin/a", line, sizeof(line)));
	assert_non_null(strstr(line, " -    ")); /* no parent */
	assert_non_null(strstr(line, " 0/8  cost: 17 more samples; windows: 60 more; children, fail_paths, syscalls, "
				     "files, objects, peers: 17 more samples; oncpu_objects, oncpu_functions: 20 more CPU "
				     "samples"));
	assert_true(line_starting(out, "-- 4 baselines in ", line, sizeof(line)));
	assert_non_null(strstr(line, "; ready at 20 samples, 60 windows; "));
	free(out);

	/* show: the distributions in their units, each set's state in words */
	out = run(f, &r, "show", "55555555@eeeeeeee", "--min-samples=20"); /* the ID a listing shows */
	assert_int_equal(r, 0);
	assert_true(line_starting(out, "baseline ", line, sizeof(line)));
	assert_string_equal(line, "baseline build-id:5555555555555555@build-id:eeeeeeeeeeeeeeee");
	assert_int_equal(count_lines(strstr(out, "\nbaseline ") ? "two" : ""), 0); /* one baseline */
	assert_true(line_starting(out, "  cost rules     ", line, sizeof(line)));
	assert_string_equal(line, "  cost rules     ready: 25 process samples (ready at 20)");
	assert_true(line_starting(out, "  window rules   ", line, sizeof(line)));
	assert_string_equal(line, "  window rules   learning: 0 windows (ready at 60)");
	assert_true(line_starting(out, "  life_cpu_ns ", line, sizeof(line)));
	assert_non_null(strstr(line, " ms "));
	assert_null(strstr(line, "e+"));
	assert_true(line_starting(out, "  life_syscalls ", line, sizeof(line)));
	assert_non_null(strstr(line, "       25        100        100        100        100        100        100"));
	assert_true(line_starting(out, "  children: ", line, sizeof(line)));
	assert_string_equal(line, "  children: 0 members (at most 512, 0 refused); saturated");
	assert_true(line_starting(out, "  oncpu_objects: ", line, sizeof(line)));
	assert_string_equal(line, "  oncpu_objects: 0 members (at most 512, 0 refused); 20 more CPU samples");
	free(out);
}

/* forget of a name two baselines share: refused, and both are named. */
static void test_baseline_forget_names_what_an_ambiguous_name_matches(void **state)
{
	struct fixture *f = *state;
	struct bl_store *st;
	char path[] = "/tmp/plumbline-cmderr-XXXXXX", *err;
	int fd = mkstemp(path), saved, r;
	char *out;

	assert_true(fd >= 0);
	assert_int_equal(bl_store__open(f->store, report, NULL, &st), 0);
	learn(st, "build-id:5555555555555555", "build-id:eeeeeeeeeeeeeeee", "/usr/bin/zsh", "/usr/sbin/sshd", 25);
	learn(st, "build-id:5555555555555555", "build-id:7777777777777777", "/usr/bin/zsh", "/usr/bin/tmux", 2);
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	out = run(f, &r, "forget", "zsh", NULL);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	close(fd);
	assert_int_equal(r, -EINVAL);
	err = ut_read_file(path, NULL);
	assert_non_null(err);
	assert_non_null(strstr(err, "'zsh' matches 2 baselines; name one key, or add --all:\n"));
	assert_non_null(strstr(err, "  build-id:5555555555555555@build-id:eeeeeeeeeeeeeeee  /usr/bin/zsh (parent "
				    "/usr/sbin/sshd), 25 samples\n"));
	assert_non_null(strstr(err, "  build-id:5555555555555555@build-id:7777777777777777  /usr/bin/zsh (parent "
				    "/usr/bin/tmux), 2 samples\n"));
	free(err);
	free(out);
	unlink(path);
	/* nothing was forgotten */
	out = run(f, &r, "list", "--json", NULL);
	assert_int_equal(r, 0);
	assert_non_null(strstr(out, "\"parent_exe\":\"/usr/sbin/sshd\""));
	assert_non_null(strstr(out, "\"parent_exe\":\"/usr/bin/tmux\""));
	free(out);
}

/* A bundle from elsewhere holding raw control characters in its labels. */
static void test_baseline_import_of_hostile_bundle_lists_escaped(void **state)
{
	struct fixture *f = *state;
	char bundle[128], *out;
	struct baseline *b = baseline__new("build-id:fedcba9876543210", "-", "/usr/bin/ok", "/bin/sh", NOW);
	struct json_object *o, *arr;
	int r;

	assert_non_null(b);
	snprintf(bundle, sizeof(bundle), "%s/bundle.json", f->dir);
	assert_int_equal(bl_bundle__write(bundle, &b, 1), 0);
	baseline__free(b);
	/* as another writer could have it: raw control characters, JSON-escaped */
	o = json_object_from_file(bundle);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "baselines", &arr));
	json_object_object_add(json_object_array_get_idx(arr, 0), "exe", json_object_new_string(HOSTILE_EXE));
	assert_int_equal(json_object_to_file(bundle, o), 0);
	json_object_put(o);

	out = run(f, &r, "import", bundle, NULL);
	assert_int_equal(r, 0);
	free(out);
	out = run(f, &r, "list", NULL, NULL);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_no_line_starts_with(out, "ALERT");
	assert_int_equal(count_lines(out), 3);
	free(out);
	out = run(f, &r, "show", "build-id:fedcba9876543210", NULL);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_no_line_starts_with(out, "ALERT");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_baseline_list_escapes_a_learned_exe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_show_escapes_labels_and_members, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_list_json_escapes_like_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_show_finds_an_exe_by_its_escaped_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_import_of_hostile_bundle_lists_escaped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_list_sorted_whole_names_and_what_each_waits_for, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline_forget_names_what_an_ambiguous_name_matches, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("cmd_baseline", tests, NULL, NULL);
}
