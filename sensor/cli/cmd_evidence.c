// SPDX-License-Identifier: MIT
/*
 * cmd_evidence.c - `plumbline evidence JSONL_FILE ALERT_ID [--svg OUT.svg]
 * [--folded [--mark-new]]`: one alert's stack evidence, read back from the
 * JSON output or the OCSF output (told apart per line; ALERT_ID may be a
 * unique prefix of the id),
 * as a text summary, as folded stacks, or drawn as a flame graph
 * (docs/cli.md, docs/outputs.md).
 *
 * The file is read as replay reads records, a line at a time in bounded
 * memory, but it must be a regular file: the command looks for one alert
 * and says whether the id was unique, so it reads the file to its end, and
 * a FIFO would make it wait for a writer. Every string shown is escaped
 * once more on its way out, here as text, in the SVG by the flame graph's
 * writer, which gets the raw bytes.
 */
#include "cli/cmd_evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "evidence.h"
#include "fileio.h"
#include "filekind.h"
#include "flamegraph.h"
#include "lineread.h"
#include "log.h"
#include "textsafe.h"

/* As replay's bound, for the same records (cmd_rules.c says why 4 MiB). */
#define EVIDENCE_LINE_MAX (4u << 20)

static void usage(FILE *f)
{
	fputs("Usage: plumbline evidence JSONL_FILE ALERT_ID [--svg OUT.svg] [--folded [--mark-new]]\n"
	      "\n"
	      "Show the stack evidence of the alert ALERT_ID, read from JSONL_FILE (the JSON\n"
	      "output of `plumbline run`, --json, or its OCSF output, --ocsf): without options\n"
	      "a text summary (objects and functions on CPU against the baseline, the top\n"
	      "stacks). ALERT_ID may be the first characters of the id, if only one alert's\n"
	      "id starts with them.\n"
	      "\n"
	      "  --svg OUT.svg   draw the stacks as a flame graph: one self-contained SVG file,\n"
	      "                  with the details of each frame on hover\n"
	      "  --folded        print the stacks folded (frame;frame;frame COUNT), for\n"
	      "                  flamegraph.pl, speedscope and the like\n"
	      "  --mark-new      with --folded: a frame whose function the baseline never\n"
	      "                  saw on CPU ends in _[new] (after _[k] for the kernel's)\n"
	      "  -h, --help      this help\n"
	      "See docs/outputs.md, \"Flame graphs\".\n",
	      f);
}

/* ---- finding the alert ---- */

static int refuse_input(const char *path, mode_t mode)
{
	return log_error_errno(EINVAL, "Cannot read '%s': it is %s, not a regular file", path, file_kind(mode));
}

/* path, a regular file, checked before the open (a device is never opened)
 * and on the fd (opened O_NONBLOCK: a FIFO swapped in never blocks). */
static int open_input(const char *path, FILE **ret)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	FILE *f;

	if (stat(path, &st) < 0)
		return log_error_errno(errno, "Cannot open '%s': %m", path);
	if (!S_ISREG(st.st_mode))
		return refuse_input(path, st.st_mode);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0)
		return log_error_errno(errno, "Cannot open '%s': %m", path);
	if (!S_ISREG(st.st_mode))
		return refuse_input(path, st.st_mode);
	if (fcntl(fd, F_SETFL, 0) < 0 || !(f = fdopen(fd, "r")))
		return log_error_errno(errno, "Cannot read '%s': %m", path);
	TAKE_FD(fd);
	*ret = f;
	return 0;
}

static const char *id_of(struct json_object *alert)
{
	struct json_object *i;

	return json_object_object_get_ex(alert, "id", &i) && json_object_is_type(i, json_type_string)
		   ? json_object_get_string(i)
		   : NULL;
}

#define CANDIDATES_MAX 10 /* the ids an ambiguous prefix lists */

/* What the file holds for an id (or a prefix of ids). */
struct matches {
	struct json_object *exact, *prefixed; /* the first alert with the id; with an id it prefixes */
	size_t exact_n, exact_line, prefixed_n, prefixed_line;
	char *cand[CANDIDATES_MAX]; /* the distinct ids the prefix matches, raw */
	size_t ncand;
	bool more; /* more than CANDIDATES_MAX */
};

