// SPDX-License-Identifier: MIT
/*
 * fuzz_json_out.c - libFuzzer target: the JSON encoder of samples
 * (outputs/sample_json.c), with every field the fuzzer's: hostile strings in
 * every path, comm, cmdline and name (newlines, escapes, quotes, invalid
 * UTF-8, bidi controls), any counter, any double.
 *
 * Invariants (docs/records.md, "Conventions"): the record is one line of
 * valid UTF-8 that json-c parses back; each untrusted string in it is the
 * text_escape() of the raw bytes; and parsing the record back
 * (sample_json__parse(), what `plumbline replay` does) gives the same raw
 * bytes and numbers, so writing the parsed sample again gives the same text.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "sample_json.h"
#include "textsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STR_MAX 300

static double fz_double(struct fz *f)
{
	uint64_t bits = fz_uint(f, 8);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static void fill_span(struct fz *f, struct pl_span *sp, unsigned long long *sc, unsigned long long *er)
{
	sp->cpu_ns = fz_uint(f, 8);
	sp->offcpu_ns = fz_uint(f, 8);
	sp->runq_ns = fz_uint(f, 8);
	sp->ctx_switches = fz_uint(f, 4);
	sp->syscalls = fz_uint(f, 8);
	sp->sc_other = fz_uint(f, 2);
	sp->open_fail = fz_uint(f, 4);
	sp->open_fail_unrecorded = fz_uint(f, 2);
	if (fz_bool(f)) {
		for (unsigned n = (unsigned)fz_uint(f, 1) % 8; n > 0; n--)
			sc[fz_uint(f, 2) % PL_SAMPLE_NR_SYSCALLS] = fz_uint(f, 8);
		sp->sc = sc;
	}
	if (fz_bool(f)) {
		for (unsigned n = (unsigned)fz_uint(f, 1) % 8; n > 0; n--)
			er[fz_uint(f, 1) % PL_SAMPLE_NR_ERRNO] = fz_uint(f, 8);
		sp->fail_errno = er;
	}
}

static void fill_name(struct fz *f, char *dst)
{
	const char *s = fz_str(f, PL_WAIT_NAME - 1, false);

	snprintf(dst, PL_WAIT_NAME, "%s", s ? s : "");
}

struct parts {
	unsigned long long life_sc[PL_SAMPLE_NR_SYSCALLS], win_sc[PL_SAMPLE_NR_SYSCALLS];
	unsigned long long life_er[PL_SAMPLE_NR_ERRNO], win_er[PL_SAMPLE_NR_ERRNO];
	struct pl_fail fails[4];
	struct pl_oncpu oncpu;
	struct pl_oncpu_obj objs[3];
	struct pl_wait wait;
};

static void build(struct fz *f, struct parts *p, struct pl_sample *s)
{
	static const enum pl_moment moments[] = { PL_AT_EXEC, PL_AT_WINDOW, PL_AT_EXIT };
	static const char *const kinds[] = { NULL, "file", "deleted", "memfd" };

	pl_sample__init(s, moments[fz_uint(f, 1) % 3]);
	s->time_ns = fz_uint(f, 8);
	s->pid = (uint32_t)fz_uint(f, 4);
	s->ppid = (uint32_t)fz_uint(f, 4);
	s->uid = (uint32_t)fz_uint(f, 4);
	s->comm = fz_str(f, 32, true);
	s->exec_comm = fz_str(f, 32, true);
	s->exe = fz_str(f, STR_MAX, true);
	s->filename = fz_str(f, STR_MAX, true);
	s->filename_truncated = fz_bool(f);
	s->cmdline = fz_str(f, STR_MAX, true);
	s->build_id = fz_str(f, 64, true);
	s->binary_id = fz_str(f, 128, true);
	s->cgroup = fz_str(f, STR_MAX, true);
	s->cgroup_id = fz_uint(f, 8);
	s->exe_dev = (uint32_t)fz_uint(f, 4);
	s->exe_ino = fz_uint(f, 8);
	s->image = (enum pl_image)(fz_uint(f, 1) % 3);
	s->partial = fz_bool(f);
	s->start_ns = fz_uint(f, 8);
	s->image_start_ns = fz_uint(f, 8);
	s->threads = (uint32_t)fz_uint(f, 4);
	s->exe_kind = kinds[fz_uint(f, 1) % 4];
	s->exe_mtime_ns = fz_uint(f, 8);
	s->parent_exe = fz_str(f, STR_MAX, true);
	s->nancestors = (uint32_t)(fz_uint(f, 1) % (PL_SAMPLE_ANCESTORS + 1));
	for (uint32_t i = 0; i < s->nancestors; i++)
		s->ancestors[i] = fz_str(f, STR_MAX, true);
	s->script = fz_str(f, STR_MAX, true);
	fill_span(f, &s->life, p->life_sc, p->life_er);

	if (s->moment == PL_AT_WINDOW) {
		fill_span(f, &s->win, p->win_sc, p->win_er);
		s->win_start_ns = fz_uint(f, 8);
		s->win_end_ns = s->time_ns;
		s->busy_s = fz_double(f);
		if (fz_bool(f)) {
			struct pl_wait *w = &p->wait;

			w->waiting_s = fz_double(f);
			w->state = (char)fz_uint(f, 1);
			w->threads = (uint32_t)fz_uint(f, 4);
			w->runq = (uint32_t)fz_uint(f, 4);
			w->blocked = (uint32_t)fz_uint(f, 4);
			w->stopped = (uint32_t)fz_uint(f, 4);
			w->nt = (uint32_t)(fz_uint(f, 1) % (PL_WAIT_THREADS + 1));
			for (uint32_t i = 0; i < w->nt; i++) {
				struct pl_wait_thread *t = &w->t[i];

				t->tid = (uint32_t)fz_uint(f, 4);
				t->state = (char)fz_uint(f, 1);
				fill_name(f, t->wchan);
				t->stack_read = fz_bool(f);
				t->nframes = (uint32_t)(fz_uint(f, 1) % (PL_WAIT_FRAMES + 1));
				for (uint32_t k = 0; k < t->nframes; k++)
					fill_name(f, t->frames[k]);
			}
			s->wait = w;
		}
	}
	if (s->moment != PL_AT_EXEC) {
		s->nfails = (uint32_t)(fz_uint(f, 1) % 5);
		for (uint32_t i = 0; i < s->nfails; i++)
			p->fails[i] = (struct pl_fail){
				.path = fz_str(f, STR_MAX, false), /* a listed failure has its path */
				.err = (int32_t)(fz_uint(f, 4) & INT32_MAX), /* a positive errno (pl_fail.err) */
				.truncated = fz_bool(f),
				.count = fz_uint(f, 8),
			};
		s->fails = p->fails;
		s->fail_paths = s->nfails;
		s->bin.present = fz_bool(f);
		s->bin.procs = (uint32_t)fz_uint(f, 4);
		s->bin.open_failures_per_s = fz_double(f);
		s->bin.top_fail_path = fz_str(f, STR_MAX, true);
		s->bin.top_fail_share = fz_double(f);
		s->bin.storm_path = fz_str(f, STR_MAX, true);
		s->bin.storm_paths = fz_str(f, STR_MAX, true);
		s->bin.storm_procs = (uint32_t)fz_uint(f, 4);
		s->bin.storm_failures_per_s = fz_double(f);
	}
	if (s->moment == PL_AT_EXIT) {
		s->end_ns = s->time_ns;
		s->end_reason = fz_str(f, 16, true);
		s->has_exit_code = fz_bool(f);
		s->exit_code = (int)fz_uint(f, 4);
		s->has_exit_signal = fz_bool(f);
		s->exit_signal = (int)fz_uint(f, 4);
		if (fz_bool(f)) {
			p->oncpu.samples = fz_uint(f, 8);
			p->oncpu.unattributed = fz_uint(f, 8);
			p->oncpu.rate_hz = (uint32_t)fz_uint(f, 4);
			p->oncpu.nobjs = (uint32_t)(fz_uint(f, 1) % 4);
			for (uint32_t i = 0; i < p->oncpu.nobjs; i++)
				p->objs[i] = (struct pl_oncpu_obj){
					.object = fz_str(f, STR_MAX, false),
					.build_id = fz_str(f, 64, true),
					.samples = fz_uint(f, 8),
					.baseline_share = fz_double(f),
					.is_new = fz_bool(f),
				};
			p->oncpu.objs = p->objs;
			s->oncpu = &p->oncpu;
		}
	}
	s->bl.key = fz_str(f, STR_MAX, true);
	if (s->bl.key) {
		struct pl_verdict *v = &s->bl;

		v->ready = fz_bool(f);
		v->windows_ready = fz_bool(f);
		v->samples = fz_uint(f, 8);
		v->parent_ready = fz_bool(f);
		v->parent_new_child = fz_bool(f);
		for (int d = 0; d < PL_DIST_MAX; d++)
			for (int k = 0; k < 3; k++)
				v->q[d][k] = fz_bool(f) ? fz_double(f) : NAN;
		v->scored = s->moment != PL_AT_EXEC && fz_bool(f);
		v->from_prior = fz_bool(f);
		v->anomalous = fz_bool(f);
		v->learned = fz_bool(f);
		v->max_dist = (int)(fz_uint(f, 1) % (PL_DIST_MAX + 1)) - 1;
		v->max_score = fz_double(f);
		for (int d = 0; d < PL_DIST_MAX; d++) {
			if (!fz_bool(f))
				continue;
			v->f[d] = (struct pl_score){ .valid = true, .value = fz_double(f), .p50 = fz_double(f),
						     .p99 = fz_double(f), .ratio_p50 = fz_double(f),
						     .ratio_p99 = fz_double(f), .score = fz_double(f) };
		}
		v->nnew_fail_paths = (uint32_t)(fz_uint(f, 1) % (PL_SAMPLE_NEW_MAX + 1));
		for (uint32_t i = 0; i < v->nnew_fail_paths; i++)
			v->new_fail_paths[i] = fz_str(f, STR_MAX, false);
		v->nnew_syscalls = (uint32_t)(fz_uint(f, 1) % (PL_SAMPLE_NEW_MAX + 1));
		for (uint32_t i = 0; i < v->nnew_syscalls; i++)
			v->new_syscalls[i] = fz_str(f, 32, false);
		v->oncpu_ready = fz_bool(f);
		v->nnew_oncpu_objects = (uint32_t)(fz_uint(f, 1) % (PL_SAMPLE_NEW_MAX + 1));
		for (uint32_t i = 0; i < v->nnew_oncpu_objects; i++)
			v->new_oncpu_objects[i] = fz_str(f, STR_MAX, false);
		v->new_oncpu_samples = fz_uint(f, 8);
	}
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The JSON string of key in o is the escaping of raw (absent or null when raw is NULL). */
static void check_escaped_field(struct json_object *o, const char *key, const char *raw)
{
	struct json_object *v = NULL;
	char *esc;

	json_object_object_get_ex(o, key, &v);
	if (!raw) {
		FZ_ASSERT(!v);
		return;
	}
	FZ_ASSERT(v && json_object_is_type(v, json_type_string));
	esc = text_escape_str(raw);
	if (esc) {
		FZ_ASSERT(strcmp(json_object_get_string(v), esc) == 0);
		free(esc);
	}
}

