/* SPDX-License-Identifier: MIT */
/*
 * lexer.h - tokens of the condition language (internal to the compiler).
 *
 * The lexer is stateless: it scans one token at a given offset, so the
 * parser can look ahead and re-read the raw text as a bare word where the
 * grammar allows one (`proc.exe startswith /usr/bin/`). A malformed token
 * is returned as T_ERROR with its message, not reported at once: in bare
 * word position the same bytes may be perfectly good.
 */
#ifndef PL_RULES_LEXER_H
#define PL_RULES_LEXER_H

#include <stdbool.h>
#include <stddef.h>

enum x_tok {
	T_END,
	T_ERROR,
	T_IDENT, /* name, optionally followed by [PARAM] */
	T_NUM,
	T_STR,	/* quoted; decode with x_lex__string() */
	T_WORD, /* a bare word (list items, bare-word operands) */
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_PLUS,
	T_MINUS,
	T_STAR,
	T_SLASH,
	T_EQ,
	T_NE,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	/* keywords */
	T_AND,
	T_OR,
	T_NOT,
	T_IN,
	T_CONTAINS,
	T_ICONTAINS,
	T_STARTSWITH,
	T_ENDSWITH,
	T_GLOB,
	T_PMATCH,
	T_REGEX,
	T_EXISTS,
	T_TRUE,
	T_FALSE,
};

struct x_token {
	enum x_tok kind;
	size_t off, len;  /* the token's bytes in the source */
	size_t name_len;  /* T_IDENT: length without [PARAM] */
	size_t param_off; /* T_IDENT: where PARAM starts, 0 when there is none */
	size_t param_len;
	double num;	/* T_NUM */
	size_t err_off; /* T_ERROR: where exactly */
	char err[96];	/* T_ERROR: what */
};

/* Scan the token starting at or after (whitespace skipped) src[pos]. */
void x_lex__scan(const char *src, size_t srclen, size_t pos, struct x_token *tok);

/* Scan a list item at or after src[pos]: a quoted string (T_STR), a bare
 * word running to whitespace, ')' or ',' (T_WORD), or T_COMMA, T_RPAREN,
 * T_END, T_ERROR. */
void x_lex__item(const char *src, size_t srclen, size_t pos, struct x_token *tok);

/* The end of the bare word starting at src[pos] (whitespace, ')' or ','). */
size_t x_lex__word_end(const char *src, size_t srclen, size_t pos);

/* Whether src[0..len) is a whole number literal, with an optional leading
 * '-'; its value in *v. */
bool x_lex__number(const char *src, size_t len, double *v);

/* Decode a T_STR token into out (at least tok->len bytes); returns the
 * decoded length (out is NUL-terminated). The token was validated by the
 * scan, so this can't fail. */
size_t x_lex__string(const char *src, const struct x_token *tok, char *out);

/* Printable name of a token kind for messages ("'and'", "')'"). */
const char *x_lex__kind_name(enum x_tok k);

#endif
