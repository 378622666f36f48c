#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate JSON Lines records against plumbline's published schemas.

Usage: validate.py [--schemas DIR] [--strict] [--against SCHEMA] [--min N] PATH...

Each PATH is a JSONL file, or a directory whose *.jsonl files are read
(not those of its subdirectories).
Every line is validated against docs/schema/<type>.schema.json for its
`type` (a type without a schema is an error: every record type the sensor
writes has one), or, with --against, against that one schema (an OCSF
file). Numbers with a fraction or exponent are not integers here: an
integer field written as 1.0 fails, as the schemas promise 64-bit integers.

--strict closes every object the schemas describe (unevaluatedProperties:
false, except on the mixins a record schema composes with allOf): the
published schemas let consumers meet fields they do not know, the tests
hold the sensor to writing none that the schemas do not describe.

Exits 0 when every line is valid and at least N records (--min, default 1)
were read; else 1, naming file:line, the record type, where in the record
and what is wrong. Uses python3-jsonschema (Debian 12: 4.10).
"""
import argparse
import copy
import decimal
import glob
import json
import multiprocessing
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMAS = os.path.normpath(os.path.join(HERE, "..", "..", "docs", "schema"))


def load_schemas(directory):
    """All *.schema.json of directory, by file name and by $id."""
    by_file = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.schema.json"))):
        with open(path, encoding="utf-8") as f:
            by_file[os.path.basename(path)] = json.load(f)
    return by_file


def mixins_of(schemas):
    """Names of the $defs that record schemas compose with allOf."""
    names = set()
    for s in schemas.values():
        for part in s.get("allOf", []):
            ref = part.get("$ref", "")
            if "#/$defs/" in ref:
                names.add(ref.split("#/$defs/", 1)[1])
    return names


def close(node, skip=()):
    """unevaluatedProperties: false on every described object, recursively."""
    if isinstance(node, list):
        for x in node:
            close(x, skip)
        return
    if not isinstance(node, dict):
        return
    if "properties" in node and "additionalProperties" not in node and "unevaluatedProperties" not in node:
        node["unevaluatedProperties"] = False
    for key, value in node.items():
        if key == "$defs":
            for name, d in value.items():
                if name in skip:
                    # a mixin closes in the record that uses it, not on its own
                    for sub in d.get("properties", {}).values():
                        close(sub, skip)
                else:
                    close(d, skip)
        elif key != "const" and key != "enum":
            close(value, skip)


def validator_factory(schemas):
    """A function: schema (one of schemas) -> validator, resolving $refs among them."""
    cls = jsonschema.Draft202012Validator
    for s in schemas.values():
        cls.check_schema(s)
    store = {s["$id"]: s for s in schemas.values() if "$id" in s}
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18

        registry = Registry().with_resources((i, Resource.from_contents(s)) for i, s in store.items())
        return lambda schema: cls(schema, registry=registry)
    except ImportError:  # Debian 12's 4.10
        return lambda schema: cls(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))


def files_of(paths):
    for p in paths:
        if os.path.isdir(p):
            yield from sorted(glob.glob(os.path.join(p, "*.jsonl")))
        else:
            yield p


def where(error):
    return "/" + "/".join(str(x) for x in error.absolute_path)


_STATE = {}  # the validators, built once per process (the workers fork after)


def errors_of(item):
    """The messages for one record (none when it is valid)."""
    _, n, path, name, label, rec = item
    validators = _STATE["validators"]
    if name not in validators:
        validators[name] = _STATE["make"](_STATE["schemas"][name])
    errors = sorted(validators[name].iter_errors(rec), key=lambda e: list(e.absolute_path))
    return [f"{path}:{n}: {label} {where(e)}: {e.message[:300]}" for e in errors[:5]]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schemas", default=DEFAULT_SCHEMAS)
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--against", help="validate every line against this schema file instead")
    ap.add_argument("--min", type=int, default=1, help="fail when fewer records were read")
    ap.add_argument("--sample-after", type=int, default=0,
                    help="per file and record type, validate the first N records, then one in --sample-every "
                         "(0: every record)")
    ap.add_argument("--sample-every", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=0, help="processes that validate (0: one per CPU)")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args(argv)

    schemas = load_schemas(a.schemas)
    if a.against:
        with open(a.against, encoding="utf-8") as f:
            schemas[os.path.basename(a.against)] = json.load(f)
    if a.strict:
        skip = mixins_of(schemas)
        schemas = copy.deepcopy(schemas)
        for s in schemas.values():
            close(s, skip)
    # Which lines to validate is decided here, in file order (cheap); the
    # validation itself, most of the time, is spread over the CPUs.
    out = []  # (file index, line, message), printed in that order
    items = []  # (file index, line, schema name, label, record)
    counts = {}
    bad = skipped = 0
    for fi, path in enumerate(files_of(a.paths)):
        seen = {}
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line, parse_float=decimal.Decimal)
                except ValueError as e:
                    out.append((fi, n, f"{path}:{n}: not JSON: {e}"))
                    bad += 1
                    continue
                t = rec.get("type") if isinstance(rec, dict) else None
                name = os.path.basename(a.against) if a.against else f"{t}.schema.json"
                label = "ocsf" if a.against else t
                if name not in schemas or name == "defs.schema.json":
                    out.append((fi, n, f"{path}:{n}: record type {t!r} has no schema ({os.path.join(a.schemas, name)})"))
                    bad += 1
                    continue
                seen[t] = seen.get(t, 0) + 1
                if a.sample_after and seen[t] > a.sample_after and seen[t] % a.sample_every:
                    skipped += 1
                    continue
                items.append((fi, n, path, name, label, rec))
                counts[label] = counts.get(label, 0) + 1
    _STATE.update(make=validator_factory(schemas), schemas=schemas, validators={})
    jobs = min(a.jobs or os.cpu_count() or 1, max(1, len(items) // 200))
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            found = pool.map(errors_of, items, chunksize=32)
    else:
        found = [errors_of(it) for it in items]
    for (fi, n, _, _, _, _), msgs in zip(items, found):
        out.extend((fi, n, m) for m in msgs)
        bad += bool(msgs)
    for _, _, m in sorted(out, key=lambda x: (x[0], x[1])):
        print(m)
    total = sum(counts.values())
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
    print(f"validate: {total} records ({summary}), {bad} invalid"
          + (f"; {skipped} more not validated (beyond the first {a.sample_after} of a type in a file, "
             f"one in {a.sample_every})" if skipped else ""))
    if total < a.min:
        print(f"validate: expected at least {a.min} records")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
