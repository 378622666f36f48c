// SPDX-License-Identifier: MIT
/*
 * rules_bench.c - how many rule evaluations per second one core does.
 *
 * Loads a ruleset (default: the shipped rules), builds a mix of synthetic
 * records (sshd logins, a storm window, a runaway window, a build exec, a
 * quiet exit), parses each into a sample once, then evaluates the whole
 * ruleset on them in a loop: the live sensor's path (samples straight
 * from the kernel's counters). Prints samples/s and rule evaluations/s, for
 * evaluation alone and for parsing a record + evaluation (replay's path).
 * Not a test: figures depend on the machine (docs/performance.md).
 *
 *   bench_rules [RULES_PATH] [SECONDS]
 *   bench_rules --regex [SECONDS]
 *
 * --regex measures what one exec costs the sensor's rule stage (an exec
 * sample's evaluation) under a rule with a backtracking-prone regex on
 * the command line, with a benign argument and with a hostile 251-byte one
 * (close to the kernel's 256-byte argument bound), each repeated (the same
 * string every exec) and varying (a different string every exec), as the
 * sensor would run it: with the regex budget on, and, for comparison, off.
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ruleset.h"
#include "sample_json.h"

static const char *const records[] = {
	"{\"type\":\"process\",\"pid\":4001,\"ppid\":4000,\"uid\":0,\"comm\":\"sshd\",\"exe\":\"/usr/sbin/sshd\","
	"\"binary_id\":\"build-id:aa01\",\"parent_exe\":\"/usr/sbin/sshd\",\"cmdline\":\"sshd: alice [priv]\","
	"\"image\":\"exec\",\"partial\":false,\"duration_ns\":1000000000,\"end_reason\":\"exit\",\"exit_code\":0,"
	"\"cpu_ns\":12600000,\"offcpu_ns\":900000000,\"syscalls\":2050,\"syscalls_by_name\":{\"read\":400,"
	"\"openat\":60,\"write\":300},\"open_failures\":3,\"open_fail_paths\":[{\"path\":\"/etc/x\",\"errno\":2,"
	"\"count\":3}],\"baseline\":{\"key\":\"k\",\"ready\":true,\"samples\":212,\"anomalous\":false,"
	"\"max_score\":0.4,\"max_feature\":\"cpu_ns\",\"parent_ready\":true,\"parent_new_child\":false,"
	"\"quantiles\":{\"cpu_ms\":{\"p50\":11.8,\"p90\":14,\"p99\":19.5},\"open_failures\":{\"p50\":3,\"p99\":4}},"
	"\"features\":{\"cpu_ns\":{\"score\":0.4,\"ratio_p50\":1.07}}}}",
	"{\"type\":\"window\",\"pid\":5001,\"comm\":\"payments-api\",\"exe\":\"/opt/pay/payments-api\","
	"\"binary_id\":\"build-id:bb02\",\"image\":\"exec\",\"image_start_ns\":1,\"window_start_ns\":10000000000,"
	"\"window_end_ns\":11000000000,\"cpu_ns\":210000000,\"syscalls\":9000,\"syscalls_by_name\":{\"openat\":4800},"
	"\"open_failures\":4800,\"busy_s\":0,\"total\":{\"cpu_ns\":2100000000,\"open_failures\":41000,"
	"\"top_fail_path\":\"/etc/app/flags.json\",\"top_fail_count\":40000},\"binary\":{\"procs\":1,"
	"\"open_failures_per_s\":4800,\"top_fail_path\":\"/etc/app/flags.json\",\"top_fail_share\":0.99},"
	"\"baseline\":{\"key\":\"k2\",\"ready\":false,\"windows_ready\":false}}",
	"{\"type\":\"window\",\"pid\":6001,\"comm\":\"waf\",\"exe\":\"/usr/sbin/waf\",\"binary_id\":\"b3\","
	"\"image_start_ns\":1,\"window_start_ns\":40000000000,\"window_end_ns\":41000000000,\"cpu_ns\":999000000,"
	"\"syscalls\":2,\"busy_s\":31,\"total\":{\"cpu_ns\":40000000000},\"baseline\":{\"ready\":false}}",
	"{\"type\":\"exec\",\"pid\":7001,\"comm\":\"cc\",\"exe\":\"/usr/bin/gcc\",\"binary_id\":\"b4\","
	"\"parent_exe\":\"/usr/bin/make\",\"cmdline\":\"cc -c foo.c\",\"image\":\"exec\",\"baseline\":{\"ready\":true,"
	"\"parent_ready\":true,\"parent_new_child\":false}}",
	"{\"type\":\"process\",\"pid\":8001,\"comm\":\"ls\",\"exe\":\"/usr/bin/ls\",\"binary_id\":\"b5\","
	"\"parent_exe\":\"/usr/bin/bash\",\"image\":\"exec\",\"partial\":false,\"duration_ns\":4000000,"
	"\"end_reason\":\"exit\",\"exit_code\":0,\"cpu_ns\":3800000,\"syscalls\":148,\"open_failures\":19,"
	"\"open_fail_paths\":[],\"baseline\":{\"ready\":true,\"samples\":80,\"max_score\":0.9,\"quantiles\":"
	"{\"cpu_ms\":{\"p50\":3.5,\"p99\":5}},\"features\":{\"cpu_ns\":{\"score\":0.9}}}}",
};

#define NREC (sizeof(records) / sizeof(records[0]))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t matches;

static void on_match(const struct rl_rule *r, const struct pl_sample *ev, void *ctx)
{
	matches++;
}

/* Rules that run at kind, as the sensor would evaluate them. */
static size_t rules_at(const struct rl_ruleset *rs, enum rl_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < rl_ruleset__count(rs); i++)
		n += rl_ruleset__rule(rs, i)->enabled && (rl_ruleset__rule(rs, i)->kinds & k);
	return n;
}

