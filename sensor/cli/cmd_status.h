/* SPDX-License-Identifier: MIT */
/*
 * cmd_status.h - `plumbline status [--runtime-dir DIR] [--json]` (docs/cli.md):
 * the running sensor's state, read from the status.json it keeps in its
 * runtime directory (runtime.h), without talking to it.
 */
#ifndef PL_CMD_STATUS_H
#define PL_CMD_STATUS_H

#include <stdio.h>

/* argv[0] is "status". 0 when a sensor is running and its status is fresh;
 * 1 when none is running (or its status is stale), said on stderr: a result;
 * -errno for a bad command line or an unreadable file (logged). */
int cmd_status(int argc, char **argv);

struct json_object;
/* The human form of a status file o (a JSON object, untrusted: any member
 * may be missing or of another type) to out. Every text of the file, a
 * member's name included, is printed with its control bytes as '?': the
 * output has no control byte but the newlines it puts itself. */
void cmd_status__print(struct json_object *o, FILE *out);

#endif
