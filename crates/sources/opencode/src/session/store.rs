//! OpenCode's SQLite store (`~/.local/share/opencode/opencode.db`), read as `opencode export`
//! reads it: each session written as the document `opencode export ID` prints, without
//! whitespace (`{"info": Session, "messages": [{"info": Message, "parts": [Part]}]}`).
//!
//! The store is opened read-only and never changed. With no `-wal` file beside it (no OpenCode
//! running, or a copy) it is opened `immutable`, so SQLite takes no lock and creates no file;
//! with one, it is opened read-only through the WAL, so what the running program has not yet
//! copied into the database is read too, and a lock held too long is an error naming the file.
//!
//! Rows hold the JSON of a `Message` or `Part` without the ids that are columns (`id`,
//! `sessionID`, `messageID`); they are put back after the row's members, where `opencode export`
//! puts them. Messages are in id order and each message's parts in id order, as OpenCode reads
//! them (ids grow with time: in the corpus, id order is `time_created` order). The session's
//! `info` is written from its columns in the order `opencode export` prints them; members the
//! corpus never shows (`workspaceID`, `share`, `metadata`, `revert`, `time.compacting`,
//! `time.archived`) are placed after the OpenAPI `Session`'s reading and, as the rest, only when
//! the column is set. A v2 session's messages (`session_message`), which `opencode export` leaves
//! out, are listed after the v1 ones as `{"v2": row}`.
//!
//! A subagent's session (`parent_id`) is not listed on its own: its parent's document lists it
//! after the parent's messages, `{"info": Session}` and then its messages, so its items land
//! under the parent's `task` call as the live stream puts them; a listed session is as new as the
//! newest session of its tree.

use std::path::Path;
use std::time::Duration;

use agentwire_core::document::compact;
use agentwire_core::store::StoredSession;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row};

/// The first bytes of every SQLite database file.
const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// How long a read waits for a lock the running program holds.
const BUSY: Duration = Duration::from_secs(2);

/// The tables and columns this reading needs.
const TABLES: &[(&str, &[&str])] = &[
    ("session", &["id", "parent_id", "title", "time_updated"]),
    ("message", &["id", "session_id", "data"]),
    ("part", &["id", "message_id", "session_id", "data"]),
];

/// Whether the file at `path` is an SQLite database with OpenCode's session tables, or one whose
/// tables cannot be read (locked, corrupt): listing its sessions then says why.
pub fn opens(path: &Path) -> bool {
    let mut header = [0; 16];
    let is_sqlite = std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut header))
        .is_ok()
        && &header == HEADER;
    is_sqlite
        && open(path)
            .and_then(|connection| tables_of(&connection))
            .map_or(true, |found| found.is_ok())
}

/// The sessions of the store, by id.
pub fn sessions(path: &Path) -> Result<Vec<StoredSession>, String> {
    let connection = open(path)?;
    tables_of(&connection)
        .and_then(|found| found)
        .map_err(|reason| format!("{}: {reason}", path.display()))?;
    // A subagent's session is read with its parent's (`read_document`): the sessions listed are
    // those with no parent in the store, each as new as the newest of its tree.
    let listed = || -> Result<Vec<StoredSession>, rusqlite::Error> {
        let mut statement = connection.prepare(
            "SELECT id, time_updated FROM session \
             WHERE parent_id IS NULL OR parent_id NOT IN (SELECT id FROM session) ORDER BY id",
        )?;
        let roots: Vec<(String, i64)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut updated_of = connection.prepare("SELECT time_updated FROM session WHERE id = ?1")?;
        let mut sessions = Vec::new();
        for (key, mut updated_ms) in roots {
            for child in descendants(&connection, &key)? {
                updated_ms = updated_ms.max(updated_of.query_row([&child], |row| row.get(0))?);
            }
            sessions.push(StoredSession { key, updated_ms });
        }
        Ok(sessions)
    };
    listed().map_err(|err| failure(path, &err))
}

/// The session `id` of the store as `opencode export` prints it, without whitespace.
pub fn document(path: &Path, id: &str) -> Result<String, String> {
    let connection = open(path)?;
    read_document(&connection, id).map_err(|err| failure(path, &err))
}

fn failure(path: &Path, err: &rusqlite::Error) -> String {
    format!("{}: {err}", path.display())
}

/// Opens the store read-only (see the module's doc for how).
fn open(path: &Path) -> Result<Connection, String> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let connection = if Path::new(&wal).exists() {
        Connection::open_with_flags(path, flags)
    } else {
        Connection::open_with_flags(format!("file:{}?immutable=1", uri_path(path)), flags)
    }
    .map_err(|err| format!("{}: {err}", path.display()))?;
    connection
        .busy_timeout(BUSY)
        .map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(connection)
}

