//! The canonical model -> `generated/canonical/` (crate `agentwire-canonical`).
//!
//! A direct emitter (quote + prettyplease): validating newtypes for ids and date-times, plain
//! string enums, structs in schema order, the `RuntimeEvent` enum (one variant per event type)
//! and `ProviderRuntimeEvent`, whose `Serialize` writes the wire order of the schema.
//!
//! `Serialize` is derived (except for `ProviderRuntimeEvent`); every `Deserialize` is written out
//! as a map visitor, so decoding accepts exactly what the schema accepts: a JSON object only
//! (serde's derive would also take the sequence form of a struct, and `{"variant": null}` for an
//! enum), no unknown or repeated keys, and an optional field absent or of its type (`null` only
//! where the type admits it). `ProviderRuntimeEvent` decodes envelope-first: the envelope and
//! `type` are read while the payload is kept as a `RawValue`, then the payload is decoded as the
//! type `type` names.

use std::path::Path;

use anyhow::{Result, bail};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::canonical_model::{EnumDef, JsonDef, Model, ObjectDef, PropType, Property, SCHEMA_PATH};
use super::docs::doc_lines as docs;
use super::names::{field_ident, pascal_case, type_ident};
use super::{GeneratedFile, rust_output};

const CRATE_DIR: &str = "generated/canonical";
const PACKAGE: &str = "agentwire-canonical";

/// Fields carried as `Box<RawValue>`, their JSON text kept byte for byte and never re-parsed:
/// the provider message, and a session's configuration, which is mostly members of a provider
/// message copied as sent (ACP's model and option lists, Claude's `init`): as text they are
/// copied, not parsed into maps to be written back. Each must be a required `{}` or object
/// property; an object one is checked to be an object when decoded.
const RAW_VALUE_FIELDS: &[(&str, &str)] = &[("RuntimeEventRaw", "payload"), ("SessionConfiguredPayload", "config")];

/// Envelope fields written after `type` and `payload` (the wire order of spec 1.1).
const TRAILING_ENVELOPE_FIELDS: &[&str] = &["raw"];

/// Inner attributes of the generated crate, written verbatim (prettyplease drops comments).
const CRATE_ATTRIBUTES: &str = "\
//! The canonical provider-runtime event model of section 1 of the provider-runtime V2 proposal,
//! generated from its JSON Schema.
//!
//! [`ProviderRuntimeEvent`] is one event of the canonical stream: the envelope (ids, provider,
//! time, provider refs, raw message) and a [`RuntimeEvent`], which pairs the event type with its
//! payload. Decoding is envelope-first: the `type` is read and the `payload` kept as raw JSON until
//! the type names its Rust payload, so an error says which payload failed and why. Ids and
//! date-times are validating newtypes; enums are closed (never `#[non_exhaustive]`).
//!
//! The same schema generates the TypeScript (Effect Schema) export, so both sides agree.
#![deny(warnings)]
// The allow list, with its reason: doc comments are the schema's prose (Markdown written for both
// Rust and TypeScript readers: backticks, brackets, URLs, lists), not checked rustdoc.
#![allow(rustdoc::bare_urls, rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]
#![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]
";

