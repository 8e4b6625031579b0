//! Loads `schemas/canonical/provider-runtime.schema.json` into a small typed model.
//!
//! The canonical schema is ours and its shape is fixed by `schemas/canonical/README.md`, so this
//! module reads it directly (no typify): every definition is one of a handful of kinds (`x-kind`),
//! every property one of a handful of shapes. Anything else is an error naming the definition (and
//! the property), so a schema edit the emitters would silently misread cannot get through.
//!
//! The model keeps schema order (serde_json's `preserve_order` is on in the workspace) and every
//! description; both emitters (`canonical_rust`, `typescript`) read only this model.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

pub(crate) use super::names::pascal_case;

/// The schema file, relative to the workspace root.
pub const SCHEMA_PATH: &str = "schemas/canonical/provider-runtime.schema.json";

/// The draft every canonical schema declares.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The id pattern of the README: trimmed and non-empty.
pub const ID_PATTERN: &str = r"^\S(.*\S)?$";

/// The enum definition that lists the event types (spec 1.2); the union must follow its order.
pub const EVENT_TYPE_ENUM: &str = "CanonicalRuntimeEventType";

/// Event types whose payload is the shared `ItemLifecyclePayload` instead of `<Type>Payload`.
const ITEM_LIFECYCLE_EVENTS: &[&str] = &["item.started", "item.updated", "item.completed"];
const ITEM_LIFECYCLE_PAYLOAD: &str = "ItemLifecyclePayload";

/// Keys any schema node may carry besides its shape (documentation only).
const DOC_KEYS: &[&str] = &["description", "$comment", "title", "examples"];

/// The canonical model: definitions by kind, each list in schema order.
#[derive(Debug)]
pub struct Model {
    /// The root schema's description.
    pub description: String,
    /// `x-kind: id`: trimmed non-empty branded strings.
    pub ids: Vec<IdDef>,
    /// `x-kind: datetime`: RFC 3339 date-times.
    pub datetimes: Vec<DateTimeDef>,
    /// `x-kind: enum`: closed sets of strings, each followed by the subsets its
    /// `x-enumSubsets` declares (`subset_of` names the enum).
    pub enums: Vec<EnumDef>,
    /// `x-kind: json`: named untyped JSON values (the spec's `unknown`, under a name a host uses).
    pub jsons: Vec<JsonDef>,
    /// `x-kind: object`: structs (payloads and the objects they use), in schema order.
    pub objects: Vec<ObjectDef>,
    /// `x-kind: envelope`: the fields every event carries besides `type` and `payload`.
    pub envelope: ObjectDef,
    /// `x-kind: event`: one per event type, in union order.
    pub events: Vec<EventDef>,
    /// `x-kind: union`: the union of all events (the schema root).
    pub union: UnionDef,
    kinds: BTreeMap<String, Kind>,
}

/// What a definition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Id,
    DateTime,
    Enum,
    Json,
    Object,
    Envelope,
    Event,
    Union,
}

impl Kind {
    fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "id" => Self::Id,
            "datetime" => Self::DateTime,
            "enum" => Self::Enum,
            "json" => Self::Json,
            "object" => Self::Object,
            "envelope" => Self::Envelope,
            "event" => Self::Event,
            "union" => Self::Union,
            _ => return None,
        })
    }
}

#[derive(Debug)]
pub struct IdDef {
    pub name: String,
    pub description: String,
}

#[derive(Debug)]
pub struct DateTimeDef {
    pub name: String,
    pub description: String,
}

#[derive(Debug)]
pub struct EnumDef {
    pub name: String,
    pub description: String,
    pub values: Vec<EnumValue>,
    /// For a subset declared by `x-enumSubsets`: the enum it is a subset of. A subset is no
    /// definition of the schema (no `$ref` reaches it); the emitters give it a type of its own,
    /// conversions to and from its enum, and a guard.
    pub subset_of: Option<String>,
    /// From `x-itemContent`: the object definition that types the `data` of an item of each value,
    /// in enum order (empty when the enum declares none).
    pub content: Vec<(String, String)>,
}

/// A named `{}`: any JSON value, under a name of its own.
#[derive(Debug)]
pub struct JsonDef {
    pub name: String,
    pub description: String,
}

#[derive(Debug)]
pub struct EnumValue {
    pub value: String,
    /// From `x-enumDescriptions`, when the value has one.
    pub description: Option<String>,
}

#[derive(Debug)]
pub struct ObjectDef {
    pub name: String,
    pub description: String,
    /// In schema order (the JSON output order).
    pub properties: Vec<Property>,
}

#[derive(Debug)]
pub struct Property {
    /// The JSON key (camelCase).
    pub name: String,
    pub description: String,
    pub required: bool,
    pub ty: PropType,
}

/// The shapes a property may have (README "Objects").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropType {
    /// `{"$ref": "#/$defs/Name"}` to an id, datetime, enum, json or object definition.
    Ref(String),
    String,
    Boolean,
    Integer,
    Number,
    /// `{}`: any JSON value (the spec's `unknown`).
    Unknown,
    /// `{"type": "object", "additionalProperties": {}}`: `Record<string, unknown>`.
    Record,
    /// `{"type": "array", "items": X}`.
    Array(Box<PropType>),
    /// `{"type": ["string", "null"]}`: the spec's `string | null`.
    NullableString,
}