/// The path as the path of a `file:` URI: the characters a URI gives a meaning to escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for ch in path.to_string_lossy().chars() {
        match ch {
            '%' | '?' | '#' => out.push_str(&format!("%{:02X}", ch as u32)),
            _ => out.push(ch),
        }
    }
    out
}

/// `Ok(Ok(()))` when the store has the tables and columns read here, `Ok(Err)` naming what it
/// lacks; `Err` when its schema cannot be read at all (locked, corrupt).
fn tables_of(connection: &Connection) -> Result<Result<(), String>, String> {
    for (table, columns) in TABLES {
        let mut statement = connection
            .prepare("SELECT name FROM pragma_table_info(?1)")
            .map_err(|err| err.to_string())?;
        let found: Vec<String> = statement
            .query_map([table], |row| row.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|err| err.to_string())?;
        if let Some(missing) = columns.iter().find(|column| !found.iter().any(|name| name == *column)) {
            return Ok(Err(format!(
                "not an OpenCode store: no column `{missing}` in a table `{table}`"
            )));
        }
    }
    Ok(Ok(()))
}

/// A JSON object written member by member.
struct Object(String);

impl Object {
    fn new() -> Self {
        Object(String::from("{"))
    }

    /// Adds a member whose value is JSON text.
    fn raw(&mut self, key: &str, json: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push_str(&quote(key));
        self.0.push(':');
        self.0.push_str(&compact(json));
    }

    fn text(&mut self, key: &str, text: &str) {
        self.raw(key, &quote(text));
    }

    fn end(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// A number as JavaScript prints it: a whole number without a fraction.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or_else(|| "null".to_string(), |number| number.to_string())
    }
}

/// A row's JSON object with `ids` added after its own members, as `opencode export` adds them.
fn with_ids(data: &str, ids: &[(&str, &str)]) -> String {
    let data = compact(data);
    let mut text = data.strip_suffix('}').unwrap_or(&data).to_string();
    for (key, value) in ids {
        if !text.ends_with('{') {
            text.push(',');
        }
        text.push_str(&quote(key));
        text.push(':');
        text.push_str(&quote(value));
    }
    text.push('}');
    text
}

fn read_document(connection: &Connection, id: &str) -> Result<String, rusqlite::Error> {
    let info = connection.query_row("SELECT * FROM session WHERE id = ?1", [id], session_info)?;
    let mut messages = Vec::new();
    session_messages(connection, id, &mut messages)?;
    for child in descendants(connection, id)? {
        let info = connection.query_row("SELECT * FROM session WHERE id = ?1", [&child], session_info)?;
        messages.push(format!("{{\"info\":{info}}}"));
        session_messages(connection, &child, &mut messages)?;
    }
    Ok(format!("{{\"info\":{info},\"messages\":[{}]}}", messages.join(",")))
}

/// The sessions below `id` (its subagents', theirs, ...), each after its parent and before its
/// parent's next child, siblings in id order.
fn descendants(connection: &Connection, id: &str) -> Result<Vec<String>, rusqlite::Error> {
    let mut statement = connection.prepare("SELECT id FROM session WHERE parent_id = ?1 ORDER BY id DESC")?;
    let mut children_of = |parent: &str| -> Result<Vec<String>, rusqlite::Error> {
        statement.query_map([parent], |row| row.get(0))?.collect()
    };
    let mut found = Vec::new();
    let mut pending = children_of(id)?;
    while let Some(session) = pending.pop() {
        pending.extend(children_of(&session)?);
        found.push(session);
    }
    Ok(found)
}

