// SPDX-License-Identifier: MIT
/*
 * cmd_rules.c - check rule files, list their rules and the fields they may
 * use, and replay recorded records through them.
 *
 * Rule names, tags and files are printed through text_escape(), as alerts
 * print them: a rule file can't add a line to a listing or drive a terminal.
 */
#include "cli/cmd_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/alerts.h"
#include "cleanup.h"
#include "lineread.h"
#include "filekind.h"
#include "log.h"
#include "config/config.h"
#include "config/options.h"
#include "output.h"
#include "sample_json.h"
#include "ruleset.h"
#include "telemetry/stats.h"
#include "textsafe.h"

#define MAX_PATHS 32
/*
 * The longest line replay reads. The largest record the sensor can write is
 * about 1.1 MB (an alert whose rule prints every string field and carries
 * all evidence: 256 failed paths of 255 bytes, 8 ancestors' exe paths of
 * 4095 bytes, each byte at most 6 once escaped); a busy host's records are
 * a few KB (at most 33 KB in a minute of this machine's). 4 MiB leaves room
 * for new fields, and bounds what one line costs: the line itself, then
 * json-c's tree of it.
 */
#define REPLAY_LINE_MAX (4u << 20)

static void rules_usage(FILE *f)
{
	fputs("Usage: plumbline rules COMMAND [ARGS]\n"
	      "\n"
	      "  check PATH...            validate rule files or directories: exit 0 when valid,\n"
	      "                           1 when not; every problem as FILE:LINE:COL: error: ITEM: what\n"
	      "  list [--json] [--config FILE | --no-config] [PATH...]\n"
	      "                           the rules, with when they run, priority, enabled, tags;\n"
	      "                           default: what `plumbline run` would load with the config\n"
	      "                           file (" PL_CONFIG_DEFAULT " when it exists)\n"
	      "  fields [--markdown]      every field a condition or output may use\n"
	      "\n"
	      "See docs/rules.md.\n",
	      f);
}

static int cmd_check(int argc, char **argv)
{
	struct rl_ruleset *rs = NULL;
	struct rl_diags d = { 0 };
	int r;

	if (argc < 1) {
		rules_usage(stderr);
		return -EINVAL;
	}
	r = rl_ruleset__load((const char *const *)argv, (size_t)argc, &rs, &d);
	rl_diags__print(&d, stdout);
	if (r == 0)
		printf("%zu rules OK (%zu warnings)\n", rl_ruleset__count(rs), d.warnings);
	else if (r == -EINVAL)
		printf("%zu errors, %zu warnings\n", d.errors, d.warnings);
	rl_diags__free(&d);
	rl_ruleset__free(rs);
	if (r == -EINVAL)
		return 1;
	return r < 0 ? log_error_errno(r, "Cannot load the rules: %m") : 0;
}

static const char *kinds_str(unsigned k, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if ((k & PL_AT_ANY) == PL_AT_ANY) /* identity fields: every moment */
		snprintf(buf, size, "any");
	else
		for (int i = 0; i < PL_MOMENTS; i++)
			if (k & 1u << i && len < size)
				len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", pl_moment_names[i]);
	if (!buf[0])
		snprintf(buf, size, "never");
	return buf;
}

/* The enable/disable switches of a config, applied as the sensor applies them. */
static void apply_switches(struct rl_ruleset *rs, const struct run_opts *o)
{
	for (size_t i = 0; o && i < o->nenable + o->ndisable; i++) {
		bool en = i < o->nenable;
		const char *what = en ? o->enable[i] : o->disable[i - o->nenable];

		rl_ruleset__switch(rs, what, en);
	}
}

