/* SPDX-License-Identifier: MIT */
/*
 * baseline_fleet.h - the signed-bundle half of `plumbline baseline`: keygen,
 * verify, and the checks import and merge make of a bundle from another
 * host (--trust: signed by a trusted key; --role: of that role). Every
 * function logs its own failure, naming the file, and returns -errno.
 */
#ifndef PL_BASELINE_FLEET_H
#define PL_BASELINE_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "bundle.h"

/* `baseline keygen KEY`: KEY and KEY.pub (bl_signkey__generate), then the key id on stderr (json: stdout). */
int baseline_fleet__keygen(const char *key, bool json);

/*
 * `baseline verify FILE`: the header and the verdict against the keys at
 * trust_path (NULL: not checked) on stdout. 0 when the verdict is good, or
 * without trust_path when the bundle is well formed; -EBADMSG otherwise
 * (the verdict is printed, nothing logged).
 */
int baseline_fleet__verify(const char *file, const char *trust_path, bool json);

/* The private key at path into *ret; path NULL: *ret NULL, 0. */
int baseline_fleet__load_signkey(const char *path, struct bl_signkey **ret);
/* The trusted keys at path into *ret; path NULL: *ret NULL, 0. */
int baseline_fleet__load_trust(const char *path, struct bl_keyring **ret);
/* 0 when role is NULL or a role name (bl_bundle__valid_role), else -EINVAL. */
int baseline_fleet__check_role(const char *role);

/*
 * Read a bundle for import or merge: with trust its signature must be good,
 * and with role (not NULL) its role must be that one ("Refusing 'F': bad
 * signature (key ID)", "... its role is 'build', not ssh"). 0 with the
 * baselines (*ret, *ret_n), *ret_meta and the key id; or -errno, the outputs
 * untouched.
 */
int baseline_fleet__read(const char *file, const struct bl_keyring *trust, const char *role,
			 struct bl_bundle_meta *ret_meta, char ret_key_id[BL_KEY_ID_LEN + 1], struct baseline ***ret,
			 size_t *ret_n);

#endif