/* One line of valid UTF-8, no control byte. */
FZ_NOCOV static void check_line(const char *text, size_t len)
{
	FZ_ASSERT(strlen(text) == len);
	if (!fz_utf8_valid(text, len))
		fprintf(stderr, "not UTF-8: %s\n", text);
	FZ_ASSERT(fz_utf8_valid(text, len));
	for (size_t i = 0; i < len; i++)
		FZ_ASSERT((unsigned char)text[i] >= 0x20 && text[i] != 0x7f);
}

static void check(const struct pl_sample *s)
{
	const int flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;
	struct json_object *rec = sample_json__record(s), *back, *again;
	struct sample_buf *buf = NULL;
	struct pl_sample t;
	char *text;
	size_t len;
	int r;

	if (!rec)
		return;
	text = strdup(json_object_to_json_string_length(rec, flags, &len));
	json_object_put(rec);
	if (!text)
		return;
	check_line(text, len);
	back = json_tokener_parse(text);
	FZ_ASSERT(back && json_object_is_type(back, json_type_object));
	check_escaped_field(back, "comm", s->comm);
	check_escaped_field(back, "exec_comm", s->exec_comm);
	check_escaped_field(back, "exe", s->exe);
	check_escaped_field(back, "filename", s->filename);
	check_escaped_field(back, "cmdline", s->cmdline);
	check_escaped_field(back, "cgroup", s->cgroup);
	check_escaped_field(back, "script", s->script);
	check_escaped_field(back, "parent_exe", s->parent_exe);

	if (sample_buf__new(&buf) < 0)
		goto out;
	r = sample_json__parse(back, buf, &t);
	FZ_ASSERT(r == 0 || r == -ENOMEM);
	if (r < 0)
		goto out;
	/* the raw bytes come back */
	FZ_ASSERT(t.moment == s->moment);
	FZ_ASSERT(same_str(t.comm, s->comm) && same_str(t.exec_comm, s->exec_comm) && same_str(t.exe, s->exe));
	FZ_ASSERT(same_str(t.filename, s->filename) && same_str(t.cmdline, s->cmdline));
	FZ_ASSERT(same_str(t.build_id, s->build_id) && same_str(t.binary_id, s->binary_id));
	FZ_ASSERT(same_str(t.cgroup, s->cgroup) && same_str(t.script, s->script));
	FZ_ASSERT(same_str(t.parent_exe, s->parent_exe) && same_str(t.exe_kind, s->exe_kind));
	FZ_ASSERT(t.nancestors == s->nancestors);
	for (uint32_t i = 0; i < s->nancestors; i++)
		FZ_ASSERT(same_str(t.ancestors[i], s->ancestors[i]));
	FZ_ASSERT(t.pid == s->pid && t.ppid == s->ppid && t.uid == s->uid && t.exe_dev == s->exe_dev);
	FZ_ASSERT(t.exe_ino == s->exe_ino && t.cgroup_id == s->cgroup_id && t.time_ns == s->time_ns);
	FZ_ASSERT(t.image == s->image && t.partial == s->partial && t.threads == s->threads);
	FZ_ASSERT(same_str(t.bl.key, s->bl.key));
	if (s->moment == PL_AT_EXIT) {
		FZ_ASSERT(same_str(t.end_reason, s->end_reason));
		FZ_ASSERT(t.nfails == s->nfails);
		for (uint32_t i = 0; i < s->nfails; i++)
			FZ_ASSERT(same_str(t.fails[i].path, s->fails[i].path) && t.fails[i].count == s->fails[i].count);
		FZ_ASSERT(t.life.syscalls == s->life.syscalls && t.life.cpu_ns == s->life.cpu_ns);
	}
	if (s->moment != PL_AT_EXEC && s->bin.present) {
		FZ_ASSERT(same_str(t.bin.top_fail_path, s->bin.top_fail_path));
		FZ_ASSERT(same_str(t.bin.storm_path, s->bin.storm_path));
		FZ_ASSERT(same_str(t.bin.storm_paths, s->bin.storm_paths));
	}
	if (s->bl.key && s->bl.scored) {
		FZ_ASSERT(t.bl.nnew_fail_paths == s->bl.nnew_fail_paths);
		for (uint32_t i = 0; i < s->bl.nnew_fail_paths; i++)
			FZ_ASSERT(same_str(t.bl.new_fail_paths[i], s->bl.new_fail_paths[i]));
	}
	/* and writes out again as the same line */
	again = sample_json__record(&t);
	if (again) {
		const char *text2 = json_object_to_json_string_length(again, flags, &len);

		check_line(text2, len);
		if (strcmp(text2, text) != 0)
			fprintf(stderr, "written: %s\nagain:   %s\n", text, text2);
		FZ_ASSERT(strcmp(text2, text) == 0);
		json_object_put(again);
	}
out:
	sample_buf__free(buf);
	json_object_put(back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parts *p = calloc(1, sizeof(*p));
	struct pl_sample s;
	struct fz f;

	if (!p)
		return 0;
	fz_init(&f, data, size);
	build(&f, p, &s);
	check(&s);
	fz_free(&f);
	free(p);
	return 0;
}
