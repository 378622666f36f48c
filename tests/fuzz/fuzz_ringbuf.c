// SPDX-License-Identifier: MIT
/*
 * fuzz_ringbuf.c - libFuzzer target: arbitrary bytes as a ring-buffer record
 * handed up by the kernel (bpf/plumbline.h is the ABI).
 *
 * The record goes through what user space does with it before any lookup
 * in /proc: the validation (images__record_type()), then the decoding of
 * its type: an exec's filename, argument block (text_cmdline(), and the
 * interpreter argv parser of every family), comm; a failed path and its
 * errno; an end's counters and exit status, written as a process record.
 * Invariants: a record is accepted only whole and of its type's exact size;
 * decoded strings stay within their fields; escaped text is valid UTF-8
 * without a control byte; a process record serializes and parses back.
 *
 * Each input is tried twice: as it is (in a buffer of exactly its size, so
 * ASan sees a read past it), and with a valid header of the type its first
 * byte names, so the decoders get whole records whatever the header said.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "pipeline/images.h"
#include "plumbline.h"
#include "sample_json.h"
#include "identity/scriptkey.h"
#include "syscalls.h"
#include "textsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t record_size[] = {
	[PL_EV_EXEC] = sizeof(struct pl_ev_exec),  [PL_EV_FORK] = sizeof(struct pl_ev_proc),
	[PL_EV_SEEN] = sizeof(struct pl_ev_proc),  [PL_EV_END] = sizeof(struct pl_ev_end),
	[PL_EV_FAIL_PATH] = sizeof(struct pl_ev_fail_path), [PL_EV_SAMPLE] = offsetof(struct pl_ev_sample, stack),
	[PL_EV_MAP] = sizeof(struct pl_ev_map), [PL_EV_NET] = sizeof(struct pl_ev_net),
};
/* the record types; a sample's size is its header's part (record_size) and
 * the user stack it carries, of stack_len bytes */
static const uint16_t record_types[] = {PL_EV_EXEC, PL_EV_FORK, PL_EV_SEEN, PL_EV_END, PL_EV_FAIL_PATH,
					PL_EV_SAMPLE, PL_EV_FILE, PL_EV_MAP, PL_EV_NET};

/* Escaped text is one line of valid UTF-8: no C0 control, no DEL, no backslash but an escape's. */
static void check_escaped(const char *raw, size_t len)
{
	char *esc = text_escape(raw, len);
	size_t n;

	if (!esc)
		return;
	n = strlen(esc);
	FZ_ASSERT(fz_utf8_valid(esc, n));
	for (size_t i = 0; i < n; i++) {
		FZ_ASSERT((unsigned char)esc[i] >= 0x20 && esc[i] != 0x7f);
		if (esc[i] == '\\')
			FZ_ASSERT(i + 3 < n && esc[i + 1] == 'x');
	}
	{
		size_t back;
		char *raw2 = text_unescape(esc, n, &back);

		FZ_ASSERT(!raw2 || (back == len && memcmp(raw2, raw, len) == 0));
		free(raw2);
	}
	free(esc);
}

static void check_comm(const struct pl_ident *id)
{
	char comm[PL_COMM_LEN];

	/* as images.c takes it: the field, NUL-terminated in place */
	memcpy(comm, id->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	FZ_ASSERT(strlen(comm) < PL_COMM_LEN);
	check_escaped(comm, strlen(comm));
}

static void decode_exec(const struct pl_ev_exec *ev)
{
	static const enum interp_family fams[] = { INTERP_NONE, INTERP_PYTHON, INTERP_SHELL, INTERP_PERL,
						   INTERP_NODE, INTERP_RUBY, INTERP_PHP };
	char filename[PL_PATH_LEN];
	bool truncated;
	size_t args_len = images__exec_strings(ev, filename, &truncated);
	char *cmd;

	FZ_ASSERT(strlen(filename) < PL_PATH_LEN);
	FZ_ASSERT(args_len <= PL_ARGS_LEN);
	FZ_ASSERT(truncated == (ev->filename_len > PL_PATH_LEN));
	{
		char cwd[PL_CWD_LEN];
		bool cut, known = images__exec_cwd(ev, cwd, &cut);

		FZ_ASSERT(strlen(cwd) < PL_CWD_LEN);
		FZ_ASSERT(known ? cwd[0] == '/' : !cwd[0] && !cut);
	}
	check_escaped(filename, strlen(filename));
	check_comm(&ev->id);
	cmd = text_cmdline(ev->args, args_len);
	if (cmd) {
		FZ_ASSERT(strlen(cmd) <= args_len);
		check_escaped(cmd, strlen(cmd));
		free(cmd);
	}
	(void)scriptkey__interpreter(filename);
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		struct script_arg sa = scriptkey__parse(fams[i], ev->args, args_len);

		if (!sa.text)
			continue;
		FZ_ASSERT(sa.kind != SCRIPT_NONE);
		if (sa.kind == SCRIPT_INLINE) { /* the option's own name */
			FZ_ASSERT(!strcmp(sa.text, "-c") || !strcmp(sa.text, "-e") || !strcmp(sa.text, "-r"));
			continue;
		}
		/* a path or module is one NUL-terminated argument inside the block given */
		FZ_ASSERT(sa.text >= ev->args && sa.text < ev->args + args_len);
		FZ_ASSERT(memchr(sa.text, '\0', (size_t)(ev->args + args_len - sa.text)) != NULL);
	}
}