pub fn generate(model: &Model, schema_text: &str) -> Result<Vec<GeneratedFile>> {
    check_carried_fields(
        model,
        RAW_VALUE_FIELDS,
        "a RawValue",
        "a required `{}` or object",
        |property| property.required && matches!(property.ty, PropType::Unknown | PropType::Record),
    )?;
    check_carried_fields(
        model,
        JSON_FIELDS,
        "Json",
        "a `{}` property or a `$ref` to an `x-kind: json`",
        |property| model.is_untyped(&property.ty),
    )?;
    let ids = model.ids.iter().map(|def| {
        newtype(
            &def.name,
            &def.description,
            quote!(check_trimmed_non_empty),
            "a trimmed non-empty string",
        )
    });
    let datetimes = model.datetimes.iter().map(|def| {
        newtype(
            &def.name,
            &def.description,
            quote!(check_date_time),
            "an RFC 3339 date-time",
        )
    });
    let enums = model.enums.iter().map(|def| enumeration(model, def));
    let subsets = model
        .enums
        .iter()
        .filter_map(|def| Some((model.enum_def(def.subset_of.as_deref()?)?, def)))
        .map(|(parent, subset)| subset_conversions(parent, subset));
    let jsons = model
        .jsons
        .iter()
        .map(|def| json_alias(model, def))
        .collect::<Result<Vec<_>>>()?;
    let objects = model.objects.iter().map(object);
    let item_content = model.item_content().map(item_content);
    let runtime_event = runtime_event(model);
    let provider_runtime_event = provider_runtime_event(model)?;
    let tokens = quote! {
        use std::fmt;
        use std::sync::Arc;

        use serde::de::Error as _;
        use serde::ser::SerializeMap as _;
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        use crate::support::{
            InvalidValue, Json, RawObject, Str, WriteJson, check_date_time, check_trimmed_non_empty, next_field, write_key,
            write_str,
        };

        #(#ids)*
        #(#datetimes)*
        #(#enums)*
        #(#subsets)*
        #(#jsons)*
        #(#objects)*
        #item_content
        #runtime_event
        #provider_runtime_event
    };
    let file = rust_output::parse(CRATE_DIR, tokens)?;
    let crate_dir = Path::new(CRATE_DIR);
    let mut files = rust_output::crate_files(
        &rust_output::Crate {
            dir: crate_dir,
            package: PACKAGE,
            description: "The canonical provider-runtime event model (V2) shared by every agentwire source, generated from its JSON Schema.",
            source: SCHEMA_PATH,
            inner: CRATE_ATTRIBUTES,
            lib_items: LIB_ITEMS,
            protocol: false,
            dependencies: &[],
        },
        &file,
    );
    files.push(GeneratedFile {
        path: crate_dir.join("src/support.rs"),
        contents: SUPPORT.to_string(),
    });
    files.push(GeneratedFile {
        path: crate_dir.join(SCHEMA_COPY),
        contents: schema_text.to_string(),
    });
    Ok(files)
}

/// The crate's runtime support, a hand-written source file copied as it is.
const SUPPORT: &str = include_str!("canonical_support.rs");

/// Where the crate carries its copy of the schema, so it is publishable alone.
const SCHEMA_COPY: &str = "provider-runtime.schema.json";

/// `lib.rs` after the generated module: the support module and the schema text.
const LIB_ITEMS: &str = r#"
mod support;

pub use support::{InvalidValue, Json, WriteJson};

/// The canonical JSON Schema these types were generated from, as the text of
/// `schemas/canonical/provider-runtime.schema.json` (validators compile it; `x-eventType` names the
/// event definition of each `type`).
pub const SCHEMA_JSON: &str = include_str!("../provider-runtime.schema.json");
"#;

/// Checks that each listed field exists and has a shape its carrier can hold (`carrier` and
/// `shape` name them in the error).
fn check_carried_fields(
    model: &Model,
    fields: &[(&str, &str)],
    carrier: &str,
    shape: &str,
    fits: impl Fn(&Property) -> bool,
) -> Result<()> {
    for (object, field) in fields {
        let Some(def) = model.object(object) else {
            bail!("definition {object}: missing (the Rust generator carries its `{field}` as {carrier})");
        };
        match def.properties.iter().find(|property| property.name == *field) {
            Some(property) if fits(property) => {}
            _ => bail!("definition {object}, property {field}: must be {shape} (carried as {carrier})"),
        }
    }
    Ok(())
}

fn is_raw_value(object: &str, field: &str) -> bool {
    RAW_VALUE_FIELDS.contains(&(object, field))
}

/// Free-form fields carried as the support module's `Json`, a tree or the text a typed value was
/// serialized to: an item's `data` and the provider reports events carry as sent (rate
/// limits, account, MCP status), which the Codex sources write straight from the provider's typed
/// value instead of building a tree of it.
const JSON_FIELDS: &[(&str, &str)] = &[
    ("ItemLifecyclePayload", "data"),
    ("AccountRateLimitsUpdatedPayload", "rateLimits"),
    ("AccountUpdatedPayload", "account"),
    ("McpStatusUpdatedPayload", "status"),
];

