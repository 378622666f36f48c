// SPDX-License-Identifier: MIT
/*
 * cmd_baseline.c - `plumbline baseline ...`: look at, move and prune what
 * the sensor learned. Works on the state directory directly, and refuses
 * one that others could write. list, show and export open it read-only and
 * may run beside a sensor; import and forget change it, so they take its
 * writer lock (statedir.h) and are refused while a sensor holds it, whose
 * next save would write its in-memory copy back over theirs.
 *
 * Bundles carry their role, host, time and host count, and may be signed
 * (Ed25519, baselines/signing.h): keygen makes a key pair, export and merge
 * sign with --sign, and verify, import and merge take --trust: then only a
 * bundle a trusted key signed is read at all.
 *
 * Labels, keys and set members were learned from processes or imported from
 * bundles: whatever they hold, they are printed through text_escape(), so a
 * listing is printable text that no exe name can add a line to.
 */
#include "cli/cmd_baseline.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/baseline_fleet.h"
#include "cli/baseline_merge.h"
#include "cli/baseline_view.h"
#include "config/config.h"
#include "identity/hostinfo.h"
#include "telemetry/audit_trail.h"
#include "bundle.h"
#include "cleanup.h"
#include "clock.h"
#include "log.h"
#include "sample_json.h"
#include "hardening/statedir.h"
#include "store.h"
#include "textsafe.h"

struct bopts {
	const char *state_dir;
	const char *out;
	bool json;
	bool all;
	struct bl_policy pol;
	const char *audit_log; /* import and forget are recorded there (--audit-log) */
	const char *audit_key; /* ... sealed with this key (--audit-key) */
	const char *role;      /* export: the bundle's role; merge, import: the one the inputs must have */
	const char *host;      /* export: the host named (default: this machine's name) */
	const char *sign;      /* export, merge: sign with this private key */
	const char *trust;     /* verify, import, merge: trusted public keys (a .pub file or a directory) */
	uint32_t min_hosts;    /* merge: leave out keys fewer hosts back (0, 1: none left out) */
};

static void usage(FILE *f)
{
	fputs("Usage: plumbline baseline COMMAND [OPTIONS]\n"
	      "\n"
	      "Commands:\n"
	      "  list                     every baseline: binary, context, samples, readiness\n"
	      "  show BINARY              counts, quantiles, readiness and sets of the matching baselines\n"
	      "  export FILE              write every baseline into one bundle file\n"
	      "                           [--role ROLE] [--host NAME] [--sign KEY]\n"
	      "  import FILE              merge a bundle into the state directory (sensor stopped)\n"
	      "                           [--trust KEYS] [--role ROLE]\n"
	      "  merge A B... -o OUT      merge bundles (fleet learning) into OUT\n"
	      "                           [--role ROLE] [--sign KEY] [--trust KEYS] [--min-hosts N]\n"
	      "  verify FILE              a bundle's role, hosts, time and signature [--trust KEYS]\n"
	      "  keygen KEY               a new Ed25519 key pair: KEY (private, 0600) and KEY.pub\n"
	      "  forget BINARY            delete the matching baseline (--all: every match)\n"
	      "\n"
	      "BINARY is a baseline key, a binary id (build-id:HEX, sha256:HEX, or a prefix of\n"
	      "one), an exe path, or an exe file name.\n"
	      "\n"
	      "Options:\n"
	      "  --config FILE            the sensor's config file, for its state-dir, min-samples,\n"
	      "                           min-windows, set-quiet (default " PL_CONFIG_DEFAULT "\n"
	      "                           when it exists)\n"
	      "  --no-config              the built-in defaults\n"
	      "  --state-dir DIR          the sensor's state directory (default: the config's, else\n"
	      "                           /var/lib/plumbline)\n"
	      "  --json                   machine-readable output\n"
	      "  --min-samples N          readiness threshold to report (default: the config's, as run)\n"
	      "  --min-windows N          window readiness threshold (default: the config's, as run)\n"
	      "  -o, --output FILE        merge: where to write\n"
	      "  --role ROLE              export: the bundle's role (1 to 63 of A-Z a-z 0-9 . _ -);\n"
	      "                           merge, import: every input must be of it\n"
	      "  --host NAME              export: the host the bundle names (default: this machine's)\n"
	      "  --sign FILE              export, merge: sign the bundle with this private key\n"
	      "  --min-hosts N            merge: leave out the keys fewer than N hosts back (default 1)\n"
	      "  --trust PATH             verify, import, merge: the trusted public keys (a .pub file,\n"
	      "                           or a directory of them); a bundle must be signed by one\n"
	      "  --all                    forget: every matching baseline\n"
	      "  --audit-log FILE         import, forget: record the change in this audit log\n"
	      "                           (refused, and nothing changed, if it cannot be)\n"
	      "  --audit-key FILE         the audit log's sealing key, when it is keyed\n"
	      "  -h, --help               this help\n",
	      f);
}

