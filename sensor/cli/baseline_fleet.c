// SPDX-License-Identifier: MIT
/*
 * baseline_fleet.c - keygen, verify, and the --trust / --role checks of
 * import and merge (baseline_fleet.h). A bundle from another host is
 * refused as a whole when a check fails: the command names the file and
 * what is wrong, and writes nothing.
 */
#include "cli/baseline_fleet.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "log.h"
#include "sample_json.h"
#include "textsafe.h"

/* contracts: baseline_fleet.h */
int baseline_fleet__load_signkey(const char *path, struct bl_signkey **ret)
{
	char err[512];
	int r;

	*ret = NULL;
	if (!path)
		return 0;
	r = bl_signkey__load(path, ret, err, sizeof(err));
	return r < 0 ? log_error_errno(r, "Cannot use the signing key %s", err) : 0;
}

int baseline_fleet__load_trust(const char *path, struct bl_keyring **ret)
{
	char err[512];
	int r;

	*ret = NULL;
	if (!path)
		return 0;
	r = bl_keyring__load(path, ret, err, sizeof(err));
	return r < 0 ? log_error_errno(r, "Cannot use the trusted keys %s", err) : 0;
}

int baseline_fleet__check_role(const char *role)
{
	if (role && !bl_bundle__valid_role(role))
		return log_error_errno(EINVAL, "invalid role '%s': 1 to %d of A-Z a-z 0-9 . _ -", role, BL_ROLE_MAX);
	return 0;
}

/*
 * Read a bundle for import or merge: with --trust its signature must be
 * good, and with role (not NULL) its role must be that one. 0 with the
 * baselines and meta, or -errno, logged naming the file.
 */
int baseline_fleet__read(const char *file, const struct bl_keyring *trust, const char *role,
			 struct bl_bundle_meta *ret_meta, char ret_key_id[BL_KEY_ID_LEN + 1], struct baseline ***ret,
			 size_t *ret_n)
{
	struct bl_bundle_meta *m = calloc(1, sizeof(*m));
	struct baseline **bs = NULL;
	enum bl_sig sig;
	char err[512];
	size_t n = 0;
	int r;

	if (!m)
		return log_error_errno(ENOMEM, "Out of memory");
	r = bl_bundle__read_meta(file, trust, m, &sig, ret_key_id, &bs, &n, err, sizeof(err));
	if (r < 0) {
		free(m);
		return log_error_errno(r, "Cannot read '%s': %s", file, err);
	}
	if (trust && sig != BL_SIG_GOOD)
		r = log_error_errno(EBADMSG, "Refusing '%s': %s%s%s%s", file, bl_sig__text(sig),
				    *ret_key_id ? " (key " : "", ret_key_id, *ret_key_id ? ")" : "");
	else if (role && strcmp(m->role, role) != 0)
		r = log_error_errno(EINVAL, "Refusing '%s': its role is %s%s%s, not %s", file, m->role[0] ? "'" : "",
				    m->role[0] ? m->role : "not set", m->role[0] ? "'" : "", role);
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			baseline__free(bs[i]);
		free(bs);
		free(m);
		return r;
	}
	*ret_meta = *m;
	free(m);
	*ret = bs;
	*ret_n = n;
	return 0;
}

/*
 * What a bundle says of itself and whether a trusted key signed it. Exit 0
 * when the signature is good; without --trust nothing can be checked, and
 * 0 says only that the bundle is well formed (the verdict line says so).
 */
