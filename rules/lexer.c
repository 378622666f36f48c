// SPDX-License-Identifier: MIT
/*
 * lexer.c - tokens of the condition language: names (with an optional
 * [PARAM]), numbers, quoted strings with escapes, operators and keywords.
 * Offsets, not copies: a token is a span of the source, so messages can
 * point at it and the parser can re-read it as a bare word.
 */
#include "lexer.h"
#include "hex.h"
#include "fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *word;
	enum x_tok kind;
} keywords[] = {
    {"and", T_AND},
    {"or", T_OR},
    {"not", T_NOT},
    {"in", T_IN},
    {"contains", T_CONTAINS},
    {"icontains", T_ICONTAINS},
    {"startswith", T_STARTSWITH},
    {"endswith", T_ENDSWITH},
    {"glob", T_GLOB},
    {"pmatch", T_PMATCH},
    {"regex", T_REGEX},
    {"exists", T_EXISTS},
    {"true", T_TRUE},
    {"false", T_FALSE},
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name(char c)
{
	return is_alpha(c) || is_digit(c) || c == '.';
}

static void fail(struct x_token *tok, size_t off, const char *msg)
{
	tok->kind = T_ERROR;
	tok->err_off = off;
	snprintf(tok->err, sizeof(tok->err), "%s", msg);
}

/* The length of the number literal at s (digits, optional fraction and
 * exponent), 0 if there is none. */
static size_t number_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_digit(s[i]))
		i++;
	if (i == 0)
		return 0;
	if (i + 1 < len && s[i] == '.' && is_digit(s[i + 1])) {
		i++;
		while (i < len && is_digit(s[i]))
			i++;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;

		if (j < len && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < len && is_digit(s[j])) {
			while (j < len && is_digit(s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

static bool number_value(const char *s, size_t len, double *v)
{
	char buf[64];
	char *end;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*v = strtod(buf, &end);
	return end == buf + len;
}

bool x_lex__number(const char *src, size_t len, double *v)
{
	size_t neg = len > 0 && src[0] == '-';

	if (number_len(src + neg, len - neg) != len - neg || len == neg)
		return false;
	return number_value(src, len, v);
}

/* Validate the quoted string at src[pos]; sets tok->len. */
static void scan_string(const char *src, size_t srclen, size_t pos, struct x_token *tok)
{
	char q = src[pos];
	size_t i = pos + 1;

	while (i < srclen && src[i] != q) {
		if (src[i] != '\\') {
			i++;
			continue;
		}
		if (i + 1 >= srclen)
			break;
		switch (src[i + 1]) {
		case '"':
		case '\'':
		case '\\':
		case 'n':
		case 't':
			i += 2;
			break;
		case 'x': {
			int hi = i + 2 < srclen ? pl_hex_digit(src[i + 2]) : -1;
			int lo = i + 3 < srclen ? pl_hex_digit(src[i + 3]) : -1;

			if (hi < 0 || lo < 0) {
				fail(tok, i, "'\\x' needs two hex digits");
				return;
			}
			if (hi == 0 && lo == 0) {
				fail(tok, i, "a string can't contain \\x00");
				return;
			}
			i += 4;
			break;
		}
		default: {
			char msg[64];

			if ((unsigned char)src[i + 1] >= 0x20 && (unsigned char)src[i + 1] < 0x7f)
				snprintf(msg, sizeof(msg), "unknown escape '\\%c' in string", src[i + 1]);
			else
				snprintf(msg, sizeof(msg), "unknown escape '\\\\x%02x' in string",
					 (unsigned char)src[i + 1]);
			{
				fail(tok, i, msg);
				return;
			}
		}
		}
	}
	if (i >= srclen) {
		fail(tok, pos, "unterminated string");
		return;
	}
	tok->kind = T_STR;
	tok->len = i + 1 - pos;
}

static void scan_ident(const char *src, size_t srclen, size_t pos, struct x_token *tok)
{
	size_t i = pos;

	while (i < srclen && is_name(src[i]))
		i++;
	tok->kind = T_IDENT;
	tok->name_len = i - pos;
	tok->len = i - pos;
	for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
		if (strlen(keywords[k].word) == tok->name_len &&
		    memcmp(keywords[k].word, src + pos, tok->name_len) == 0) {
			tok->kind = keywords[k].kind;
			return;
		}
	if (i < srclen && src[i] == '[') {
		size_t j = i + 1;

		/* a syscall name, or a path prefix (proc.open_failures_under[/etc/ssh/]) */
		while (j < srclen && (is_alpha(src[j]) || is_digit(src[j]) || rl_field__path_char(src[j])))
			j++;
		if (j == i + 1 || j >= srclen || src[j] != ']') {
			char msg[80];

			snprintf(msg, sizeof(msg), "expected NAME] after '[' at offset %zu", i);
			{
				fail(tok, j, msg);
				return;
			}
		}
		tok->param_off = i + 1;
		tok->param_len = j - i - 1;
		tok->len = j + 1 - pos;
	}
}

void x_lex__scan(const char *src, size_t srclen, size_t pos, struct x_token *tok)
{
	static const char singles[] = "(),+-*/";
	static const enum x_tok single_kinds[] = {T_LPAREN, T_RPAREN, T_COMMA, T_PLUS, T_MINUS, T_STAR, T_SLASH};
	const char *p;
	char c;

	while (pos < srclen && is_space(src[pos]))
		pos++;
	memset(tok, 0, sizeof(*tok));
	tok->off = pos;
	tok->len = 1;
	if (pos >= srclen) {
		tok->kind = T_END;
		tok->len = 0;
		return;
	}
	c = src[pos];
	if (c != '\0' && (p = strchr(singles, c))) {
		tok->kind = single_kinds[p - singles];
		return;
	}
	switch (c) {
	case '=':
		tok->kind = T_EQ;
		tok->len = pos + 1 < srclen && src[pos + 1] == '=' ? 2 : 1;
		return;
	case '!':
		if (pos + 1 < srclen && src[pos + 1] == '=') {
			tok->kind = T_NE;
			tok->len = 2;
			return;
		}
		{
			fail(tok, pos, "unexpected character '!' (did you mean '!=' or 'not'?)");
			return;
		}
	case '<':
	case '>': {
		bool eq = pos + 1 < srclen && src[pos + 1] == '=';

		tok->kind = c == '<' ? (eq ? T_LE : T_LT) : (eq ? T_GE : T_GT);
		tok->len = eq ? 2 : 1;
		return;
	}
	case '"':
	case '\'':
		return scan_string(src, srclen, pos, tok);
	}
	if (is_digit(c)) {
		size_t n = number_len(src + pos, srclen - pos);

		if (pos + n < srclen && is_name(src[pos + n])) {
			fail(tok, pos, "bad number");
			return;
		}
		if (!number_value(src + pos, n, &tok->num)) {
			fail(tok, pos, "number too long");
			return;
		}
		tok->kind = T_NUM;
		tok->len = n;
		return;
	}
	if (is_alpha(c))
		return scan_ident(src, srclen, pos, tok);
	{
		char msg[64];

		if ((unsigned char)c >= 0x21 && (unsigned char)c < 0x7f)
			snprintf(msg, sizeof(msg), "unexpected character '%c'", c);
		else
			snprintf(msg, sizeof(msg), "unexpected byte 0x%02x", (unsigned char)c);
		fail(tok, pos, msg);
	}
}

size_t x_lex__word_end(const char *src, size_t srclen, size_t pos)
{
	while (pos < srclen && !is_space(src[pos]) && src[pos] != ')' && src[pos] != ',')
		pos++;
	return pos;
}

void x_lex__item(const char *src, size_t srclen, size_t pos, struct x_token *tok)
{
	while (pos < srclen && is_space(src[pos]))
		pos++;
	memset(tok, 0, sizeof(*tok));
	tok->off = pos;
	tok->len = 1;
	if (pos >= srclen) {
		tok->kind = T_END;
		tok->len = 0;
	} else if (src[pos] == ')') {
		tok->kind = T_RPAREN;
	} else if (src[pos] == ',') {
		tok->kind = T_COMMA;
	} else if (src[pos] == '"' || src[pos] == '\'') {
		scan_string(src, srclen, pos, tok);
	} else {
		tok->kind = T_WORD;
		tok->len = x_lex__word_end(src, srclen, pos) - pos;
	}
}

size_t x_lex__string(const char *src, const struct x_token *tok, char *out)
{
	size_t i = tok->off + 1, end = tok->off + tok->len - 1, n = 0;

	while (i < end) {
		char c = src[i++];

		if (c == '\\') {
			c = src[i++];
			if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			} else if (c == 'x') {
				c = (char)(pl_hex_digit(src[i]) << 4 | pl_hex_digit(src[i + 1]));
				i += 2;
			}
		}
		out[n++] = c;
	}
	out[n] = '\0';
	return n;
}

const char *x_lex__kind_name(enum x_tok k)
{
	static const char *const names[] = {
	    [T_LPAREN] = "(", [T_RPAREN] = ")", [T_COMMA] = ",", [T_PLUS] = "+", [T_MINUS] = "-",
	    [T_STAR] = "*",   [T_SLASH] = "/",	[T_EQ] = "=",	 [T_NE] = "!=",	 [T_LT] = "<",
	    [T_LE] = "<=",    [T_GT] = ">",	[T_GE] = ">=",
	};

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (keywords[i].kind == k)
			return keywords[i].word;
	if ((size_t)k < sizeof(names) / sizeof(names[0]) && names[k])
		return names[k];
	return "?";
}