/* ---- --regex: the per-exec cost of a regex rule ---- */

static const char regex_rules[] = "- rule: Encoded payload in the arguments\n"
				  "  desc: base64 words ending the command line, as droppers hand over payloads\n"
				  "  condition: proc.cmdline regex '([A-Za-z0-9+/]+ ?)+=+$'\n"
				  "  output: \"%proc.exe (pid %proc.pid)\"\n"
				  "  priority: WARNING\n"
				  "  when: exec\n";

#define HOSTILE_LEN 251
#define VARIANTS 4096 /* distinct strings in a varying run: more than any cache holds */

/* The i-th argument of a kind: benign or hostile, the same or a new one. */
static void make_arg(char *buf, size_t size, bool hostile, bool vary, unsigned i)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	if (!hostile) {
		snprintf(buf, size, "cc -c src/module%04u.c -o obj/module%04u.o -O2", vary ? i : 7, vary ? i : 7);
		return;
	}
	/* base64 characters, then "=!": the padding is there (so PCRE2's
	 * required-character check passes) but the end is not, and every way
	 * of splitting the run into words is tried before giving up */
	for (size_t k = 0; k + 2 < HOSTILE_LEN && k + 3 < size; k++)
		buf[k] = b64[(vary ? (k * 7 + i * 13 + (i >> 6) * k) : k) % 64];
	snprintf(buf + HOSTILE_LEN - 2, size - (HOSTILE_LEN - 2), "=!");
}

/* The exec sample of `sh ARG` (cmd holds its command line). */
static void exec_sample(struct pl_sample *s, char *cmd, size_t size, const char *arg)
{
	snprintf(cmd, size, "sh %s", arg);
	pl_sample__init(s, PL_AT_EXEC);
	s->pid = 7001;
	s->comm = "sh";
	s->exe = "/usr/bin/dash";
	s->binary_id = "build-id:b4";
	s->parent_exe = "/usr/bin/bash";
	s->cmdline = cmd;
}

static void regex_case(const struct rl_ruleset *rs, const char *name, bool hostile, bool vary, bool budget,
		       double secs)
{
	struct pl_sample *recs = calloc(VARIANTS, sizeof(*recs));
	char (*cmds)[320] = calloc(VARIANTS, sizeof(*cmds));
	struct rl_eval_stats st = { 0 };
	size_t n = 0, nrec = vary ? VARIANTS : 1;
	double t0, t;

	if (!recs || !cmds)
		exit(1);
#ifdef RL_REGEX_BUDGET_NS
	st.budget.ns_per_s = budget ? RL_REGEX_BUDGET_NS : 0;
#else
	if (budget)
		return; /* built against a tree without the budget */
#endif
	for (size_t i = 0; i < nrec; i++) {
		char arg[300];

		make_arg(arg, sizeof(arg), hostile, vary, (unsigned)i);
		exec_sample(&recs[i], cmds[i], sizeof(cmds[i]), arg);
	}
	t0 = now();
	do {
		for (int k = 0; k < 64; k++, n++) {
			rl_ruleset__eval(rs, &recs[n % nrec], on_match, NULL, &st);
		}
		t = now() - t0;
	} while (t < secs);
	printf("%-34s %-3s %10.2f us/exec %9.0f execs/s", name, budget ? "on" : "off", t / n * 1e6, n / t);
#ifdef RL_REGEX_BUDGET_NS
	printf("  pcre2 runs %9llu  cache hits %9llu  skipped %9llu  limit hits %9llu\n",
	       (unsigned long long)st.regex_runs, (unsigned long long)st.regex_cache_hits,
	       (unsigned long long)st.regex_skipped, (unsigned long long)st.regex_limit_hits);
#else
	printf("  limit hits %9llu\n", (unsigned long long)st.regex_limit_hits);
#endif
	free(recs);
	free(cmds);
}

