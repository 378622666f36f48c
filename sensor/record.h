/* SPDX-License-Identifier: MIT */
/*
 * record.h - process and window records as JSON (schema: docs/records.md).
 */
#ifndef PL_RECORD_H
#define PL_RECORD_H

#include <json-c/json.h>
#include <stdint.h>

#include "plumbline.h"
#include "proctable.h"

/* A failed path of an image with its final count from the kernel table. */
struct fail_count {
	const struct fail_ref *ref;
	uint64_t count;
};

struct record_end {
	uint64_t end_ns;        /* monotonic */
	const char *reason;     /* "exit", "exec" or "running" */
	int has_exit;           /* exit_code is meaningful */
	int32_t exit_status;    /* wait(2)-style status */
};

/*
 * The "process" record of one image. pi may be NULL (user space never saw
 * the start: identity comes from p alone). mono_to_real converts monotonic
 * ns to CLOCK_REALTIME ns. Returns a new object or NULL on ENOMEM.
 */
struct json_object *record__process(uint32_t tgid, const struct proc_info *pi, const struct pl_proc *p, const char *cgroup,
				    const struct fail_count *fails, uint32_t nfails, const struct record_end *end,
				    int64_t mono_to_real);

/*
 * The "window" record: what changed between prev (NULL: since image start)
 * and p->st over [start_ns, end_ns] (monotonic).
 */
struct json_object *record__window(uint32_t tgid, const struct proc_info *pi, const struct pl_proc *p, const char *cgroup,
				   const struct pl_stats *prev, uint64_t start_ns, uint64_t end_ns,
				   int64_t mono_to_real);

/*
 * The JSON string of raw text from a process (a path, a name, a command
 * line): escaped once, with text_escape() (docs/records.md, Conventions).
 * NULL (JSON null) for NULL, or on ENOMEM. Every string a record takes from
 * the process table goes through here or through the record builders.
 */
struct json_object *record__str(const char *raw);

/* Sum of all syscall counters of s. */
uint64_t stats__syscalls(const struct pl_stats *s);

#endif
