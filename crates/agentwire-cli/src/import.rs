//! `agentwire import`: a whole history of traces (Codex's `~/.codex/sessions`, Claude's
//! `~/.claude/projects`, any folder of supported `.jsonl` files) normalized on every core into one
//! canonical JSONL per session, with an index.
//!
//! A session is one input file: the canonical stream `normalize` makes of it, whose events share
//! one `sessionId`. A file holding several threads (a Claude run with subagents, an app-server
//! transcript that started two threads) stays one session; the index counts its threads.
//!
//! Each file is streamed line by line into its own normalizer and its events are written as they
//! come, to a part file renamed into place once the stream is settled: a worker holds one line,
//! one chunk of output and the index counters of the file at hand, whatever the archive's size.
//! Outcomes are gathered in input order, so the output is the same bytes for any number of jobs.

mod chart;
pub mod history;
pub mod index;
mod pages;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use agentwire::frame::LineFormat;
use agentwire::ids;
use agentwire::normalizer::{Normalizer, Options, ProblemKind};
use agentwire::source::Source;
use agentwire::store::StoredSession;
use agentwire_canonical::{RuntimeSessionId, TokenUsage, UsageScope};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use self::index::{Entry, FORMAT, Tally};
use crate::ExitStatus;
use crate::input::{Input, UNDETECTED};

/// The index file in the output folder.
/// The index's name in an import folder.
pub const INDEX: &str = "sessions.jsonl";

/// Failures the closing summary lists one by one, so it stays one screen.
const FAILURES_SHOWN: usize = 20;

/// Where part files are written before they are renamed into place: one folder per worker,
/// because creating files in one folder from several threads queues them on that folder's lock
/// (with one shared folder, two workers spent 2-5 s of system time on 16,380 files, with one per
/// worker 1-1.7 s; `benches/import.sh`).
const PARTS: &str = ".partial";

/// `agentwire import`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files and folders (walked for `*.jsonl`); each file's source is detected.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The output folder: `<source>/<session id>.jsonl` per session and the index `sessions.jsonl`.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Files normalized at once; default: every core.
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// Import every file again, even those whose output is newer than the input.
    #[arg(long)]
    force: bool,
    /// Also write each session as an HTML page beside its JSONL (`<source>/<session id>.html`,
    /// as `agentwire show --html` draws it) and `index.html` linking them all.
    #[arg(long)]
    html: bool,
    /// Keep no history database (`DIR/history.sqlite`, what `search` and `sessions` read); one
    /// left by an earlier run is left as it was.
    #[arg(long)]
    no_history: bool,
}

/// What became of one input file.
enum Outcome {
    /// Normalized into a part file, renamed into place once the outcomes are gathered.
    Imported { entry: Box<Entry>, part: PathBuf },
    /// Up to date: the previous index entry stands (moved out of the previous index, not copied).
    Kept,
    /// Not a supported trace.
    Skipped(String),
    /// Unreadable or cut short (the reason names the path); no output.
    Failed(String),
}