static void matches_free(struct matches *m)
{
	json_object_put(m->exact);
	json_object_put(m->prefixed);
	for (size_t i = 0; i < m->ncand; i++)
		free(m->cand[i]);
}

/* One alert of the file (line lineno): does its id match? */
static void match_alert(struct matches *m, struct json_object *alert, const char *id, size_t lineno)
{
	const char *aid = id_of(alert);
	size_t i;

	if (!aid || strncmp(aid, id, strlen(id)) != 0)
		return;
	if (strcmp(aid, id) == 0 && m->exact_n++ == 0) {
		m->exact = json_object_get(alert);
		m->exact_line = lineno;
	}
	for (i = 0; i < m->ncand; i++)
		if (strcmp(m->cand[i], aid) == 0) {
			m->prefixed_n += i == 0;
			return;
		}
	if (m->ncand == CANDIDATES_MAX) {
		m->more = true;
		return;
	}
	if (!(m->cand[m->ncand] = strdup(aid)))
		return;
	if (m->ncand++ == 0) {
		m->prefixed = json_object_get(alert);
		m->prefixed_n = 1;
		m->prefixed_line = lineno;
	}
}

/* An ambiguous prefix: said, with the ids it matches. */
static int ambiguous(const struct matches *m, const char *id_esc, const char *file)
{
	log_error(
	    "Alert id prefix '%s' is ambiguous in %s: %s%zu alerts have ids that start with it; give more of the id:",
	    id_esc, file, m->more ? "more than " : "", m->ncand);
	for (size_t i = 0; i < m->ncand; i++) {
		_cleanup_free_ char *e = text_escape_str(m->cand[i]);

		log_error("  %s", e ? e : "?");
	}
	if (m->more)
		log_error("  ...");
	return -EINVAL;
}

/*
 * The alert of file (the JSON output or the OCSF output, told apart line by
 * line) whose id is id, or the one alert whose id starts with it (as git
 * takes a commit's), into *ret in the native record's form
 * (evidence__alert_record(); the caller puts it). Says when the id is not
 * unique, when a prefix names several alerts (listing them), and what was
 * skipped. 0 or -errno (logged).
 */
int evidence_find_alert(const char *file, const char *id, struct json_object **ret)
{
	_cleanup_free_ char *id_esc = text_escape_str(id);
	_cleanup_fclose_ FILE *in = NULL;
	_cleanup_free_ char *line = NULL;
	struct matches m = { 0 };
	size_t lineno = 0, alerts = 0, too_long = 0, n, at;
	struct json_object *found;
	ssize_t len;
	int r;

	if (!id_esc)
		return log_error_errno(ENOMEM, "Out of memory");
	if (!*id)
		return log_error_errno(EINVAL,
				       "An empty alert id matches nothing: give the id, or its first characters");
	if ((r = open_input(file, &in)) < 0)
		return r;
	line = malloc(EVIDENCE_LINE_MAX + 1);
	if (!line)
		return log_error_errno(ENOMEM, "Out of memory");
	while ((len = line_read(in, line, EVIDENCE_LINE_MAX)) != -ENODATA) {
		struct json_object *rec, *alert;

		lineno++;
		if (len == -EIO) {
			matches_free(&m);
			return log_error_errno(EIO, "%s:%zu: read error", file, lineno);
		}
		if (len == -E2BIG) {
			if (too_long++ < 10)
				log_warn("%s:%zu: line longer than the %u MiB limit, skipped", file, lineno,
					 EVIDENCE_LINE_MAX >> 20);
			continue;
		}
		/* the sensor writes "type":"alert" (OCSF: "log_name":"alerts") plainly: most lines need no parse */
		if (!memmem(line, (size_t)len, "alert", 5))
			continue;
		rec = json_tokener_parse(line);
		alert = rec ? evidence__alert_record(rec) : NULL;
		if (alert) {
			alerts++;
			match_alert(&m, alert, id, lineno);
		}
		json_object_put(alert);
		json_object_put(rec);
	}
	if (!m.exact && m.ncand > 1) {
		r = ambiguous(&m, id_esc, file);
		matches_free(&m);
		return r;
	}
	if (!m.exact && !m.prefixed) {
		matches_free(&m);
		return log_error_errno(
		    ENOENT, "No alert with id '%s' in %s, nor one whose id starts with it (%zu alerts read%s)", id_esc,
		    file, alerts, too_long ? ", some lines over the limit skipped" : "");
	}
	found = m.exact ? m.exact : m.prefixed;
	n = m.exact ? m.exact_n : m.prefixed_n;
	at = m.exact ? m.exact_line : m.prefixed_line;
	if (m.exact)
		m.exact = NULL;
	else
		m.prefixed = NULL;
	if (n > 1) {
		_cleanup_free_ char *e = text_escape_str(id_of(found));

		log_warn("%zu alerts in %s have the id '%s': showing the first, line %zu", n, file, e ? e : "?", at);
	}
	matches_free(&m);
	*ret = found;
	return 0;
}