/// The Rust type of a property of `object` (without the `Option` of an optional property). A
/// `$ref` to an `x-kind: json` is its alias, which is `Json` when it is one of [`JSON_FIELDS`].
fn property_type(object: &str, property: &Property) -> TokenStream {
    if property.ty == PropType::Unknown && JSON_FIELDS.contains(&(object, property.name.as_str())) {
        quote!(Json)
    } else {
        rust_type(&property.ty)
    }
}

/// The Rust type of a property shape (without the `Option` of an optional property).
fn rust_type(ty: &PropType) -> TokenStream {
    match ty {
        PropType::Ref(name) => {
            let ident = type_ident(name);
            quote!(#ident)
        }
        PropType::String => quote!(String),
        PropType::Boolean => quote!(bool),
        PropType::Integer => quote!(i64),
        PropType::Number => quote!(f64),
        PropType::Unknown => quote!(serde_json::Value),
        PropType::Record => quote!(serde_json::Map<String, serde_json::Value>),
        PropType::Array(items) => {
            let items = rust_type(items);
            quote!(Vec<#items>)
        }
        PropType::NullableString => quote!(Option<String>),
    }
}

/// The Rust type of a field: the property's type, in an `Option` when it is optional (so an
/// optional `string | null` is `Option<Option<String>>`, keeping absent and `null` apart).
fn field_type(object: &str, property: &Property) -> TokenStream {
    if is_raw_value(object, &property.name) {
        return quote!(Box<serde_json::value::RawValue>);
    }
    let ty = property_type(object, property);
    if property.required { ty } else { quote!(Option<#ty>) }
}

/// The field's serde attributes (serialization only: decoding is hand-written).
fn serialize_attrs(property: &Property) -> TokenStream {
    let key = &property.name;
    if property.required {
        quote!(#[serde(rename = #key)])
    } else {
        quote!(#[serde(rename = #key, skip_serializing_if = "Option::is_none")])
    }
}

/// One field a map visitor collects: its JSON key, its slot variable and the slot's type.
struct Slot {
    key: String,
    var: Ident,
    ty: TokenStream,
    /// Whether the slot holds a raw object (`RawObject`), unwrapped into its `Box<RawValue>`.
    raw_object: bool,
}

impl Slot {
    fn of(object: &str, property: &Property) -> Self {
        let raw = is_raw_value(object, &property.name);
        let raw_object = raw && property.ty == PropType::Record;
        let ty = match (raw, raw_object) {
            (true, true) => quote!(RawObject),
            (true, false) => quote!(Box<serde_json::value::RawValue>),
            (false, _) => property_type(object, property),
        };
        Self {
            key: property.name.clone(),
            var: slot_var(&property.name),
            ty,
            raw_object,
        }
    }

    /// The field's value in the struct literal: the slot, required or not.
    fn take(&self, required: bool) -> TokenStream {
        let (var, key) = (&self.var, &self.key);
        let value = if self.raw_object {
            quote!(#var.map(|RawObject(raw)| raw))
        } else {
            quote!(#var)
        };
        if required {
            quote!(#value.ok_or_else(|| A::Error::missing_field(#key))?)
        } else {
            value
        }
    }
}

fn slot_var(key: &str) -> Ident {
    format_ident!("field_{}", heck::AsSnakeCase(key).to_string())
}

/// A `Deserialize` body that accepts only a JSON object (never serde's sequence form of a
/// struct), rejects unknown and repeated keys, fills one slot per field, and ends with `build`.
fn map_visitor(value: TokenStream, expecting: &str, slots: &[Slot], build: TokenStream) -> TokenStream {
    let vars: Vec<&Ident> = slots.iter().map(|slot| &slot.var).collect();
    let types = slots.iter().map(|slot| &slot.ty);
    let keys: Vec<&str> = slots.iter().map(|slot| slot.key.as_str()).collect();
    quote! {
        struct Visitor;

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = #value;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(#expecting)
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                #(let mut #vars: Option<#types> = None;)*
                while let Some(Str(key)) = map.next_key()? {
                    match &*key {
                        #(#keys => next_field(&mut map, &mut #vars, #keys)?,)*
                        other => return Err(A::Error::unknown_field(other, &[#(#keys),*])),
                    }
                }
                #build
            }
        }

        deserializer.deserialize_map(Visitor)
    }
}

/// A validated string newtype (ids, date-times). The text is shared, not copied, when the value
/// is cloned: a normalizer puts the same session, thread and turn ids and time on event after
/// event.
fn newtype(name: &str, description: &str, check: TokenStream, what: &str) -> TokenStream {
    let ident = type_ident(name);
    let doc = docs(description);
    let doc_new = format!(" Checks that `value` is {what}.");
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #ident(Arc<str>);

        impl #ident {
            #[doc = #doc_new]
            pub fn new(value: impl AsRef<str>) -> Result<Self, InvalidValue> {
                let value = value.as_ref();
                match #check(value) {
                    Ok(()) => Ok(Self(Arc::from(value))),
                    Err(reason) => Err(InvalidValue::new(#name, reason, value)),
                }
            }

            /// The value as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The value as an owned string.
            pub fn into_string(self) -> String {
                self.0.to_string()
            }
        }

        impl fmt::Display for #ident {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for #ident {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::str::FromStr for #ident {
            type Err = InvalidValue;

            fn from_str(value: &str) -> Result<Self, InvalidValue> {
                Self::new(value)
            }
        }

        impl From<#ident> for String {
            fn from(value: #ident) -> String {
                value.into_string()
            }
        }

        impl Serialize for #ident {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl WriteJson for #ident {
            fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
                write_str(out, &self.0)
            }
        }

        impl<'de> Deserialize<'de> for #ident {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let Str(value) = Str::deserialize(deserializer)?;
                Self::new(value).map_err(D::Error::custom)
            }
        }
    }
}

fn enumeration(model: &Model, def: &EnumDef) -> TokenStream {
    let ident = type_ident(&def.name);
    let doc = docs(&def.description);
    let variants: Vec<Ident> = def
        .values
        .iter()
        .map(|value| format_ident!("{}", pascal_case(&value.value)))
        .collect();
    let values: Vec<&str> = def.values.iter().map(|value| value.value.as_str()).collect();
    let json_values = values.iter().map(|value| json_bytes(value));
    let variant_docs = def.values.iter().map(|value| {
        // The event-type enum's values take the description of their event when they have none.
        let fallback = (def.name == model.event_type_enum().name)
            .then(|| model.events.iter().find(|event| event.event_type == value.value))
            .flatten()
            .map(|event| event.description.as_str());
        docs(value.description.as_deref().or(fallback).unwrap_or_default())
    });
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub enum #ident {
            #(
                #variant_docs
                #[serde(rename = #values)]
                #variants,
            )*
        }

        impl #ident {
            /// Every value, in schema order.
            pub const ALL: &'static [Self] = &[#(Self::#variants),*];

            /// The value as it appears in JSON.
            pub fn as_str(self) -> &'static str {
                match self {
                    #(Self::#variants => #values,)*
                }
            }
        }

        impl fmt::Display for #ident {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl WriteJson for #ident {
            fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
                out.extend_from_slice(match self {
                    #(Self::#variants => #json_values,)*
                });
                Ok(())
            }
        }

        /// Accepts exactly the JSON strings of [`Self::ALL`] (not serde's `{"variant": null}` form).
        impl<'de> Deserialize<'de> for #ident {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let Str(value) = Str::deserialize(deserializer)?;
                match &*value {
                    #(#values => Ok(Self::#variants),)*
                    other => Err(D::Error::unknown_variant(other, &[#(#values),*])),
                }
            }
        }
    }
}

