/* SPDX-License-Identifier: MIT */
/*
 * textsafe.h - the one escaping of text that leaves the sensor.
 *
 * Paths, command lines and comm names come from monitored processes and may
 * hold any byte. Inside plumbline they stay raw (the bytes the process gave,
 * as C strings), so that rules, exceptions and baselines compare the same
 * bytes at exec, window and exit, live and in replay. Every edge where text
 * leaves the sensor (records, baseline files, the live view, CLI listings,
 * alert lines) escapes it once, with text_escape(); every reader of our own
 * formats undoes it once, with text_unescape().
 *
 * The escaping keeps valid UTF-8 as it is, except that each byte of a
 * backslash, a C0 control (0x00-0x1f), DEL, a C1 control (U+0080-U+009F),
 * U+2028/U+2029 (line and paragraph separators), a bidi control (U+061C,
 * U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), and every byte of invalid
 * UTF-8, becomes the four characters \xNN (uppercase hex). So the result is
 * valid, printable UTF-8: it cannot start a line, move the cursor, change
 * the terminal or reorder the text around it. A backslash is always escaped
 * (\x5C), so the escaping is reversible: "\x41" in a name can't pass for an
 * escaped byte.
 *
 * Kernel-free, never logs, depends on no other plumbline module: the layer
 * below rules/, baselines/, outputs/ and sensor/. Only text_escape() and
 * text_unescape() allocate; the _buf forms serve bounded and hot paths.
 */
#ifndef PL_TEXTSAFE_H
#define PL_TEXTSAFE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length of the valid UTF-8 sequence at s (n bytes left), its code point
 * in *ret_cp (may be NULL); 0 when the bytes there are not valid UTF-8
 * (overlong forms, surrogates and code points past U+10FFFF included) or
 * n is 0, *ret_cp then untouched. The one decoder of the tree: escaping,
 * display cuts and the syslog output's own escaping all see the same text.
 */
size_t text_utf8_decode(const void *s, size_t n, uint32_t *ret_cp);

/* Also write '"' as \x22 (alert output lines quote values). */
#define TEXT_ESC_QUOTE 1u

/*
 * Escape exactly len bytes of s (a NUL byte is \x00: pass strlen() for a C
 * string). Returns a malloc'd NUL-terminated string, or NULL on ENOMEM.
 */
char *text_escape(const char *s, size_t len);

/* text_escape() of a C string; NULL for NULL (or ENOMEM). */
char *text_escape_str(const char *s);

/*
 * Escape len bytes of s into buf (size bytes, may be 0 with buf NULL), with
 * `flags` (TEXT_ESC_*). Like snprintf: returns the length of the whole
 * escaped text (without NUL) and writes as much of it as fits, always
 * NUL-terminated when size > 0; but a cut never splits an escape or a UTF-8
 * sequence, so what is written is itself a valid escaped text (strlen()
 * gives its length: escaped text holds no NUL). Never allocates.
 */
size_t text_escape_buf(char *buf, size_t size, const char *s, size_t len, unsigned flags);

/*
 * Undo the escaping of len bytes of s into buf, which must have room for
 * len + 1 bytes (unescaping never grows). Each \xNN with two hex digits
 * (either case) becomes byte 0xNN; anything else, hostile or not, is kept
 * as it is. Returns the number of bytes written, NUL not counted (the result
 * may hold NUL bytes, from \x00). Never allocates.
 */
size_t text_unescape_buf(char *buf, const char *s, size_t len);

/*
 * text_unescape_buf() into a malloc'd buffer. *ret_len (may be NULL) gets
 * its length. NULL on ENOMEM (*ret_len untouched).
 */
char *text_unescape(const char *s, size_t len, size_t *ret_len);

/*
 * The tail of escaped text esc that fits in max_cols display columns: the
 * byte offset where it starts, never inside an escape or a UTF-8 sequence
 * (0 when all of esc fits). An escape counts 4 columns, any other code point
 * one (wide characters may take two on a terminal). *ret_cols (may be NULL)
 * gets the columns of that tail, for padding.
 */
size_t text_tail(const char *esc, size_t max_cols, size_t *ret_cols);

/*
 * Join a NUL-separated argument block (as /proc/PID/cmdline) into one
 * string: NULs become spaces, trailing NULs are dropped. The bytes stay raw
 * (escape them at the edge). Returns a malloc'd string, or NULL on ENOMEM.
 */
char *text_cmdline(const char *args, size_t len);

#endif
