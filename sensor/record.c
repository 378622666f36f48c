// SPDX-License-Identifier: MIT
/*
 * record.c - build records from kernel counters and user-space identity.
 *
 * Strings that came from a monitored process are raw bytes in the process
 * table; here, at the edge, each is escaped once (text_escape()), so no
 * path, comm or cmdline can break a record, forge a field, or reach a
 * terminal or a log viewer as anything but printable text.
 */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "syscalls.h"
#include "textsafe.h"

/* len bytes of s, escaped, as a JSON string (NULL on ENOMEM). */
static struct json_object *escaped(const char *s, size_t len)
{
	char *esc = text_escape(s, len);
	struct json_object *j = esc ? json_object_new_string(esc) : NULL;

	free(esc);
	return j;
}

struct json_object *record__str(const char *raw)
{
	return raw ? escaped(raw, strlen(raw)) : NULL;
}

/* s (NULL: null) up to a NUL or max bytes (a kernel buffer may lack its NUL). */
static void add_str(struct json_object *o, const char *key, const char *s, size_t max)
{
	json_object_object_add(o, key, s ? escaped(s, strnlen(s, max)) : NULL);
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void add_i64(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

uint64_t stats__syscalls(const struct pl_stats *s)
{
	uint64_t n = s->sc_other;

	for (int i = 0; i < PL_NR_SYSCALLS; i++)
		n += s->sc[i];
	return n;
}

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

struct sc_count {
	int nr;
	uint64_t n;
};

static int by_count_desc(const void *a, const void *b)
{
	const struct sc_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->nr - y->nr;
}

/* Measurements shared by process and window records: cur - prev. */
static void add_stats(struct json_object *o, const struct pl_stats *cur, const struct pl_stats *prev)
{
	static const struct pl_stats zero;
	struct sc_count sc[PL_NR_SYSCALLS];
	struct json_object *by_name, *by_errno;
	uint64_t total = 0, offcpu, runq;
	int n = 0;

	if (!prev)
		prev = &zero;
	offcpu = delta(cur->offcpu_ns, prev->offcpu_ns);
	runq = delta(cur->runq_ns, prev->runq_ns);
	add_u64(o, "cpu_ns", delta(cur->cpu_ns, prev->cpu_ns));
	add_u64(o, "offcpu_ns", offcpu);
	add_u64(o, "runq_ns", runq);
	add_u64(o, "blocked_ns", offcpu > runq ? offcpu - runq : 0);
	add_u64(o, "ctx_switches", delta(cur->ctx_switches, prev->ctx_switches));

	for (int i = 0; i < PL_NR_SYSCALLS; i++) {
		uint64_t d = delta(cur->sc[i], prev->sc[i]);

		if (!d)
			continue;
		sc[n++] = (struct sc_count){ .nr = i, .n = d };
		total += d;
	}
	total += delta(cur->sc_other, prev->sc_other);
	qsort(sc, n, sizeof(sc[0]), by_count_desc);
	by_name = json_object_new_object();
	for (int i = 0; i < n; i++) {
		const char *name = syscall_name(sc[i].nr);
		char fallback[32];

		if (!name) {
			snprintf(fallback, sizeof(fallback), "sys_%d", sc[i].nr);
			name = fallback;
		}
		add_u64(by_name, name, sc[i].n);
	}
	add_u64(o, "syscalls", total);
	json_object_object_add(o, "syscalls_by_name", by_name);
	add_u64(o, "syscalls_other", delta(cur->sc_other, prev->sc_other));

	add_u64(o, "open_failures", delta(cur->open_fail, prev->open_fail));
	by_errno = json_object_new_object();
	for (int e = 1; e < PL_NR_ERRNO; e++) {
		uint64_t d = delta(cur->open_fail_errno[e], prev->open_fail_errno[e]);
		const char *name = e < PL_NR_ERRNO - 1 ? errno_name(e) : "other";
		char fallback[16];

		if (!d)
			continue;
		if (!name) {
			snprintf(fallback, sizeof(fallback), "E%d", e);
			name = fallback;
		}
		add_u64(by_errno, name, d);
	}
	json_object_object_add(o, "open_fail_by_errno", by_errno);
	add_u64(o, "open_fail_unrecorded", delta(cur->open_fail_unrecorded, prev->open_fail_unrecorded));
}

static const char *image_kind(uint32_t flags)
{
	if (flags & PL_PROC_EXECED)
		return "exec";
	if (flags & PL_PROC_FORKED)
		return "fork";
	return "preexisting";
}

static void add_identity(struct json_object *o, uint32_t tgid, const struct proc_info *pi, const struct pl_proc *p,
			 const char *cgroup, int64_t mono_to_real)
{
	char dev[32];

	add_u64(o, "pid", tgid);
	add_u64(o, "ppid", p->id.ppid);
	add_u64(o, "uid", p->id.uid);
	add_str(o, "comm", p->id.comm, sizeof(p->id.comm));
	add_str(o, "exec_comm", pi && pi->exec_comm[0] ? pi->exec_comm : NULL, PL_COMM_LEN);
	add_str(o, "exe", pi ? pi->exe : NULL, 4096);
	snprintf(dev, sizeof(dev), "%u:%u", p->id.exe_dev >> 20, p->id.exe_dev & 0xfffff);
	add_str(o, "exe_dev", dev, sizeof(dev));
	add_u64(o, "exe_ino", p->id.exe_ino);
	add_str(o, "build_id", pi ? pi->build_id : NULL, 129);
	add_str(o, "filename", pi ? pi->filename : NULL, 4096);
	json_object_object_add(o, "filename_truncated", json_object_new_boolean(pi && pi->filename_truncated));
	add_str(o, "cmdline", pi ? pi->cmdline : NULL, 4096);
	add_u64(o, "cgroup_id", p->id.cgroup_id);
	add_str(o, "cgroup", cgroup, 4096);
	json_object_object_add(o, "image", json_object_new_string(image_kind(p->id.flags)));
	json_object_object_add(o, "partial", json_object_new_boolean(p->id.flags & PL_PROC_PARTIAL));
	add_u64(o, "start_ns", p->id.proc_start_ns + mono_to_real);
	add_u64(o, "image_start_ns", p->id.image_start_ns + mono_to_real);
	add_u64(o, "threads", p->id.threads);
}

struct json_object *record__process(uint32_t tgid, const struct proc_info *pi, const struct pl_proc *p,
				    const char *cgroup, const struct fail_count *fails, uint32_t nfails,
				    const struct record_end *end, int64_t mono_to_real)
{
	struct json_object *o = json_object_new_object(), *paths;

	if (!o)
		return NULL;
	json_object_object_add(o, "type", json_object_new_string("process"));
	add_identity(o, tgid, pi, p, cgroup, mono_to_real);
	add_u64(o, "end_ns", end->end_ns + mono_to_real);
	add_u64(o, "duration_ns", delta(end->end_ns, p->id.image_start_ns));
	json_object_object_add(o, "end_reason", json_object_new_string(end->reason));
	if (end->has_exit && !(end->exit_status & 0x7f)) {
		add_i64(o, "exit_code", (end->exit_status >> 8) & 0xff);
		json_object_object_add(o, "exit_signal", NULL);
	} else if (end->has_exit) {
		json_object_object_add(o, "exit_code", NULL);
		add_i64(o, "exit_signal", end->exit_status & 0x7f);
	} else {
		json_object_object_add(o, "exit_code", NULL);
		json_object_object_add(o, "exit_signal", NULL);
	}
	add_stats(o, &p->st, NULL);

	paths = json_object_new_array();
	uint64_t listed = 0;
	for (uint32_t i = 0; i < nfails; i++) {
		struct json_object *f = json_object_new_object();
		const struct pl_fail_key *k = &fails[i].ref->key;
		const char *en = errno_name(k->err);

		add_str(f, "path", k->path, sizeof(k->path));
		add_i64(f, "errno", k->err);
		add_str(f, "errno_name", en, 32);
		add_u64(f, "count", fails[i].count);
		listed += fails[i].count;
		json_object_object_add(f, "truncated", json_object_new_boolean(fails[i].ref->truncated));
		json_object_array_add(paths, f);
	}
	json_object_object_add(o, "open_fail_paths", paths);
	/* whatever the reason (table full, a lost record), the paths listed
	 * don't account for every failure */
	json_object_object_add(o, "open_fail_paths_incomplete", json_object_new_boolean(listed != p->st.open_fail));
	return o;
}

struct json_object *record__window(uint32_t tgid, const struct proc_info *pi, const struct pl_proc *p,
				   const char *cgroup, const struct pl_stats *prev, uint64_t start_ns,
				   uint64_t end_ns, int64_t mono_to_real)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "type", json_object_new_string("window"));
	add_identity(o, tgid, pi, p, cgroup, mono_to_real);
	add_u64(o, "window_start_ns", start_ns + mono_to_real);
	add_u64(o, "window_end_ns", end_ns + mono_to_real);
	add_stats(o, &p->st, prev);
	return o;
}