/* ---- text ---- */

static void put_esc(FILE *f, const char *raw)
{
	_cleanup_free_ char *e = text_escape_str(raw ? raw : "");

	fputs(e ? e : "?", f);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* How put_folded() writes frames. */
enum fold_style {
	FOLD_MERGED = 1 << 0,	/* unnamed code as "[unknown] (object)", as the flame graph merges it */
	FOLD_MARK_NEW = 1 << 1, /* frames new to the baseline end in _[new] */
};

/* A frame as folded stacks write it: escaped, ';' (the separator) as
 * \x3B, kernel frames marked _[k] as perf's stackcollapse does, unnamed
 * code as "object+0xOFF" or merged per object. */
static void put_folded_frame(FILE *f, const struct ev_frame *fr, unsigned style)
{
	_cleanup_free_ char *raw = NULL, *e = NULL;

	if (fr->function)
		raw = strdup(fr->function);
	else if (style & FOLD_MERGED ? asprintf(&raw, FG_UNKNOWN " (%s)", base_name(fr->object)) < 0
				     : asprintf(&raw, "%s+0x%llx", base_name(fr->object),
						(unsigned long long)fr->offset) < 0)
		raw = NULL;
	e = raw ? text_escape_str(raw) : NULL;
	for (const char *p = e ? e : "?"; *p; p++) {
		if (*p == ';')
			fputs("\\x3B", f);
		else
			putc(*p, f);
	}
	if (fr->kernel)
		fputs("_[k]", f);
	if ((style & FOLD_MARK_NEW) && fr->is_new)
		fputs("_[new]", f);
}

static void put_folded(FILE *f, const struct ev_stack *s, unsigned style)
{
	for (size_t j = 0; j < s->nframes; j++) {
		if (j)
			putc(';', f);
		put_folded_frame(f, &s->frames[j], style);
	}
	if (!s->nframes)
		fputs("[no frames]", f);
}

/* One line of --folded: stacks that fold to the same text (a function at
 * other offsets, unnamed code of one object) are one line, as in the SVG. */
struct fold_line {
	char *text;
	size_t len, first; /* the first stack folded here */
	uint64_t samples;
};

static int cmp_fold_line(const void *pa, const void *pb)
{
	const struct fold_line *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return (a->first > b->first) - (a->first < b->first);
}

static int print_folded(const struct evidence *ev, bool mark_new)
{
	struct fold_line *lines = calloc(ev->nstacks ? ev->nstacks : 1, sizeof(*lines));
	size_t n = 0;
	int r = 0;

	if (!lines)
		return log_error_errno(ENOMEM, "Out of memory");
	for (size_t i = 0; i < ev->nstacks && r == 0; i++) {
		struct fold_line *l = &lines[n];
		uint64_t samples = ev->stacks[i].samples;
		FILE *m = open_memstream(&l->text, &l->len);

		if (!m) {
			r = log_error_errno(ENOMEM, "Out of memory");
			break;
		}
		put_folded(m, &ev->stacks[i], FOLD_MERGED | (mark_new ? FOLD_MARK_NEW : 0));
		if (fclose(m) == EOF || !l->text) {
			r = log_error_errno(ENOMEM, "Out of memory");
			break;
		}
		for (size_t k = 0; k < n; k++) {
			if (lines[k].len == l->len && memcmp(lines[k].text, l->text, l->len) == 0) {
				lines[k].samples =
					samples > UINT64_MAX - lines[k].samples ? UINT64_MAX : lines[k].samples + samples;
				free(l->text);
				*l = (struct fold_line){ 0 };
				l = NULL;
				break;
			}
		}
		if (l) {
			l->first = i;
			l->samples = samples;
			n++;
		}
	}
	if (r == 0) {
		qsort(lines, n, sizeof(*lines), cmp_fold_line);
		for (size_t i = 0; i < n; i++)
			printf("%s %llu\n", lines[i].text, (unsigned long long)lines[i].samples);
		if (fflush(stdout) == EOF || ferror(stdout))
			r = log_error_errno(EIO, "Cannot write to stdout: %m");
	}
	for (size_t i = 0; i <= n && i < ev->nstacks; i++)
		free(lines[i].text);
	free(lines);
	return r;
}

/* A share as a percentage, right-aligned in 8 columns ("-": none). */
static void put_pct(double share)
{
	if (isnan(share))
		printf("%8s", "-");
	else
		printf("%7.1f%%", share * 100);
}

/* The samples the top stacks do not hold, as the flame graph draws them:
 * those with no stack known (at most the rest), and those of stacks kept
 * but past the ones the alert carries. */
static void split_rest(const struct evidence *ev, uint64_t *ret_unatt, uint64_t *ret_other)
{
	uint64_t shown = evidence__shown(ev), rest = ev->samples > shown ? ev->samples - shown : 0;

	*ret_unatt = ev->unattributed < rest ? ev->unattributed : rest;
	*ret_other = rest - *ret_unatt;
}

/* Why samples have no stack, from unattributed_by: "2 the kernel's sample
 * ring was full, 1 a new stack past the stack tables' bounds", and the
 * rest (an image's keys never announced, a stack gone from its map:
 * counted in the stats record) as "otherwise". Raw text, or NULL (ENOMEM). */
static char *unattributed_why(const struct evidence *ev)
{
	uint64_t known = ev->unatt_ring > UINT64_MAX - ev->unatt_table ? UINT64_MAX : ev->unatt_ring + ev->unatt_table;
	uint64_t other = ev->unattributed > known ? ev->unattributed - known : 0;
	char *s;

	if (!ev->has_unatt_by)
		return strdup("the record does not say why");
	if (other ? asprintf(&s,
			     "%llu the kernel's sample ring was full, %llu a new stack past the stack tables' bounds, "
			     "%llu otherwise (see the stats record's oncpu counters)",
			     (unsigned long long)ev->unatt_ring, (unsigned long long)ev->unatt_table,
			     (unsigned long long)other) < 0
		  : asprintf(&s, "%llu the kernel's sample ring was full, %llu a new stack past the stack tables' bounds",
			     (unsigned long long)ev->unatt_ring, (unsigned long long)ev->unatt_table) < 0)
		return NULL;
	return s;
}

/* One row of the summary's functions table: the record's rows, with the
 * unnamed code of an object (a row per offset in the record) merged. */
struct fn_row {
	const struct ev_function *fn; /* the first row merged */
	uint64_t samples;
	double share;
	size_t rows; /* record rows merged here */
	size_t index;
};

static int cmp_fn_row(const void *pa, const void *pb)
{
	const struct fn_row *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return (a->index > b->index) - (a->index < b->index);
}

static void print_functions(const struct evidence *ev)
{
	_cleanup_free_ struct fn_row *rows = calloc(ev->nfunctions, sizeof(*rows));
	size_t n = 0;

	if (!rows) {
		printf("  (out of memory)\n");
		return;
	}
	for (size_t i = 0; i < ev->nfunctions; i++) {
		const struct ev_function *fn = &ev->functions[i];
		struct fn_row *r = NULL;

		for (size_t k = 0; !fn->function && k < n && !r; k++)
			if (!rows[k].fn->function && strcmp(rows[k].fn->object, fn->object) == 0)
				r = &rows[k];
		if (!r) {
			r = &rows[n];
			*r = (struct fn_row){ .fn = fn, .index = n };
			n++;
		}
		r->samples = fn->samples > UINT64_MAX - r->samples ? UINT64_MAX : r->samples + fn->samples;
		r->share += fn->share;
		r->rows++;
	}
	qsort(rows, n, sizeof(*rows), cmp_fn_row);
	for (size_t i = 0; i < n; i++) {
		printf("%9llu", (unsigned long long)rows[i].samples);
		put_pct(rows[i].share);
		printf("  ");
		if (!rows[i].fn->function && rows[i].rows == 1) {
			/* one place with no symbol: the object and the offset */
			put_esc(stdout, base_name(rows[i].fn->object));
			printf("+0x%llx", (unsigned long long)rows[i].fn->offset);
		} else {
			put_esc(stdout, rows[i].fn->function ? rows[i].fn->function : FG_UNKNOWN);
			printf(" (");
			put_esc(stdout, base_name(rows[i].fn->object));
			printf(")");
		}
		if (rows[i].rows > 1)
			printf(" at %zu offsets", rows[i].rows);
		if (rows[i].fn->interp) {
			printf(" [");
			put_esc(stdout, rows[i].fn->interp);
			printf(" evaluation]");
		}
		putchar('\n');
	}
}

static int print_summary(const struct evidence *ev)
{
	uint64_t unatt, other;
	char when[64] = "";

	if (ev->time_ns > 0) {
		time_t t = (time_t)(ev->time_ns / 1000000000);
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
	printf("Alert ");
	put_esc(stdout, ev->id);
	printf(": ");
	put_esc(stdout, ev->rule ? ev->rule : "?");
	printf(" (");
	put_esc(stdout, ev->priority ? ev->priority : "?");
	if (ev->when) {
		printf(", at ");
		put_esc(stdout, ev->when);
	}
	printf(")\n");
	if (when[0])
		printf("  time     %s\n", when);
	printf("  process  ");
	put_esc(stdout, ev->exe ? ev->exe : "?");
	if (ev->pid >= 0)
		printf(", pid %lld", (long long)ev->pid);
	printf("\n  samples  %llu on CPU at %llu Hz per CPU, %llu unattributed; the top %zu stack%s hold %llu\n",
	       (unsigned long long)ev->samples, (unsigned long long)ev->rate_hz, (unsigned long long)ev->unattributed,
	       ev->nstacks, ev->nstacks == 1 ? "" : "s", (unsigned long long)evidence__shown(ev));
	if (ev->stacks_dropped)
		printf("           (%zu more stacks in the record, past the %d shown)\n", ev->stacks_dropped,
		       EV_MAX_STACKS);
	split_rest(ev, &unatt, &other);
	if (ev->unattributed) {
		_cleanup_free_ char *why = unattributed_why(ev);

		printf("  no stack %llu: %s\n", (unsigned long long)ev->unattributed, why ? why : "?");
	}
	if (other)
		printf("  other    %llu in stacks kept but past the top %zu (not carried by the alert)\n",
		       (unsigned long long)other, ev->nstacks);
	if (ev->nobjects) {
		printf("\nObjects on CPU\n  samples   share baseline  object\n");
		for (size_t i = 0; i < ev->nobjects; i++) {
			const struct ev_object *o = &ev->objects[i];

			printf("%9llu", (unsigned long long)o->samples);
			put_pct(o->share);
			putchar(' ');
			if (o->is_new)
				printf("%8s", "new");
			else
				put_pct(o->baseline_share);
			printf("  ");
			put_esc(stdout, o->object);
			if (o->build_id) {
				printf(" (build-id ");
				put_esc(stdout, o->build_id);
				printf(")");
			}
			putchar('\n');
		}
	}
	if (ev->nfunctions) {
		printf("\nFunctions on CPU\n  samples   share  function\n");
		print_functions(ev);
	}
	printf("\nTop stacks (folded: outermost caller first, the sampled frame last)\n  samples  stack\n");
	for (size_t i = 0; i < ev->nstacks; i++) {
		printf("%9llu  ", (unsigned long long)ev->stacks[i].samples);
		put_folded(stdout, &ev->stacks[i], FOLD_MARK_NEW);
		putchar('\n');
	}
	return fflush(stdout) == EOF || ferror(stdout) ? log_error_errno(EIO, "Cannot write to stdout: %m") : 0;
}

/* ---- the flame graph ---- */

/* The evidence's stacks as a graph whose root holds every sample of the
 * process: what the top stacks don't cover is shown as such, not left out. */
static int build_graph(const struct evidence *ev, struct flamegraph **ret)
{
	_cleanup_free_ char *why = unattributed_why(ev), *past = NULL;
	struct flamegraph *fg = NULL;
	struct fg_frame fr[FG_MAX_DEPTH];
	uint64_t unatt, other;
	int r;

	if (asprintf(&past, "stacks kept, past the top %zu the alert carries", ev->nstacks) < 0)
		past = NULL;
	if (!why || !past)
		return -ENOMEM;
	r = flamegraph__new(&fg);

	for (size_t i = 0; r == 0 && i < ev->nstacks; i++) {
		const struct ev_stack *s = &ev->stacks[i];

		for (size_t j = 0; j < s->nframes; j++)
			fr[j] = (struct fg_frame){ .kind = s->frames[j].kernel ? FG_KERNEL : FG_USER,
						   .object = s->frames[j].object,
						   .function = s->frames[j].function,
						   .offset = s->frames[j].offset,
						   .is_new = s->frames[j].is_new };
		if (!s->nframes)
			fr[0] = (struct fg_frame){ .kind = FG_OTHER, .function = "[no frames]" };
		r = flamegraph__add(fg, fr, s->nframes ? s->nframes : 1, s->samples);
	}
	split_rest(ev, &unatt, &other);
	if (r == 0 && unatt)
		r = flamegraph__add(
			fg, &(struct fg_frame){ .kind = FG_OTHER, .function = "[stack not kept]", .detail = why }, 1,
			unatt);
	if (r == 0 && other)
		r = flamegraph__add(fg,
				    &(struct fg_frame){ .kind = FG_OTHER, .function = "[other stacks]", .detail = past },
				    1, other);
	if (r < 0) {
		flamegraph__free(fg);
		return r;
	}
	*ret = fg;
	return 0;
}

/* OUT may be replaced only if it is a regular file or not there: a symlink
 * is refused, not followed (and the rename would replace the link itself,
 * never its target, whatever is swapped in after this check). */
int evidence_check_output(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : log_error_errno(errno, "Cannot write '%s': %m", path);
	if (S_ISLNK(st.st_mode))
		return log_error_errno(ELOOP, "Cannot write '%s': it is a symbolic link (not followed)", path);
	if (!S_ISREG(st.st_mode))
		return log_error_errno(EINVAL, "Cannot write '%s': it is %s, not a regular file", path,
				       file_kind(st.st_mode));
	return 0;
}

int evidence_write_flamegraph(const struct evidence *ev, FILE *f, const char *name, size_t *ret_frames,
			      uint64_t *ret_samples)
{
	_cleanup_free_ char *title = NULL, *sub = NULL;
	struct flamegraph *fg = NULL;
	int r;

	if (asprintf(&title, "%s (%s)", ev->rule ? ev->rule : "alert", ev->priority ? ev->priority : "?") < 0)
		title = NULL;
	if (ev->has_unatt_by && ev->unattributed
		    ? asprintf(&sub,
			       "%s, pid %lld | alert %s | %llu samples at %llu Hz, %llu with no stack (%llu sample ring "
			       "full, %llu stack tables full)",
			       ev->exe ? ev->exe : "?", (long long)ev->pid, ev->id ? ev->id : "?",
			       (unsigned long long)ev->samples, (unsigned long long)ev->rate_hz,
			       (unsigned long long)ev->unattributed, (unsigned long long)ev->unatt_ring,
			       (unsigned long long)ev->unatt_table) < 0
		    : asprintf(&sub, "%s, pid %lld | alert %s | %llu samples at %llu Hz, %llu with no stack",
			       ev->exe ? ev->exe : "?", (long long)ev->pid, ev->id ? ev->id : "?",
			       (unsigned long long)ev->samples, (unsigned long long)ev->rate_hz,
			       (unsigned long long)ev->unattributed) < 0)
		sub = NULL;
	if (!title || !sub)
		return log_error_errno(ENOMEM, "Out of memory");
	if ((r = build_graph(ev, &fg)) == -ENOSPC)
		return log_error_errno(r, "Cannot draw the stacks: more than %d frames to draw", FG_MAX_NODES);
	if (r < 0)
		return log_error_errno(r, "Cannot draw the stacks: %m");
	r = flamegraph__write_svg(fg, &(struct fg_svg_opts){ .title = title, .subtitle = sub }, f);
	if (r < 0)
		log_error_errno(r, "Cannot write '%s': %m", name);
	if (r == 0 && ret_frames)
		*ret_frames = flamegraph__count(fg) - 1;
	if (r == 0 && ret_samples)
		*ret_samples = flamegraph__total(fg);
	flamegraph__free(fg);
	return r;
}

static int write_svg(const struct evidence *ev, const char *out)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t samples = 0;
	size_t len = 0, frames = 0;
	FILE *f;
	int r;

	if ((r = evidence_check_output(out)) < 0)
		return r;
	f = open_memstream(&buf, &len);
	if (!f)
		return log_error_errno(errno, "Cannot draw the stacks: %m");
	r = evidence_write_flamegraph(ev, f, out, &frames, &samples);
	if (fclose(f) == EOF && r == 0)
		r = log_error_errno(ENOMEM, "Cannot write '%s': %m", out);
	if (r < 0)
		return r; /* said */
	if ((r = atomic_write_file(out, buf, len, 0644)) < 0)
		return log_error_errno(r, "Cannot write '%s': %m", out);
	log_info("wrote %s: %zu frames, %llu samples", out, frames, (unsigned long long)samples);
	return 0;
}

/* ---- the command ---- */

int cmd_evidence(int argc, char **argv)
{
	static const struct option longopts[] = { { "svg", required_argument, NULL, 's' },
						  { "folded", no_argument, NULL, 'f' },
						  { "mark-new", no_argument, NULL, 'n' },
						  { "help", no_argument, NULL, 'h' },
						  {} };
	const char *svg = NULL, *file, *id;
	struct json_object *rec = NULL;
	struct evidence ev;
	_cleanup_free_ char *id_esc = NULL;
	bool folded = false, mark_new = false;
	char err[256];
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			svg = optarg;
			break;
		case 'f':
			folded = true;
			break;
		case 'n':
			mark_new = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return log_error_errno(EINVAL, "unknown option or missing argument '%s' (see plumbline evidence "
						       "--help)", argv[optind - 1]);
		}
	}
	if (optind != argc - 2) {
		usage(stderr);
		return -EINVAL;
	}
	if (mark_new && !folded)
		return log_error_errno(EINVAL, "--mark-new marks folded stacks: use it with --folded");
	file = argv[optind];
	id = argv[optind + 1];
	id_esc = text_escape_str(id);
	if (!id_esc)
		return log_error_errno(ENOMEM, "Out of memory");
	if ((r = evidence_find_alert(file, id, &rec)) < 0)
		return r;
	/* the alert's whole id from here on (ALERT_ID may be a prefix of it) */
	free(id_esc);
	id_esc = text_escape_str(id_of(rec));
	if (!id_esc) {
		json_object_put(rec);
		return log_error_errno(ENOMEM, "Out of memory");
	}
	r = evidence__parse(rec, &ev, err, sizeof(err));
	json_object_put(rec);
	if (r == -ENODATA)
		log_error("alert %s carries no stack samples", id_esc);
	else if (r < 0)
		log_error_errno(r, "alert %s: cannot read its stack evidence: %s", id_esc, err);
	if (r == 0 && svg)
		r = write_svg(&ev, svg);
	if (r == 0 && folded)
		r = print_folded(&ev, mark_new);
	if (r == 0 && !svg && !folded)
		r = print_summary(&ev);
	evidence__free(&ev);
	return r;
}
