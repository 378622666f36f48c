/* SPDX-License-Identifier: MIT */
/*
 * cmd_audit.h - `plumbline audit verify FILE [--heads FILE]` (docs/cli.md):
 * check an audit log's hash chain, and its heads sent off-host. Needs no
 * privileges beyond reading the files.
 */
#ifndef PL_CMD_AUDIT_H
#define PL_CMD_AUDIT_H

/* argv[0] is "audit". 0 when the chain is intact, 1 when it is not (the
 * first bad line is printed: a result), or -errno (logged). */
int cmd_audit(int argc, char **argv);

#endif
