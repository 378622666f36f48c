#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Derive a JSON Schema of one OCSF event class from the OCSF schema's own files.

Usage: derive_ocsf.py OCSF_SCHEMA_GIT_DIR TAG CLASS_FILE > OUT.schema.json
  e.g. derive_ocsf.py ocsf-schema/.git 1.6.0 events/findings/detection_finding.json

Reads, at TAG (git show, nothing checked out): the class file, the classes
it extends (base_event.json), dictionary.json (attribute types, arrays and
shared enums), categories.json, and objects/*.json reachable from the class
(with their `extends`). The result holds what the OCSF definition requires:
  - required attributes (requirement: required), for the class and every object;
  - types: string_t and its kinds -> string, integer_t/long_t/timestamp_t ->
    integer, float_t -> number, boolean_t -> boolean, json_t -> anything,
    objects -> their own definition, is_array -> an array of them;
  - enum attributes (*_id) -> the integers their enum lists (the class's own
    values merged with the base event's, as OCSF merges them);
  - class_uid, category_uid and type_uid fixed to the class's values;
  - at_least_one constraints -> anyOf required;
  - no attribute that the definition does not have (additionalProperties:
    false): extras belong in `unmapped`. Profile attributes are left out:
    the findings we write apply no profile.
Objects nested deeper than MAX_DEPTH are only checked to be objects.
"""
import json
import subprocess
import sys

MAX_DEPTH = 4
TYPES = {"string_t": "string", "integer_t": "integer", "long_t": "integer", "float_t": "number",
         "boolean_t": "boolean", "timestamp_t": "integer", "port_t": "integer"}


def main(git_dir, tag, class_file):
    def show(path):
        out = subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:{path}"], capture_output=True, check=True)
        return json.loads(out.stdout)

    dictionary = show("dictionary.json")
    dattrs, dtypes = dictionary["attributes"], dictionary["types"]["attributes"]
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-list", "-n1", tag], capture_output=True,
                            check=True, text=True).stdout.strip()
    used = {"dictionary.json", "categories.json"}

    def resolve(path):
        """Attributes of a class or object, its `extends` merged in (profile attributes dropped)."""
        o = show(path)
        used.add(path)
        attrs, constraints = {}, {}
        if "extends" in o:
            base = o["extends"]
            folder = path.rsplit("/", 1)[0]
            for cand in (f"{folder}/{base}.json", f"events/{base}.json", f"objects/{base}.json",
                         f"objects/_{base}.json"):
                try:
                    attrs, constraints = resolve(cand)
                    break
                except subprocess.CalledProcessError:
                    continue
        for k, v in o.get("attributes", {}).items():
            if k == "$include":
                continue  # profiles: not applied
            merged = dict(attrs.get(k, {}))
            if "enum" in merged and "enum" in v:
                v = dict(v, enum={**merged["enum"], **v["enum"]})
            merged.update(v)
            if merged.get("profile") is not None and "profile" in v:
                continue
            attrs[k] = merged
        if o.get("constraints"):
            constraints = o["constraints"]
        return attrs, constraints

    defs = {}

    def type_of(name, spec, depth):
        d = dattrs.get(name, {})
        t = spec.get("type") or d.get("type")
        enum = spec.get("enum") or d.get("enum")
        if t in TYPES or (t in dtypes and dtypes[t].get("type") in TYPES):
            base = TYPES.get(t) or TYPES[dtypes[t]["type"]]
            s = {"type": base}
            if enum and name.endswith("_id"):
                s = {"type": "integer", "enum": sorted(int(x) for x in enum)}
            rng = dtypes.get(t, {}).get("range")
            if rng:
                s["minimum"], s["maximum"] = rng
        elif t == "json_t":
            s = {}
        elif t == "object":
            s = {"type": "object"}
        else:
            s = object_ref(t, depth + 1)
        if spec.get("is_array", d.get("is_array")):
            s = {"type": "array", "items": s}
        return s

    def object_ref(obj, depth):
        if depth > MAX_DEPTH:
            return {"type": "object"}
        if obj not in defs:
            defs[obj] = None  # a cycle (process.parent_process) refers to the definition being made
            attrs, constraints = resolve(f"objects/{obj}.json")
            defs[obj] = schema_of(attrs, constraints, depth)
        return {"$ref": f"#/$defs/{obj}"}

    def schema_of(attrs, constraints, depth):
        s = {"type": "object", "properties": {}, "additionalProperties": False}
        req = []
        for k in sorted(attrs):
            s["properties"][k] = type_of(k, attrs[k], depth)
            if attrs[k].get("requirement") == "required":
                req.append(k)
        if req:
            s["required"] = req
        if constraints.get("at_least_one"):
            s["anyOf"] = [{"required": [k]} for k in constraints["at_least_one"] if k in attrs]
        return s

    cls_attrs, cls_constraints = resolve(class_file)
    cls = show(class_file)
    # the category: the class's, else the one of the class it extends
    folder, name, cat = class_file.rsplit("/", 1)[0], None, None
    o = cls
    while cat is None:
        cat = o.get("category")
        if cat is None:
            o = show(f"{folder}/{o['extends']}.json")
    category = show("categories.json")["attributes"][cat]
    class_uid = category["uid"] * 1000 + cls["uid"]
    root = schema_of(cls_attrs, cls_constraints, 0)
    acts = sorted(int(x) for x in cls_attrs["activity_id"]["enum"])
    root["properties"]["class_uid"] = {"const": class_uid}
    root["properties"]["category_uid"] = {"const": category["uid"]}
    root["properties"]["type_uid"] = {"enum": [class_uid * 100 + a for a in acts]}
    # type_uid is class_uid * 100 + activity_id
    root["allOf"] = [{"if": {"properties": {"activity_id": {"const": a}}, "required": ["activity_id"]},
                      "then": {"properties": {"type_uid": {"const": class_uid * 100 + a}}}} for a in acts]
    out = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://plumbline.invalid/schema/ocsf-{cls['name']}-{tag}.schema.json",
        "$comment": (f"Derived by tests/schema/derive_ocsf.py from the OCSF schema (github.com/ocsf/ocsf-schema) "
                     f"at tag {tag}, commit {commit}, files: {', '.join(sorted(used))}. "
                     f"Do not edit: derive again."),
        "title": f"OCSF {tag} {cls['caption']} (class_uid {class_uid}), no profiles",
    }
    out.update(root)
    out["$defs"] = {k: v for k, v in sorted(defs.items())}
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
