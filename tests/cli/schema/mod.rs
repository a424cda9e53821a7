//! A JSON Schema (draft 2020-12) validator for the keywords `docs/run.schema.json` uses,
//! written for the tests so that checking `run.json` needs no network-capable schema crate
//! (and its build cost). A keyword it does not know is an error, never ignored, so the
//! schema cannot silently say more than is checked.

use regex::Regex;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Keywords that only describe (no assertion).
const ANNOTATIONS: [&str; 5] = ["$schema", "$id", "title", "description", "$defs"];

/// A schema document and its root, for `$ref` resolution.
pub struct Schema {
    root: Value,
    /// The declared properties (by the address of their schema inside `root`, which never
    /// changes) that some valid instance has held: what `unused_properties` reports against.
    used: RefCell<BTreeSet<usize>>,
}

impl Schema {
    /// Reads a schema document.
    pub fn load(path: &str) -> Schema {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        Schema::new(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}")))
    }

    fn new(root: Value) -> Schema {
        Schema { root, used: RefCell::default() }
    }

    /// Every property the schema declares (as a JSON pointer into the document) that no
    /// instance checked so far has held where that declaration applied: a key the document
    /// promises and no output writes, so schema and record have drifted apart (or the
    /// outputs checked miss a case).
    pub fn unused_properties(&self) -> Vec<String> {
        fn walk(node: &Value, at: &str, used: &BTreeSet<usize>, out: &mut Vec<String>) {
            match node {
                Value::Object(o) => {
                    for (key, child) in o {
                        let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                        if key == "properties"
                            && let Some(props) = child.as_object()
                        {
                            for (name, s) in props {
                                if !used.contains(&(s as *const Value as usize)) {
                                    out.push(format!("{here}/{name}"));
                                }
                            }
                        }
                        walk(child, &here, used, out);
                    }
                }
                Value::Array(a) => {
                    for (i, child) in a.iter().enumerate() {
                        walk(child, &format!("{at}/{i}"), used, out);
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(&self.root, "#", &self.used.borrow(), &mut out);
        out
    }

    /// Every way `instance` breaks the schema, as `path: problem` lines (empty when valid).
    pub fn errors(&self, instance: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        self.check(&self.root, instance, "$", &mut errors);
        errors
    }

    /// Checks `instance` at `path` against `schema`, pushing problems into `errors`;
    /// returns the object properties it evaluated (for `unevaluatedProperties`).
    fn check(&self, schema: &Value, instance: &Value, path: &str, errors: &mut Vec<String>) -> BTreeSet<String> {
        let mut evaluated = BTreeSet::new();
        let object = match schema {
            Value::Bool(true) => return evaluated,
            Value::Bool(false) => {
                errors.push(format!("{path}: not allowed here"));
                return evaluated;
            }
            Value::Object(object) => object,
            other => panic!("a schema is an object or a boolean, not {other}"),
        };
        for (keyword, value) in object {
            match keyword.as_str() {
                k if ANNOTATIONS.contains(&k) => {}
                "$ref" => {
                    let target = self.resolve(value.as_str().expect("$ref is a string"));
                    evaluated.extend(self.check(target, instance, path, errors));
                }
                "type" => {
                    let names: Vec<&str> = match value {
                        Value::String(s) => vec![s.as_str()],
                        Value::Array(a) => a.iter().map(|t| t.as_str().expect("type names")).collect(),
                        _ => panic!("type is a name or a list of names"),
                    };
                    if !names.iter().any(|n| has_type(instance, n)) {
                        errors.push(format!("{path}: {instance} is not of type {names:?}"));
                    }
                }
                "const" => {
                    if !same(instance, value) {
                        errors.push(format!("{path}: {instance} is not {value}"));
                    }
                }
                "enum" => {
                    if !value.as_array().expect("enum is a list").iter().any(|v| same(instance, v)) {
                        errors.push(format!("{path}: {instance} is not one of {value}"));
                    }
                }
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    if let (Some(x), Some(bound)) = (instance.as_f64(), value.as_f64()) {
                        let ok = match keyword.as_str() {
                            "minimum" => x >= bound,
                            "maximum" => x <= bound,
                            "exclusiveMinimum" => x > bound,
                            _ => x < bound,
                        };
                        if !ok {
                            errors.push(format!("{path}: {x} breaks {keyword} {bound}"));
                        }
                    }
                }
                "minLength" => {
                    if let Some(s) = instance.as_str()
                        && (s.chars().count() as u64) < value.as_u64().expect("a length")
                    {
                        errors.push(format!("{path}: {s:?} is shorter than {value}"));
                    }
                }
                "pattern" => {
                    if let Some(s) = instance.as_str() {
                        let re = Regex::new(value.as_str().expect("a pattern")).expect("a valid pattern");
                        if !re.is_match(s) {
                            errors.push(format!("{path}: {s:?} does not match {value}"));
                        }
                    }
                }
                "minItems" | "maxItems" => {
                    if let Some(a) = instance.as_array() {
                        let bound = value.as_u64().expect("a count") as usize;
                        if (keyword == "minItems" && a.len() < bound) || (keyword == "maxItems" && a.len() > bound) {
                            errors.push(format!("{path}: {} items breaks {keyword} {bound}", a.len()));
                        }
                    }
                }
                "prefixItems" => {
                    if let Some(a) = instance.as_array() {
                        for (i, (item, s)) in a.iter().zip(value.as_array().expect("a list")).enumerate() {
                            self.check(s, item, &format!("{path}[{i}]"), errors);
                        }
                    }
                }
                "items" => {
                    if let Some(a) = instance.as_array() {
                        let skip = object.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
                        for (i, item) in a.iter().enumerate().skip(skip) {
                            self.check(value, item, &format!("{path}[{i}]"), errors);
                        }
                    }
                }
                "required" => {
                    if let Some(o) = instance.as_object() {
                        for name in value.as_array().expect("a list") {
                            let name = name.as_str().expect("a property name");
                            if !o.contains_key(name) {
                                errors.push(format!("{path}: missing required {name:?}"));
                            }
                        }
                    }
                }
                "minProperties" => {
                    if let Some(o) = instance.as_object()
                        && (o.len() as u64) < value.as_u64().expect("a count")
                    {
                        errors.push(format!("{path}: {} properties, fewer than {value}", o.len()));
                    }
                }
                "properties" => {
                    if let Some(o) = instance.as_object() {
                        for (name, s) in value.as_object().expect("properties is an object") {
                            if let Some(v) = o.get(name) {
                                self.check(s, v, &format!("{path}.{name}"), errors);
                                evaluated.insert(name.clone());
                                self.used.borrow_mut().insert(s as *const Value as usize);
                            }
                        }
                    }
                }
                "additionalProperties" => {
                    if let Some(o) = instance.as_object() {
                        let named = object.get("properties").and_then(Value::as_object);
                        for (name, v) in o {
                            if named.is_none_or(|n| !n.contains_key(name)) {
                                self.check(value, v, &format!("{path}.{name}"), errors);
                                evaluated.insert(name.clone());
                            }
                        }
                    }
                }
                "unevaluatedProperties" => {} // after every other keyword, below
                "allOf" => {
                    for s in value.as_array().expect("a list") {
                        evaluated.extend(self.check(s, instance, path, errors));
                    }
                }
                "anyOf" | "oneOf" => {
                    let mut passing = Vec::new();
                    let mut failures = Vec::new();
                    for s in value.as_array().expect("a list") {
                        let mut branch = Vec::new();
                        // A branch the instance fails uses none of its properties.
                        let before = self.used.borrow().clone();
                        let seen = self.check(s, instance, path, &mut branch);
                        if branch.is_empty() {
                            passing.push(seen);
                        } else {
                            failures.push(branch.join("; "));
                            *self.used.borrow_mut() = before;
                        }
                    }
                    let ok = if keyword == "oneOf" { passing.len() == 1 } else { !passing.is_empty() };
                    if !ok {
                        errors.push(format!(
                            "{path}: {} of the {keyword} branches hold (branch problems: {})",
                            passing.len(),
                            failures.join(" | ")
                        ));
                    }
                    for seen in passing {
                        evaluated.extend(seen);
                    }
                }
                "not" => {
                    let mut branch = Vec::new();
                    let before = self.used.borrow().clone();
                    self.check(value, instance, path, &mut branch);
                    *self.used.borrow_mut() = before;
                    if branch.is_empty() {
                        errors.push(format!("{path}: matches a schema it must not ({value})"));
                    }
                }
                other => panic!("the test validator does not know the keyword {other:?}: teach it, or do not use it"),
            }
        }
        if let Some(rest) = object.get("unevaluatedProperties")
            && let Some(o) = instance.as_object()
        {
            for (name, v) in o {
                if !evaluated.contains(name) {
                    self.check(rest, v, &format!("{path}.{name}"), errors);
                    evaluated.insert(name.clone());
                }
            }
        }
        evaluated
    }

    /// The schema a local `$ref` (`#/...`, a JSON pointer into this document) names.
    fn resolve(&self, reference: &str) -> &Value {
        let pointer = reference.strip_prefix('#').unwrap_or_else(|| panic!("only local $refs: {reference}"));
        self.root.pointer(pointer).unwrap_or_else(|| panic!("$ref {reference} names nothing"))
    }
}

/// Whether `v` is of JSON Schema type `name`.
fn has_type(v: &Value, name: &str) -> bool {
    match name {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|x| x.fract() == 0.0),
        other => panic!("unknown type {other:?}"),
    }
}

/// JSON equality with numbers compared by value (1 equals 1.0).
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[test]
fn the_validator_catches_what_it_claims_to() {
    let schema = Schema::new(serde_json::json!({
            "type": "object",
            "required": ["a"],
            "properties": { "a": { "type": "integer", "minimum": 1 }, "b": { "enum": ["x", "y"] } },
            "unevaluatedProperties": false
    }));
    assert_eq!(schema.unused_properties(), ["#/properties/a", "#/properties/b"]);
    assert!(schema.errors(&serde_json::json!({"a": 2})).is_empty());
    assert_eq!(schema.unused_properties(), ["#/properties/b"], "no instance had b yet");
    assert!(schema.errors(&serde_json::json!({"a": 2, "b": "x"})).is_empty());
    assert!(schema.unused_properties().is_empty());
    assert_eq!(schema.errors(&serde_json::json!({"a": 0})).len(), 1);
    assert_eq!(schema.errors(&serde_json::json!({"b": "z"})).len(), 2);
    assert_eq!(schema.errors(&serde_json::json!({"a": 1, "c": 3})).len(), 1, "unevaluated c");
    let either = Schema::new(serde_json::json!({
        "oneOf": [
            { "properties": { "a": { "const": 1 } }, "required": ["a"] },
            { "properties": { "a": { "const": 2 } }, "required": ["a"] }
        ]
    }));
    assert!(either.errors(&serde_json::json!({"a": 2})).is_empty());
    assert_eq!(either.unused_properties(), ["#/oneOf/0/properties/a"], "the failing branch used nothing");
}