int baseline_fleet__verify(const char *file, const char *trust_path, bool json)
{
	_cleanup_free_ struct bl_bundle_meta *m = calloc(1, sizeof(*m));
	struct bl_keyring *trust = NULL;
	char key_id[BL_KEY_ID_LEN + 1] = "", when[BL_TIME_LEN] = "", err[512], verdict[128];
	enum bl_sig sig;
	int r;

	if (!m)
		return log_error_errno(ENOMEM, "Out of memory");
	if ((r = baseline_fleet__load_trust(trust_path, &trust)) < 0)
		return r;
	r = bl_bundle__read_meta(file, trust, m, &sig, key_id, NULL, NULL, err, sizeof(err));
	bl_keyring__free(trust);
	if (r < 0)
		return log_error_errno(r, "Cannot read '%s': %s", file, err);
	if (m->created_ns)
		bl_bundle__format_time(m->created_ns, when);
	if (!trust_path && sig != BL_SIG_NONE)
		snprintf(verdict, sizeof(verdict), "not checked (no --trust)");
	else
		snprintf(verdict, sizeof(verdict), "%s", bl_sig__text(sig));
	if (json) {
		struct json_object *j = json_object_new_object(), *hl = json_object_new_array();

		for (const char *p = m->host_list; *p; p = strchr(p, ',') + 1)
			json_object_array_add(hl, json_object_new_string_len(p, (int)(strchr(p, ',') - p)));
		json_object_object_add(j, "file", sample_json__str(file));
		json_object_object_add(j, "role", json_object_new_string(m->role));
		json_object_object_add(j, "host", json_object_new_string(m->host));
		json_object_object_add(j, "host_list", hl);
		json_object_object_add(j, "created", json_object_new_string(when));
		json_object_object_add(j, "created_ns", json_object_new_uint64(m->created_ns));
		json_object_object_add(j, "hosts", json_object_new_uint64(m->hosts));
		json_object_object_add(j, "baselines", json_object_new_uint64(m->nbaselines));
		json_object_object_add(j, "signature", json_object_new_string(verdict));
		json_object_object_add(j, "key_id", key_id[0] ? json_object_new_string(key_id) : NULL);
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		_cleanup_free_ char *f = text_escape_str(file);
		size_t listed = 0;

		for (const char *p = m->host_list; *p; p++)
			listed += *p == ',';
		printf("file:       %s\n", f ? f : "?");
		printf("role:       %s\n", m->role[0] ? m->role : "(none)");
		if (m->host[0])
			printf("host:       %s\n", m->host);
		else if (listed) {
			fputs("hosts seen: ", stdout);
			for (const char *p = m->host_list; *p; p = strchr(p, ',') + 1)
				printf("%s%.*s", p == m->host_list ? "" : ", ", (int)(strchr(p, ',') - p), p);
			printf("%s\n", listed < m->hosts ? ", ..." : "");
		} else
			printf("host:       (not said)\n");
		printf("created:    %s\n", when[0] ? when : "(not said)");
		printf("hosts:      %u\n", m->hosts);
		printf("baselines:  %zu\n", m->nbaselines);
		printf("signature:  %s%s%s%s\n", verdict, key_id[0] ? " (key " : "", key_id, key_id[0] ? ")" : "");
	}
	if (trust_path && sig != BL_SIG_GOOD)
		return -EBADMSG; /* said on stdout: a result, not an error to log */
	return 0;
}

int baseline_fleet__keygen(const char *key, bool json)
{
	_cleanup_free_ char *pub = NULL;
	struct bl_signkey *k;
	char err[512], id[BL_KEY_ID_LEN + 1];
	int r;

	if (asprintf(&pub, "%s.pub", key) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	r = bl_signkey__generate(key, pub, err, sizeof(err));
	if (r < 0)
		return log_error_errno(r, "Cannot make a key pair: %s", err);
	r = bl_signkey__load(key, &k, err, sizeof(err));
	if (r < 0)
		return log_error_errno(r, "Cannot read the new key: %s", err);
	bl_signkey__id(k, id);
	bl_signkey__free(k);
	if (json) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "command", json_object_new_string("keygen"));
		json_object_object_add(j, "private", sample_json__str(key));
		json_object_object_add(j, "public", sample_json__str(pub));
		json_object_object_add(j, "key_id", json_object_new_string(id));
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		fprintf(stderr, "keygen: key %s: %s (private, keep it secret), %s (public: give it to --trust)\n", id,
			key, pub);
	}
	return 0;
}