static void report_bad(void *ctx, const char *path, const char *problem)
{
	log_warn("%s: %s", path, problem);
}

/* list, show and export only read: they may run beside a sensor that saves */
static int open_store(const struct bopts *o, bool readonly, struct bl_store **ret)
{
	char dir[4096];
	int r = statedir__check(o->state_dir, false);

	if (r < 0)
		return r;
	snprintf(dir, sizeof(dir), "%s/baselines", o->state_dir);
	r = readonly ? bl_store__open_readonly(dir, report_bad, NULL, ret) : bl_store__open(dir, report_bad, NULL, ret);
	if (r < 0)
		return log_error_errno(r, "Cannot open the baseline store '%s': %m", dir);
	return 0;
}

/* import and forget write: the state directory (made if create) must be
 * theirs alone. Returns the lock's fd, or -errno (logged). */
static int lock_store(const struct bopts *o, bool create)
{
	int r = statedir__check(o->state_dir, create);

	return r < 0 ? r : statedir__lock(o->state_dir);
}

/* raw escaped, for a line of text (malloc'd; NULL when out of memory: print OR_Q(it)) */
static char *esc(const char *raw)
{
	return text_escape_str(raw);
}

#define OR_Q(s) ((s) ? (s) : "?")

static bool matches_exactly(const struct baseline *b, const char *what, size_t n)
{
	const char *base = strrchr(b->exe, '/');

	if (strcmp(b->key, what) == 0 || strcmp(b->exe, what) == 0 || (base && strcmp(base + 1, what) == 0))
		return true;
	/* the ID column of a listing: prefixes of the binary's and the parent's ids */
	if (baseline__short_id_matches(b, what))
		return true;
	/* a binary id, or an unambiguous-looking prefix of one */
	if (n >= 8 && strncmp(b->binary_id, what, n) == 0)
		return true;
	if (n >= 8 && strchr(b->binary_id, ':') && strncmp(strchr(b->binary_id, ':') + 1, what, n) == 0)
		return true;
	return false;
}

/* what as typed, or as a listing shows it (escaped: "x\x0Ay" for an exe
 * holding a newline) */
static bool matches(const struct baseline *b, const char *what)
{
	_cleanup_free_ char *raw = text_unescape(what, strlen(what), NULL);

	return matches_exactly(b, what, strlen(what)) ||
	       (raw && strcmp(raw, what) != 0 && matches_exactly(b, raw, strlen(raw)));
}

/* What a changing command did: a line for people on stderr, or with
 * --json one object on stdout. */
static void done_meta(const struct bopts *o, const char *what, const char *file, size_t n,
		      const struct bl_bundle_meta *m, const char *key_id)
{
	if (o->json) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "command", json_object_new_string(what));
		json_object_object_add(j, "file", file ? json_object_new_string(file) : NULL);
		json_object_object_add(j, "baselines", json_object_new_uint64(n));
		if (m) {
			json_object_object_add(j, "role", json_object_new_string(m->role));
			json_object_object_add(j, "hosts", json_object_new_uint64(m->hosts));
			json_object_object_add(j, "key_id", key_id && *key_id ? json_object_new_string(key_id) : NULL);
		}
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		fprintf(stderr, "%s: %zu baselines%s%s", what, n, file ? ", " : "", file ? file : "");
		if (m && m->role[0])
			fprintf(stderr, ", role %s", m->role);
		if (m)
			fprintf(stderr, ", %u host%s", m->hosts, m->hosts == 1 ? "" : "s");
		if (key_id && *key_id)
			fprintf(stderr, ", signed by key %s", key_id);
		fputc('\n', stderr);
	}
}

