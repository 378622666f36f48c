// SPDX-License-Identifier: MIT
/*
 * check_corpus.c - the rule-file corpus as a test: each FILE.yaml is
 * loaded with rl_ruleset__load and its printed diagnostics must equal
 * FILE.expected byte for byte (empty for a valid file).
 *
 * Usage: check_corpus [--update] FILE.yaml...  (run from the corpus
 * directory so diagnostics carry the relative names). --update rewrites
 * the .expected files instead, for review in the diff.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (*len + 4096 > cap) {
			char *nb = realloc(buf, cap + 8192);

			if (!nb)
				break;
			buf = nb;
			cap += 8192;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	fclose(f);
	return buf;
}

static int check(const char *path, bool update)
{
	struct rl_diags diags = {0};
	struct rl_ruleset *rs = NULL;
	char expected_path[4096], *out = NULL, *want;
	size_t outlen = 0, wantlen;
	FILE *mem;
	int r, ok;
	size_t n = strlen(path);

	if (n < 5 || strcmp(path + n - 5, ".yaml") != 0 ||
	    snprintf(expected_path, sizeof(expected_path), "%.*s.expected", (int)(n - 5), path) >=
		(int)sizeof(expected_path)) {
		fprintf(stderr, "%s: not a .yaml file\n", path);
		return 1;
	}
	r = rl_ruleset__load(&path, 1, &rs, &diags);
	if (r == -ENOMEM) {
		fprintf(stderr, "%s: out of memory\n", path);
		return 1;
	}
	mem = open_memstream(&out, &outlen);
	if (!mem)
		return 1;
	rl_diags__print(&diags, mem);
	fclose(mem);
	if ((r == 0) != (diags.errors == 0)) {
		fprintf(stderr, "%s: load returned %d with %zu errors\n", path, r, diags.errors);
		ok = 0;
		goto out;
	}
	if (update) {
		FILE *f = fopen(expected_path, "we");

		ok = f && fwrite(out, 1, outlen, f) == outlen;
		if (f)
			ok &= fclose(f) == 0;
		goto out;
	}
	want = slurp(expected_path, &wantlen);
	if (!want && errno != 0 && wantlen == 0) {
		FILE *f = fopen(expected_path, "re");

		if (!f) {
			fprintf(stderr, "%s: missing %s\n", path, expected_path);
			ok = 0;
			goto out;
		}
		fclose(f);
	}
	ok = wantlen == outlen && (outlen == 0 || memcmp(want, out, outlen) == 0);
	if (!ok)
		fprintf(stderr, "%s: diagnostics differ\n--- expected\n%.*s--- got\n%.*s", path, (int)wantlen,
			want ? want : "", (int)outlen, out ? out : "");
	free(want);
out:
	free(out);
	rl_ruleset__free(rs);
	rl_diags__free(&diags);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	bool update = argc > 1 && strcmp(argv[1], "--update") == 0;
	int failed = 0, total = 0;

	for (int i = update ? 2 : 1; i < argc; i++, total++)
		failed += check(argv[i], update);
	if (!update)
		printf("%d/%d corpus files as expected\n", total - failed, total);
	return failed ? 1 : 0;
}