/// `ItemContent`: an item's `data` typed by its item type, one variant per value of the enum that
/// declares `x-itemContent`; `decode` reads `data` as its type's object, strictly (unknown and
/// missing fields are errors), so a consumer and the test suite check content the same way.
fn item_content(def: &EnumDef) -> TokenStream {
    let enum_ident = type_ident(&def.name);
    let variants: Vec<Ident> = def
        .content
        .iter()
        .map(|(value, _)| format_ident!("{}", pascal_case(value)))
        .collect();
    let types: Vec<Ident> = def.content.iter().map(|(_, object)| type_ident(object)).collect();
    let variant_docs = def
        .content
        .iter()
        .map(|(value, object)| docs(&format!("The content of a `{value}` item: [`{object}`].")));
    let doc = format!(
        " An item's `data`, typed by its `itemType`: the object `x-itemContent` of [`{}`] names for each value.",
        def.name
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub enum ItemContent {
            #(
                #variant_docs
                #variants(#types),
            )*
        }

        impl ItemContent {
            /// The item type this content belongs to.
            pub fn item_type(&self) -> #enum_ident {
                match self {
                    #(Self::#variants(_) => #enum_ident::#variants,)*
                }
            }

            /// Reads an item's `data` as the content of `item_type`; the error says which field
            /// does not fit.
            pub fn decode(item_type: #enum_ident, data: &serde_json::Value) -> Result<Self, serde_json::Error> {
                Ok(match item_type {
                    #(#enum_ident::#variants => Self::#variants(#types::deserialize(data)?),)*
                })
            }

            /// The content as an item's `data`.
            pub fn to_json(&self) -> Json {
                let written = match self {
                    #(Self::#variants(content) => Json::serialize(content),)*
                };
                written.expect("item content holds only JSON values")
            }
        }

        #(
            impl From<#types> for ItemContent {
                fn from(content: #types) -> Self {
                    Self::#variants(content)
                }
            }
        )*
    }
}