#[derive(Debug)]
pub struct EventDef {
    /// `<Type>Event`.
    pub name: String,
    pub description: String,
    /// `x-eventType`, e.g. `session.started`.
    pub event_type: String,
    /// The payload object definition.
    pub payload: String,
    /// The description of the event's `type` property.
    pub type_description: String,
    /// The description of the event's `payload` property.
    pub payload_description: String,
}

#[derive(Debug)]
pub struct UnionDef {
    pub name: String,
    pub description: String,
}

impl Model {
    /// The kind of a definition, if the schema has it.
    pub fn kind_of(&self, name: &str) -> Option<Kind> {
        self.kinds.get(name).copied()
    }

    pub fn enum_def(&self, name: &str) -> Option<&EnumDef> {
        self.enums.iter().find(|def| def.name == name)
    }

    /// Whether a property shape is any JSON value: `{}`, or a `$ref` to an `x-kind: json`.
    pub fn is_untyped(&self, ty: &PropType) -> bool {
        match ty {
            PropType::Unknown => true,
            PropType::Ref(name) => self.kind_of(name) == Some(Kind::Json),
            _ => false,
        }
    }

    pub fn object(&self, name: &str) -> Option<&ObjectDef> {
        self.objects.iter().find(|def| def.name == name)
    }

    /// The enum whose `x-itemContent` types item content, when one declares it.
    pub fn item_content(&self) -> Option<&EnumDef> {
        self.enums.iter().find(|def| !def.content.is_empty())
    }

    /// The enum of event types (checked to exist and to equal the union's types, in order).
    pub fn event_type_enum(&self) -> &EnumDef {
        self.enum_def(EVENT_TYPE_ENUM).expect("checked by load")
    }

    /// The object definitions ordered so that each comes after every object it uses (schema order
    /// otherwise); checked acyclic by `load`.
    pub fn objects_in_dependency_order(&self) -> Vec<&ObjectDef> {
        let mut done = BTreeSet::new();
        let mut ordered = Vec::new();
        for object in &self.objects {
            self.visit_object(object, &mut done, &mut ordered);
        }
        ordered
    }

    fn visit_object<'a>(&'a self, object: &'a ObjectDef, done: &mut BTreeSet<&'a str>, out: &mut Vec<&'a ObjectDef>) {
        if !done.insert(&object.name) {
            return;
        }
        for property in &object.properties {
            if let Some(target) = property.ty.referenced().and_then(|name| self.object(name)) {
                self.visit_object(target, done, out);
            }
        }
        out.push(object);
    }
}

impl PropType {
    /// The definition this shape refers to, directly or as array items.
    pub fn referenced(&self) -> Option<&str> {
        match self {
            Self::Ref(name) => Some(name),
            Self::Array(items) => items.referenced(),
            _ => None,
        }
    }
}

/// Reads and checks the canonical schema as it is on disk (the generators' tests).
#[cfg(test)]
pub fn load(root: &std::path::Path) -> Result<Model> {
    let path = root.join(SCHEMA_PATH);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    parse(&text)
}

/// Checks the canonical schema's text and builds the model.
pub fn parse(text: &str) -> Result<Model> {
    let schema: Value = serde_json::from_str(text).with_context(|| format!("parsing {SCHEMA_PATH}"))?;
    from_value(&schema).with_context(|| format!("{SCHEMA_PATH} breaks the conventions of schemas/canonical/README.md"))
}

