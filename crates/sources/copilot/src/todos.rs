//! Copilot CLI's todo list: the model keeps it with the `sql` tool in the session's own SQLite
//! database (tables `todos` and `todo_deps`), and the CLI announces a change with a
//! `session.todos_changed` that says nothing more. The list is replayed here from the statements
//! of the calls that succeeded: `INSERT INTO todos (...) VALUES (...), ...`, `UPDATE todos SET
//! ... WHERE id = '...'` (or `id IN (...)`) and `DELETE FROM todos WHERE ...`. A statement of
//! another shape changes nothing here.

use agentwire_canonical::{PlanStepStatus, TurnPlanStep};

/// One todo: its id, what it says, its status as written.
struct Todo {
    id: String,
    title: String,
    status: String,
}

/// The todo list as the calls so far left it.
#[derive(Default)]
pub struct Todos {
    todos: Vec<Todo>,
}

impl Todos {
    /// Applies one statement the `sql` tool ran.
    pub fn apply(&mut self, query: &str) {
        let words: Vec<&str> = query.split_whitespace().collect();
        let lower: Vec<String> = words.iter().map(|word| word.to_ascii_lowercase()).collect();
        let at = |index: usize| lower.get(index).map(String::as_str);
        match (at(0), at(1), at(2)) {
            (Some("insert"), Some("into"), Some(table)) if table.starts_with("todos") => self.insert(query),
            (Some("update"), Some("todos"), Some("set")) => self.update(query),
            (Some("delete"), Some("from"), Some("todos")) => {
                let ids = where_ids(query);
                self.todos.retain(|todo| !ids.contains(&todo.id));
            }
            _ => {}
        }
    }

    /// The list as plan steps: done is `completed`, in progress `inProgress`, the rest `pending`.
    pub fn steps(&self) -> Vec<TurnPlanStep> {
        self.todos
            .iter()
            .map(|todo| TurnPlanStep {
                step: todo.title.clone(),
                status: match todo.status.as_str() {
                    "done" | "completed" => PlanStepStatus::Completed,
                    "in_progress" => PlanStepStatus::InProgress,
                    _ => PlanStepStatus::Pending,
                },
            })
            .collect()
    }

    fn insert(&mut self, query: &str) {
        let Some(open) = query.find('(') else { return };
        let Some(close) = query[open..].find(')').map(|at| open + at) else {
            return;
        };
        let columns: Vec<String> = query[open + 1..close]
            .split(',')
            .map(|column| column.trim().to_ascii_lowercase())
            .collect();
        let column = |name: &str| columns.iter().position(|column| column == name);
        let (Some(id), title, description, status) =
            (column("id"), column("title"), column("description"), column("status"))
        else {
            return;
        };
        for row in tuples(&query[close + 1..]) {
            let value = |at: Option<usize>| at.and_then(|at| row.get(at)).cloned();
            let Some(id) = value(Some(id)) else { continue };
            let todo = Todo {
                title: value(title)
                    .or_else(|| value(description))
                    .unwrap_or_else(|| id.clone()),
                status: value(status).unwrap_or_else(|| "pending".to_owned()),
                id,
            };
            self.todos.retain(|old| old.id != todo.id);
            self.todos.push(todo);
        }
    }

    fn update(&mut self, query: &str) {
        let lower = query.to_ascii_lowercase();
        let (Some(set), Some(end)) = (lower.find(" set "), lower.find(" where ")) else {
            return;
        };
        if end < set {
            return;
        }
        let ids = where_ids(query);
        for assignment in split_outside_quotes(&query[set + 5..end], ',') {
            let Some((column, value)) = assignment.split_once('=') else {
                continue;
            };
            let Some(value) = tuple_values(value).into_iter().next() else {
                continue;
            };
            for todo in self.todos.iter_mut().filter(|todo| ids.contains(&todo.id)) {
                match column.trim().to_ascii_lowercase().as_str() {
                    "status" => todo.status = value.clone(),
                    "title" => todo.title = value.clone(),
                    _ => {}
                }
            }
        }
    }
}

/// The ids a `WHERE id = 'x'` or `WHERE id IN ('x', 'y')` names.
fn where_ids(query: &str) -> Vec<String> {
    let lower = query.to_ascii_lowercase();
    let Some(at) = lower.find(" where ") else {
        return Vec::new();
    };
    let condition = query[at + 7..].trim().trim_end_matches(';');
    let Some(rest) = condition.get(2..).filter(|_| condition[..2].eq_ignore_ascii_case("id")) else {
        return Vec::new();
    };
    let rest = rest.trim_start();
    let values = rest
        .strip_prefix('=')
        .or_else(|| rest.get(2..).filter(|_| rest[..2].eq_ignore_ascii_case("in")))
        .unwrap_or_default();
    tuple_values(values)
}

/// The rows of `VALUES (...), (...)`: each its values, quotes removed.
fn tuples(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut depth = 0;
    let mut quoted = false;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => {
                if depth == 0 {
                    start = at + 1;
                }
                depth += 1;
            }
            ')' if !quoted => {
                depth -= 1;
                if depth == 0 {
                    rows.push(tuple_values(&text[start..at]));
                }
            }
            _ => {}
        }
    }
    rows
}

/// The values of `'a', 'b''s', 3` (or `('a', 'b')`): quoted ones unquoted (`''` is one quote).
fn tuple_values(text: &str) -> Vec<String> {
    let text = text.trim().trim_end_matches(';').trim();
    let text = text
        .strip_prefix('(')
        .and_then(|inner| inner.strip_suffix(')'))
        .unwrap_or(text);
    split_outside_quotes(text, ',')
        .into_iter()
        .map(|value| {
            let value = value.trim();
            match value.strip_prefix('\'').and_then(|inner| inner.strip_suffix('\'')) {
                Some(inner) => inner.replace("''", "'"),
                None => value.to_owned(),
            }
        })
        .filter(|value| !value.is_empty())
        .collect()
}

fn split_outside_quotes(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if c == '\'' {
            quoted = !quoted;
        } else if c == separator && !quoted {
            parts.push(&text[start..at]);
            start = at + c.len_utf8();
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_and_updates_make_the_list() {
        let mut todos = Todos::default();
        todos.apply(
            "INSERT INTO todos (id, title, description) VALUES ('inspect', 'Inspect notes', 'Read notes.txt'), \
             ('report', 'Report', 'Say what it''s about')",
        );
        todos.apply("UPDATE todos SET status = 'done' WHERE id = 'inspect'");
        let steps = todos.steps();
        assert_eq!(steps.len(), 2);
        assert_eq!(
            (steps[0].step.as_str(), steps[0].status),
            ("Inspect notes", PlanStepStatus::Completed)
        );
        assert_eq!(
            (steps[1].step.as_str(), steps[1].status),
            ("Report", PlanStepStatus::Pending)
        );
        todos.apply("DELETE FROM todos WHERE id IN ('inspect')");
        assert_eq!(todos.steps().len(), 1);
        todos.apply("SELECT * FROM todos");
        assert_eq!(todos.steps().len(), 1);
    }
}
