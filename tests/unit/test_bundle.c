// SPDX-License-Identifier: MIT
/*
 * test_bundle.c - signed bundles (baselines/bundle.c, baselines/signing.c):
 * keys made, loaded and refused; a signature good, bad after one flipped
 * byte anywhere, by an unknown key, misplaced or malformed; a truncated
 * file at every length; the header (role, host, created, hosts) through a
 * file; hosts adding up in a merge; a bundle from before fleets still read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "bundle.h"
#include "signing.h"
#include "unit_helpers.h"

#define NOW0 1700000000000000000ull
#define SEC  1000000000ull

struct ctx {
	char dir[64];
	char key[PATH_MAX], pub[PATH_MAX];	   /* a key pair */
	char other[PATH_MAX], other_pub[PATH_MAX]; /* another */
	struct bl_signkey *k;
	struct bl_keyring *trust; /* the first key's public key */
};

static void path_in(const struct ctx *c, const char *name, char *buf, size_t size)
{
	assert_true(snprintf(buf, size, "%s/%s", c->dir, name) < (int)size);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char err[256] = "";

	assert_non_null(c);
	snprintf(c->dir, sizeof(c->dir), "/tmp/pl-unit-bundle-XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	path_in(c, "fleet.key", c->key, sizeof(c->key));
	path_in(c, "fleet.key.pub", c->pub, sizeof(c->pub));
	path_in(c, "other.key", c->other, sizeof(c->other));
	path_in(c, "other.key.pub", c->other_pub, sizeof(c->other_pub));
	if (bl_signkey__generate(c->key, c->pub, err, sizeof(err)) != 0 ||
	    bl_signkey__generate(c->other, c->other_pub, err, sizeof(err)) != 0 ||
	    bl_signkey__load(c->key, &c->k, err, sizeof(err)) != 0 ||
	    bl_keyring__load(c->pub, &c->trust, err, sizeof(err)) != 0)
		fail_msg("keys: %s", err);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	bl_signkey__free(c->k);
	bl_keyring__free(c->trust);
	ut_rm_rf(c->dir);
	free(c);
	return 0;
}

static const char *const sys_names[] = {"openat", "read", "mmap"};

/* A baseline that learned n samples (and a window each). */
static struct baseline *member(const char *id, unsigned n, uint64_t cpu)
{
	struct baseline *b = baseline__new(id, "build-id:p", "/usr/sbin/sshd", "/sbin/init", NOW0);
	struct bl_policy p;

	assert_non_null(b);
	bl_policy__defaults(&p);
	p.mode = BL_MODE_LEARN;
	for (unsigned i = 0; i < n; i++) {
		const char *path = i % 2 ? "/etc/a" : "/etc/b";
		struct bl_process_sample s = {.cpu_ns = cpu + i * 1000,
					      .wall_ns = 3 * cpu,
					      .offcpu_ns = 2 * cpu,
					      .syscalls = 100 + i,
					      .open_fail = i % 3,
					      .fail_paths = &path,
					      .nfail_paths = 1,
					      .syscall_names = sys_names,
					      .nsyscall_names = 3};
		struct bl_window_sample w = {.duration_ns = SEC, .cpu_ns = cpu / 10, .syscalls = 50 + i};
		struct bl_verdict v;

		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + i, &v), 0);
		assert_int_equal(baseline__observe_window(b, NULL, &w, &p, NOW0 + i, &v), 0);
	}
	return b;
}

static void free_all(struct baseline **bs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		baseline__free(bs[i]);
	free(bs);
}

static struct bl_bundle_meta export_meta(const char *role, const char *host, uint64_t created_ns)
{
	struct bl_bundle_meta m = {.created_ns = created_ns, .hosts = 1};

	snprintf(m.role, sizeof(m.role), "%s", role);
	snprintf(m.host, sizeof(m.host), "%s", host);
	return m;
}

/* A signed export of three baselines at name (path into buf). */
static void write_signed(const struct ctx *c, const char *name, char *path, size_t size)
{
	struct baseline *bs[3] = {member("build-id:aa01", 3, 1000000), member("build-id:bb02", 5, 2000000),
				  member("sha256:cc03", 2, 3000000)};
	struct bl_bundle_meta m = export_meta("ssh", "web-1.example", NOW0 + 123456789);

	path_in(c, name, path, size);
	assert_int_equal(bl_bundle__write_meta(path, bs, 3, &m, c->k), 0);
	for (int i = 0; i < 3; i++)
		baseline__free(bs[i]);
}

