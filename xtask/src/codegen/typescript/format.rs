//! Text as T3 Code's formatter writes it: `oxfmt` (0.52, through vite-plus) with T3's settings,
//! which are its defaults for TypeScript: 100 columns, 2-space indent, double quotes, semicolons,
//! trailing commas. The emitter decides the few layouts that depend on width here, so the
//! generated file is already formatted (`oxfmt --check` in `tests/typescript/host` proves it).

use std::fmt::Write as _;

/// The line width the formatter fills to.
const PRINT_WIDTH: usize = 100;

/// The width the formatter measures: characters, not bytes.
fn width(text: &str) -> usize {
    text.chars().count()
}

/// `prefix` + the items joined by `, ` + `suffix` on one line when it fits, else the items one per
/// line (with a trailing comma) between `prefix` and `suffix`: how the formatter lays out a call
/// argument array or a named import list. `suffix` is the rest of the line up to its first break.
pub fn list(indent: &str, prefix: &str, items: &[String], suffix: &str) -> String {
    let flat = format!("{indent}{prefix}{}{suffix}", items.join(", "));
    if width(&flat) <= PRINT_WIDTH {
        return flat + "\n";
    }
    let mut out = format!("{indent}{prefix}\n");
    for item in items {
        let _ = writeln!(out, "{indent}  {item},");
    }
    let _ = writeln!(out, "{indent}{suffix}");
    out
}

/// `import { a, b } from "module";` on one line when it fits, else one name per line.
pub fn named_import(names: &[String], module: &str) -> String {
    let flat = format!("import {{ {} }} from {};", names.join(", "), string(module));
    if width(&flat) <= PRINT_WIDTH {
        return flat + "\n";
    }
    let mut out = String::from("import {\n");
    for name in names {
        let _ = writeln!(out, "  {name},");
    }
    let _ = writeln!(out, "}} from {};", string(module));
    out
}

/// An object property whose value is a string literal: on the key's line when it fits, else on
/// the next line, indented (the formatter breaks after the colon; a string cannot break).
pub fn string_property(indent: &str, key: &str, text: &str) -> String {
    let value = string(text);
    let flat = format!("{indent}{key}: {value},");
    if width(&flat) <= PRINT_WIDTH {
        flat + "\n"
    } else {
        format!("{indent}{key}:\n{indent}  {value},\n")
    }
}

/// A JSDoc block at `indent` (`*/` inside the text is escaped). The formatter leaves comments as
/// they are, so long lines stay long.
pub fn jsdoc(indent: &str, text: &str) -> String {
    let text = text.trim().replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if let [line] = lines.as_slice() {
        return format!("{indent}/** {line} */\n");
    }
    let mut out = format!("{indent}/**\n");
    for line in lines {
        if line.is_empty() {
            let _ = writeln!(out, "{indent} *");
        } else {
            let _ = writeln!(out, "{indent} * {line}");
        }
    }
    let _ = writeln!(out, "{indent} */");
    out
}

/// A string literal as the formatter writes it: double quotes unless the text holds more double
/// than single quotes, only the chosen quote escaped.
pub fn string(text: &str) -> String {
    let doubles = text.matches('"').count();
    let singles = text.matches('\'').count();
    let quote = if doubles > singles { '\'' } else { '"' };
    let mut out = String::from(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsdoc_escapes_and_wraps() {
        assert_eq!(jsdoc("", "One line."), "/** One line. */\n");
        assert_eq!(
            jsdoc("  ", "a */ b\n\nc"),
            "  /**\n   * a *\\/ b\n   *\n   * c\n   */\n"
        );
    }

    #[test]
    fn strings_prefer_double_quotes() {
        assert_eq!(string("plain"), "\"plain\"");
        assert_eq!(string("it's"), "\"it's\"");
        assert_eq!(string("say \"hi\""), "'say \"hi\"'");
        assert_eq!(string("a \"b\" it's"), "'a \"b\" it\\'s'");
        assert_eq!(string("x\\y\nz"), "\"x\\\\y\\nz\"");
    }

    #[test]
    fn lists_break_past_the_width() {
        let short = ["\"a\"".to_string(), "\"b\"".to_string()];
        assert_eq!(list("", "f([", &short, "])"), "f([\"a\", \"b\"])\n");
        let long: Vec<String> = (0..30).map(|i| format!("\"value{i}\"")).collect();
        let text = list("", "f([", &long, "])");
        assert!(text.starts_with("f([\n  \"value0\",\n"), "{text}");
        assert!(text.ends_with("  \"value29\",\n])\n"), "{text}");
    }

    #[test]
    fn imports_break_past_the_width() {
        let names = ["A".to_string(), "B".to_string()];
        assert_eq!(named_import(&names, "./m.ts"), "import { A, B } from \"./m.ts\";\n");
        let long: Vec<String> = (0..20).map(|i| format!("Name{i}")).collect();
        let text = named_import(&long, "./m.ts");
        assert!(text.starts_with("import {\n  Name0,\n"), "{text}");
        assert!(text.ends_with("  Name19,\n} from \"./m.ts\";\n"), "{text}");
    }

    #[test]
    fn long_string_properties_break_after_the_colon() {
        assert_eq!(string_property("  ", "identifier", "X"), "  identifier: \"X\",\n");
        let long = "word ".repeat(30);
        let text = string_property("  ", "description", long.trim());
        assert!(text.starts_with("  description:\n    \"word"), "{text}");
    }
}