/// A subset of an enum (`x-enumSubsets`): the conversions between the two, and the enum's test
/// for the subset, each an exhaustive `match` (a value added to the enum is placed by codegen).
fn subset_conversions(parent: &EnumDef, subset: &EnumDef) -> TokenStream {
    let (parent_ident, subset_ident) = (type_ident(&parent.name), type_ident(&subset.name));
    let variant = |value: &str| format_ident!("{}", pascal_case(value));
    let inside: Vec<Ident> = subset.values.iter().map(|value| variant(&value.value)).collect();
    let outside: Vec<Ident> = parent
        .values
        .iter()
        .filter(|value| !subset.values.iter().any(|member| member.value == value.value))
        .map(|value| variant(&value.value))
        .collect();
    let test = format_ident!("is_{}", heck::AsSnakeCase(&subset.name).to_string());
    let test_doc = format!(" Whether the value is one of [`{}`].", subset.name);
    let outside_arm = (!outside.is_empty()).then(|| quote!(#(#parent_ident::#outside)|* => Err(value),));
    quote! {
        impl From<#subset_ident> for #parent_ident {
            fn from(value: #subset_ident) -> Self {
                match value {
                    #(#subset_ident::#inside => Self::#inside,)*
                }
            }
        }

        impl TryFrom<#parent_ident> for #subset_ident {
            type Error = #parent_ident;

            /// The value outside the subset is the error.
            fn try_from(value: #parent_ident) -> Result<Self, #parent_ident> {
                match value {
                    #(#parent_ident::#inside => Ok(Self::#inside),)*
                    #outside_arm
                }
            }
        }

        impl #parent_ident {
            #[doc = #test_doc]
            pub fn #test(self) -> bool {
                #subset_ident::try_from(self).is_ok()
            }
        }
    }
}

