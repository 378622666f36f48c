// SPDX-License-Identifier: MIT
/*
 * record.c - the JSON of what goes to the outputs (output.h): the one place
 * where a typed record becomes JSON text, for every backend that writes
 * JSON (the JSON Lines files, the audit log).
 */
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alert_json.h"
#include "alert_ocsf.h"
#include "sample_json.h"
#include "sensor_event.h"
#include "sensor_stats.h"

const char *pl_record__type(const struct pl_record *rec)
{
	switch (rec->kind) {
	case PL_RECORD_ALERT:
		return pl_alert__type(rec->alert);
	case PL_RECORD_SAMPLE:
		/* an exit sample is a process record */
		return rec->sample->moment == PL_AT_EXIT ? "process" : pl_moment__name(rec->sample->moment);
	case PL_RECORD_EVENT:
		return rec->event->type;
	case PL_RECORD_STATS:
		return "stats";
	case PL_RECORD_SENSOR:
		return pl_sensor_event__type(rec->sensor);
	}
	return NULL;
}

struct json_object *pl_record__json(const struct pl_record *rec, enum pl_alert_form form)
{
	switch (rec->kind) {
	case PL_RECORD_ALERT:
		return form == PL_ALERT_OCSF ? alert_ocsf__finding(rec->alert) : alert_json__record(rec->alert);
	case PL_RECORD_SAMPLE:
		return sample_json__record(rec->sample);
	case PL_RECORD_EVENT:
		return json_object_get(rec->event->body);
	case PL_RECORD_STATS:
		return stats_json__record(rec->stats);
	case PL_RECORD_SENSOR:
		return sensor_event_json__record(rec->sensor);
	}
	return NULL;
}

int pl_record__text(const struct pl_record *rec, enum pl_alert_form form, char **ret, size_t *ret_len)
{
	struct json_object *j = pl_record__json(rec, form);
	const char *s;
	size_t len = 0;
	char *copy = NULL;

	s = j ? json_object_to_json_string_length(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len)
	      : NULL;
	if (s)
		copy = strndup(s, len);
	json_object_put(j);
	if (!copy)
		return -ENOMEM;
	*ret = copy;
	*ret_len = len;
	return 0;
}