/// Checks a parsed schema and builds the model.
pub fn from_value(schema: &Value) -> Result<Model> {
    let root = schema.as_object().context("the root is not an object")?;
    check_keys("the root", root, &["$schema", "$id", "$ref", "$defs"])?;
    match root.get("$schema").and_then(Value::as_str) {
        Some(DRAFT_2020_12) => {}
        other => bail!("the root: `$schema` must be {DRAFT_2020_12:?}, found {other:?}"),
    }
    let defs = root
        .get("$defs")
        .and_then(Value::as_object)
        .context("the root has no `$defs` object")?;
    let root_ref = root.get("$ref").context("the root has no `$ref` to the union")?;
    let root_target = ref_target(root_ref).context("the root's `$ref`")?;

    // First pass: the kind of every definition, so references can be checked against it.
    let mut kinds = BTreeMap::new();
    for (name, def) in defs {
        let def = def
            .as_object()
            .with_context(|| format!("definition {name}: not an object"))?;
        check_type_name(name).with_context(|| format!("definition {name}"))?;
        let kind = def.get("x-kind").and_then(Value::as_str).with_context(|| {
            format!("definition {name}: no `x-kind` (one of id, datetime, enum, json, object, envelope, event, union)")
        })?;
        let kind = Kind::parse(kind).with_context(|| {
            format!(
                "definition {name}: unknown `x-kind` {kind:?} (one of id, datetime, enum, json, object, envelope, event, union)"
            )
        })?;
        kinds.insert(name.clone(), kind);
    }

    let mut ids = Vec::new();
    let mut datetimes = Vec::new();
    let mut enums = Vec::new();
    let mut jsons = Vec::new();
    let mut objects = Vec::new();
    let mut envelopes = Vec::new();
    let mut events = BTreeMap::new();
    let mut unions = Vec::new();
    for (name, def) in defs {
        let def = def.as_object().expect("checked above");
        let context = || format!("definition {name}");
        let description = read_description(def).with_context(context)?;
        match kinds[name] {
            Kind::Id => {
                check_id(def).with_context(context)?;
                ids.push(IdDef {
                    name: name.clone(),
                    description,
                });
            }
            Kind::DateTime => {
                check_datetime(def).with_context(context)?;
                datetimes.push(DateTimeDef {
                    name: name.clone(),
                    description,
                });
            }
            Kind::Enum => {
                let def = enum_def(name, description, def).with_context(context)?;
                let subsets = enum_subsets(&def, defs).with_context(context)?;
                enums.push(def);
                enums.extend(subsets);
            }
            Kind::Json => {
                check_keys("a json definition", def, &["x-kind"])
                    .context(
                        "an `x-kind: json` is any JSON value: it carries no shape keys (give a shaped value an \
                     `x-kind: object`)",
                    )
                    .with_context(context)?;
                jsons.push(JsonDef {
                    name: name.clone(),
                    description,
                });
            }
            Kind::Object => objects.push(object_def(name, description, def, &kinds, true).with_context(context)?),
            Kind::Envelope => envelopes.push(object_def(name, description, def, &kinds, false).with_context(context)?),
            Kind::Event => {
                events.insert(name.clone(), def);
            }
            Kind::Union => unions.push((name.clone(), description, def)),
        }
    }

    let mut enum_names = BTreeSet::new();
    if let Some(def) = enums.iter().find(|def| !enum_names.insert(def.name.as_str())) {
        bail!("`x-enumSubsets` of two enums both declare {}", def.name);
    }

    let envelope = match <[ObjectDef; 1]>::try_from(envelopes) {
        Ok([envelope]) => envelope,
        Err(found) => bail!(
            "expected exactly one `x-kind: envelope` definition, found {}",
            found.iter().map(|def| def.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
    };
    for reserved in ["type", "payload"] {
        if envelope.properties.iter().any(|property| property.name == reserved) {
            bail!(
                "definition {}: the envelope must not declare `{reserved}` (each event does)",
                envelope.name
            );
        }
    }

    let [(union_name, union_description, union_def)] = <[_; 1]>::try_from(unions).map_err(|found| {
        anyhow::anyhow!(
            "expected exactly one `x-kind: union` definition, found {}",
            found
                .iter()
                .map(|(name, _, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    if root_target != union_name {
        bail!("the root's `$ref` must point at the union {union_name}, not {root_target}");
    }

    // The union lists every event once; events are checked in union order.
    check_keys(&format!("definition {union_name}"), union_def, &["x-kind", "oneOf"])?;
    let members = union_def
        .get("oneOf")
        .and_then(Value::as_array)
        .with_context(|| format!("definition {union_name}: no `oneOf` array"))?;
    let mut ordered_events = Vec::new();
    for (index, member) in members.iter().enumerate() {
        let context = || format!("definition {union_name}, oneOf[{index}]");
        let member = member.as_object().with_context(context)?;
        check_keys(&context(), member, &["$ref"])?;
        let target = ref_target(&member["$ref"]).with_context(context)?;
        let def = events.remove(target).with_context(|| {
            format!(
                "{}: {target} is not an `x-kind: event` definition (or is listed twice)",
                context()
            )
        })?;
        ordered_events
            .push(event_def(target, def, &envelope.name, &kinds).with_context(|| format!("definition {target}"))?);
    }
    if let Some(name) = events.keys().next() {
        bail!("definition {name}: an event the union {union_name} does not list");
    }
    let mut seen_types = BTreeSet::new();
    for event in &ordered_events {
        if !seen_types.insert(event.event_type.as_str()) {
            bail!(
                "definition {}: event type {:?} is used by two events",
                event.name,
                event.event_type
            );
        }
    }

    let model = Model {
        description: read_description(root).context("the root")?,
        ids,
        datetimes,
        enums,
        jsons,
        objects,
        envelope,
        events: ordered_events,
        union: UnionDef {
            name: union_name,
            description: union_description,
        },
        kinds,
    };
    check_event_type_enum(&model)?;
    check_objects_acyclic(&model)?;
    check_item_content(&model)?;
    Ok(model)
}

/// Every `x-itemContent` target is an object definition, used by one value only, and at most one
/// enum declares the table.
fn check_item_content(model: &Model) -> Result<()> {
    let declaring: Vec<&EnumDef> = model.enums.iter().filter(|def| !def.content.is_empty()).collect();
    if declaring.len() > 1 {
        bail!(
            "`x-itemContent` is declared by {} and {}: one enum types item content",
            declaring[0].name,
            declaring[1].name
        );
    }
    for def in declaring {
        let mut seen = BTreeSet::new();
        for (value, target) in &def.content {
            if model.kind_of(target) != Some(Kind::Object) {
                bail!(
                    "definition {}: `x-itemContent` of {value:?} names {target}, which is not an `x-kind: object` definition",
                    def.name
                );
            }
            if !seen.insert(target.as_str()) {
                bail!(
                    "definition {}: `x-itemContent` names {target} for two values (each value gets a type of its own)",
                    def.name
                );
            }
        }
    }
    Ok(())
}

fn check_event_type_enum(model: &Model) -> Result<()> {
    let def = model
        .enum_def(EVENT_TYPE_ENUM)
        .with_context(|| format!("no `x-kind: enum` definition {EVENT_TYPE_ENUM} (the event types of spec 1.2)"))?;
    let enum_types: Vec<&str> = def.values.iter().map(|value| value.value.as_str()).collect();
    let union_types: Vec<&str> = model.events.iter().map(|event| event.event_type.as_str()).collect();
    if enum_types != union_types {
        let only_enum: Vec<_> = enum_types.iter().filter(|value| !union_types.contains(value)).collect();
        let only_union: Vec<_> = union_types.iter().filter(|value| !enum_types.contains(value)).collect();
        bail!(
            "definition {EVENT_TYPE_ENUM}: its values must equal the event types of {} in the same order \
             (only in the enum: {only_enum:?}; only in the union: {only_union:?}; same sets means the order differs)",
            model.union.name
        );
    }
    Ok(())
}

/// Objects may nest objects but not recursively (TypeScript consts must be defined before use and
/// Rust structs would need boxing).
fn check_objects_acyclic(model: &Model) -> Result<()> {
    fn visit<'a>(model: &'a Model, name: &'a str, path: &mut Vec<&'a str>, done: &mut BTreeSet<&'a str>) -> Result<()> {
        if let Some(start) = path.iter().position(|seen| *seen == name) {
            bail!(
                "definition {name}: objects refer to each other in a cycle ({} -> {name})",
                path[start..].join(" -> ")
            );
        }
        if done.contains(name) {
            return Ok(());
        }
        let object = if name == model.envelope.name {
            &model.envelope
        } else {
            model.object(name).expect("an object")
        };
        path.push(name);
        for property in &object.properties {
            if let Some(target) = property.ty.referenced()
                && matches!(model.kind_of(target), Some(Kind::Object))
            {
                visit(model, target, path, done)?;
            }
        }
        path.pop();
        done.insert(name);
        Ok(())
    }
    let mut done = BTreeSet::new();
    for object in model.objects.iter().chain([&model.envelope]) {
        visit(model, &object.name, &mut Vec::new(), &mut done)?;
    }
    Ok(())
}

fn check_type_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_uppercase()) || !chars.all(|c| c.is_ascii_alphanumeric()) {
        bail!("the name must be PascalCase ASCII letters and digits (it names a Rust and a TypeScript type)");
    }
    Ok(())
}

fn check_property_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_lowercase()) || !chars.all(|c| c.is_ascii_alphanumeric()) {
        bail!("the property name must be camelCase ASCII letters and digits");
    }
    Ok(())
}

/// Fails on any key outside `allowed` and the documentation keys.
fn check_keys(context: &str, node: &Map<String, Value>, allowed: &[&str]) -> Result<()> {
    for key in node.keys() {
        if !allowed.contains(&key.as_str()) && !DOC_KEYS.contains(&key.as_str()) {
            bail!(
                "{context}: unexpected key `{key}` (allowed here: {})",
                allowed.join(", ")
            );
        }
    }
    Ok(())
}

/// The required, non-empty `description`.
fn read_description(node: &Map<String, Value>) -> Result<String> {
    match node.get("description") {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
        Some(_) => bail!("`description` must be a non-empty string"),
        None => bail!("no `description` (every definition and property needs one)"),
    }
}

/// `#/$defs/Name` -> `Name`.
fn ref_target(value: &Value) -> Result<&str> {
    let text = value.as_str().context("`$ref` is not a string")?;
    text.strip_prefix("#/$defs/")
        .filter(|name| !name.is_empty() && !name.contains('/'))
        .with_context(|| format!("`$ref` {text:?} is not of the form `#/$defs/Name`"))
}

fn expect_value(node: &Map<String, Value>, key: &str, expected: &Value) -> Result<()> {
    match node.get(key) {
        Some(found) if found == expected => Ok(()),
        Some(found) => bail!("`{key}` must be {expected}, found {found}"),
        None => bail!("`{key}` must be {expected}, but it is missing"),
    }
}

fn check_id(def: &Map<String, Value>) -> Result<()> {
    check_keys("an id", def, &["x-kind", "type", "minLength", "pattern"])?;
    expect_value(def, "type", &Value::from("string"))?;
    expect_value(def, "minLength", &Value::from(1))?;
    expect_value(def, "pattern", &Value::from(ID_PATTERN))
}

fn check_datetime(def: &Map<String, Value>) -> Result<()> {
    check_keys("a date-time", def, &["x-kind", "type", "format"])?;
    expect_value(def, "type", &Value::from("string"))?;
    expect_value(def, "format", &Value::from("date-time"))
}

fn enum_def(name: &str, description: String, def: &Map<String, Value>) -> Result<EnumDef> {
    check_keys(
        "an enum",
        def,
        &[
            "x-kind",
            "type",
            "enum",
            "x-enumDescriptions",
            "x-enumSubsets",
            "x-itemContent",
        ],
    )?;
    expect_value(def, "type", &Value::from("string"))?;
    let raw_values = def
        .get("enum")
        .and_then(Value::as_array)
        .context("`enum` must be an array of strings")?;
    if raw_values.is_empty() {
        bail!("`enum` must not be empty");
    }
    let descriptions = match def.get("x-enumDescriptions") {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => bail!("`x-enumDescriptions` must be an object of value -> description"),
    };
    let mut values = Vec::new();
    let mut variants = BTreeMap::new();
    for raw in raw_values {
        let value = raw
            .as_str()
            .with_context(|| format!("`enum` value {raw} is not a string"))?;
        let variant = pascal_case(value);
        if !variant.starts_with(|c: char| c.is_ascii_uppercase()) {
            bail!("enum value {value:?} does not start with a letter (it names a Rust variant)");
        }
        if let Some(other) = variants.insert(variant.clone(), value) {
            bail!("enum values {other:?} and {value:?} both become the Rust variant {variant}");
        }
        let description = match descriptions.get(value) {
            None => None,
            Some(Value::String(text)) if !text.trim().is_empty() => Some(text.clone()),
            Some(_) => bail!("`x-enumDescriptions` of {value:?} must be a non-empty string"),
        };
        values.push(EnumValue {
            value: value.to_owned(),
            description,
        });
    }
    if let Some(key) = descriptions
        .keys()
        .find(|key| !values.iter().any(|value| value.value == **key))
    {
        bail!("`x-enumDescriptions` describes {key:?}, which is not in `enum`");
    }
    let content = item_content(&values, def.get("x-itemContent"))?;
    Ok(EnumDef {
        name: name.to_owned(),
        description,
        values,
        subset_of: None,
        content,
    })
}

/// An enum's `x-itemContent`: `{"value": "ObjectName"}` for every value, read in enum order (that
/// each name is an object definition is checked once every definition is known).
fn item_content(values: &[EnumValue], declared: Option<&Value>) -> Result<Vec<(String, String)>> {
    let Some(declared) = declared else {
        return Ok(Vec::new());
    };
    let declared = declared
        .as_object()
        .context("`x-itemContent` must be an object of value -> object definition name")?;
    if let Some(key) = declared
        .keys()
        .find(|key| !values.iter().any(|value| value.value == **key))
    {
        bail!("`x-itemContent` names {key:?}, which is not in `enum`");
    }
    values
        .iter()
        .map(|value| {
            let target = declared
                .get(&value.value)
                .and_then(Value::as_str)
                .with_context(|| format!("`x-itemContent` gives no object definition name for {:?}", value.value))?;
            Ok((value.value.clone(), target.to_owned()))
        })
        .collect()
}

/// The subsets an enum's `x-enumSubsets` declares: `{"Name": {"description": ..., "enum": [...]}}`,
/// each a non-empty list of the enum's values in the enum's order, named like no definition.
/// A value keeps its description from the enum.
fn enum_subsets(parent: &EnumDef, defs: &Map<String, Value>) -> Result<Vec<EnumDef>> {
    let Some(declared) = defs[&parent.name].get("x-enumSubsets") else {
        return Ok(Vec::new());
    };
    let declared = declared
        .as_object()
        .context("`x-enumSubsets` must be an object of subset name -> {description, enum}")?;
    let mut subsets = Vec::new();
    for (name, subset) in declared {
        let context = || format!("`x-enumSubsets` {name}");
        check_type_name(name).with_context(context)?;
        if defs.contains_key(name) {
            bail!("{}: a definition has that name", context());
        }
        let subset = subset
            .as_object()
            .with_context(|| format!("{}: not an object", context()))?;
        check_keys(&context(), subset, &["enum"])?;
        let description = read_description(subset).with_context(context)?;
        let raw_values = subset
            .get("enum")
            .and_then(Value::as_array)
            .filter(|values| !values.is_empty())
            .with_context(|| format!("{}: `enum` must be a non-empty array of strings", context()))?;
        let mut positions = Vec::new();
        for raw in raw_values {
            let value = raw
                .as_str()
                .with_context(|| format!("{}: `enum` value {raw} is not a string", context()))?;
            let position = parent
                .values
                .iter()
                .position(|known| known.value == value)
                .with_context(|| format!("{}: {value:?} is not a value of {}", context(), parent.name))?;
            if positions.last().is_some_and(|last| *last >= position) {
                bail!(
                    "{}: {value:?} is listed twice or out of {}'s order",
                    context(),
                    parent.name
                );
            }
            positions.push(position);
        }
        subsets.push(EnumDef {
            name: name.clone(),
            description,
            values: positions
                .into_iter()
                .map(|position| EnumValue {
                    value: parent.values[position].value.clone(),
                    description: parent.values[position].description.clone(),
                })
                .collect(),
            subset_of: Some(parent.name.clone()),
            content: Vec::new(),
        });
    }
    Ok(subsets)
}

/// An `x-kind: object` (`closed`: `additionalProperties: false`) or the envelope (open, because
/// each event extends it through `allOf` and closes itself with `unevaluatedProperties: false`;
/// `additionalProperties: false` there would reject every event's `type` and `payload`).
fn object_def(
    name: &str,
    description: String,
    def: &Map<String, Value>,
    kinds: &BTreeMap<String, Kind>,
    closed: bool,
) -> Result<ObjectDef> {
    if closed {
        check_keys(
            "an object",
            def,
            &["x-kind", "type", "properties", "required", "additionalProperties"],
        )?;
        expect_value(def, "additionalProperties", &Value::Bool(false))?;
    } else {
        check_keys("the envelope", def, &["x-kind", "type", "properties", "required"]).context(
            "the envelope must stay open (no `additionalProperties`): each event extends it with `allOf` and \
             closes itself with `unevaluatedProperties: false`",
        )?;
    }
    expect_value(def, "type", &Value::from("object"))?;
    let properties = def
        .get("properties")
        .and_then(Value::as_object)
        .context("`properties` must be an object")?;
    let required = match def.get("required") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .with_context(|| format!("`required` item {item} is not a string"))
            })
            .collect::<Result<Vec<_>>>()?,
        Some(_) => bail!("`required` must be an array of property names"),
    };
    let mut seen = BTreeSet::new();
    for key in &required {
        if !seen.insert(key) {
            bail!("`required` lists {key:?} twice");
        }
        if !properties.contains_key(key) {
            bail!("`required` lists {key:?}, which is not in `properties`");
        }
    }
    let mut snake_names = BTreeMap::new();
    let mut fields = Vec::new();
    for (key, schema) in properties {
        let context = || format!("property {key}");
        check_property_name(key).with_context(context)?;
        if let Some(other) = snake_names.insert(heck::AsSnakeCase(key).to_string(), key) {
            bail!("properties {other} and {key} have the same snake_case name");
        }
        let schema = schema
            .as_object()
            .with_context(|| format!("{}: not an object", context()))?;
        let description = read_description(schema).with_context(context)?;
        let ty = prop_type(schema, kinds, true).with_context(context)?;
        fields.push(Property {
            name: key.clone(),
            description,
            required: required.contains(key),
            ty,
        });
    }
    Ok(ObjectDef {
        name: name.to_owned(),
        description,
        properties: fields,
    })
}