static void decode_fail_path(const struct pl_ev_fail_path *ev)
{
	/* as proctable.c keeps it: at most the field, NUL-terminated */
	char *path = strndup(ev->key.path, sizeof(ev->key.path));
	const char *name = errno_name(ev->key.err);

	if (path) {
		FZ_ASSERT(strlen(path) <= sizeof(ev->key.path));
		check_escaped(path, strlen(path));
		free(path);
	}
	if (name)
		FZ_ASSERT(strlen(name) < 64);
}

static void decode_end(const struct pl_ev_end *ev)
{
	struct pl_sample s;
	struct json_object *rec, *back;
	struct sample_buf *buf = NULL;
	const char *text;

	pl_sample__init(&s, PL_AT_EXIT);
	images__end_counts(ev, &s);
	s.pid = ev->hdr.tgid;
	s.comm = NULL;
	FZ_ASSERT(s.end_reason && (!strcmp(s.end_reason, "exit") || !strcmp(s.end_reason, "exec")));
	if (s.has_exit_code)
		FZ_ASSERT(s.exit_code >= 0 && s.exit_code <= 255);
	if (s.has_exit_signal)
		FZ_ASSERT(s.exit_signal > 0 && s.exit_signal < 128);
	FZ_ASSERT(!(s.has_exit_code && s.has_exit_signal));
	check_comm(&ev->proc.id);
	rec = sample_json__record(&s);
	if (!rec)
		return;
	text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
	back = json_tokener_parse(text);
	FZ_ASSERT(back);
	if (sample_buf__new(&buf) == 0) {
		struct pl_sample t;

		int r = sample_json__parse(back, buf, &t);

		FZ_ASSERT(r == 0 || r == -ENOMEM);
		if (r == 0) {
			FZ_ASSERT(t.life.syscalls == s.life.syscalls && t.life.cpu_ns == s.life.cpu_ns);
			FZ_ASSERT(t.has_exit_code == s.has_exit_code && t.exit_code == s.exit_code);
			FZ_ASSERT(t.has_exit_signal == s.has_exit_signal && t.exit_signal == s.exit_signal);
		}
		sample_buf__free(buf);
	}
	json_object_put(back);
	json_object_put(rec);
}

static void decode(const void *rec, size_t size)
{
	int type = images__record_type(rec, size);

	if (type < 0)
		return;
	FZ_ASSERT(type >= PL_EV_EXEC && type <= PL_EV_LAST && record_size[type]);
	FZ_ASSERT(size >= record_size[type]);
	if (type == PL_EV_SAMPLE) {
		const struct pl_ev_sample *ev = rec;

		FZ_ASSERT(ev->hdr.size == record_size[type] + ev->stack_len && ev->hdr.size <= size);
		FZ_ASSERT(ev->stack_len <= PL_STACK_DUMP_MAX);
	} else {
		FZ_ASSERT(((const struct pl_hdr *)rec)->size == record_size[type]);
	}
	switch (type) {
	case PL_EV_EXEC:
		decode_exec(rec);
		break;
	case PL_EV_FORK:
	case PL_EV_SEEN:
		check_comm(&((const struct pl_ev_proc *)rec)->id);
		break;
	case PL_EV_END:
		decode_end(rec);
		break;
	case PL_EV_FAIL_PATH:
		decode_fail_path(rec);
		break;
	case PL_EV_NET:
		check_comm(&((const struct pl_ev_net *)rec)->id);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *copy = malloc(size ? size : 1);
	struct pl_hdr *h;
	size_t want;
	int type;

	if (!copy)
		return 0;
	/* 1: the bytes as the ring buffer would hand them over */
	memcpy(copy, data, size);
	decode(size ? copy : NULL, size);
	free(copy);

	/* 2: a whole record of the type the first byte names, the rest its body */
	if (size < 1)
		return 0;
	type = record_types[data[0] % (sizeof(record_types) / sizeof(record_types[0]))];
	want = record_size[type];
	if (!want)
		return 0; /* a type this ABI reserves and does not define */
	copy = calloc(1, want);
	if (!copy)
		return 0;
	memcpy(copy, data, size < want ? size : want);
	h = copy;
	h->type = (uint16_t)type;
	h->version = PL_ABI_VERSION;
	h->size = (uint32_t)want;
	if (type == PL_EV_SAMPLE)
		((struct pl_ev_sample *)copy)->stack_len = 0;
	FZ_ASSERT(images__record_type(copy, want) == type);
	FZ_ASSERT(images__record_type(copy, want - 1) < 0);
	decode(copy, want);
	free(copy);
	return 0;
}