/// Imports every trace under `args.paths` into `args.out`; the status is a failure when a file
/// could not be read (or held unreadable lines), or a folder could not be walked.
pub fn run(args: Args) -> anyhow::Result<ExitStatus> {
    let started = Instant::now();
    let mut walk_failures = Vec::new();
    let out_dir = args.out.clone();
    fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let skip_dir = fs::canonicalize(&out_dir).ok();
    let mut inputs = Vec::new();
    for path in &args.paths {
        walk(path, skip_dir.as_deref(), &mut inputs, &mut walk_failures);
    }
    inputs.sort();
    inputs.dedup();
    let inputs = stores(inputs, &mut walk_failures);
    for failure in &walk_failures {
        eprintln!("{failure}");
    }
    let mut previous = read_index(&out_dir.join(INDEX))?;
    let parts = out_dir.join(PARTS);

    let total_bytes = inputs.iter().map(Walked::len).sum();
    let bar = progress_bar(total_bytes, inputs.len());
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        NonZeroUsize::get,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting the worker threads")?;
    for worker in 0..jobs {
        let dir = worker_parts(&parts, worker);
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    // Previous sessions whose input is not walked this time stay listed while their output is
    // there: importing `~/.codex` and then `~/.claude` into one folder indexes both.
    let walked: BTreeSet<String> = inputs.iter().map(Walked::name).collect();
    let mut entries: Vec<Entry> = previous
        .extract_if(.., |input, entry| {
            !walked.contains(input) && out_dir.join(&entry.output).is_file()
        })
        .map(|(_, entry)| entry)
        .collect();
    let firsts: Vec<Option<RuntimeSessionId>> = pool.install(|| inputs.par_iter().map(Walked::first_session).collect());
    let taken = entries.iter().map(|entry| entry.session_id.clone()).collect();
    let sessions = assign_sessions(firsts, taken);

    let job = Job {
        out_dir: &out_dir,
        parts: &parts,
        previous: &previous,
        force: args.force,
        bar: &bar,
        done: AtomicUsize::new(0),
        files: inputs.len(),
    };
    let outcomes: Vec<Outcome> = pool.install(|| {
        inputs
            .par_iter()
            .zip(sessions)
            .enumerate()
            .map(|(number, (path, session))| job.import(number, path, session))
            .collect()
    });
    bar.finish_and_clear();

    // Every output in place before the index names it; on all the workers, as a rename is a
    // system call as dear as a small file's normalization.
    pool.install(|| {
        outcomes.par_iter().try_for_each(|outcome| {
            let Outcome::Imported { entry, part } = outcome else {
                return Ok(());
            };
            let target = out_dir.join(&entry.output);
            fs::create_dir_all(target.parent().expect("<source>/<id>.jsonl has a folder"))
                .with_context(|| format!("creating {}", target.display()))?;
            fs::rename(part, &target).with_context(|| format!("moving {} to {}", part.display(), target.display()))
        })
    })?;
    let mut summary = Summary::default();
    let mut replaced = Vec::new();
    for (walked, outcome) in inputs.iter().zip(outcomes) {
        match outcome {
            Outcome::Imported { entry, .. } => {
                if let Some(old) = previous.remove(&entry.input) {
                    replaced.push(old.output);
                }
                if entry.unreadable_lines > 0 {
                    summary.failures.push(format!(
                        "{}: {} unreadable line(s), each reported above as FILE:LINE",
                        entry.input, entry.unreadable_lines
                    ));
                }
                summary.imported += 1;
                entries.push(*entry);
            }
            Outcome::Kept => {
                let name = walked.name();
                summary.kept += 1;
                entries.extend(previous.remove(&name));
            }
            Outcome::Skipped(reason) => {
                eprintln!("{}: skipped: {reason}", walked.name());
                summary.skipped += 1;
            }
            Outcome::Failed(reason) => summary.failures.push(reason),
        }
    }
    // A file that now opens another session leaves an output no entry describes.
    let outputs: BTreeSet<&str> = entries.iter().map(|entry| entry.output.as_str()).collect();
    for old in replaced.iter().filter(|old| !outputs.contains(old.as_str())) {
        let _ = fs::remove_file(out_dir.join(old));
        let _ = fs::remove_file(pages::page_path(&out_dir.join(old)));
    }
    entries.sort_by(|one, other| (&one.input, &one.session_id).cmp(&(&other.input, &other.session_id)));
    write_index(&out_dir, &entries)?;
    // The history database follows the index; a failure there leaves the canonical files and the
    // index whole, and is said.
    match (!args.no_history)
        .then(|| history::update(&out_dir, &entries, &pool))
        .transpose()
    {
        Ok(None) => {}
        Ok(Some(updated)) => {
            if let Some(why) = &updated.rebuilt {
                eprintln!(
                    "{}: made anew from the canonical files: {why}",
                    out_dir.join(history::DATABASE).display()
                );
            }
            summary.indexed = updated.indexed;
        }
        Err(err) => summary.failures.push(format!("{err:#}")),
    }
    if args.html {
        pages::write(&out_dir, &entries, &pool)?;
    }
    for worker in 0..jobs {
        let _ = fs::remove_dir(worker_parts(&parts, worker));
    }
    let _ = fs::remove_dir(&parts);

    summary.failures.splice(0..0, walk_failures);
    eprint!("{}", summary.render(&entries, started.elapsed()));
    Ok(if summary.failures.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// The part folder of the `worker`th thread.
fn worker_parts(parts: &Path, worker: usize) -> PathBuf {
    parts.join(worker.to_string())
}

/// The default session id of the file at `path` (that of its first frame, as `normalize` gives
/// it: its first non-blank line, or the first frame of a document); `None` when the file has no
/// line or cannot be read (its import reports why).
fn first_line_session(path: &Path) -> Option<RuntimeSessionId> {
    let mut input = Input::open_file_head(path).ok()?;
    let mut line = Vec::new();
    input.next_line(&mut line).ok()??;
    // A first line that is no whole JSON value, or the whole file, may begin a document.
    let whole = serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_ok();
    let one_line = input.next_line(&mut Vec::new()).ok()?.is_none();
    if !whole || one_line {
        let mut input = Input::open_file(path).ok()?;
        if let Ok(Some(_)) = input.detect_source() {
            input.next_line(&mut line).ok()??;
        }
    }
    Some(ids::default_session(&line))
}

/// What the walk found: a trace file, or one session of a store (a database of sessions).
enum Walked {
    File(PathBuf),
    Stored {
        path: PathBuf,
        source: Source,
        session: StoredSession,
    },
}

impl Walked {
    /// The input as the index names it: the file, or `STORE#SESSION`.
    fn name(&self) -> String {
        match self {
            Walked::File(path) => path.display().to_string(),
            Walked::Stored { path, session, .. } => format!("{}#{}", path.display(), session.key),
        }
    }

    /// The bytes it counts for on the progress bar (a store's sessions count for nothing: their
    /// documents are written as they are read).
    fn len(&self) -> u64 {
        match self {
            Walked::File(path) => fs::metadata(path).map_or(0, |meta| meta.len()),
            Walked::Stored { .. } => 0,
        }
    }

    /// The default session id of its first frame.
    fn first_session(&self) -> Option<RuntimeSessionId> {
        match self {
            Walked::File(path) => first_line_session(path),
            Walked::Stored { .. } => {
                let (source, text) = self.document().ok()?;
                let mut input = Input::from_document(String::new(), &text, source);
                let mut line = Vec::new();
                input.next_line(&mut line).ok()??;
                Some(ids::default_session(&line))
            }
        }
    }

    /// A stored session's source and document.
    fn document(&self) -> Result<(Source, String), String> {
        match self {
            Walked::File(path) => Err(format!("{}: not a store", path.display())),
            Walked::Stored { path, source, session } => {
                let store = source
                    .spec()
                    .files
                    .store
                    .as_ref()
                    .expect("a stored session's source has a store");
                (store.document)(path, &session.key).map(|text| (*source, text))
            }
        }
    }
}

/// The walked files, each store among them (a file with a store's extension that a source's
/// store opens) replaced by its sessions, in input order; a store that cannot be read is a
/// failure, and a file with that extension no source opens stays a file (reported as skipped).
fn stores(files: Vec<PathBuf>, failures: &mut Vec<String>) -> Vec<Walked> {
    let mut walked = Vec::new();
    for path in files {
        let store =
            Source::ALL.iter().copied().find(|source| {
                source.spec().files.store.as_ref().is_some_and(|store| {
                    path.extension().is_some_and(|ext| ext == store.extension) && (store.opens)(&path)
                })
            });
        let Some(source) = store else {
            walked.push(Walked::File(path));
            continue;
        };
        let sessions = source.spec().files.store.as_ref().expect("found by its store").sessions;
        match sessions(&path) {
            Ok(sessions) => walked.extend(sessions.into_iter().map(|session| Walked::Stored {
                path: path.clone(),
                source,
                session,
            })),
            Err(reason) => failures.push(reason),
        }
    }
    walked.sort_by_key(Walked::name);
    walked
}

/// The session id of each file: its default one, unless an earlier file (in path order) or a
/// session of the index in `taken` has it already. The same first line opens many a transcript
/// (an ACP client's `initialize` without a time); the `k`th such file gets UUIDv5 of
/// `<default id>#<k>`, the first unused. Same inputs, same ids, whatever the number of jobs.
fn assign_sessions(
    firsts: Vec<Option<RuntimeSessionId>>,
    mut taken: BTreeSet<String>,
) -> Vec<Option<RuntimeSessionId>> {
    // The last `k` given for each first line: thousands of files opening alike cost one try each.
    let mut last_k: BTreeMap<RuntimeSessionId, u64> = BTreeMap::new();
    firsts
        .into_iter()
        .map(|first| {
            let first = first?;
            let k = last_k.entry(first.clone()).or_insert(1);
            let mut session = first.clone();
            if *k > 1 || taken.contains(session.as_str()) {
                loop {
                    *k += 1;
                    session = ids::default_session(format!("{}#{k}", first.as_str()).as_bytes());
                    if !taken.contains(session.as_str()) {
                        break;
                    }
                }
            }
            taken.insert(session.as_str().to_owned());
            Some(session)
        })
        .collect()
}

/// Adds the `.jsonl` files under `path` to `inputs`, and the files a source may read whole (`.json`
/// documents, a store's extension) (a file given by name is taken whatever its name); folders are walked in name order, symbolic links to folders are not followed, and
/// `skip` (the output folder) is left out.
fn walk(path: &Path, skip: Option<&Path>, inputs: &mut Vec<PathBuf>, failures: &mut Vec<String>) {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) => return failures.push(format!("{}: {err}", path.display())),
    };
    if !meta.is_dir() {
        inputs.push(path.to_path_buf());
        return;
    }
    let mut pending = vec![path.to_path_buf()];
    while let Some(dir) = pending.pop() {
        if skip.is_some_and(|skip| fs::canonicalize(&dir).is_ok_and(|dir| dir == skip)) {
            continue;
        }
        let listing = match fs::read_dir(&dir).and_then(|entries| entries.collect::<Result<Vec<_>, _>>()) {
            Ok(listing) => listing,
            Err(err) => {
                failures.push(format!("{}: {err}", dir.display()));
                continue;
            }
        };
        let mut folders = Vec::new();
        for entry in listing {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => folders.push(path),
                // A link to nowhere is taken too: its import reports it.
                // A file belonging to a session file (a Claude Code subagent's transcript) is
                // read with that session.
                Ok(_) if is_trace_name(&path) && !belongs_to_a_session(&path) => {
                    inputs.push(path);
                }
                Ok(_) => {}
                Err(err) => failures.push(format!("{}: {err}", path.display())),
            }
        }
        folders.sort_by(|one, other| other.cmp(one));
        pending.extend(folders);
    }
}

