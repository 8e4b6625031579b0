//! The history database `import` keeps beside the canonical files (`DIR/history.sqlite`):
//! sessions, turns and items with their typed content and usage, and the text a person searches
//! (prompts, answers, reasoning, commands and their output, file paths, tool names, errors) in an
//! FTS5 table. What `search` and `sessions` read.
//!
//! It is derived from the canonical files alone, so it can always be made again: a session whose
//! index line changed is indexed anew, one the index no longer lists is dropped, and a database of
//! another schema version, or one that does not open as SQLite, is rebuilt from the files. A file
//! that is another program's SQLite database is left alone and said. Every update is one
//! transaction: an interrupted run leaves the database as it was.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agentwire_canonical::{ItemContent, SessionSnapshot, SnapshotItem, TokenUsage};
use anyhow::{Context, bail};
use rayon::prelude::*;
use rusqlite::{Connection, OpenFlags, params};

use super::index::Entry;
use crate::show;

/// The database's name in an import folder.
pub const DATABASE: &str = "history.sqlite";

/// `PRAGMA application_id`: which program's database it is ("agwr").
const APPLICATION_ID: i64 = 0x6167_7772;
/// `PRAGMA user_version`: the schema below; another is rebuilt.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE sessions (
    session_id TEXT PRIMARY KEY, output TEXT NOT NULL, input TEXT NOT NULL, source TEXT NOT NULL,
    provider TEXT NOT NULL, cwd TEXT, model TEXT, title TEXT, started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL, time_source TEXT NOT NULL, turns INTEGER NOT NULL,
    failed_turns INTEGER NOT NULL, errors INTEGER NOT NULL, events INTEGER NOT NULL,
    input_tokens INTEGER, cached_input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER,
    cost_usd REAL, cost_source TEXT, usage TEXT
);
CREATE TABLE turns (
    session_id TEXT NOT NULL, turn_id TEXT NOT NULL, position INTEGER NOT NULL, state TEXT NOT NULL,
    model TEXT, started_at TEXT, completed_at TEXT, error TEXT, input_tokens INTEGER,
    output_tokens INTEGER, cost_usd REAL, cost_source TEXT, usage TEXT,
    PRIMARY KEY (session_id, turn_id)
);
CREATE TABLE items (
    session_id TEXT NOT NULL, item_id TEXT NOT NULL, turn_id TEXT, parent_item_id TEXT,
    item_type TEXT NOT NULL, status TEXT, title TEXT, started_at TEXT, completed_at TEXT, data TEXT,
    PRIMARY KEY (session_id, item_id)
);
CREATE VIRTUAL TABLE texts USING fts5(
    text, kind UNINDEXED, session_id UNINDEXED, turn_id UNINDEXED, item_id UNINDEXED, at UNINDEXED
);
CREATE TABLE text_rows (rowid INTEGER PRIMARY KEY, session_id TEXT NOT NULL);
CREATE INDEX text_rows_by_session ON text_rows (session_id);
CREATE INDEX turns_by_session ON turns (session_id);
CREATE INDEX items_by_session ON items (session_id);
";

/// Sessions read at a time before they are written.
const CHUNK: usize = 64;

/// What kind of text a search hit is, as `search --type` names it.
pub const KINDS: &[&str] = &[
    "prompt",
    "answer",
    "reasoning",
    "command",
    "output",
    "path",
    "tool",
    "error",
];

/// How the update went, for the import's summary.
pub struct Updated {
    pub indexed: usize,
    /// Why the database was made anew, when it was.
    pub rebuilt: Option<String>,
}