/// The frames of session `id`'s messages, appended to `messages`: its v1 messages with their
/// parts, then its v2 rows.
fn session_messages(connection: &Connection, id: &str, messages: &mut Vec<String>) -> Result<(), rusqlite::Error> {
    {
        let mut parts_of = connection
            .prepare("SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id")?;
        let mut parts: Vec<(String, String, String)> = parts_of
            .query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        parts.reverse();
        let mut statement = connection.prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
        let rows: Vec<(String, String)> = statement
            .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (message, data) in rows {
            let mut text = format!(
                "{{\"info\":{},\"parts\":[",
                with_ids(&data, &[("id", &message), ("sessionID", id)])
            );
            let mut first = true;
            // Parts of messages no row names (none in a store OpenCode keeps) are left behind.
            while parts.last().is_some_and(|(_, of, _)| of.as_str() < message.as_str()) {
                parts.pop();
            }
            while let Some((part, _, data)) = parts.pop_if(|(_, of, _)| *of == message) {
                if !first {
                    text.push(',');
                }
                first = false;
                text.push_str(&with_ids(
                    &data,
                    &[("id", &part), ("sessionID", id), ("messageID", &message)],
                ));
            }
            text.push_str("]}");
            messages.push(text);
        }
    }
    let v2_table = connection
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_message'",
            [],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if v2_table {
        let mut statement = connection.prepare(
            "SELECT id, type, seq, time_created, time_updated, data FROM session_message WHERE session_id = ?1 ORDER BY seq, id",
        )?;
        let rows = statement.query_map([id], |row| {
            let mut object = Object::new();
            object.text("id", &row.get::<_, String>(0)?);
            object.text("type", &row.get::<_, String>(1)?);
            object.raw("seq", &row.get::<_, i64>(2)?.to_string());
            object.raw("timeCreated", &row.get::<_, i64>(3)?.to_string());
            object.raw("timeUpdated", &row.get::<_, i64>(4)?.to_string());
            object.raw("data", &row.get::<_, String>(5)?);
            Ok(format!("{{\"v2\":{}}}", object.end()))
        })?;
        for row in rows {
            messages.push(row?);
        }
    }
    Ok(())
}

/// The session's `info` from its columns, as `opencode export` prints it.
fn session_info(row: &Row<'_>) -> Result<String, rusqlite::Error> {
    let text = |name: &str| row.get::<_, Option<String>>(name);
    let int = |name: &str| row.get::<_, Option<i64>>(name);
    let mut info = Object::new();
    info.text("id", &row.get::<_, String>("id")?);
    info.text("slug", &row.get::<_, String>("slug")?);
    info.text("projectID", &row.get::<_, String>("project_id")?);
    if let Some(workspace) = text("workspace_id")? {
        info.text("workspaceID", &workspace);
    }
    info.text("directory", &row.get::<_, String>("directory")?);
    if let Some(path) = text("path")? {
        info.text("path", &path);
    }
    if let Some(parent) = text("parent_id")? {
        info.text("parentID", &parent);
    }
    info.text("title", &row.get::<_, String>("title")?);
    if let Some(agent) = text("agent")? {
        info.text("agent", &agent);
    }
    if let Some(model) = text("model")? {
        info.raw("model", &model);
    }
    info.text("version", &row.get::<_, String>("version")?);
    if let Some(additions) = int("summary_additions")? {
        let mut summary = Object::new();
        summary.raw("additions", &additions.to_string());
        summary.raw("deletions", &int("summary_deletions")?.unwrap_or(0).to_string());
        summary.raw("files", &int("summary_files")?.unwrap_or(0).to_string());
        if let Some(diffs) = text("summary_diffs")? {
            summary.raw("diffs", &diffs);
        }
        info.raw("summary", &summary.end());
    }
    if let Some(url) = text("share_url")? {
        let mut share = Object::new();
        share.text("url", &url);
        info.raw("share", &share.end());
    }
    info.raw("cost", &number(row.get::<_, f64>("cost")?));
    let mut tokens = Object::new();
    tokens.raw("input", &row.get::<_, i64>("tokens_input")?.to_string());
    tokens.raw("output", &row.get::<_, i64>("tokens_output")?.to_string());
    tokens.raw("reasoning", &row.get::<_, i64>("tokens_reasoning")?.to_string());
    let mut cache = Object::new();
    cache.raw("read", &row.get::<_, i64>("tokens_cache_read")?.to_string());
    cache.raw("write", &row.get::<_, i64>("tokens_cache_write")?.to_string());
    tokens.raw("cache", &cache.end());
    info.raw("tokens", &tokens.end());
    for (column, key) in [
        ("metadata", "metadata"),
        ("permission", "permission"),
        ("revert", "revert"),
    ] {
        if let Some(json) = text(column)? {
            info.raw(key, &json);
        }
    }
    let mut time = Object::new();
    time.raw("created", &row.get::<_, i64>("time_created")?.to_string());
    time.raw("updated", &row.get::<_, i64>("time_updated")?.to_string());
    for (column, key) in [("time_compacting", "compacting"), ("time_archived", "archived")] {
        if let Some(at) = int(column)? {
            time.raw(key, &at.to_string());
        }
    }
    info.raw("time", &time.end());
    Ok(info.end())
}