/// Whether the walk takes a file by its name: `.jsonl`, `.json` when some source reads documents,
/// a store's extension.
fn is_trace_name(path: &Path) -> bool {
    let Some(ext) = path.extension() else {
        return false;
    };
    ext == "jsonl"
        || Source::ALL.iter().any(|source| {
            let spec = source.spec();
            (spec.files.document.is_some() && ext == "json")
                || spec.files.store.as_ref().is_some_and(|store| ext == store.extension)
        })
}

/// Whether `path` belongs to a session file of some source (one of its `companions`, such as a
/// Claude Code subagent's transcript): it is read with that session, not as one of its own.
fn belongs_to_a_session(path: &Path) -> bool {
    Source::ALL
        .iter()
        .filter_map(|source| source.spec().files.companions.as_ref())
        .any(|companions| (companions.belongs)(path))
}

/// The previous index by input path; empty when there is none.
pub fn read_index(path: &Path) -> anyhow::Result<BTreeMap<String, Entry>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(err) => return Err(err).with_context(|| format!("reading {}", path.display())),
    };
    let mut entries = BTreeMap::new();
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", path.display()))?;
        let entry: Entry = serde_json::from_str(&line).with_context(|| {
            format!(
                "{}:{}: not an index line (remove the file, or import with --force into a new folder)",
                path.display(),
                number + 1
            )
        })?;
        entries.insert(entry.input.clone(), entry);
    }
    Ok(entries)
}

