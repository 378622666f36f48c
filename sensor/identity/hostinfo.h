/* SPDX-License-Identifier: MIT */
/*
 * hostinfo.h - who the host is, for every alert: its name, a stable id and
 * the id of this boot, gathered once at start (the name again on SIGHUP).
 *
 * The host id is what a SOC joins alerts of one machine on, so it must not
 * change when the host is renamed: /etc/machine-id (systemd's, 32 hex
 * digits), else /var/lib/dbus/machine-id (the same format, older systems),
 * else an id of the sensor's own, 32 random hex digits kept in the state
 * directory (STATE_DIR/host-id), else (no state directory to keep it in:
 * --no-baselines) a random id for this run only. Never the host name.
 * Every read is bounded and validated; what was passed over is said once.
 * docs/records.md ("host") describes the fields.
 */
#ifndef PL_HOSTINFO_H
#define PL_HOSTINFO_H

#include <stdbool.h>
#include <stddef.h>

#define HOSTINFO_ID_LEN	     32 /* hex digits */
#define HOSTINFO_BOOT_ID_LEN 36 /* 8-4-4-4-12 */
#define HOSTINFO_NAME_MAX    255
#define HOSTINFO_ID_FILE     "host-id" /* in the state directory */

enum hostinfo_id_source {
	HOSTINFO_ID_MACHINE_ID = 0, /* /etc/machine-id */
	HOSTINFO_ID_DBUS,	    /* /var/lib/dbus/machine-id */
	HOSTINFO_ID_STATE,	    /* STATE_DIR/host-id (read, or made now) */
	HOSTINFO_ID_RUN,	    /* random, for this run only */
};

struct hostinfo {
	char name[HOSTINFO_NAME_MAX + 1];	/* gethostname(); "" when unknown */
	char id[HOSTINFO_ID_LEN + 1];		/* always set */
	char boot_id[HOSTINFO_BOOT_ID_LEN + 1]; /* "" when unknown */
	enum hostinfo_id_source id_source;
};

/* Whether buf[0..len) is a machine-id: 32 lowercase hex digits, then at
 * most a newline. */
bool hostinfo__valid_id(const char *buf, size_t len);

/*
 * The host id, by the chain above, under root (NULL or "": "/"; tests give a
 * temporary one): into ret_id and *ret_src. state_dir NULL: no state directory
 * (the chain ends in a random id for this run). A file of the chain that is
 * there but unusable (not a regular file, too long, not 32 hex digits) is
 * passed over and said in why (one sentence, "" when nothing was passed
 * over; why may be NULL). Returns 0, or -errno when even the last step
 * failed (no entropy: ret_id is then all zeros).
 */
int hostinfo__host_id(const char *root, const char *state_dir, char *why, size_t why_size,
		      char ret_id[HOSTINFO_ID_LEN + 1], enum hostinfo_id_source *ret_src);

/* The boot id under root (/proc/sys/kernel/random/boot_id): 0, or -errno
 * (-EINVAL: not a boot id) with ret "". */
int hostinfo__boot_id(const char *root, char ret[HOSTINFO_BOOT_ID_LEN + 1]);

/* ---- the sensor's ---- */

/* Gather the host's (state_dir: where a host-id of the sensor's own is
 * kept, or NULL). Says once what was passed over and where the id comes
 * from when it is not /etc/machine-id. */
void hostinfo__init(const char *state_dir);

/* The host name the sensor says (--host-name) instead of gethostname(),
 * from now on and over refreshes; NULL or "": the machine's again. */
void hostinfo__set_name(const char *name);

/* SIGHUP: the host name again (a renamed host). */
void hostinfo__refresh(void);

/* The host's, gathered by hostinfo__init() (or now, without a state
 * directory, if it was not called: `plumbline replay`). */
const struct hostinfo *hostinfo__get(void);

/* A name for src in messages and docs: "/etc/machine-id", ... */
const char *hostinfo_id_source__name(enum hostinfo_id_source src);

#endif
