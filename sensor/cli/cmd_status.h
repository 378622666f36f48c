/* SPDX-License-Identifier: MIT */
/*
 * cmd_status.h - `plumbline status [--runtime-dir DIR] [--json]` (docs/cli.md):
 * the running sensor's state, read from the status.json it keeps in its
 * runtime directory (runtime.h), without talking to it.
 */
#ifndef PL_CMD_STATUS_H
#define PL_CMD_STATUS_H

/* argv[0] is "status". 0 when a sensor is running and its status is fresh;
 * 1 when none is running (or its status is stale), said on stderr: a result;
 * -errno for a bad command line or an unreadable file (logged). */
int cmd_status(int argc, char **argv);

#endif