/// One of the property shapes of the README (`top`: a property, else array items, which may not
/// be arrays or nullable themselves).
fn prop_type(schema: &Map<String, Value>, kinds: &BTreeMap<String, Kind>, top: bool) -> Result<PropType> {
    const SHAPES: &str = "a `$ref`, `{\"type\": \"string\" | \"boolean\" | \"integer\" | \"number\"}`, `{}`, \
                          `{\"type\": \"object\", \"additionalProperties\": {}}`, `{\"type\": \"array\", \"items\": X}` \
                          or `{\"type\": [\"string\", \"null\"]}`";
    if let Some(reference) = schema.get("$ref") {
        check_keys("a `$ref` property", schema, &["$ref"])?;
        let target = ref_target(reference)?;
        return match kinds.get(target) {
            Some(Kind::Id | Kind::DateTime | Kind::Enum | Kind::Json | Kind::Object) => {
                Ok(PropType::Ref(target.to_owned()))
            }
            Some(kind) => bail!(
                "`$ref` to {target}, a {kind:?} definition (properties may refer to ids, date-times, enums, jsons \
                 and objects)"
            ),
            None => bail!("`$ref` to {target}, which is not defined"),
        };
    }
    let Some(ty) = schema.get("type") else {
        check_keys("an untyped (`{}`) property", schema, &[]).with_context(|| format!("expected {SHAPES}"))?;
        return Ok(PropType::Unknown);
    };
    let simple = |ty: PropType| -> Result<PropType> {
        check_keys("a scalar property", schema, &["type"]).with_context(|| format!("expected {SHAPES}"))?;
        Ok(ty)
    };
    match ty {
        Value::String(name) => match name.as_str() {
            "string" => simple(PropType::String),
            "boolean" => simple(PropType::Boolean),
            "integer" => simple(PropType::Integer),
            "number" => simple(PropType::Number),
            "object" => {
                check_keys("a record property", schema, &["type", "additionalProperties"])?;
                match schema.get("additionalProperties") {
                    Some(Value::Object(map)) if map.is_empty() => Ok(PropType::Record),
                    _ => bail!(
                        "an inline object must be exactly `{{\"type\": \"object\", \"additionalProperties\": {{}}}}` \
                         (a Record<string, unknown>); give a structured object its own `x-kind: object` definition"
                    ),
                }
            }
            "array" if top => {
                check_keys("an array property", schema, &["type", "items"])?;
                let items = schema
                    .get("items")
                    .and_then(Value::as_object)
                    .context("`items` must be a schema object")?;
                let item = prop_type(items, kinds, false).context("items")?;
                Ok(PropType::Array(Box::new(item)))
            }
            "array" => bail!("arrays of arrays are not one of the README's shapes"),
            other => bail!("unsupported `type` {other:?}; expected {SHAPES}"),
        },
        Value::Array(types) if top && types.len() == 2 && types[0] == "string" && types[1] == "null" => {
            simple(PropType::NullableString)
        }
        other => {
            bail!("unsupported `type` {other}; expected {SHAPES} (only a property may be `[\"string\", \"null\"]`)")
        }
    }
}

