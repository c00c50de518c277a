/* SPDX-License-Identifier: MIT */
/*
 * model-json.h - reading the values of results.json into the model
 * (model.c, model-cell.c): a member's string (borrowed, NULL if absent or
 * not a string), number (NAN if absent or not a number), "" for NULL.
 * Inside the model only.
 */
#ifndef VMTAX_MODEL_JSON_H
#define VMTAX_MODEL_JSON_H

#include <jansson.h>
#include <math.h>

static inline const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static inline double jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static inline const char *nz(const char *s)
{
	return s ? s : "";
}

#endif