static int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },	    { "config", required_argument, NULL, 'c' },
		{ "no-config", no_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
		{}
	};
	const char *config = NULL;
	const struct run_opts *ro = NULL;
	struct gen *g = NULL;
	struct rl_ruleset *rs = NULL;
	struct rl_diags d = { 0 };
	bool json = false, no_config = false;
	struct json_object *arr;
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'c':
			config = optarg;
			break;
		case 'n':
			no_config = true;
			break;
		case 'h':
			rules_usage(stdout);
			return 0;
		default:
			return log_error_errno(EINVAL, "unknown option '%s' (see plumbline rules --help)",
					       argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc && config)
		return log_error_errno(EINVAL, "rules list: give rule paths or --config, not both");
	if (!argc) { /* what `plumbline run` would load, after the config's switches */
		r = config__view(config, no_config, &g, &ro);
		if (r)
			return r < 0 ? r : -EINVAL;
		if (!ro->rules) {
			config__view_free(g);
			return log_error_errno(EINVAL, "rules list: the configuration runs no rules (no-rules)");
		}
	}
	r = rl_ruleset__load(argc ? (const char *const *)argv : ro->rule_list, argc ? (size_t)argc : ro->nrule_list,
			     &rs, &d);
	if (r < 0) {
		rl_diags__print(&d, stderr);
		rl_diags__free(&d);
		config__view_free(g);
		return log_error_errno(r, "Cannot load the rules");
	}
	rl_diags__free(&d);
	apply_switches(rs, ro);
	config__view_free(g);
	arr = json_object_new_array();
	for (size_t i = 0; i < rl_ruleset__count(rs); i++) {
		const struct rl_rule *rule = rl_ruleset__rule(rs, i);
		char k[64];

		if (json) {
			struct json_object *o = json_object_new_object(), *t = json_object_new_array();

			json_object_object_add(o, "name", sample_json__str(rule->name));
			json_object_object_add(o, "priority", json_object_new_string(rl_priority__name(rule->priority)));
			json_object_object_add(o, "when", json_object_new_string(kinds_str(rule->kinds, k, sizeof(k))));
			json_object_object_add(o, "enabled", json_object_new_boolean(rule->enabled));
			for (size_t j = 0; j < rule->ntags; j++)
				json_object_array_add(t, sample_json__str(rule->tags[j]));
			json_object_object_add(o, "tags", t);
			json_object_object_add(o, "file", sample_json__str(rule->file));
			json_object_object_add(o, "line", json_object_new_int(rule->line));
			json_object_array_add(arr, o);
		} else {
			_cleanup_free_ char *name = text_escape_str(rule->name);

			printf("%-3s %-13s %-16s %s\n", rule->enabled ? "on" : "off", rl_priority__name(rule->priority),
			       kinds_str(rule->kinds, k, sizeof(k)), name ? name : "?");
		}
	}
	if (json)
		puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	rl_ruleset__free(rs);
	return 0;
}

static int cmd_fields(int argc, char **argv)
{
	bool md = argc > 0 && strcmp(argv[0], "--markdown") == 0;

	if (md)
		printf("| field | type | unit | when | meaning |\n|---|---|---|---|---|\n");
	for (int f = 0; f < RL_NFIELDS; f++) {
		const struct rl_field_info *fi = rl_field__info(f);
		char when[64], name[96];

		kinds_str(fi->kinds, when, sizeof(when));
		snprintf(name, sizeof(name), "%s%s", fi->name, fi->param_path ? "[PREFIX]" : fi->param ? "[NAME]" : "");
		if (md)
			printf("| `%s` | %s | %s | %s | %s |\n", name, rl_type__name(fi->type), fi->unit[0] ? fi->unit : "",
			       when, fi->desc);
		else
			printf("%-34s %-12s %-4s %-17s %s\n", name, rl_type__name(fi->type), fi->unit, when, fi->desc);
	}
	return 0;
}

int cmd_rules(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		rules_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? -EINVAL : 0;
	}
	if (strcmp(argv[1], "check") == 0)
		return cmd_check(argc - 2, argv + 2);
	if (strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "fields") == 0)
		return cmd_fields(argc - 2, argv + 2);
	return log_error_errno(EINVAL, "unknown command 'rules %s' (see plumbline rules --help)", argv[1]);
}

/* ---- replay ---- */

static void replay_usage(FILE *f)
{
	fputs("Usage: plumbline replay RECORDS.jsonl [OPTIONS]\n"
	      "\n"
	      "Evaluate rules on recorded exec, window and process records (as written\n"
	      "by `plumbline run --process-records --window-records`), offline, and print\n"
	      "the alerts: each record is the sample the live sensor judged at that moment.\n"
	      "(Records of a sensor that wrote no exec records: an exec'd image's process\n"
	      "record is evaluated as its exec, then its exit.) Dedupe windows use the\n"
	      "records' own times, so a replay is repeatable; the windows still open at\n"
	      "the end are summarized at the last record's time.\n"
	      "\n"
	      "  --rules PATH           rule file or directory (repeatable; default: shipped rules)\n"
	      "  --enable-rule NAME     (or tag:T) enable\n"
	      "  --disable-rule NAME    (or tag:T) disable\n"
	      "  --json                 alerts as JSON lines instead of text\n"
	      "  --ocsf                 alerts as OCSF Detection Findings (JSON lines)\n"
	      "  -h, --help             this help\n"
	      "RECORDS.jsonl may be - for standard input.\n",
	      f);
}

/*
 * The records to replay: a regular file, or a stream (a FIFO, a pipe such as
 * <(zcat x.gz)). The type is checked before the open, so a device is never
 * opened, and again on the fd, opened O_NONBLOCK so that open() itself never
 * waits. A FIFO is then waited on for its first writer, as cat(1) would:
 * that wait is interruptible, replay blocks no signals.
 */