/// An `x-kind: json`: an alias of the type its properties carry, `Json` when they are listed in
/// [`JSON_FIELDS`], else `serde_json::Value` (as a `{}` property is); every property referring to
/// it must agree.
fn json_alias(model: &Model, def: &JsonDef) -> Result<TokenStream> {
    let mut carried = Vec::new();
    for object in model.objects.iter().chain([&model.envelope]) {
        for property in &object.properties {
            if property.ty.referenced() == Some(def.name.as_str()) {
                carried.push(JSON_FIELDS.contains(&(object.name.as_str(), property.name.as_str())));
            }
        }
    }
    let json = carried.first().copied().unwrap_or(false);
    if carried.iter().any(|listed| *listed != json) {
        bail!(
            "definition {}: some properties referring to it are carried as Json (JSON_FIELDS) and some not",
            def.name
        );
    }
    let ident = type_ident(&def.name);
    let doc = docs(&def.description);
    let target = if json { quote!(Json) } else { quote!(serde_json::Value) };
    Ok(quote! {
        #doc
        pub type #ident = #target;
    })
}

fn object(def: &ObjectDef) -> TokenStream {
    let ident = type_ident(&def.name);
    let doc = docs(&def.description);
    let has_raw_value = def
        .properties
        .iter()
        .any(|property| is_raw_value(&def.name, &property.name));
    let all_optional = def.properties.iter().all(|property| !property.required);
    let fields = def.properties.iter().map(|property| {
        let name = field_ident(&property.name);
        let doc = docs(&property.description);
        let ty = field_type(&def.name, property);
        let serde = serialize_attrs(property);
        quote! {
            #doc
            #serde
            pub #name: #ty,
        }
    });
    let derives = match (has_raw_value, all_optional) {
        (true, _) => quote!(Clone, Debug, Serialize),
        (false, true) => quote!(Clone, Debug, Default, PartialEq, Serialize),
        (false, false) => quote!(Clone, Debug, PartialEq, Serialize),
    };
    let partial_eq = has_raw_value.then(|| {
        let comparisons = def.properties.iter().map(|property| {
            let name = field_ident(&property.name);
            if is_raw_value(&def.name, &property.name) {
                quote!(self.#name.get() == other.#name.get())
            } else {
                quote!(self.#name == other.#name)
            }
        });
        quote! {
            /// Raw JSON fields compare by their text, byte for byte (as received, not as parsed).
            impl PartialEq for #ident {
                fn eq(&self, other: &Self) -> bool {
                    #(#comparisons)&&*
                }
            }
        }
    });
    let slots: Vec<Slot> = def
        .properties
        .iter()
        .map(|property| Slot::of(&def.name, property))
        .collect();
    let inits = def.properties.iter().zip(&slots).map(|(property, slot)| {
        let name = field_ident(&property.name);
        let value = slot.take(property.required);
        quote!(#name: #value,)
    });
    let visitor = map_visitor(
        quote!(#ident),
        &format!("a {} object", def.name),
        &slots,
        quote!(Ok(#ident { #(#inits)* })),
    );
    let members: Vec<&Property> = def.properties.iter().collect();
    let write_members = write_members(&members);
    let first = (!members.is_empty()).then(|| quote!(let mut first = true;));
    quote! {
        #doc
        #[derive(#derives)]
        pub struct #ident {
            #(#fields)*
        }

        #partial_eq

        impl WriteJson for #ident {
            fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
                #first
                out.push(b'{');
                #write_members
                out.push(b'}');
                Ok(())
            }
        }

        /// Accepts a JSON object only; unknown, repeated and missing required fields are errors, and
        /// an optional field may be absent but not `null` unless its type admits `null`.
        impl<'de> Deserialize<'de> for #ident {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #visitor
            }
        }
    }
}