static void write_text(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* A file in memory for the loops that write thousands of variants: a regular file, as a bundle must be. */
struct memfile {
	int fd;
	char path[64];
};

static void memfile_open(struct memfile *m)
{
	m->fd = memfd_create("bundle", MFD_CLOEXEC);
	assert_true(m->fd >= 0);
	snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
}

static void memfile_set(struct memfile *m, const char *text, size_t len)
{
	assert_int_equal(ftruncate(m->fd, 0), 0);
	assert_int_equal(pwrite(m->fd, text, len, 0), (ssize_t)len);
}

/* read_meta with trust; r, and the verdict and baselines when r is 0. */
static int read_back(const char *path, const struct bl_keyring *trust, struct bl_bundle_meta *m, enum bl_sig *sig,
		     char *key_id, struct baseline ***bs, size_t *n, char *err, size_t errlen)
{
	*sig = (enum bl_sig) - 1;
	return bl_bundle__read_meta(path, trust, m, sig, key_id, bs, n, err, errlen);
}

/* ---- keys ---- */

static void test_keygen_writes_pem_pair_and_never_overwrites(void **state)
{
	struct ctx *c = *state;
	char priv[PATH_MAX], pub[PATH_MAX], err[256] = "", id[17], id2[17];
	struct bl_signkey *k;
	struct stat st;
	size_t len = 0;
	char *before, *after;

	path_in(c, "new.key", priv, sizeof(priv));
	path_in(c, "new.key.pub", pub, sizeof(pub));
	umask(0);
	assert_int_equal(bl_signkey__generate(priv, pub, err, sizeof(err)), 0);
	umask(022);
	assert_int_equal(stat(priv, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(pub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	before = ut_read_file(priv, &len);
	assert_non_null(before);
	assert_non_null(strstr(before, "-----BEGIN PRIVATE KEY-----"));
	/* a second keygen over either file is refused, and changes nothing */
	assert_int_equal(bl_signkey__generate(priv, pub, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "exists already"));
	unlink(pub);
	assert_int_equal(bl_signkey__generate(priv, pub, err, sizeof(err)), -EEXIST);
	assert_int_equal(access(pub, F_OK), -1);
	after = ut_read_file(priv, &len);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* ids are the same for the same key, different for another */
	assert_int_equal(bl_signkey__load(priv, &k, err, sizeof(err)), 0);
	bl_signkey__id(k, id);
	bl_signkey__free(k);
	assert_int_equal(strlen(id), 16);
	assert_int_equal(strspn(id, "0123456789abcdef"), 16);
	bl_signkey__id(c->k, id2);
	assert_string_not_equal(id, id2);
}

static void test_keys_refused_by_mode_and_kind(void **state)
{
	struct ctx *c = *state;
	struct bl_signkey *k = NULL;
	struct bl_keyring *r = NULL;
	char err[256] = "", copy[PATH_MAX];
	char *text;
	size_t len = 0;

	/* a private key others can read */
	assert_int_equal(chmod(c->key, 0640), 0);
	assert_int_equal(bl_signkey__load(c->key, &k, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "readable by group or others (mode 0640); fix: chmod 0600"));
	assert_int_equal(chmod(c->key, 0600), 0);
	/* a public key others can write */
	assert_int_equal(chmod(c->pub, 0666), 0);
	assert_int_equal(bl_keyring__load(c->pub, &r, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by group or others"));
	assert_int_equal(chmod(c->pub, 0644), 0);
	/* a public key is not a private key, and the other way round */
	text = ut_read_file(c->pub, &len);
	path_in(c, "pub-as-priv", copy, sizeof(copy));
	write_text(copy, text, len);
	free(text);
	assert_int_equal(bl_signkey__load(copy, &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an Ed25519 private key"));
	assert_int_equal(bl_keyring__load(c->key, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an Ed25519 public key"));
	/* a FIFO is not waited on */
	path_in(c, "fifo.pub", copy, sizeof(copy));
	assert_int_equal(mkfifo(copy, 0600), 0);
	assert_int_equal(bl_keyring__load(copy, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	assert_null(k);
	assert_null(r);
}

static void test_keyring_directory_takes_pub_files(void **state)
{
	struct ctx *c = *state;
	struct bl_keyring *r = NULL;
	char dir[PATH_MAX], to[PATH_MAX + 32], err[256] = "";
	char *text;
	size_t len = 0;

	path_in(c, "trusted", dir, sizeof(dir));
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(bl_keyring__load(dir, &r, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "holds no *.pub key"));
	text = ut_read_file(c->pub, &len);
	snprintf(to, sizeof(to), "%s/fleet.pub", dir);
	write_text(to, text, len);
	snprintf(to, sizeof(to), "%s/again.pub", dir); /* the same key under another name */
	write_text(to, text, len);
	snprintf(to, sizeof(to), "%s/README", dir); /* not a key: ignored */
	write_text(to, "hello", 5);
	free(text);
	text = ut_read_file(c->other_pub, &len);
	snprintf(to, sizeof(to), "%s/other.pub", dir);
	write_text(to, text, len);
	free(text);
	assert_int_equal(bl_keyring__load(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(bl_keyring__count(r), 2);
	bl_keyring__free(r);
	r = NULL;
	/* a directory others may write to is no keyring */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(bl_keyring__load(dir, &r, err, sizeof(err)), -EPERM);
	assert_null(r);
}

/* ---- signatures ---- */

static void test_signed_bundle_verifies_good_and_round_trips(void **state)
{
	struct ctx *c = *state;
	struct bl_bundle_meta m;
	struct baseline **bs;
	char path[PATH_MAX], err[256] = "", id[17], want[17];
	enum bl_sig sig;
	size_t n;
	char *text;

	write_signed(c, "signed.json", path, sizeof(path));
	assert_int_equal(read_back(path, c->trust, &m, &sig, id, &bs, &n, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_GOOD);
	bl_signkey__id(c->k, want);
	assert_string_equal(id, want);
	assert_string_equal(m.role, "ssh");
	assert_string_equal(m.host, "web-1.example");
	assert_string_equal(m.host_list, "");
	assert_int_equal(m.created_ns, NOW0 + 123456789);
	assert_int_equal(m.hosts, 1);
	assert_int_equal(m.nbaselines, 3);
	assert_int_equal(n, 3);
	assert_string_equal(bs[1]->key, "build-id:bb02@build-id:p");
	assert_int_equal(bs[1]->samples, 5);
	assert_int_equal(bs[1]->hosts, 1);
	free_all(bs, n);
	/* the file says so in words, and the signature is the last member */
	text = ut_read_file(path, &n);
	assert_non_null(strstr(text,
			       "\"role\":\"ssh\",\"host\":\"web-1.example\","
			       "\"created\":\"2023-11-14T22:13:20.123456789Z\",\"created_ns\":1700000000123456789,"
			       "\"hosts\":1,\"baselines\":[{"));
	assert_non_null(strstr(text, "],"
				     "\"signature\":{\"alg\":\"ed25519\",\"key_id\":\""));
	assert_int_equal(text[n - 1], '}');
	assert_int_equal(text[n - 2], '}');
	free(text);
	/* without baselines: the header and the verdict alone */
	memset(&m, 0, sizeof(m));
	assert_int_equal(read_back(path, c->trust, &m, &sig, NULL, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_GOOD);
	assert_int_equal(m.nbaselines, 3);
	assert_string_equal(m.role, "ssh");
}

/* Every byte before the signature's comma is signed; the signature itself must be exact. */
static void test_one_flipped_byte_anywhere_is_bad(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX], err[256];
	struct memfile flipped;
	size_t len = 0, bad = 0, refused = 0, unknown = 0, unsigned_ = 0, sig_at;
	char *text;

	write_signed(c, "signed.json", path, sizeof(path));
	memfile_open(&flipped);
	text = ut_read_file(path, &len);
	assert_non_null(text);
	sig_at = (size_t)(strstr(text, ",\"signature\":") - text);
	for (size_t i = 0; i < len; i++) {
		struct bl_bundle_meta m;
		struct baseline **bs = (struct baseline **)&bs;
		enum bl_sig sig;
		size_t n = 99;
		int r;

		text[i] ^= 0x01;
		memfile_set(&flipped, text, len);
		text[i] ^= 0x01;
		r = read_back(flipped.path, c->trust, &m, &sig, NULL, &bs, &n, err, sizeof(err));
		if (r < 0) {
			refused++; /* no longer a well-formed bundle */
			continue;
		}
		/* "signature" misspelt is an unknown member: the bundle reads as unsigned, which a keyring refuses too
		 */
		if (sig == BL_SIG_NONE && i >= sig_at + 2 && i < sig_at + 11) {
			assert_null(bs);
			unsigned_++;
			continue;
		}
		if (sig != BL_SIG_BAD && sig != BL_SIG_UNKNOWN_KEY)
			fail_msg("byte %zu flipped: %s", i, bl_sig__text(sig));
		/* nothing of it was parsed */
		assert_null(bs);
		assert_int_equal(n, 0);
		bad += sig == BL_SIG_BAD;
		unknown += sig == BL_SIG_UNKNOWN_KEY;
	}
	/* most flips leave valid JSON that the signature catches (a name, a count, a quantile) */
	assert_true(bad > len / 2);
	assert_int_equal(bad + refused + unknown + unsigned_, len);
	assert_true(unknown <= BL_KEY_ID_LEN); /* only a flip in key_id names another key */
	close(flipped.fd);
	free(text);
}

static void test_unknown_key_and_no_keyring(void **state)
{
	struct ctx *c = *state;
	struct bl_keyring *other;
	struct bl_bundle_meta m;
	struct baseline **bs;
	char path[PATH_MAX], err[256] = "", id[17], want[17];
	enum bl_sig sig;
	size_t n;

	write_signed(c, "signed.json", path, sizeof(path));
	assert_int_equal(bl_keyring__load(c->other_pub, &other, err, sizeof(err)), 0);
	assert_int_equal(read_back(path, other, &m, &sig, id, &bs, &n, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_UNKNOWN_KEY);
	bl_signkey__id(c->k, want);
	assert_string_equal(id, want);
	assert_null(bs);
	assert_int_equal(n, 0);
	assert_int_equal(m.nbaselines, 3);
	bl_keyring__free(other);
	/* no keyring: nothing checked, the baselines given */
	assert_int_equal(read_back(path, NULL, &m, &sig, id, &bs, &n, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_UNKNOWN_KEY);
	assert_int_equal(n, 3);
	free_all(bs, n);
	assert_string_equal(bl_sig__text(BL_SIG_NONE), "unsigned");
	assert_string_equal(bl_sig__text(BL_SIG_GOOD), "good");
	assert_string_equal(bl_sig__text(BL_SIG_BAD), "bad signature");
	assert_string_equal(bl_sig__text(BL_SIG_UNKNOWN_KEY), "signed by an unknown key");
}

/* text with the bytes [at, at + len) replaced by with */
static char *text_splice(const char *text, size_t at, size_t len, const char *with)
{
	size_t tl = strlen(text), wl = strlen(with);
	char *out = malloc(tl - len + wl + 1);

	assert_non_null(out);
	memcpy(out, text, at);
	memcpy(out + at, with, wl);
	memcpy(out + at + wl, text + at + len, tl - at - len + 1);
	return out;
}

static void expect_refused(const char *path, const char *text, const char *why)
{
	struct baseline **bs = NULL;
	struct bl_bundle_meta m;
	enum bl_sig sig = BL_SIG_NONE;
	char err[256] = "";
	size_t n = 0;

	write_text(path, text, strlen(text));
	assert_int_equal(bl_bundle__read_meta(path, NULL, &m, &sig, NULL, &bs, &n, err, sizeof(err)), -EINVAL);
	if (!strstr(err, why))
		fail_msg("expected \"%s\", got \"%s\"", why, err);
	assert_null(bs);
}

static void test_signature_misplaced_or_malformed_is_refused(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX], bad[PATH_MAX], *sigm, *t, *u;
	size_t len = 0, at, sl;
	char *text;

	write_signed(c, "signed.json", path, sizeof(path));
	path_in(c, "bad.json", bad, sizeof(bad));
	text = ut_read_file(path, &len);
	sigm = strstr(text, ",\"signature\":");
	assert_non_null(sigm);
	at = (size_t)(sigm - text);
	sl = len - 1 - at; /* ,"signature":{...} without the final brace */
	/* not last: moved before "baselines" */
	{
		char member[256];
		char *b = strstr(text, ",\"baselines\":");

		assert_true(sl < sizeof(member));
		memcpy(member, sigm, sl);
		member[sl] = '\0';
		t = text_splice(text, at, sl, "");
		u = text_splice(t, (size_t)(b - text), 0, member);
		expect_refused(bad, u, "\"signature\" is not the last member");
		free(t);
		free(u);
		/* twice */
		t = text_splice(text, at, 0, member);
		expect_refused(bad, t, "\"signature\" is not the last member");
		free(t);
	}
	/* the only member */
	expect_refused(bad, "{\"signature\":{}}", "\"signature\" is the only member");
	/* malformed */
	t = text_splice(text, at, sl, ",\"signature\":\"x\"");
	expect_refused(bad, t, "\"signature\" is not an object of");
	free(t);
	t = text_splice(text, at, sl, ",\"signature\":{\"alg\":\"ed25519\",\"key_id\":\"0011223344556677\"}");
	expect_refused(bad, t, "\"signature\" is not an object of");
	free(t);
	u = strdup(sigm);
	memcpy(strstr(u, "ed25519"), "ed25518", 7);
	u[sl] = '\0';
	t = text_splice(text, at, sl, u);
	expect_refused(bad, t, "\"alg\" is not \"ed25519\"");
	free(t);
	free(u);
	u = strdup(sigm);
	strstr(u, "\"key_id\":\"")[10] = 'G';
	u[sl] = '\0';
	t = text_splice(text, at, sl, u);
	expect_refused(bad, t, "\"key_id\" is not 16 lowercase hex digits");
	free(t);
	free(u);
	/* the value: 63 bytes, or a non-canonical spelling of 64 */
	u = strdup(sigm);
	memcpy(strstr(u, "==\"}"), "A=", 2);
	u[sl] = '\0';
	t = text_splice(text, at, sl, u);
	expect_refused(bad, t, "\"value\" is not the base64 of 64 bytes");
	free(t);
	free(u);
	u = strdup(sigm);
	{
		char *eq = strstr(u, "==\"}");

		/* the last character before the padding carries 4 unused bits */
		eq[-1] = eq[-1] == 'A' ? 'B' : 'A';
	}
	u[sl] = '\0';
	t = text_splice(text, at, sl, u);
	{
		/* the one byte that changed may only change unused bits: refused as not canonical, or bad */
		struct bl_bundle_meta m;
		enum bl_sig sig = BL_SIG_NONE;
		char err[256] = "";
		int r;

		write_text(bad, t, strlen(t));
		r = bl_bundle__read_meta(bad, c->trust, &m, &sig, NULL, NULL, NULL, err, sizeof(err));
		assert_true(r == -EINVAL || sig == BL_SIG_BAD);
	}
	free(t);
	free(u);
	free(text);
}

static void test_truncated_file_is_refused_at_every_length(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX], err[256];
	struct memfile cut;
	size_t len = 0;
	char *text;

	write_signed(c, "signed.json", path, sizeof(path));
	memfile_open(&cut);
	text = ut_read_file(path, &len);
	for (size_t l = 0; l < len; l++) {
		struct bl_bundle_meta m = {.hosts = 7};
		enum bl_sig sig = BL_SIG_GOOD;
		int r;

		memfile_set(&cut, text, l);
		r = bl_bundle__read_meta(cut.path, c->trust, &m, &sig, NULL, NULL, NULL, err, sizeof(err));
		if (r != -EINVAL)
			fail_msg("cut at %zu of %zu: %d", l, len, r);
		assert_int_equal(m.hosts, 7); /* untouched */
	}
	close(cut.fd);
	free(text);
}

/* ---- the header ---- */

static void test_merge_header_lists_hosts_bounded(void **state)
{
	struct ctx *c = *state;
	struct bl_bundle_meta merged = {.created_ns = NOW0, .hosts = 0}, back;
	char path[PATH_MAX], err[256] = "", name[32];
	enum bl_sig sig;
	char *text;
	size_t n;

	snprintf(merged.role, sizeof(merged.role), "build");
	for (int i = 0; i < 40; i++) {
		struct bl_bundle_meta one = export_meta("build", "", NOW0);

		snprintf(one.host, sizeof(one.host), "builder-%02d", i % 36); /* four of them twice */
		bl_bundle_meta__add_hosts(&merged, &one);
		merged.hosts += one.hosts;
	}
	assert_int_equal(merged.hosts, 40);
	path_in(c, "merged.json", path, sizeof(path));
	assert_int_equal(bl_bundle__write_meta(path, NULL, 0, &merged, c->k), 0);
	assert_int_equal(bl_bundle__read_meta(path, c->trust, &back, &sig, NULL, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_GOOD);
	assert_int_equal(back.hosts, 40);
	assert_string_equal(back.host, "");
	assert_string_equal(back.host_list, merged.host_list);
	assert_true(strncmp(back.host_list, "builder-00,builder-01,", 22) == 0);
	n = 0;
	for (const char *p = back.host_list; *p; p++)
		n += *p == ',';
	assert_int_equal(n, BL_BUNDLE_HOSTS_LISTED);
	snprintf(name, sizeof(name), "builder-%02d,", BL_BUNDLE_HOSTS_LISTED - 1);
	assert_non_null(strstr(back.host_list, name));
	text = ut_read_file(path, &n);
	assert_non_null(strstr(text, "\"role\":\"build\",\"host\":[\"builder-00\",\"builder-01\","));
	free(text);
	/* a merge of merges takes their lists */
	{
		struct bl_bundle_meta again = {.hosts = 1};

		bl_bundle_meta__add_hosts(&again, &back);
		assert_string_equal(again.host_list, back.host_list);
	}
}

static void test_bad_header_members_are_refused(void **state)
{
	struct ctx *c = *state;
	struct bl_bundle_meta m = export_meta("ssh", "web1", NOW0);
	char path[PATH_MAX], err[256];

	path_in(c, "h.json", path, sizeof(path));
	/* the writer refuses what no reader would take */
	snprintf(m.role, sizeof(m.role), "ssh servers");
	assert_int_equal(bl_bundle__write_meta(path, NULL, 0, &m, NULL), -EINVAL);
	m = export_meta("ssh", "web1/x", NOW0);
	assert_int_equal(bl_bundle__write_meta(path, NULL, 0, &m, NULL), -EINVAL);
	m = export_meta("ssh", "web1", NOW0);
	m.hosts = 0;
	assert_int_equal(bl_bundle__write_meta(path, NULL, 0, &m, NULL), -EINVAL);
	assert_false(bl_bundle__valid_role(""));
	assert_true(bl_bundle__valid_role("a.b_c-9"));
	memset(err, 'r', 64);
	err[64] = '\0';
	assert_false(bl_bundle__valid_role(err)); /* 64 bytes */
	err[63] = '\0';
	assert_true(bl_bundle__valid_role(err));
	/* the reader too */
#define HEAD "{\"format\":\"plumbline-baselines\",\"version\":1,"
	expect_refused(path, HEAD "\"role\":\"a b\",\"baselines\":[]}", "\"role\" is not a role name");
	expect_refused(path, HEAD "\"role\":7,\"baselines\":[]}", "\"role\" is not a role name");
	expect_refused(path, HEAD "\"host\":\"a\\u0000b\",\"baselines\":[]}", "\"host\" is not a host name");
	expect_refused(path, HEAD "\"hosts\":0,\"baselines\":[]}", "\"hosts\" is 0");
	expect_refused(path, HEAD "\"hosts\":4294967296,\"baselines\":[]}", "\"hosts\" is not a number");
	expect_refused(path, HEAD "\"hosts\":-1,\"baselines\":[]}", "\"hosts\" is not a number");
	expect_refused(path, HEAD "\"hosts\":1,\"host\":[\"a\",\"b\"],\"baselines\":[]}", "lists 2 hosts");
	expect_refused(path, HEAD "\"hosts\":3,\"host\":[\"a\",\"a\"],\"baselines\":[]}", "lists a twice");
	expect_refused(path, HEAD "\"created_ns\":1,\"baselines\":[]}", "come together");
	expect_refused(path, HEAD "\"created\":\"2023-11-14T22:13:20.000000000Z\",\"created_ns\":1,\"baselines\":[]}",
		       "\"created\" is not created_ns in RFC 3339 (1970-01-01T00:00:00.000000001Z)");
	expect_refused(path, HEAD "\"role\":\"a\",\"role\":\"b\",\"baselines\":[]}", "duplicate key");
#undef HEAD
}

/* ---- hosts per baseline, and old bundles ---- */

static void test_hosts_add_up_in_a_merge(void **state)
{
	struct ctx *c = *state;
	struct baseline *a = member("build-id:aa01", 3, 1000000), *b = member("build-id:aa01", 4, 1000000);
	struct baseline **bs;
	struct bl_bundle_meta m = export_meta("ssh", "merged", NOW0);
	char path[PATH_MAX], err[256] = "";
	enum bl_sig sig;
	size_t n;

	assert_int_equal(a->hosts, 1);
	assert_int_equal(baseline__merge(a, b), 0);
	assert_int_equal(a->hosts, 2);
	assert_int_equal(a->samples, 7);
	b->hosts = UINT32_MAX - 1;
	assert_int_equal(baseline__merge(a, b), 0);
	assert_int_equal(a->hosts, UINT32_MAX); /* saturates */
	a->hosts = 2;
	path_in(c, "hosts.json", path, sizeof(path));
	m.hosts = 2;
	assert_int_equal(bl_bundle__write_meta(path, &a, 1, &m, c->k), 0);
	assert_int_equal(bl_bundle__read_meta(path, c->trust, &m, &sig, NULL, &bs, &n, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_GOOD);
	assert_int_equal(n, 1);
	assert_int_equal(bs[0]->hosts, 2);
	assert_int_equal(m.hosts, 2);
	free_all(bs, n);
	baseline__free(a);
	baseline__free(b);
}

/* A bundle exactly as plumbline wrote them before fleets: no header, no hosts. */
static void test_old_unsigned_bundle_still_read(void **state)
{
	struct ctx *c = *state;
	struct baseline *b = member("build-id:aa01", 3, 1000000);
	struct baseline **bs = NULL;
	struct bl_bundle_meta m;
	char path[PATH_MAX], err[256] = "", id[17] = "x";
	enum bl_sig sig;
	char *text, *h;
	size_t n, len;

	path_in(c, "old.json", path, sizeof(path));
	assert_int_equal(bl_bundle__write(path, &b, 1), 0);
	baseline__free(b);
	text = ut_read_file(path, &len);
	assert_true(strncmp(text, "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":[{", 58) == 0);
	h = strstr(text, "\"hosts\":1,");
	assert_non_null(h);
	memmove(h, h + 10, strlen(h + 10) + 1);
	write_text(path, text, strlen(text));
	free(text);
	assert_int_equal(bl_bundle__read_meta(path, NULL, &m, &sig, id, &bs, &n, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_NONE);
	assert_string_equal(id, "");
	assert_string_equal(m.role, "");
	assert_string_equal(m.host, "");
	assert_int_equal(m.created_ns, 0);
	assert_int_equal(m.hosts, 1);
	assert_int_equal(n, 1);
	assert_int_equal(bs[0]->hosts, 1);
	assert_int_equal(bs[0]->samples, 3);
	free_all(bs, n);
	assert_int_equal(bl_bundle__read(path, &bs, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	free_all(bs, n);
	/* with a keyring, an unsigned bundle is told, never parsed */
	assert_int_equal(bl_bundle__read_meta(path, c->trust, &m, &sig, id, &bs, &n, err, sizeof(err)), 0);
	assert_int_equal(sig, BL_SIG_NONE);
	assert_null(bs);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_keygen_writes_pem_pair_and_never_overwrites, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_keys_refused_by_mode_and_kind, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_keyring_directory_takes_pub_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_signed_bundle_verifies_good_and_round_trips, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_flipped_byte_anywhere_is_bad, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_key_and_no_keyring, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_signature_misplaced_or_malformed_is_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_truncated_file_is_refused_at_every_length, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_merge_header_lists_hosts_bounded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_header_members_are_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hosts_add_up_in_a_merge, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_old_unsigned_bundle_still_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