static void done(const struct bopts *o, const char *what, const char *file, size_t n)
{
	done_meta(o, what, file, n, NULL, NULL);
}

static int cmd_list(struct bopts *o)
{
	struct bl_store *st;
	char where[4200];
	_cleanup_free_ const struct baseline **v = NULL;
	size_t n;
	int r = open_store(o, true, &st);

	if (r < 0)
		return r;
	n = bl_store__count(st);
	v = n ? calloc(n, sizeof(*v)) : NULL;
	if (n && !v) {
		bl_store__free(st);
		return log_error_errno(ENOMEM, "Out of memory");
	}
	for (size_t i = 0; i < n; i++)
		v[i] = bl_store__at(st, i);
	snprintf(where, sizeof(where), "%s/baselines", o->state_dir);
	r = baseline_view__list(v, n, &o->pol, real_ns(), o->json, where);
	bl_store__free(st);
	return r < 0 ? log_error_errno(r, "Cannot list the baselines: %m") : 0;
}

static int cmd_show(struct bopts *o, const char *what)
{
	struct bl_store *st;
	struct json_object *arr = json_object_new_array();
	size_t found = 0;
	int r = open_store(o, true, &st);

	if (r < 0)
		return r;
	for (size_t i = 0; i < bl_store__count(st); i++) {
		const struct baseline *b = bl_store__at(st, i);

		if (!matches(b, what))
			continue;
		found++;
		if (o->json)
			json_object_array_add(arr, baseline_view__show_json(b, &o->pol, real_ns()));
		else
			baseline_view__show_text(b, &o->pol, real_ns());
	}
	if (o->json && found)
		puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	bl_store__free(st);
	if (!found)
		return log_error_errno(ENOENT, "no baseline matches '%s' (see plumbline baseline list)", what);
	return 0;
}

static int cmd_export(struct bopts *o, const char *file)
{
	struct bl_store *st;
	struct baseline **all;
	struct bl_signkey *key = NULL;
	_cleanup_free_ struct bl_bundle_meta *meta = calloc(1, sizeof(*meta));
	char key_id[BL_KEY_ID_LEN + 1] = "";
	const char *host = o->host ? o->host : hostinfo__get()->name;
	size_t n;
	int r = baseline_fleet__check_role(o->role);

	if (r < 0)
		return r;
	if (!meta)
		return log_error_errno(ENOMEM, "Out of memory");
	if (!bl_bundle__valid_host(host))
		return log_error_errno(EINVAL,
				       "'%s' is not a host name a bundle carries (1 to %d of A-Z a-z 0-9 . _ -): "
				       "give one with --host NAME",
				       host, BL_HOST_MAX);
	snprintf(meta->role, sizeof(meta->role), "%s", o->role ? o->role : "");
	snprintf(meta->host, sizeof(meta->host), "%s", host);
	meta->hosts = 1;
	r = baseline_fleet__load_signkey(o->sign, &key);
	if (r < 0)
		return r;
	if (key)
		bl_signkey__id(key, key_id);
	r = open_store(o, true, &st);
	if (r < 0) {
		bl_signkey__free(key);
		return r;
	}
	n = bl_store__count(st);
	all = calloc(n ? n : 1, sizeof(*all));
	for (size_t i = 0; all && i < n; i++)
		all[i] = bl_store__at(st, i);
	meta->created_ns = real_ns();
	r = all ? bl_bundle__write_meta(file, all, n, meta, key) : -ENOMEM;
	free(all);
	bl_store__free(st);
	bl_signkey__free(key);
	if (r == -EFBIG)
		return log_error_errno(r,
				       "Cannot write '%s': the bundle would be larger than the %u MiB that import and "
				       "merge read",
				       file, BL_BUNDLE_MAX >> 20);
	if (r < 0)
		return log_error_errno(r, "Cannot write '%s': %m", file);
	done_meta(o, "export", file, n, meta, key_id);
	return 0;
}