/// `RuntimeEvent`: the event type with its payload, one variant per event, in union order.
fn runtime_event(model: &Model) -> TokenStream {
    let type_enum = type_ident(&model.event_type_enum().name);
    let variants: Vec<Ident> = model
        .events
        .iter()
        .map(|event| format_ident!("{}", pascal_case(&event.event_type)))
        .collect();
    let payloads: Vec<Ident> = model.events.iter().map(|event| type_ident(&event.payload)).collect();
    let types: Vec<&str> = model.events.iter().map(|event| event.event_type.as_str()).collect();
    let variant_docs = model.events.iter().map(|event| {
        docs(&format!(
            "`{}`: {}\n\n{}",
            event.event_type, event.description, event.payload_description
        ))
    });
    let payload_errors = types.iter().map(|ty| format!("payload of {ty:?}: {{error}}"));
    let type_members = types.iter().map(|ty| {
        let text = format!(",\"type\":{},\"payload\":", json_text(ty));
        proc_macro2::Literal::byte_string(text.as_bytes())
    });
    quote! {
        /// What a [`ProviderRuntimeEvent`] reports: its `type` and the `payload` of that type.
        #[derive(Clone, Debug, PartialEq)]
        pub enum RuntimeEvent {
            #(
                #variant_docs
                #variants(#payloads),
            )*
        }

        impl RuntimeEvent {
            /// The event's `type`.
            pub fn event_type(&self) -> #type_enum {
                match self {
                    #(Self::#variants(_) => #type_enum::#variants,)*
                }
            }

            /// Decodes the payload JSON of an event of type `event_type`.
            fn decode(event_type: #type_enum, payload: &str) -> Result<Self, String> {
                match event_type {
                    #(
                        #type_enum::#variants => serde_json::from_str(payload)
                            .map(Self::#variants)
                            .map_err(|error| format!(#payload_errors)),
                    )*
                }
            }

            fn serialize_payload<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
                match self {
                    #(Self::#variants(payload) => map.serialize_entry("payload", payload),)*
                }
            }

            /// The `type` and `payload` members, each after a `,` (the envelope's first members
            /// are required).
            fn write_type_and_payload(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
                match self {
                    #(Self::#variants(payload) => {
                        out.extend_from_slice(#type_members);
                        payload.write_json(out)
                    })*
                }
            }
        }
    }
}