/// Brings `DIR/history.sqlite` up to the index's `entries`: each session whose line differs from
/// what the database holds is read from its canonical file and indexed anew, in one transaction.
pub fn update(out_dir: &Path, entries: &[Entry], pool: &rayon::ThreadPool) -> anyhow::Result<Updated> {
    let path = out_dir.join(DATABASE);
    let (mut connection, rebuilt) = open_for_update(&path)?;
    let held = held_sessions(&connection)?;
    let listed: BTreeSet<&str> = entries.iter().map(|entry| entry.session_id.as_str()).collect();
    let stale: Vec<&Entry> = entries
        .iter()
        .filter(|entry| held.get(entry.session_id.as_str()) != Some(&fingerprint(entry)))
        .collect();
    let dropped: Vec<&String> = held
        .keys()
        .filter(|session| !listed.contains(session.as_str()))
        .collect();
    let transaction = connection
        .transaction()
        .with_context(|| format!("{}: starting a transaction", path.display()))?;
    let held_stale = stale
        .iter()
        .map(|entry| entry.session_id.as_str())
        .filter(|session| held.contains_key(*session));
    for session in dropped.iter().map(|session| session.as_str()).chain(held_stale) {
        delete(&transaction, session)?;
    }
    // A chunk of sessions read on every worker at a time, then written: memory holds one chunk's
    // snapshots, whatever the history's size.
    for chunk in stale.chunks(CHUNK) {
        let rows: Vec<SessionRows> = pool.install(|| {
            chunk
                .par_iter()
                .map(|entry| SessionRows::read(out_dir, entry))
                .collect::<anyhow::Result<_>>()
        })?;
        for session in &rows {
            session.insert(&transaction)?;
        }
    }
    transaction
        .commit()
        .with_context(|| format!("{}: writing the update", path.display()))?;
    Ok(Updated {
        indexed: stale.len(),
        rebuilt,
    })
}

/// Opens the database for reading (`search`, `sessions`), saying what to do when there is none.
pub fn open(out_dir: &Path) -> anyhow::Result<Connection> {
    let path = if out_dir.is_dir() {
        out_dir.join(DATABASE)
    } else {
        out_dir.to_path_buf()
    };
    if !path.is_file() {
        bail!(
            "{}: no history database here (run `agentwire import --out DIR` first)",
            path.display()
        );
    }
    let connection = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("{}: cannot open", path.display()))?;
    match identity(&connection) {
        Ok((APPLICATION_ID, SCHEMA_VERSION)) => Ok(connection),
        Ok((APPLICATION_ID, version)) => {
            bail!(
                "{}: schema version {version}, not {SCHEMA_VERSION}: run `agentwire import` again to rebuild it",
                path.display()
            )
        }
        Ok(_) => bail!("{}: not agentwire's history database", path.display()),
        Err(err) => bail!(
            "{}: not a database ({err}): run `agentwire import` again to rebuild it",
            path.display()
        ),
    }
}

/// The database opened for an update, made anew (and why) when it is of another schema version or
/// does not read as SQLite; another program's database is an error.
fn open_for_update(path: &Path) -> anyhow::Result<(Connection, Option<String>)> {
    let mut rebuilt = None;
    if path.exists() {
        let why = match Connection::open(path)
            .map_err(|err| err.to_string())
            .and_then(|connection| identity(&connection).map_err(|err| err.to_string()))
        {
            Ok((APPLICATION_ID, SCHEMA_VERSION)) => None,
            Ok((APPLICATION_ID, version)) => Some(format!("schema version {version}, not {SCHEMA_VERSION}")),
            Ok((0, _)) if is_empty(path) => Some("an empty database".to_owned()),
            Ok((id, _)) => bail!(
                "{}: another program's SQLite database (application_id {id:#x}); move it away and import again",
                path.display()
            ),
            Err(err) => Some(format!("it does not read as SQLite ({err})")),
        };
        if let Some(why) = why {
            remove_database(path)?;
            rebuilt = Some(why);
        }
    }
    let fresh = !path.exists();
    let connection = Connection::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    if fresh {
        connection
            .execute_batch(&format!(
                "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION}; \
                 PRAGMA journal_mode = WAL; {SCHEMA}"
            ))
            .with_context(|| format!("{}: creating the tables", path.display()))?;
    }
    Ok((connection, rebuilt))
}

/// Whether the file at `path` holds no table (a zero-length file opens as an empty database).
fn is_empty(path: &Path) -> bool {
    Connection::open(path)
        .and_then(|connection| {
            connection.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get::<_, i64>(0))
        })
        .is_ok_and(|tables| tables == 0)
}

fn remove_database(path: &Path) -> anyhow::Result<()> {
    std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(side));
    }
    Ok(())
}

/// `(application_id, user_version)`; an error when the file is no SQLite database.
fn identity(connection: &Connection) -> rusqlite::Result<(i64, i64)> {
    let id = connection.query_row("PRAGMA application_id", [], |row| row.get(0))?;
    let version = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    // A file that is no database fails here, not at open.
    connection.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get::<_, i64>(0))?;
    Ok((id, version))
}

/// What tells a session's rows apart from an index line's: the output, its events and its end.
fn fingerprint(entry: &Entry) -> String {
    format!("{}|{}|{}", entry.output, entry.events, entry.ended_at)
}