/// Writes the index through a part file, so an interrupted run leaves the previous one whole.
fn write_index(out_dir: &Path, entries: &[Entry]) -> anyhow::Result<()> {
    let part = out_dir.join(format!("{INDEX}.part"));
    let mut out = BufWriter::new(File::create(&part).with_context(|| format!("writing {}", part.display()))?);
    for entry in entries {
        serde_json::to_writer(&mut out, entry)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    fs::rename(&part, out_dir.join(INDEX))?;
    Ok(())
}

/// A progress bar over the input bytes on a terminal's stderr; hidden otherwise.
fn progress_bar(total_bytes: u64, files: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::hidden());
    if std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg} ETA {eta}").expect("a valid template"),
        );
        bar.set_message(format!("0/{files} files"));
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar.set_length(total_bytes);
    bar
}

/// What every file's import shares.
struct Job<'a> {
    out_dir: &'a Path,
    parts: &'a Path,
    previous: &'a BTreeMap<String, Entry>,
    force: bool,
    bar: &'a ProgressBar,
    /// Files done so far, of `files`, for the progress bar.
    done: AtomicUsize,
    files: usize,
}

impl Job<'_> {
    /// Imports the `number`th input, unless its output is up to date.
    fn import(&self, number: usize, walked: &Walked, session: Option<RuntimeSessionId>) -> Outcome {
        let name = walked.name();
        let outcome = match self.up_to_date(walked, &name, session.as_ref()) {
            Some(_) => Outcome::Kept,
            None => match walked {
                Walked::File(path) => self.normalize(number, path, name, session),
                Walked::Stored { .. } => match walked.document() {
                    Ok((source, text)) => {
                        let input = Input::from_document(name.clone(), &text, source);
                        self.normalize_input(number, input, source, LineFormat::Bare, name, session)
                    }
                    Err(reason) => Outcome::Failed(format!("{name}: {reason}")),
                },
            },
        };
        if let Outcome::Failed(reason) = &outcome {
            self.bar.suspend(|| eprintln!("{reason}"));
        }
        self.bar.inc(walked.len());
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.set_message(format!("{done}/{} files", self.files));
        outcome
    }

    /// The previous entry of `path` when it has the session id given to the file now, its output
    /// is newer than the file, and the file had no unreadable line (such a file is read again,
    /// so its problems are reported again).
    /// A store's session is up to date when its output is newer than the session's last change
    /// (`StoredSession::updated_ms`): the store file itself changes with every session.
    fn up_to_date(&self, walked: &Walked, name: &str, session: Option<&RuntimeSessionId>) -> Option<&Entry> {
        if self.force {
            return None;
        }
        let entry = self.previous.get(name)?;
        if Some(entry.session_id.as_str()) != session.map(RuntimeSessionId::as_str) {
            return None;
        }
        let modified = |path: &Path| fs::metadata(path).and_then(|meta| meta.modified()).ok();
        let input: SystemTime = match walked {
            Walked::File(path) => modified(path)?,
            Walked::Stored { session, .. } => {
                SystemTime::UNIX_EPOCH + Duration::from_millis(u64::try_from(session.updated_ms).ok()?)
            }
        };
        let output = modified(&self.out_dir.join(&entry.output))?;
        (entry.unreadable_lines == 0 && entry.format == FORMAT && output > input).then_some(entry)
    }

    /// Streams the file into its source's normalizer and its events into a part file.
    fn normalize(&self, number: usize, path: &Path, name: String, session_id: Option<RuntimeSessionId>) -> Outcome {
        let mut input = match Input::open_file(path) {
            Ok(input) => input,
            Err(err) => return Outcome::Failed(format!("{name}: {err}")),
        };
        let (source, format) = match input.detect_source() {
            Ok(Some(found)) => found,
            Ok(None) => return Outcome::Skipped(format!("not a supported trace: {UNDETECTED}")),
            Err(err) => return Outcome::Failed(err.to_string()),
        };
        match Input::with_companions(&path.to_string_lossy(), source) {
            Ok(Some(joined)) => input = joined,
            Ok(None) => {}
            Err(err) => return Outcome::Failed(format!("{name}: {err}")),
        }
        self.normalize_input(number, input, source, format, name, session_id)
    }

    /// Streams `input` into `source`'s normalizer and its events into a part file.
    fn normalize_input(
        &self,
        number: usize,
        mut input: Input,
        source: Source,
        format: LineFormat,
        name: String,
        session_id: Option<RuntimeSessionId>,
    ) -> Outcome {
        let worker = rayon::current_thread_index().expect("imports run on the pool");
        let part = worker_parts(self.parts, worker).join(format!("{number}.jsonl"));
        let streamed = File::create(&part)
            .map_err(|err| anyhow::anyhow!("writing {}: {err}", part.display()))
            .and_then(|file| {
                let options = Options::default()
                    .with_session_id(session_id)
                    .with_file_modified(input.modified_ms);
                let mut normalizer = source.normalizer(options);
                stream(&mut input, format, normalizer.as_mut(), (file, &part), self.bar)
            });
        match streamed {
            Ok((tally, unreadable)) => match tally.entry(source.name(), name.clone(), unreadable) {
                Some(entry) => Outcome::Imported {
                    entry: Box::new(entry),
                    part,
                },
                None => {
                    let _ = fs::remove_file(&part);
                    Outcome::Failed(format!("{name}: no events"))
                }
            },
            Err(err) => {
                let _ = fs::remove_file(&part);
                Outcome::Failed(format!("{err:#}"))
            }
        }
    }
}