/// `ProviderRuntimeEvent`: the envelope fields with `event` where `type`/`payload` go, and its
/// hand-written serde impls.
fn provider_runtime_event(model: &Model) -> Result<TokenStream> {
    let envelope = &model.envelope;
    let type_enum = type_ident(&model.event_type_enum().name);
    let (leading, trailing): (Vec<&Property>, Vec<&Property>) = envelope
        .properties
        .iter()
        .partition(|property| !TRAILING_ENVELOPE_FIELDS.contains(&property.name.as_str()));
    let field = |property: &Property| {
        let name = field_ident(&property.name);
        let doc = docs(&property.description);
        let ty = rust_type(&property.ty);
        let ty = if property.required { ty } else { quote!(Option<#ty>) };
        quote!(#doc pub #name: #ty,)
    };
    let leading_fields = leading.iter().map(|property| field(property));
    let trailing_fields = trailing.iter().map(|property| field(property));

    // Serialize: the wire order, absent optionals omitted.
    let entry = |property: &Property| {
        let name = field_ident(&property.name);
        let key = &property.name;
        if property.required {
            quote!(map.serialize_entry(#key, &self.#name)?;)
        } else {
            quote!(if let Some(value) = &self.#name { map.serialize_entry(#key, value)?; })
        }
    };
    let leading_entries = leading.iter().map(|property| entry(property));
    if !leading.iter().any(|property| property.required) {
        bail!(
            "{SCHEMA_PATH}: the envelope ({}) needs a required property before `type`: the writer puts a `,` before `type`",
            envelope.name
        );
    }
    let write_leading = write_members(&leading);
    let write_trailing = write_members(&trailing);
    let trailing_entries = trailing.iter().map(|property| entry(property));
    let required_count = envelope.properties.iter().filter(|property| property.required).count() + 2;
    let optional_counts = envelope
        .properties
        .iter()
        .filter(|property| !property.required)
        .map(|property| {
            let name = field_ident(&property.name);
            quote!(+ usize::from(self.#name.is_some()))
        });

    // Deserialize: the envelope fields, `type` and the payload kept as RawValue; then the payload
    // is decoded as the type `type` names.
    let mut slots: Vec<Slot> = envelope
        .properties
        .iter()
        .map(|property| Slot::of(&envelope.name, property))
        .collect();
    slots.push(Slot {
        key: "type".into(),
        var: slot_var("type"),
        ty: quote!(#type_enum),
        raw_object: false,
    });
    slots.push(Slot {
        key: "payload".into(),
        var: slot_var("payload"),
        ty: quote!(Box<serde_json::value::RawValue>),
        raw_object: false,
    });
    let inits = envelope.properties.iter().zip(&slots).map(|(property, slot)| {
        let name = field_ident(&property.name);
        let value = slot.take(property.required);
        quote!(#name: #value,)
    });
    let event_type = slots[slots.len() - 2].take(true);
    let payload = slots[slots.len() - 1].take(true);
    let visitor = map_visitor(
        quote!(ProviderRuntimeEvent),
        "a canonical runtime event object",
        &slots,
        quote! {
            let event_type = #event_type;
            let payload = #payload;
            Ok(ProviderRuntimeEvent {
                #(#inits)*
                event: RuntimeEvent::decode(event_type, payload.get()).map_err(A::Error::custom)?,
            })
        },
    );
    let doc = docs(&format!(
        "{}\n\n{}\n\nJSON: the envelope fields, then `type` and `payload` (from [`RuntimeEvent`]), then `raw`. \
         Decoding reads the envelope first and keeps the payload as raw JSON until `type` names its payload type; \
         unknown fields are rejected, and optional fields may be absent but not `null`.",
        model.union.description, envelope.description
    ));
    Ok(quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        pub struct ProviderRuntimeEvent {
            #(#leading_fields)*
            /// The event's `type` and `payload`.
            pub event: RuntimeEvent,
            #(#trailing_fields)*
        }

        impl Serialize for ProviderRuntimeEvent {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let len = #required_count #(#optional_counts)*;
                let mut map = serializer.serialize_map(Some(len))?;
                #(#leading_entries)*
                map.serialize_entry("type", &self.event.event_type())?;
                self.event.serialize_payload(&mut map)?;
                #(#trailing_entries)*
                map.end()
            }
        }

        /// Envelope-first: the envelope and `type` are read while the payload is kept as raw JSON,
        /// then the payload is decoded as the type `type` names.
        impl<'de> Deserialize<'de> for ProviderRuntimeEvent {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #visitor
            }
        }

        /// The members in the order `Serialize` writes them.
        impl WriteJson for ProviderRuntimeEvent {
            fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
                let mut first = true;
                out.push(b'{');
                #write_leading
                self.event.write_type_and_payload(out)?;
                #write_trailing
                out.push(b'}');
                Ok(())
            }
        }
    })
}

/// [`WriteJson`] statements for `properties`, in order: a required one always, an optional one
/// when it is `Some`; each key is a byte string made here. Expects `first` and `out` in scope.
fn write_members(properties: &[&Property]) -> TokenStream {
    let members = properties.iter().map(|property| {
        let name = field_ident(&property.name);
        let key = proc_macro2::Literal::byte_string(format!("{}:", json_text(&property.name)).as_bytes());
        if property.required {
            quote! {
                write_key(out, &mut first, #key);
                WriteJson::write_json(&self.#name, out)?;
            }
        } else {
            quote! {
                if let Some(value) = &self.#name {
                    write_key(out, &mut first, #key);
                    WriteJson::write_json(value, out)?;
                }
            }
        }
    });
    quote!(#(#members)*)
}

/// `text` as a JSON string, quoted and escaped as serde_json writes it.
fn json_text(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// [`json_text`] as a byte string literal.
fn json_bytes(text: &str) -> proc_macro2::Literal {
    proc_macro2::Literal::byte_string(json_text(text).as_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_real_schema_generates_parsable_rust() {
        let model = super::super::canonical_model::load(&crate::project_root()).unwrap();
        let files = super::generate(&model, "{}").unwrap();
        assert!(
            files
                .iter()
                .any(|file| file.contents.contains("pub struct ProviderRuntimeEvent"))
        );
    }
}
