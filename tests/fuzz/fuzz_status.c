// SPDX-License-Identifier: MIT
/*
 * fuzz_status.c - libFuzzer target: arbitrary bytes as the sensor's status
 * file (status.json), through what `plumbline status` does with it: bounded
 * text, json-c, and the human form (cmd_status__print()).
 *
 * Invariants: any JSON object prints (a member missing or of another type
 * included), and the output has no control byte but its own newlines:
 * whatever the file says, it cannot move the terminal's cursor or colour.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_status.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STATUS_FUZZ_MAX (64u << 10)

/* No C0 control but '\n', no DEL. */
FZ_NOCOV static bool printable_lines(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *o;
	char *text, *out = NULL;
	size_t len = 0;
	FILE *f;

	if (size > STATUS_FUZZ_MAX)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	o = json_tokener_parse(text);
	free(text);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return 0;
	}
	f = open_memstream(&out, &len);
	if (f) {
		cmd_status__print(o, f);
		fclose(f);
		FZ_ASSERT(out && strlen(out) == len);
		FZ_ASSERT(printable_lines(out, len));
	}
	free(out);
	json_object_put(o);
	return 0;
}