static int refuse_records(const char *path, mode_t mode)
{
	return log_error_errno(EINVAL, "Cannot replay '%s': it is %s, not a regular file or a FIFO (use - to read "
				       "standard input)", path, file_kind(mode));
}

static int open_records(const char *path, FILE **ret)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	FILE *f;

	if (stat(path, &st) < 0)
		return log_error_errno(errno, "Cannot open '%s': %m", path);
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return refuse_records(path, st.st_mode);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0)
		return log_error_errno(errno, "Cannot open '%s': %m", path);
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) /* replaced since the stat() */
		return refuse_records(path, st.st_mode);
	if (S_ISFIFO(st.st_mode)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		/* a FIFO shows no POLLHUP before its first writer: this waits for one */
		while (poll(&p, 1, -1) < 0)
			if (errno != EINTR)
				return log_error_errno(errno, "Cannot read '%s': %m", path);
	}
	if (fcntl(fd, F_SETFL, 0) < 0 || !(f = fdopen(fd, "r")))
		return log_error_errno(errno, "Cannot read '%s': %m", path);
	TAKE_FD(fd);
	*ret = f;
	return 0;
}

/* Whether the rules judge the exit of s: not a process still running at
 * shutdown, nor a fork child's step to exec (as live). */
static bool judged(const struct pl_sample *s)
{
	if (!s->end_reason)
		return true;
	return strcmp(s->end_reason, "running") != 0 && !(strcmp(s->end_reason, "exec") == 0 && s->image == PL_IMAGE_FORK);
}

/*
 * One record: its sample through the rules, as the live sensor would have
 * taken it. Records of an older sensor that wrote no exec records: an
 * exec'd image's process record stands for its exec too, with the baseline
 * as it was at exit. Returns whether rec was a sample at all.
 */
static bool replay_one(struct alerts *a, struct json_object *rec, struct sample_buf *buf, bool *seen_exec,
		       struct pl_output **out, uint64_t *last_ns)
{
	struct pl_sample s, e;

	if (sample_json__parse(rec, buf, &s) < 0)
		return false;
	/* the record was written after learning, the rules judged before it
	 * (pipeline.h): as judged, nothing was learned yet */
	s.bl.learned = false;
	if (s.moment == PL_AT_EXEC)
		*seen_exec = true;
	if (s.moment == PL_AT_EXIT && !*seen_exec && s.image == PL_IMAGE_EXEC) {
		e = s;
		e.moment = PL_AT_EXEC;
		e.time_ns = s.image_start_ns;
		e.bl.scored = false;
		alerts__eval(a, &e, e.time_ns, out, 1);
	}
	if (s.moment != PL_AT_EXIT || judged(&s))
		alerts__eval(a, &s, s.time_ns, out, 1);
	if (s.time_ns > *last_ns)
		*last_ns = s.time_ns;
	return true;
}

/* The records a replay read but judges nothing of, by type: a file of
 * alerts and stats is not what the rules see. */
struct skipped {
	char type[8][24];
	size_t count[8], other, total;
};

static void skip_type(struct skipped *k, struct json_object *rec)
{
	struct json_object *t = NULL;
	const char *type = json_object_object_get_ex(rec, "type", &t) && json_object_is_type(t, json_type_string)
				   ? json_object_get_string(t)
			   : json_object_object_get_ex(rec, "class_uid", NULL) ? "OCSF finding"
									      : "untyped";
	size_t i = 0;

	k->total++;
	while (i < 8 && k->type[i][0] && strcmp(k->type[i], type) != 0)
		i++;
	if (i == 8 || strlen(type) >= sizeof(k->type[0])) {
		k->other++;
		return;
	}
	if (!k->type[i][0])
		snprintf(k->type[i], sizeof(k->type[i]), "%s", type);
	k->count[i]++;
}