static int cmd_import(struct bopts *o, const char *file)
{
	_cleanup_close_ int lock = lock_store(o, true);
	struct baseline **bs;
	struct bl_store *st = NULL;
	size_t n;
	int r;

	_cleanup_(output_freep) struct pl_output *audit = NULL;
	_cleanup_free_ struct bl_bundle_meta *meta = calloc(1, sizeof(*meta));
	char sha[65], key_id[BL_KEY_ID_LEN + 1] = "";
	struct bl_keyring *trust = NULL;

	if (lock < 0)
		return lock;
	if (!meta)
		return log_error_errno(ENOMEM, "Out of memory");
	if ((r = baseline_fleet__check_role(o->role)) < 0)
		return r;
	if (o->audit_log && (r = audit_trail__cli_open(o->audit_log, o->audit_key, &audit)) < 0)
		return r;
	if ((r = baseline_fleet__load_trust(o->trust, &trust)) < 0)
		return r;
	r = baseline_fleet__read(file, trust, o->role, meta, key_id, &bs, &n);
	bl_keyring__free(trust);
	if (r < 0)
		return r;
	/* the bundle was validated as a regular file: hashing it cannot block */
	if (audit && (r = audit_trail__file_sha256(file, sha)) < 0) {
		for (size_t i = 0; i < n; i++)
			baseline__free(bs[i]);
		free(bs);
		return log_error_errno(r, "Cannot read '%s': %m", file);
	}
	r = open_store(o, false, &st);
	for (size_t i = 0; i < n; i++) {
		if (r < 0)
			baseline__free(bs[i]);
		else if ((r = bl_store__absorb(st, bs[i])) < 0)
			log_error_errno(r,
					"Cannot import baseline #%zu (%m): it and the %zu after it were not imported",
					i, n - i - 1);
	}
	free(bs);
	if (r < 0) {
		bl_store__free(st);
		return r;
	}
	r = bl_store__save(st);
	bl_store__free(st);
	if (r < 0)
		return log_error_errno(r, "Cannot save the imported baselines: %m");
	if (audit) {
		struct json_object *rec = json_object_new_object();

		json_object_object_add(rec, "type", json_object_new_string("baseline_import"));
		json_object_object_add(rec, "file", sample_json__str(file));
		json_object_object_add(rec, "sha256", json_object_new_string(sha));
		json_object_object_add(rec, "baselines", json_object_new_uint64(n));
		json_object_object_add(rec, "role", json_object_new_string(meta->role));
		json_object_object_add(rec, "hosts", json_object_new_uint64(meta->hosts));
		json_object_object_add(rec, "key_id", key_id[0] ? json_object_new_string(key_id) : NULL);
		json_object_object_add(rec, "signature", json_object_new_string(o->trust ? "good" : "not checked"));
		json_object_object_add(rec, "state_dir", sample_json__str(o->state_dir));
		r = audit_trail__cli_append(audit, o->audit_log, "baseline_import", rec);
		json_object_put(rec);
		if (r < 0)
			return r;
	}
	done_meta(o, "import", file, n, meta, key_id);
	return 0;
}

static int cmd_merge(struct bopts *o, char **files, int nfiles)
{
	struct baseline **acc = NULL;
	struct bl_keyring *trust = NULL;
	struct bl_signkey *key = NULL;
	_cleanup_free_ struct bl_bundle_meta *out = calloc(1, sizeof(*out));
	char key_id[BL_KEY_ID_LEN + 1] = "";
	size_t nacc = 0, kept = 0, dropped = 0;
	int r = 0;

	if (!o->out)
		return log_error_errno(EINVAL, "merge needs -o OUT");
	if (!out)
		return log_error_errno(ENOMEM, "Out of memory");
	if ((r = baseline_fleet__check_role(o->role)) < 0 || (r = baseline_fleet__load_trust(o->trust, &trust)) < 0)
		return r;
	if ((r = baseline_fleet__load_signkey(o->sign, &key)) < 0) {
		bl_keyring__free(trust);
		return r;
	}
	/* one input at a time per worker into a sorted accumulator: memory is
	 * the merge plus one input per worker, whatever the number of inputs */
	r = baseline_merge__run(files, nfiles, trust, o->role, 0, out, &acc, &nacc);
	/* a key only a few hosts have (a local build, one host's tool) is no role's normal */
	for (size_t i = 0; !r && o->min_hosts > 1 && i < nacc; i++) {
		if (acc[i]->hosts >= o->min_hosts) {
			acc[kept++] = acc[i];
			continue;
		}
		baseline__free(acc[i]);
		dropped++;
	}
	if (!r && o->min_hosts > 1)
		nacc = kept;
	if (dropped && !o->json)
		fprintf(stderr, "merge: %zu baselines backed by fewer than %u hosts left out\n", dropped, o->min_hosts);
	if (!r) {
		out->created_ns = real_ns();
		if (key)
			bl_signkey__id(key, key_id);
		r = bl_bundle__write_meta(o->out, acc, nacc, out, key);
		if (r == -EFBIG)
			log_error_errno(r,
					"Cannot write '%s': the bundle would be larger than the %u MiB that import and "
					"merge read",
					o->out, BL_BUNDLE_MAX >> 20);
		else if (r < 0)
			log_error_errno(r, "Cannot write '%s': %m", o->out);
		else
			done_meta(o, "merge", o->out, nacc, out, key_id);
	}
	for (size_t i = 0; i < nacc; i++)
		baseline__free(acc[i]);
	free(acc);
	bl_keyring__free(trust);
	bl_signkey__free(key);
	return r;
}

