// SPDX-License-Identifier: MIT
/*
 * fuzz_records.c - libFuzzer target: arbitrary bytes as the records file of
 * `plumbline replay`, through the path replay takes: lines (line_read()),
 * JSON (json-c), a sample (sample_json__parse()), and the shipped default
 * rules (alerts__eval(), loaded once in LLVMFuzzerInitialize), their alerts
 * written to two outputs (the native record and OCSF) that check each alert
 * serializes to one line that parses back, and formats as a syslog message.
 * At the end of each input every dedupe window is closed (alerts__finish()),
 * as replay does, so inputs don't depend on each other.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/alerts.h"
#include "fuzz_input.h"
#include "lineread.h"
#include "log.h"
#include "config/options.h"
#include "output.h"
#include "sample_json.h"
#include "syslog_out.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LINE_MAX_FUZZ (64u << 10)
#define LINES_MAX 64

static struct alerts *alerts;
static struct sample_buf *buf;
static struct pl_output *outs[2];
static const char *rules_path;

/* No byte below 0x20: one line. */
FZ_NOCOV static bool one_line(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20)
			return false;
	return true;
}

static int check_write(struct pl_output *o, const struct pl_record *rec)
{
	static char msg[PL_SYSLOG_MSG_MAX + 1];
	const struct pl_syslog_header h = { .facility = 3 << 3, .time_us = 1, .hostname = "h", .app_name = "plumbline" };
	size_t len;
	char *text = NULL;
	struct json_object *back;

	FZ_ASSERT(pl_record__text(rec, o->alert_form, &text, &len) == 0);
	FZ_ASSERT(text && strlen(text) == len);
	FZ_ASSERT(fz_utf8_valid(text, len));
	FZ_ASSERT(one_line(text, len));
	back = json_tokener_parse(text);
	FZ_ASSERT(back);
	json_object_put(back);
	free(text);
	len = syslog_format__5424(msg, sizeof(msg), &h, rec, NULL);
	FZ_ASSERT(len == strlen(msg) && len <= PL_SYSLOG_MSG_MAX && !memchr(msg, '\n', len));
	o->written++;
	return 0;
}

static void check_free(struct pl_output *o)
{
	free(o);
}

static const struct pl_output_ops check_ops = {
	.name = "fuzz-check",
	.write = check_write,
	.free = check_free,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static struct alerts_opts ao;

	log_set_level(LOG_LVL_ERROR);
	rules_path = run_opts__default_rules();
	ao.paths = &rules_path;
	ao.npaths = 1;
	ao.id_instance = 1;
	if (alerts__open(&ao, &alerts) < 0 || sample_buf__new(&buf) < 0) {
		fprintf(stderr, "fuzz_records: cannot load the default rules from %s\n", rules_path);
		abort();
	}
	for (int i = 0; i < 2; i++) {
		outs[i] = calloc(1, sizeof(*outs[i]));
		if (!outs[i])
			abort();
		outs[i]->ops = &check_ops;
		outs[i]->alert_form = i ? PL_ALERT_OCSF : PL_ALERT_NATIVE;
	}
	return 0;
}

/* One record as replay_one() (sensor/cli/cmd_rules.c) takes it. */
static void replay_record(struct json_object *rec, bool *seen_exec, uint64_t *last_ns)
{
	struct pl_sample s, e;

	if (sample_json__parse(rec, buf, &s) < 0)
		return;
	s.bl.learned = false;
	if (s.moment == PL_AT_EXEC)
		*seen_exec = true;
	if (s.moment == PL_AT_EXIT && !*seen_exec && s.image == PL_IMAGE_EXEC) {
		e = s;
		e.moment = PL_AT_EXEC;
		e.time_ns = s.image_start_ns;
		e.bl.scored = false;
		alerts__eval(alerts, &e, e.time_ns, outs, 2);
	}
	/* judged(): not a process running at shutdown, nor a fork child's step to exec */
	if (s.moment != PL_AT_EXIT || !s.end_reason ||
	    (strcmp(s.end_reason, "running") != 0 && !(strcmp(s.end_reason, "exec") == 0 && s.image == PL_IMAGE_FORK)))
		alerts__eval(alerts, &s, s.time_ns, outs, 2);
	if (s.time_ns > *last_ns)
		*last_ns = s.time_ns;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[LINE_MAX_FUZZ + 1];
	bool seen_exec = false;
	uint64_t last_ns = 0;
	FILE *f;
	ssize_t len;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	for (int n = 0; n < LINES_MAX && (len = line_read(f, line, LINE_MAX_FUZZ)) != -ENODATA; n++) {
		struct json_object *rec, *type;

		if (len < 0)
			continue;
		FZ_ASSERT((size_t)len <= LINE_MAX_FUZZ);
		rec = json_tokener_parse(line);
		if (rec && json_object_object_get_ex(rec, "type", &type))
			replay_record(rec, &seen_exec, &last_ns);
		json_object_put(rec);
	}
	fclose(f);
	alerts__finish(alerts, last_ns, outs, 2);
	return 0;
}