/// Pushes every line of `input` into `normalizer` and writes the events to `file` as they come;
/// returns the index counters and the number of unreadable lines (each reported on stderr with
/// its line number, as `normalize` reports them).
fn stream(
    input: &mut Input,
    format: LineFormat,
    normalizer: &mut (dyn Normalizer + Send),
    (mut out, part): (File, &Path),
    bar: &ProgressBar,
) -> anyhow::Result<(Tally, u64)> {
    let written = |result: std::io::Result<()>| result.with_context(|| format!("writing {}", part.display()));
    let (mut tally, mut unreadable) = (Tally::default(), 0);
    let (mut events, mut buf, mut text) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(number) = input.next_line(&mut buf)? {
        let problem = match std::str::from_utf8(&buf) {
            _ if input.unreadable().is_some() => {
                let reason = input.unreadable().unwrap_or_default().to_owned();
                normalizer.push_unreadable(&String::from_utf8_lossy(&buf), &reason, &mut events);
                Some((ProblemKind::Unreadable, reason))
            }
            Err(err) => {
                let line = String::from_utf8_lossy(&buf);
                let reason = format!("not UTF-8: {err}");
                normalizer.push_unreadable(&line, &reason, &mut events);
                Some((ProblemKind::Unreadable, reason))
            }
            Ok(line) => normalizer
                .push_line(line, format, &mut events)
                .err()
                .map(|problem| (problem.kind, problem.message)),
        };
        if let Some((kind, reason)) = problem {
            bar.suspend(|| eprintln!("{}:{number}: {reason}", input.name));
            if kind == ProblemKind::Unreadable {
                unreadable += 1;
            }
        }
        for event in &events {
            tally.observe(event);
        }
        crate::normalize::write_events(&mut events, &mut text)?;
        if text.len() >= crate::normalize::OUTPUT_CHUNK {
            written(out.write_all(&text))?;
            text.clear();
        }
    }
    normalizer.finish(&mut events);
    for event in &events {
        tally.observe(event);
    }
    crate::normalize::write_events(&mut events, &mut text)?;
    written(out.write_all(&text))?;
    tally.time_source = normalizer.time_source();
    Ok((tally, unreadable))
}