fn event_def(name: &str, def: &Map<String, Value>, envelope: &str, kinds: &BTreeMap<String, Kind>) -> Result<EventDef> {
    check_keys(
        "an event",
        def,
        &[
            "x-kind",
            "type",
            "x-eventType",
            "allOf",
            "properties",
            "required",
            "unevaluatedProperties",
        ],
    )?;
    let description = read_description(def)?;
    expect_value(def, "type", &Value::from("object"))?;
    expect_value(def, "unevaluatedProperties", &Value::Bool(false))?;
    expect_value(
        def,
        "allOf",
        &serde_json::json!([{ "$ref": format!("#/$defs/{envelope}") }]),
    )?;
    let event_type = def
        .get("x-eventType")
        .and_then(Value::as_str)
        .context("no `x-eventType` string")?;
    if event_type.is_empty() || event_type.starts_with(|c: char| !c.is_ascii_lowercase()) {
        bail!("`x-eventType` {event_type:?} must start with a lower-case letter");
    }
    let pascal = pascal_case(event_type);
    if name != format!("{pascal}Event") {
        bail!("an event of type {event_type:?} must be named {pascal}Event");
    }
    let required: BTreeSet<&str> = def
        .get("required")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if required != BTreeSet::from(["type", "payload"]) || def["required"].as_array().is_none_or(|a| a.len() != 2) {
        bail!("`required` must be [\"type\", \"payload\"]");
    }
    let properties = def
        .get("properties")
        .and_then(Value::as_object)
        .context("`properties` must be an object")?;
    if let Some(key) = properties.keys().find(|key| *key != "type" && *key != "payload") {
        bail!("property {key}: an event declares only `type` and `payload` (envelope fields go in {envelope})");
    }

    let type_schema = properties
        .get("type")
        .and_then(Value::as_object)
        .context("property type: missing or not an object")?;
    check_keys("property type", type_schema, &["const"])?;
    let type_description = read_description(type_schema).context("property type")?;
    if type_schema.get("const").and_then(Value::as_str) != Some(event_type) {
        bail!("property type: `const` must equal `x-eventType` {event_type:?}");
    }

    let payload_schema = properties
        .get("payload")
        .and_then(Value::as_object)
        .context("property payload: missing or not an object")?;
    check_keys("property payload", payload_schema, &["$ref"])?;
    let payload_description = read_description(payload_schema).context("property payload")?;
    let payload = ref_target(payload_schema.get("$ref").context("property payload: no `$ref`")?)
        .context("property payload")?
        .to_owned();
    let expected = if ITEM_LIFECYCLE_EVENTS.contains(&event_type) {
        ITEM_LIFECYCLE_PAYLOAD.to_owned()
    } else {
        format!("{pascal}Payload")
    };
    if payload != expected {
        bail!("property payload: an event of type {event_type:?} must carry {expected}, not {payload}");
    }
    if kinds.get(&payload) != Some(&Kind::Object) {
        bail!("property payload: {payload} is not an `x-kind: object` definition");
    }
    Ok(EventDef {
        name: name.to_owned(),
        description,
        event_type: event_type.to_owned(),
        payload,
        type_description,
        payload_description,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A small schema with every kind and every property shape.
    pub(crate) fn sample() -> Value {
        json!({
            "$schema": DRAFT_2020_12,
            "description": "Sample.",
            "$ref": "#/$defs/ProviderRuntimeEventV2",
            "$defs": {
                "EventId": { "x-kind": "id", "description": "An event id.", "type": "string", "minLength": 1, "pattern": ID_PATTERN },
                "IsoDateTime": { "x-kind": "datetime", "description": "A time.", "type": "string", "format": "date-time" },
                "Color": { "x-kind": "enum", "description": "A color.", "type": "string", "enum": ["dark_red", "inProgress", "blue"],
                           "x-enumDescriptions": { "inProgress": "Being painted." },
                           "x-enumSubsets": { "Warm": { "description": "Warm colors.", "enum": ["dark_red", "inProgress"] } } },
                "Report": { "x-kind": "json", "description": "A report as sent." },
                "CanonicalRuntimeEventType": { "x-kind": "enum", "description": "Types.", "type": "string", "enum": ["a.b", "item.started"] },
                "Step": { "x-kind": "object", "description": "A step.", "type": "object",
                          "properties": { "name": { "type": "string", "description": "Name." } },
                          "required": ["name"], "additionalProperties": false },
                "ABPayload": { "x-kind": "object", "description": "Payload.", "type": "object",
                    "properties": {
                        "color": { "$ref": "#/$defs/Color", "description": "C." },
                        "flag": { "type": "boolean", "description": "F." },
                        "count": { "type": "integer", "description": "N." },
                        "ratio": { "type": "number", "description": "R." },
                        "any": { "description": "U." },
                        "report": { "$ref": "#/$defs/Report", "description": "R." },
                        "record": { "type": "object", "additionalProperties": {}, "description": "M." },
                        "steps": { "type": "array", "items": { "$ref": "#/$defs/Step" }, "description": "S." },
                        "note": { "type": ["string", "null"], "description": "N." }
                    },
                    "required": ["color"], "additionalProperties": false },
                "ItemLifecyclePayload": { "x-kind": "object", "description": "Item.", "type": "object",
                    "properties": {}, "required": [], "additionalProperties": false },
                "RuntimeEventBase": { "x-kind": "envelope", "description": "Base.", "type": "object",
                    "properties": {
                        "eventId": { "$ref": "#/$defs/EventId", "description": "Id." },
                        "createdAt": { "$ref": "#/$defs/IsoDateTime", "description": "At." }
                    },
                    "required": ["eventId"] },
                "ABEvent": { "x-kind": "event", "description": "AB.", "type": "object", "x-eventType": "a.b",
                    "allOf": [{ "$ref": "#/$defs/RuntimeEventBase" }],
                    "properties": { "type": { "const": "a.b", "description": "T." }, "payload": { "$ref": "#/$defs/ABPayload", "description": "P." } },
                    "required": ["type", "payload"], "unevaluatedProperties": false },
                "ItemStartedEvent": { "x-kind": "event", "description": "Started.", "type": "object", "x-eventType": "item.started",
                    "allOf": [{ "$ref": "#/$defs/RuntimeEventBase" }],
                    "properties": { "type": { "const": "item.started", "description": "T." }, "payload": { "$ref": "#/$defs/ItemLifecyclePayload", "description": "P." } },
                    "required": ["type", "payload"], "unevaluatedProperties": false },
                "ProviderRuntimeEventV2": { "x-kind": "union", "description": "U.",
                    "oneOf": [{ "$ref": "#/$defs/ABEvent" }, { "$ref": "#/$defs/ItemStartedEvent" }] }
            }
        })
    }

    fn error_of(schema: &Value) -> String {
        format!("{:#}", from_value(schema).expect_err("the schema should be rejected"))
    }

    #[test]
    fn sample_loads_in_schema_order() {
        let model = from_value(&sample()).unwrap();
        assert_eq!(
            model.enums.iter().map(|def| def.name.as_str()).collect::<Vec<_>>(),
            ["Color", "Warm", EVENT_TYPE_ENUM]
        );
        let warm = model.enum_def("Warm").unwrap();
        assert_eq!(warm.subset_of.as_deref(), Some("Color"));
        assert_eq!(warm.values[1].description.as_deref(), Some("Being painted."));
        assert_eq!(model.jsons[0].name, "Report");
        let payload = model.object("ABPayload").unwrap();
        let names: Vec<_> = payload.properties.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "color", "flag", "count", "ratio", "any", "report", "record", "steps", "note"
            ]
        );
        assert!(model.is_untyped(&payload.properties[4].ty) && model.is_untyped(&payload.properties[5].ty));
        assert!(!model.is_untyped(&payload.properties[0].ty));
        assert_eq!(
            payload.properties[7].ty,
            PropType::Array(Box::new(PropType::Ref("Step".into())))
        );
        assert_eq!(payload.properties[8].ty, PropType::NullableString);
        assert!(payload.properties[0].required && !payload.properties[1].required);
        assert_eq!(model.events[1].payload, "ItemLifecyclePayload");
        let order: Vec<_> = model
            .objects_in_dependency_order()
            .iter()
            .map(|def| def.name.as_str())
            .collect();
        assert_eq!(order, ["Step", "ABPayload", "ItemLifecyclePayload"]);
    }

    #[test]
    fn pascal_case_of_values() {
        assert_eq!(pascal_case("assistant_text"), "AssistantText");
        assert_eq!(pascal_case("inProgress"), "InProgress");
        assert_eq!(pascal_case("claudeAgent"), "ClaudeAgent");
        assert_eq!(
            pascal_case("codex.app-server.notification"),
            "CodexAppServerNotification"
        );
        assert_eq!(pascal_case("thread.token-usage.updated"), "ThreadTokenUsageUpdated");
    }

    #[test]
    fn violations_name_the_definition_and_property() {
        let mut schema = sample();
        schema["$defs"]["ABPayload"]["properties"]["count"]["minimum"] = json!(0);
        let error = error_of(&schema);
        assert!(
            error.contains("definition ABPayload") && error.contains("property count") && error.contains("minimum"),
            "{error}"
        );

        let mut schema = sample();
        schema["$defs"]["Step"]["properties"]["name"]
            .as_object_mut()
            .unwrap()
            .remove("description");
        let error = error_of(&schema);
        assert!(
            error.contains("definition Step") && error.contains("property name"),
            "{error}"
        );

        let mut schema = sample();
        schema["$defs"]["RuntimeEventBase"]["additionalProperties"] = json!(false);
        assert!(error_of(&schema).contains("definition RuntimeEventBase"));

        let mut schema = sample();
        schema["$defs"]["ABEvent"]["properties"]["payload"]["$ref"] = json!("#/$defs/Step");
        let error = error_of(&schema);
        assert!(
            error.contains("definition ABEvent") && error.contains("ABPayload"),
            "{error}"
        );

        let mut schema = sample();
        schema["$defs"][EVENT_TYPE_ENUM]["enum"] = json!(["item.started", "a.b"]);
        assert!(error_of(&schema).contains(EVENT_TYPE_ENUM));

        let mut schema = sample();
        schema["$defs"]["Step"]["properties"]["name"] =
            json!({ "type": "object", "properties": {}, "description": "x" });
        let error = error_of(&schema);
        assert!(
            error.contains("definition Step") && error.contains("property name"),
            "{error}"
        );

        let mut schema = sample();
        schema["$defs"]["Step"]["properties"]["next"] = json!({ "$ref": "#/$defs/Step", "description": "x" });
        assert!(error_of(&schema).contains("cycle"));

        let mut schema = sample();
        schema["$defs"]["Color"]["x-enumDescriptions"]["green"] = json!("Green.");
        let error = error_of(&schema);
        assert!(error.contains("definition Color") && error.contains("green"), "{error}");
    }

    #[test]
    fn bad_subsets_and_jsons_are_rejected() {
        for (subset, expected) in [
            (json!(["blue", "dark_red"]), "out of Color's order"),
            (json!(["dark_red", "dark_red"]), "listed twice"),
            (json!(["green"]), "not a value of Color"),
            (json!([]), "non-empty"),
        ] {
            let mut schema = sample();
            schema["$defs"]["Color"]["x-enumSubsets"]["Warm"]["enum"] = subset;
            let error = error_of(&schema);
            assert!(
                error.contains("definition Color") && error.contains("Warm") && error.contains(expected),
                "{error}"
            );
        }
        let mut schema = sample();
        schema["$defs"]["Color"]["x-enumSubsets"]["Step"] = json!({ "description": "S.", "enum": ["blue"] });
        assert!(error_of(&schema).contains("a definition has that name"));
        let mut schema = sample();
        schema["$defs"]["Report"]["type"] = json!("object");
        let error = error_of(&schema);
        assert!(
            error.contains("definition Report") && error.contains("`type`"),
            "{error}"
        );
    }
}