fn held_sessions(connection: &Connection) -> anyhow::Result<BTreeMap<String, String>> {
    let mut statement = connection.prepare("SELECT session_id, output, events, ended_at FROM sessions")?;
    let rows = statement.query_map([], |row| {
        let (session, output, events, ended): (String, String, i64, String) =
            (row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?);
        Ok((session, format!("{output}|{events}|{ended}")))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Drops a session's rows; its texts by their row ids (an FTS5 table deletes by rowid without
/// reading the others).
fn delete(connection: &Connection, session: &str) -> anyhow::Result<()> {
    connection.execute(
        "DELETE FROM texts WHERE rowid IN (SELECT rowid FROM text_rows WHERE session_id = ?1)",
        [session],
    )?;
    for table in ["sessions", "turns", "items", "text_rows"] {
        connection.execute(&format!("DELETE FROM {table} WHERE session_id = ?1"), [session])?;
    }
    Ok(())
}

/// One session's rows, read from its canonical file.
struct SessionRows {
    entry: Entry,
    title: Option<String>,
    snapshot: Option<SessionSnapshot>,
}

impl SessionRows {
    fn read(out_dir: &Path, entry: &Entry) -> anyhow::Result<Self> {
        let snapshot = show::snapshot_of_canonical(&out_dir.join(&entry.output))?;
        let title = snapshot.as_ref().and_then(title);
        Ok(SessionRows {
            entry: entry.clone(),
            title,
            snapshot,
        })
    }

    fn insert(&self, connection: &Connection) -> anyhow::Result<()> {
        let entry = &self.entry;
        let usage = entry.usage.as_ref();
        connection.execute(
            "INSERT INTO sessions VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
            params![
                entry.session_id,
                entry.output,
                entry.input,
                entry.source,
                entry.provider,
                entry.cwd,
                entry.model,
                self.title,
                entry.started_at,
                entry.ended_at,
                serde_json::to_value(entry.time_source)?.as_str().unwrap_or_default(),
                int(entry.turns),
                int(entry.failed_turns),
                int(entry.errors),
                int(entry.events),
                usage.and_then(|usage| usage.input_tokens),
                usage.and_then(|usage| usage.cached_input_tokens),
                usage.and_then(|usage| usage.output_tokens),
                usage.and_then(|usage| usage.total_tokens),
                usage.and_then(|usage| usage.cost_usd),
                usage.map(|usage| usage.cost_source.as_str()),
                usage.map(json),
            ],
        )?;
        let Some(snapshot) = &self.snapshot else {
            return Ok(());
        };
        let session = entry.session_id.as_str();
        let mut insert_text = connection.prepare_cached(
            "INSERT INTO texts (text, kind, session_id, turn_id, item_id, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        let mut insert_row = connection.prepare_cached("INSERT INTO text_rows (rowid, session_id) VALUES (?1, ?2)")?;
        let mut text = |words: &str, kind: &str, turn: Option<&str>, item: Option<&str>, at: Option<&str>| {
            let rowid = insert_text.insert(params![words, kind, session, turn, item, at])?;
            insert_row.execute(params![rowid, session])
        };
        for (position, turn) in snapshot.turns.iter().enumerate() {
            let usage = turn.usage.as_ref();
            connection.execute(
                "INSERT OR REPLACE INTO turns VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    session,
                    turn.turn_id.as_str(),
                    int(position as u64 + 1),
                    turn.state.as_str(),
                    turn.model,
                    turn.started_at.as_ref().map(|at| at.as_str()),
                    turn.completed_at.as_ref().map(|at| at.as_str()),
                    turn.error,
                    usage.and_then(|usage| usage.input_tokens),
                    usage.and_then(|usage| usage.output_tokens),
                    usage.and_then(|usage| usage.cost_usd),
                    usage.map(|usage| usage.cost_source.as_str()),
                    usage.map(json),
                ],
            )?;
            if let Some(error) = &turn.error {
                let at = turn.completed_at.as_ref().map(|at| at.as_str());
                text(error, "error", Some(turn.turn_id.as_str()), None, at)?;
            }
        }
        for item in &snapshot.items {
            let turn = item.turn_id.as_ref().map(|turn| turn.as_str());
            let at = item
                .started_at
                .as_ref()
                .or(item.completed_at.as_ref())
                .map(|at| at.as_str());
            connection.execute(
                "INSERT OR REPLACE INTO items VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    session,
                    item.item_id.as_str(),
                    turn,
                    item.parent_item_id.as_ref().map(|parent| parent.as_str()),
                    item.item_type.as_str(),
                    item.status.map(|status| status.as_str()),
                    item.title,
                    item.started_at.as_ref().map(|at| at.as_str()),
                    item.completed_at.as_ref().map(|at| at.as_str()),
                    item.data.as_ref().map(|data| data.to_string()),
                ],
            )?;
            for (kind, words) in texts(item) {
                if !words.trim().is_empty() {
                    text(&words, kind, turn, Some(item.item_id.as_str()), at)?;
                }
            }
        }
        for error in &snapshot.errors {
            let turn = error.turn_id.as_ref().map(|turn| turn.as_str());
            text(&error.message, "error", turn, None, Some(error.at.as_str()))?;
        }
        Ok(())
    }
}

/// A count as SQLite stores it.
fn int(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

fn json(usage: &TokenUsage) -> String {
    serde_json::to_string(usage).expect("usage serializes")
}

/// A session's title: its first prompt's first line.
fn title(snapshot: &SessionSnapshot) -> Option<String> {
    snapshot.items.iter().find_map(|item| match content(item) {
        Some(ItemContent::UserMessage(message)) => {
            let line = message.text.lines().find(|line| !line.trim().is_empty())?;
            Some(line.chars().take(120).collect())
        }
        _ => None,
    })
}

fn content(item: &SnapshotItem) -> Option<ItemContent> {
    ItemContent::decode(item.item_type, item.data.as_ref()?).ok()
}

/// The searchable texts of an item, by kind ([`KINDS`]), read from its typed content (its title
/// where the content does not decode).
fn texts(item: &SnapshotItem) -> Vec<(&'static str, String)> {
    let Some(content) = content(item) else {
        return item.title.iter().map(|title| ("tool", title.clone())).collect();
    };
    let or_empty = |text: &Option<String>| text.clone().unwrap_or_default();
    match content {
        ItemContent::UserMessage(message) => vec![("prompt", message.text)],
        ItemContent::AssistantMessage(message) => vec![("answer", message.text)],
        ItemContent::Reasoning(reasoning) => vec![("reasoning", reasoning.text)],
        ItemContent::Plan(plan) => {
            let steps: Vec<String> = plan.steps.into_iter().map(|step| step.step).collect();
            vec![("answer", [or_empty(&plan.markdown), steps.join("\n")].join("\n"))]
        }
        ItemContent::CommandExecution(command) => {
            vec![("command", command.command), ("output", or_empty(&command.output))]
        }
        ItemContent::FileChange(change) => {
            let paths: Vec<String> = change.changes.into_iter().map(|change| change.path).collect();
            vec![("path", paths.join("\n"))]
        }
        ItemContent::McpToolCall(call) => vec![
            ("tool", format!("{} {}", call.server, call.tool)),
            (
                "output",
                call.result.map(|result| result.to_string()).unwrap_or_default(),
            ),
            ("error", or_empty(&call.error)),
        ],
        ItemContent::DynamicToolCall(call) => vec![
            ("tool", [call.tool, item.title.clone().unwrap_or_default()].join(" ")),
            (
                "output",
                call.result.map(|result| result.to_string()).unwrap_or_default(),
            ),
            ("error", or_empty(&call.error)),
        ],
        ItemContent::CollabAgentToolCall(call) => vec![
            (
                "tool",
                [or_empty(&call.tool), or_empty(&call.agent), or_empty(&call.description)].join(" "),
            ),
            ("prompt", or_empty(&call.prompt)),
            ("answer", or_empty(&call.result)),
        ],
        ItemContent::WebSearch(search) => vec![("tool", search.query)],
        ItemContent::ImageView(view) => vec![("path", view.path)],
        ItemContent::ContextCompaction(compaction) => vec![("answer", or_empty(&compaction.summary))],
        ItemContent::Error(error) => vec![("error", error.message)],
        ItemContent::Unknown(unknown) => vec![("tool", [or_empty(&unknown.kind), or_empty(&unknown.text)].join(" "))],
        ItemContent::ReviewEntered(_) | ItemContent::ReviewExited(_) | ItemContent::ImageGeneration(_) => {
            item.title.iter().map(|title| ("tool", title.clone())).collect()
        }
    }
}