/// What the run did, for the closing summary.
#[derive(Default)]
struct Summary {
    imported: usize,
    kept: usize,
    skipped: usize,
    /// Sessions the history database indexed anew.
    indexed: usize,
    failures: Vec<String>,
}

/// One row of the summary table.
#[derive(Default)]
struct Row {
    sessions: u64,
    turns: u64,
    items: u64,
    errors: u64,
    /// The sessions' usage added up; `None` when none reports any.
    usage: Option<TokenUsage>,
}

impl Row {
    fn add(&mut self, entry: &Entry) {
        self.sessions += 1;
        self.turns += entry.turns;
        self.items += entry.items;
        self.errors += entry.errors;
        if let Some(usage) = &entry.usage {
            agentwire::usage::add(
                self.usage
                    .get_or_insert_with(|| agentwire::usage::empty(UsageScope::Session)),
                usage,
            );
        }
    }

    fn line(&self, name: &str) -> String {
        let usage = self.usage.as_ref();
        let count = |count: Option<i64>| count.map_or_else(|| "-".to_owned(), |count| count.to_string());
        format!(
            "{name:<18}{:>9}{:>8}{:>9}{:>14}{:>12}{:>14}{:>11}{:>8}\n",
            self.sessions,
            self.turns,
            self.items,
            count(usage.and_then(|usage| usage.input_tokens)),
            count(usage.and_then(|usage| usage.output_tokens)),
            count(usage.and_then(|usage| usage.cached_input_tokens)),
            usage
                .and_then(|usage| usage.cost_usd)
                .map_or_else(|| "-".to_owned(), |cost| format!("{cost:.4}")),
            self.errors
        )
    }
}