/* The baselines what matches, a line each on stderr: key, exe, parent, samples. */
static void list_matches(struct bl_store *st, const char *what)
{
	for (size_t i = 0; i < bl_store__count(st); i++) {
		const struct baseline *b = bl_store__at(st, i);
		_cleanup_free_ char *k = NULL, *e = NULL, *pe = NULL;

		if (!matches(b, what))
			continue;
		k = esc(b->key);
		e = baseline_view__label(b);
		pe = esc(b->parent_exe[0] ? b->parent_exe : "-");
		fprintf(stderr, "  %s  %s (parent %s), %llu samples\n", OR_Q(k), OR_Q(e), OR_Q(pe),
			(unsigned long long)b->samples);
	}
}

static int cmd_forget(struct bopts *o, const char *what)
{
	_cleanup_close_ int lock = lock_store(o, false);
	struct bl_store *st;
	char **keys = NULL;
	size_t n = 0;
	int r;

	_cleanup_(output_freep) struct pl_output *audit = NULL;
	struct json_object *forgot = json_object_new_array();

	if (lock < 0)
		return lock;
	if (o->audit_log && (r = audit_trail__cli_open(o->audit_log, o->audit_key, &audit)) < 0)
		return r;
	r = open_store(o, false, &st);
	if (r < 0) {
		json_object_put(forgot);
		return r;
	}
	for (size_t i = 0; i < bl_store__count(st); i++)
		if (matches(bl_store__at(st, i), what)) {
			char **nk = realloc(keys, (n + 1) * sizeof(*nk));

			if (!nk)
				break;
			keys = nk;
			keys[n++] = strdup(bl_store__at(st, i)->key);
		}
	if (n == 0)
		r = log_error_errno(ENOENT, "no baseline matches '%s'", what);
	else if (n > 1 && !o->all) {
		_cleanup_free_ char *w = esc(what);

		r = log_error_errno(EINVAL, "'%s' matches %zu baselines; name one key, or add --all:", OR_Q(w), n);
		list_matches(st, what);
	}
	for (size_t i = 0; i < n; i++) {
		if (!r && keys[i]) {
			int f = bl_store__forget(st, keys[i]);

			_cleanup_free_ char *k = esc(keys[i]);

			if (f < 0)
				r = log_error_errno(f, "Cannot forget %s: %m", OR_Q(k));
			else
				json_object_array_add(forgot, sample_json__str(keys[i]));
			if (!f && !o->json)
				fprintf(stderr, "forgot %s\n", OR_Q(k));
		}
		free(keys[i]);
	}
	free(keys);
	/* what was forgotten, even when a later key failed */
	if (audit && json_object_array_length(forgot) > 0) {
		struct json_object *rec = json_object_new_object();
		int a;

		json_object_object_add(rec, "type", json_object_new_string("baseline_forget"));
		json_object_object_add(rec, "what", sample_json__str(what));
		json_object_object_add(rec, "keys", json_object_get(forgot));
		json_object_object_add(rec, "state_dir", sample_json__str(o->state_dir));
		a = audit_trail__cli_append(audit, o->audit_log, "baseline_forget", rec);
		json_object_put(rec);
		if (a < 0 && !r)
			r = a;
	}
	json_object_put(forgot);
	if (!r)
		done(o, "forget", NULL, n);
	bl_store__free(st);
	return r;
}