static int regex_bench(double secs)
{
	struct rl_diags d = { 0 };
	struct rl_ruleset *rs;

	if (rl_ruleset__load_buffer("regex-bench.yaml", regex_rules, sizeof(regex_rules) - 1, &rs, &d) < 0) {
		rl_diags__print(&d, stderr);
		return 1;
	}
	printf("%-34s %-3s %18s %14s\n", "exec sample -> rule", "budget", "cost", "rate");
	for (int budget = 0; budget < 2; budget++) {
		regex_case(rs, "benign argument, repeated", false, false, budget, secs);
		regex_case(rs, "benign argument, varying", false, true, budget, secs);
		regex_case(rs, "hostile 251-byte argument, repeated", true, false, budget, secs);
		regex_case(rs, "hostile 251-byte argument, varying", true, true, budget, secs);
	}
	rl_ruleset__free(rs);
	rl_diags__free(&d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--regex") == 0)
		return regex_bench(argc > 2 ? strtod(argv[2], NULL) : 2);

	const char *path = argc > 1 ? argv[1] : PL_RULES_SOURCE_DIR;
	double secs = argc > 2 ? strtod(argv[2], NULL) : 2;
	static struct pl_sample sample[NREC];
	struct sample_buf *buf[NREC], *scratch;
	struct json_object *rec[NREC];
	struct rl_eval_stats st = { 0 };
	struct rl_diags d = { 0 };
	struct rl_ruleset *rs;
	size_t n = 0, rule_evals = 0, per_round = 0;
	double t0, t;

	if (rl_ruleset__load(&path, 1, &rs, &d) < 0) {
		rl_diags__print(&d, stderr);
		return 1;
	}
	if (sample_buf__new(&scratch) < 0)
		return 1;
	for (size_t i = 0; i < NREC; i++) {
		rec[i] = json_tokener_parse(records[i]);
		if (!rec[i] || sample_buf__new(&buf[i]) < 0 || sample_json__parse(rec[i], buf[i], &sample[i]) < 0) {
			fprintf(stderr, "bad synthetic record %zu\n", i);
			return 1;
		}
		per_round += rules_at(rs, (enum rl_kind)sample[i].moment);
	}
	t0 = now();
	do {
		for (int k = 0; k < 1000; k++)
			for (size_t i = 0; i < NREC; i++)
				rl_ruleset__eval(rs, &sample[i], on_match, NULL, &st);
		n += 1000 * NREC;
		rule_evals += 1000 * per_round;
		t = now() - t0;
	} while (t < secs);
	printf("samples, evaluation:  %10.0f samples/s  %10.0f rule evaluations/s  (%zu rules, %zu matches/round)\n",
	       n / t, rule_evals / t, rl_ruleset__count(rs), matches * NREC / n);
	n = 0;
	t0 = now();
	do {
		for (int k = 0; k < 100; k++)
			for (size_t i = 0; i < NREC; i++) {
				struct pl_sample s;

				sample_json__parse(rec[i], scratch, &s);
				rl_ruleset__eval(rs, &s, on_match, NULL, &st);
			}
		n += 100 * NREC;
		t = now() - t0;
	} while (t < secs);
	printf("record parse + eval:  %10.0f samples/s (replay)\n", n / t);
	for (size_t i = 0; i < NREC; i++) {
		sample_buf__free(buf[i]);
		json_object_put(rec[i]);
	}
	sample_buf__free(scratch);
	rl_ruleset__free(rs);
	rl_diags__free(&d);
	return 0;
}