impl Summary {
    /// One screen: what happened to the files, then sessions, turns, tokens and cost by source,
    /// then each failure.
    fn render(&self, entries: &[Entry], elapsed: Duration) -> String {
        let mut by_source: BTreeMap<&str, Row> = BTreeMap::new();
        let mut total = Row::default();
        for entry in entries {
            by_source.entry(&entry.source).or_default().add(entry);
            total.add(entry);
        }
        let mut text = format!(
            "imported {} session(s), {} up to date, {} file(s) skipped, {} failure(s) in {:.1} s; \
             the index lists {} session(s), {} indexed anew for search:\n",
            self.imported,
            self.kept,
            self.skipped,
            self.failures.len(),
            elapsed.as_secs_f64(),
            entries.len(),
            self.indexed
        );
        text.push_str(&format!(
            "{:<18}{:>9}{:>8}{:>9}{:>14}{:>12}{:>14}{:>11}{:>8}\n",
            "source", "sessions", "turns", "items", "input tok", "output tok", "cached tok", "cost USD", "errors"
        ));
        for (source, row) in &by_source {
            text.push_str(&row.line(source));
        }
        text.push_str(&total.line("total"));
        for failure in self.failures.iter().take(FAILURES_SHOWN) {
            text.push_str(&format!("failed: {failure}\n"));
        }
        if self.failures.len() > FAILURES_SHOWN {
            let more = self.failures.len() - FAILURES_SHOWN;
            text.push_str(&format!("... and {more} more failure(s), each reported above\n"));
        }
        text
    }
}