/* "3 alert, 1 stats" into buf */
static const char *skipped_text(const struct skipped *k, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < 8 && k->type[i][0] && len < size; i++) {
		_cleanup_free_ char *t = text_escape_str(k->type[i]);

		len += (size_t)snprintf(buf + len, size - len, "%s%zu %s", i ? ", " : "", k->count[i], t ? t : "?");
	}
	if (k->other && len < size)
		snprintf(buf + len, size - len, ", %zu of other types", k->other);
	return buf;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rules", required_argument, NULL, 'r' },        { "enable-rule", required_argument, NULL, 'e' },
		{ "disable-rule", required_argument, NULL, 'd' }, { "json", no_argument, NULL, 'j' },
		{ "ocsf", no_argument, NULL, 'o' },               { "help", no_argument, NULL, 'h' },
		{}
	};
	const char *paths[MAX_PATHS], *en[64], *dis[64], *file = NULL, *def = run_opts__default_rules();
	struct alerts_opts ao = { .enable = en, .disable = dis };
	size_t np = 0, lineno = 0, bad = 0, too_long = 0, records = 0;
	struct skipped skipped = { 0 };
	char kinds[512];
	struct pl_output *out = NULL;
	_cleanup_fclose_ FILE *in = NULL;
	_cleanup_free_ char *line = NULL;
	struct alerts *a = NULL;
	struct sample_buf *buf = NULL;
	bool json = false, ocsf = false, seen_exec = false;
	uint64_t last_ns = 0;
	ssize_t len;
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (np == MAX_PATHS)
				return log_error_errno(EINVAL, "too many --rules");
			paths[np++] = optarg;
			break;
		case 'e':
		case 'd':
			if ((c == 'e' ? ao.nenable : ao.ndisable) == 64)
				return log_error_errno(EINVAL, "too many --enable-rule/--disable-rule");
			if (c == 'e')
				en[ao.nenable++] = optarg;
			else
				dis[ao.ndisable++] = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'o':
			ocsf = true;
			break;
		case 'h':
			replay_usage(stdout);
			return 0;
		default:
			return log_error_errno(EINVAL, "unknown option '%s' (see plumbline replay --help)", argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		replay_usage(stderr);
		return -EINVAL;
	}
	file = argv[optind];
	ao.paths = np ? paths : &def;
	ao.npaths = np ? np : 1;
	if (strcmp(file, "-") != 0) {
		r = open_records(file, &in);
		if (r < 0)
			return r;
	}
	r = alerts__open(&ao, &a);
	if (r < 0)
		return r;
	r = json || ocsf ? jsonl_output__open("-", &out) : text_output__open(stdout, &out);
	if (r < 0) {
		alerts__free(a);
		return log_error_errno(r, "Cannot write to stdout: %m");
	}
	if (ocsf)
		out->alert_form = PL_ALERT_OCSF;
	line = malloc(REPLAY_LINE_MAX + 1);
	if (!line || sample_buf__new(&buf) < 0) {
		output__free(out);
		alerts__free(a);
		return log_error_errno(ENOMEM, "Out of memory");
	}
	while ((len = line_read(in ? in : stdin, line, REPLAY_LINE_MAX)) != -ENODATA) {
		struct json_object *rec;
		struct json_object *type;

		lineno++;
		if (len == -EIO) {
			r = log_error_errno(EIO, "%s:%zu: read error, stopping", file, lineno);
			break;
		}
		if (len == -E2BIG) {
			if (too_long++ < 10)
				log_error("%s:%zu: line longer than the %u MiB limit, skipped", file, lineno,
					  REPLAY_LINE_MAX >> 20);
			continue;
		}
		rec = json_tokener_parse(line);
		if (rec && json_object_is_type(rec, json_type_object) &&
		    !json_object_object_get_ex(rec, "type", &type)) { /* JSON, but no record of ours: OCSF? */
			skip_type(&skipped, rec);
			json_object_put(rec);
			continue;
		}
		if (!rec || !json_object_object_get_ex(rec, "type", &type)) {
			if (bad++ < 10)
				log_warn("%s:%zu: not a JSON record, skipped", file, lineno);
			json_object_put(rec);
			continue;
		}
		if (replay_one(a, rec, buf, &seen_exec, &out, &last_ns))
			records++;
		else
			skip_type(&skipped, rec);
		json_object_put(rec);
	}
	alerts__finish(a, last_ns, &out, 1);
	{
		struct pl_stats_rules counts;
		struct json_object *rs;

		alerts__counts(a, &counts);
		rs = stats_json__rules(&counts);
		fprintf(stderr, "replay: %zu records (%zu unreadable lines, %zu over the line limit), %s\n", records,
			bad, too_long, rs ? json_object_to_json_string_ext(rs, JSON_C_TO_STRING_PLAIN) : "{}");
		json_object_put(rs);
	}
	output__free(out);
	alerts__free(a);
	sample_buf__free(buf);
	if (r == 0 && too_long)
		r = log_error_errno(E2BIG, "%zu lines of %s were longer than %u MiB and not replayed", too_long, file,
				    REPLAY_LINE_MAX >> 20);
	/* what the rules judge is samples: say so when the file held none, or
	 * what it held beside them */
	if (r == 0 && !records)
		r = log_error_errno(ENODATA,
				    "%s holds no record the rules judge (%s): they judge the samples `plumbline run --json "
				    "FILE` writes with --process-records (exec, process, connect and file records), "
				    "--window-records and --map-records; alerts, stats and OCSF findings are what a "
				    "replay makes, not what it reads",
				    file, skipped.total ? skipped_text(&skipped, kinds, sizeof(kinds)) : "it is empty");
	else if (skipped.total)
		log_info("replay: %zu records not judged, as they are no samples: %s", skipped.total,
			 skipped_text(&skipped, kinds, sizeof(kinds)));
	return r;
}
