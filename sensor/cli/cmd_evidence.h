/* SPDX-License-Identifier: MIT */
/*
 * cmd_evidence.h - `plumbline evidence` (docs/cli.md, docs/outputs.md):
 * an alert's stack evidence, read back from the JSON output, as text,
 * folded stacks or a flame graph SVG. No root, no kernel. Finding the
 * alert and drawing its flame graph are shared with `plumbline report`.
 */
#ifndef PL_CMD_EVIDENCE_H
#define PL_CMD_EVIDENCE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "evidence.h"

/* argv[0] is "evidence". 0 or -errno (logged). */
int cmd_evidence(int argc, char **argv);

/*
 * The alert of file (the JSON output or the OCSF output, told apart line by
 * line) whose id is id, or the one alert whose id starts with it, into *ret
 * in the native record's form (the caller puts it). Says when the id is not
 * unique and when a prefix names several alerts. 0 or -errno (logged).
 */
int evidence_find_alert(const char *file, const char *id, struct json_object **ret);

/* Whether OUT may be replaced: 0 when it is a regular file or not there; a
 * symlink (refused, not followed) or another kind of file is -errno, logged. */
int evidence_check_output(const char *path);

/*
 * ev's stacks as the flame graph SVG of `evidence --svg`, written to f
 * (name: what f is, for the messages). *ret_frames and *ret_samples (each
 * may be NULL): the boxes drawn, the root's samples. 0 or -errno (logged).
 */
int evidence_write_flamegraph(const struct evidence *ev, FILE *f, const char *name, size_t *ret_frames,
			      uint64_t *ret_samples);

#endif