int cmd_baseline(int argc, char **argv)
{
	static const struct option longopts[] = {{"state-dir", required_argument, NULL, 's'},
						 {"json", no_argument, NULL, 'j'},
						 {"output", required_argument, NULL, 'o'},
						 {"all", no_argument, NULL, 'a'},
						 {"min-samples", required_argument, NULL, 'm'},
						 {"min-windows", required_argument, NULL, 'w'},
						 {"audit-log", required_argument, NULL, 'A'},
						 {"audit-key", required_argument, NULL, 'K'},
						 {"config", required_argument, NULL, 'c'},
						 {"no-config", no_argument, NULL, 'n'},
						 {"role", required_argument, NULL, 'R'},
						 {"host", required_argument, NULL, 'H'},
						 {"sign", required_argument, NULL, 'S'},
						 {"trust", required_argument, NULL, 'T'},
						 {"min-hosts", required_argument, NULL, 'M'},
						 {"help", no_argument, NULL, 'h'},
						 {}};
	struct bopts o = {.state_dir = NULL};
	const char *cmd, *config = NULL;
	uint32_t min_samples = 0, min_windows = 0;
	bool no_config = false;
	char *end;
	int c, r;
	_cleanup_(config_view_freep) struct gen *g = NULL;
	const struct run_opts *ro = NULL;

	bl_policy__defaults(&o.pol);
	optind = 0; /* GNU getopt permutes: options may come after the command word */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.state_dir = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'a':
			o.all = true;
			break;
		case 'A':
			o.audit_log = optarg;
			break;
		case 'R':
			o.role = optarg;
			break;
		case 'H':
			o.host = optarg;
			break;
		case 'S':
			o.sign = optarg;
			break;
		case 'T':
			o.trust = optarg;
			break;
		case 'M': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || *optarg == '-' || v == 0 || v > UINT32_MAX)
				return log_error_errno(EINVAL, "invalid value '%s' for --min-hosts (1 to %u)", optarg,
						       UINT32_MAX);
			o.min_hosts = (uint32_t)v;
			break;
		}
		case 'K':
			o.audit_key = optarg;
			break;
		case 'm':
		case 'w': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || v == 0 || v > 1000000)
				return log_error_errno(EINVAL, "invalid value '%s' for --min-%s", optarg,
						       c == 'm' ? "samples" : "windows");
			if (c == 'm')
				min_samples = (uint32_t)v;
			else
				min_windows = (uint32_t)v;
			break;
		}
		case 'c':
			config = optarg;
			break;
		case 'n':
			no_config = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return log_error_errno(EINVAL,
					       "unknown or incomplete option '%s' (see plumbline baseline --help)",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return -EINVAL;
	}
	/* the state directory and the readiness thresholds the sensor runs
	 * with: its config file's, under what the command line says */
	cmd = argv[optind];
	argv += optind + 1;
	argc -= optind + 1;
	r = config__view(config, no_config, &g, &ro); /* parses with getopt too: optind is spent */
	if (r)
		return r < 0 ? r : -EINVAL;
	o.pol = ro->policy;
	if (!o.state_dir)
		o.state_dir = ro->state_dir;
	if (min_samples)
		o.pol.min_samples = min_samples;
	if (min_windows)
		o.pol.min_windows = min_windows;
	if (strcmp(cmd, "list") == 0 && argc == 0)
		return cmd_list(&o);
	if (strcmp(cmd, "show") == 0 && argc == 1)
		return cmd_show(&o, argv[0]);
	if (strcmp(cmd, "export") == 0 && argc == 1)
		return cmd_export(&o, argv[0]);
	if (strcmp(cmd, "import") == 0 && argc == 1)
		return cmd_import(&o, argv[0]);
	if (strcmp(cmd, "merge") == 0 && argc >= 1)
		return cmd_merge(&o, argv, argc);
	if (strcmp(cmd, "verify") == 0 && argc == 1)
		return baseline_fleet__verify(argv[0], o.trust, o.json);
	if (strcmp(cmd, "keygen") == 0 && argc == 1)
		return baseline_fleet__keygen(argv[0], o.json);
	if (strcmp(cmd, "forget") == 0 && argc == 1)
		return cmd_forget(&o, argv[0]);
	return log_error_errno(EINVAL, "bad use of 'baseline %s' (see plumbline baseline --help)", cmd);
}
