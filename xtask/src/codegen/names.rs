//! Rust names for schema names: one rule each, shared by every emitter.

use proc_macro2::{Ident, Span};
use quote::format_ident;

/// Words that cannot be identifiers as they are (strict, reserved and edition-2024 keywords).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
    "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move",
    "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The snake_case field name of a JSON key, raw (`r#type`, `r#match`) if it is a keyword, and with
/// a trailing `_` for the words a raw identifier cannot be (`self_`).
pub fn field_ident(key: &str) -> Ident {
    let snake = heck::AsSnakeCase(key).to_string();
    match snake.as_str() {
        "self" | "super" | "crate" | "Self" => format_ident!("{snake}_"),
        word if KEYWORDS.contains(&word) => Ident::new_raw(word, Span::call_site()),
        _ => format_ident!("{snake}"),
    }
}

/// The Rust type typify gives a schema definition: its name in PascalCase (`SDKAssistantMessage`
/// -> `SdkAssistantMessage`, `JSONRPCErrorError` -> `JsonrpcErrorError`). Emitters that refer to
/// typify's types must name them exactly as typify does.
pub fn type_ident(definition: &str) -> Ident {
    let cleaned: String = definition
        .chars()
        .filter(|c| *c != '\'')
        .map(|c| if c.is_alphanumeric() || c == '_' { c } else { '-' })
        .collect();
    let name = heck::AsPascalCase(cleaned).to_string();
    let name = match name.chars().next() {
        Some(first) if first.is_alphabetic() || first == '_' => name,
        _ => format!("X{name}"),
    };
    format_ident!("{name}")
}

/// PascalCase of a method, tag value, enum value or event type: each run of letters and digits
/// starts upper case and the rest is kept (`item/commandExecution/requestApproval` ->
/// `ItemCommandExecutionRequestApproval`, `item.completed` -> `ItemCompleted`, `assistant_text`
/// -> `AssistantText`).
pub fn pascal_case(value: &str) -> String {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            let mut chars = segment.chars();
            let first = chars.next().expect("non-empty segment");
            first.to_ascii_uppercase().to_string() + chars.as_str()
        })
        .collect()
}

/// The variant name of a method or tag value; one that starts with a digit gets a `V` in front.
pub fn variant_ident(value: &str) -> Ident {
    let name = pascal_case(value);
    match name.chars().next() {
        Some(first) if first.is_ascii_alphabetic() => format_ident!("{name}"),
        _ => format_ident!("V{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_become_raw_identifiers() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("match").to_string(), "r#match");
        assert_eq!(field_ident("ref").to_string(), "r#ref");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_ident("emittedAtMs").to_string(), "emitted_at_ms");
    }

    #[test]
    fn type_names_follow_typify() {
        assert_eq!(type_ident("SDKAssistantMessage").to_string(), "SdkAssistantMessage");
        assert_eq!(type_ident("JSONRPCErrorError").to_string(), "JsonrpcErrorError");
        assert_eq!(type_ident("v2.Thing").to_string(), "V2Thing");
    }

    #[test]
    fn variants_of_methods_and_tags() {
        assert_eq!(
            variant_ident("item/commandExecution/requestApproval").to_string(),
            "ItemCommandExecutionRequestApproval"
        );
        assert_eq!(variant_ident("item.completed").to_string(), "ItemCompleted");
        assert_eq!(variant_ident("agent_message").to_string(), "AgentMessage");
        assert_eq!(variant_ident("cursor/ask_question").to_string(), "CursorAskQuestion");
        assert_eq!(variant_ident("2fa").to_string(), "V2fa");
    }
}
