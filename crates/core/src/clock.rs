//! `createdAt`: RFC 3339 UTC with milliseconds, from Unix milliseconds, without a date crate; and
//! a provider's RFC 3339 text read back into Unix milliseconds, checked strictly.
//!
//! A stream that carries no time of its own is stamped from the best evidence there is, and
//! [`Clock::source`] says which ([`TimeSource`]): the host's clock live, a UUIDv7 id's
//! timestamp (a Codex thread id), the file's modification time when a history is imported. Only
//! without any of them does `createdAt` fall back to the Unix epoch, which no reader is shown.

use agentwire_canonical::IsoDateTime;

/// Where `createdAt` comes from, in order: the frame's recorded time, the provider's own
/// timestamp, the last time carried forward (the Unix epoch before any), unless the host asks
/// for the wall clock (live use without recorded times).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClockSource {
    /// Recorded and provider times only: the same input always gives the same output.
    #[default]
    Recorded,
    /// Recorded and provider times first, the wall clock when a frame has neither.
    Wall,
}

/// What the times of a session come from, best first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TimeSource {
    /// No evidence: `createdAt` is the Unix epoch, a time the session never had.
    #[default]
    Unknown,
    /// The input file's modification time: when the session last wrote, not when it began.
    FileModified,
    /// The timestamp of a UUIDv7 id the stream gave (a thread's): when the provider made it.
    IdTimestamp,
    /// The host's clock, when a live host's line came without a time.
    HostClock,
    /// The stream's own times: a transcript record's `ts`, the provider's timestamps.
    Recorded,
}

impl TimeSource {
    /// What a person reads beside a time: `recorded`, `from the file's modification time`, ...
    pub fn describe(self) -> &'static str {
        match self {
            TimeSource::Unknown => "no time known",
            TimeSource::FileModified => "from the file's modification time",
            TimeSource::IdTimestamp => "from the thread's id",
            TimeSource::HostClock => "by the host's clock",
            TimeSource::Recorded => "recorded",
        }
    }
}

/// The first and last millisecond `createdAt` can carry: RFC 3339 years run from 0000 to 9999.
pub const TIMES: std::ops::RangeInclusive<i64> = -62_167_219_200_000..=253_402_300_799_999;

/// The normalizer's clock: remembers the last time it gave, formatted once.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    source: ClockSource,
    last_ms: i64,
    /// Whether any time was given yet (the wall clock always gives one).
    known: bool,
    /// `last_ms` as `createdAt`, formatted when first asked for.
    formatted: Option<IsoDateTime>,
    /// What `last_ms` came from.
    evidence: TimeSource,
}

impl Clock {
    /// A clock that falls back as `source` says.
    pub fn new(source: ClockSource) -> Self {
        Clock {
            source,
            last_ms: 0,
            known: source == ClockSource::Wall,
            formatted: None,
            evidence: TimeSource::Unknown,
        }
    }

    /// What the times given so far come from: the best evidence seen (a stream that gives its
    /// own times after a fallback says `Recorded`).
    pub fn source(&self) -> TimeSource {
        self.evidence
    }

    /// A time learnt from outside the stream's own times (`FileModified`, `IdTimestamp`): it
    /// replaces the fallback when it is better evidence than what the clock has, and is never
    /// taken over a time the stream gave or the host's clock. It does not end a wait for the
    /// stream's first time: events held for one keep waiting, and get this only if none comes.
    pub fn learn(&mut self, ms: i64, evidence: TimeSource) {
        if evidence > self.evidence && TIMES.contains(&ms) {
            self.evidence = evidence;
            self.set(ms);
        }
    }

    fn set(&mut self, ms: i64) {
        if ms != self.last_ms {
            self.last_ms = ms;
            self.formatted = None;
        }
    }

    /// Advances to a frame's time: `recorded` (transcript `ts`), else `provider` (e.g.
    /// `emittedAtMs`), else the wall clock or the last time.
    ///
    /// A time outside [`TIMES`] is not one: a frame's is refused before it gets here
    /// ([`crate::frame::FrameError::TimeOutOfRange`]); a provider's stays in `raw`, and the
    /// event carries the time before it.
    pub fn tick(&mut self, recorded: Option<i64>, provider: Option<i64>) {
        let representable = |ms: &i64| TIMES.contains(ms);
        let given = recorded.filter(representable).or(provider.filter(representable));
        let ms = match (given, self.source) {
            (Some(ms), _) => {
                self.known = true;
                self.evidence = TimeSource::Recorded;
                ms
            }
            (None, ClockSource::Wall) => {
                self.evidence = self.evidence.max(TimeSource::HostClock);
                wall_ms()
            }
            (None, ClockSource::Recorded) => self.last_ms,
        };
        self.set(ms);
    }

    /// From now on, a frame with neither a recorded nor a provider time is stamped with the wall
    /// clock (a live host's line passed without `at`), and nothing waits for a time.
    pub fn use_wall(&mut self) {
        self.source = ClockSource::Wall;
        self.known = true;
    }

    /// For a stream that never carries a time (`codex exec --json`): nothing is learned by
    /// waiting for one, so the fallback (the last time, the Unix epoch before any, or the wall
    /// clock) is final and events are not held.
    pub fn expect_no_times(&mut self) {
        self.known = true;
    }

    /// Whether the stream has given a time yet. Before it has, `now()` is only the Unix epoch,
    /// a time the session never had.
    pub fn knows_time(&self) -> bool {
        self.known
    }

    /// The current time as `createdAt`.
    pub fn now(&mut self) -> IsoDateTime {
        let ms = self.last_ms;
        self.formatted
            .get_or_insert_with(|| IsoDateTime::new(rfc3339_millis(ms)).expect("formatted as RFC 3339"))
            .clone()
    }
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
}

/// `1796016332007` -> `2026-11-30T05:25:32.007Z`.
pub fn rfc3339_millis(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    if !(0..=9999).contains(&year) {
        return format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z");
    }
    // Digit by digit: most lines carry a new time, and `format!` took ~5% of a run.
    let mut text = String::with_capacity(24);
    let fields = [
        (year, 4, '-'),
        (month, 2, '-'),
        (day, 2, 'T'),
        (h, 2, ':'),
        (m, 2, ':'),
        (s, 2, '.'),
        (milli, 3, 'Z'),
    ];
    for (value, width, separator) in fields {
        for place in (0..width).rev() {
            let digit = value / 10_i64.pow(place) % 10;
            text.push(char::from(b'0' + u8::try_from(digit).expect("a decimal digit")));
        }
        text.push(separator);
    }
    text
}

/// A provider's time that is not an RFC 3339 instant, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidTime {
    /// The text as the provider sent it.
    pub text: String,
    /// What is wrong with it (the day is out of range, the UTC offset is out of range, ...).
    pub reason: &'static str,
}

impl std::fmt::Display for InvalidTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} is not an RFC 3339 instant: {}", self.text, self.reason)
    }
}

impl std::error::Error for InvalidTime {}

/// `2026-11-30T05:25:32.007Z` (any fraction, `Z` or an offset) -> Unix milliseconds: the inverse
/// of [`rfc3339_millis`], for sources whose lines carry their time as text.
///
/// The text is first checked by the canonical model's own RFC 3339 check (the one every
/// `createdAt` passes, [`IsoDateTime::new`]): a day past the end of its month, an hour past 23,
/// a minute or second past 59, an offset past 23:59 is an error, never a time moved into the
/// next minute, day or month. A leap second (`23:59:60` UTC, which Unix time cannot count) reads
/// as `23:59:59` with its fraction. An instant the check accepts may still lie outside [`TIMES`]
/// once its offset is applied (`0000-01-01T00:30:00+01:00`); [`Clock::tick`] does not take it.
pub fn read_rfc3339(text: &str) -> Result<i64, InvalidTime> {
    IsoDateTime::new(text).map_err(|invalid| InvalidTime {
        text: text.to_string(),
        reason: invalid.reason(),
    })?;
    // The check fixed the shape: four-digit year, two-digit fields at fixed places, an optional
    // fraction, then `Z` or `+hh:mm`/`-hh:mm`.
    let digits = |from: usize, to: usize| -> i64 {
        text.as_bytes()[from..to]
            .iter()
            .fold(0, |value, digit| value * 10 + i64::from(digit - b'0'))
    };
    let (year, month, day) = (digits(0, 4), digits(5, 7), digits(8, 10));
    let (hour, minute, second) = (digits(11, 13), digits(14, 16), digits(17, 19).min(59));
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let count = fraction.bytes().take_while(u8::is_ascii_digit).count();
        let kept = &fraction.as_bytes()[..count.min(3)];
        millis = kept
            .iter()
            .chain(std::iter::repeat_n(&b'0', 3 - kept.len()))
            .fold(0, |value, digit| value * 10 + i64::from(digit - b'0'));
        rest = &fraction[count..];
    }
    let offset_minutes = match rest.as_bytes() {
        [sign @ (b'+' | b'-'), ..] => {
            let minutes = digits(text.len() - 5, text.len() - 3) * 60 + digits(text.len() - 2, text.len());
            if *sign == b'-' { -minutes } else { minutes }
        }
        _ => 0,
    };
    let days = days_from_civil(year, month, day);
    Ok((((days * 24 + hour) * 60 + minute - offset_minutes) * 60 + second) * 1000 + millis)
}

/// [`read_rfc3339`] for a source that does not report a time it cannot read: `None` for it.
pub fn unix_millis(text: &str) -> Option<i64> {
    read_rfc3339(text).ok()
}

/// (year, month, day) -> days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// Days since 1970-01-01 -> (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use agentwire_canonical::IsoDateTime;

    use super::{Clock, ClockSource, TIMES, TimeSource, civil_from_days, read_rfc3339, rfc3339_millis, unix_millis};

    /// The best evidence wins: an id's time over the file's, the stream's own over both, and a
    /// fallback never replaces a time the stream gave.
    #[test]
    fn the_best_evidence_gives_the_time() {
        let mut clock = Clock::new(ClockSource::Recorded);
        assert_eq!(
            (clock.now().as_str(), clock.source()),
            ("1970-01-01T00:00:00.000Z", TimeSource::Unknown)
        );
        clock.learn(2_000, TimeSource::FileModified);
        assert_eq!(
            (clock.now().as_str(), clock.source()),
            ("1970-01-01T00:00:02.000Z", TimeSource::FileModified)
        );
        clock.learn(1_000, TimeSource::IdTimestamp);
        clock.learn(3_000, TimeSource::FileModified);
        assert_eq!(
            (clock.now().as_str(), clock.source()),
            ("1970-01-01T00:00:01.000Z", TimeSource::IdTimestamp)
        );
        assert!(
            !clock.knows_time(),
            "a fallback does not end the wait for the stream's time"
        );
        clock.tick(None, Some(5_000));
        clock.learn(9_000, TimeSource::IdTimestamp);
        assert_eq!(
            (clock.now().as_str(), clock.source()),
            ("1970-01-01T00:00:05.000Z", TimeSource::Recorded)
        );
        let mut fresh = Clock::new(ClockSource::Recorded);
        fresh.learn(*TIMES.end() + 1, TimeSource::FileModified);
        assert_eq!(
            fresh.source(),
            TimeSource::Unknown,
            "a time no RFC 3339 year holds is none"
        );
    }

    #[test]
    fn digits_are_written_as_format_would() {
        let last_ms_of_9999: i64 = 253_402_300_799_999;
        let mut ms: i64 = -86_400_000 * 366;
        while ms < last_ms_of_9999 + 86_400_000 {
            let (year, month, day) = civil_from_days(ms.div_euclid(86_400_000));
            let in_day = ms.rem_euclid(86_400_000);
            let (h, m, s, milli) = (
                in_day / 3_600_000,
                in_day / 60_000 % 60,
                in_day / 1000 % 60,
                in_day % 1000,
            );
            let expected = format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z");
            assert_eq!(rfc3339_millis(ms), expected);
            ms += 987_654_321_097;
        }
        assert_eq!(rfc3339_millis(last_ms_of_9999), "9999-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_millis(last_ms_of_9999 + 1), "10000-01-01T00:00:00.000Z");
    }

    #[test]
    fn reads_what_it_writes() {
        for ms in [0, 1_796_016_332_007, 951_782_400_000, -1] {
            assert_eq!(unix_millis(&rfc3339_millis(ms)), Some(ms));
        }
        assert_eq!(unix_millis("2026-11-30T06:25:32.0071+01:00"), Some(1_796_016_332_007));
        assert_eq!(unix_millis("2026-11-30T05:25:32Z"), Some(1_796_016_332_000));
        assert_eq!(unix_millis("2026-11-30 05:25:32Z"), None);
        assert_eq!(unix_millis("2026-11-30T05:25:32"), None);
        assert_eq!(unix_millis("2026-11-30t05:25:32.5z"), Some(1_796_016_332_500));
        assert_eq!(unix_millis("2026-11-30T00:25:32-05:00"), Some(1_796_016_332_000));
        assert_eq!(unix_millis("2024-02-29T00:00:00Z"), Some(1_709_164_800_000));
        assert_eq!(
            unix_millis("2026-11-30T05:25:32.999999999Z"),
            Some(1_796_016_332_999),
            "a fraction is cut to milliseconds"
        );
    }

    #[test]
    fn text_that_is_no_instant_is_refused_with_its_reason() {
        // Each was read before as some other instant (`2026-02-31T25:61:61Z` as
        // 2026-03-04T02:02:01.000Z); the reasons are the canonical date-time check's.
        for (text, reason) in [
            ("2026-02-31T25:61:61Z", "the day is out of range"),
            ("2026-02-31T12:00:00Z", "the day is out of range"),
            ("2026-02-29T12:00:00Z", "the day is out of range"),
            ("1900-02-29T12:00:00Z", "the day is out of range"),
            ("2026-04-31T12:00:00Z", "the day is out of range"),
            ("2026-11-00T12:00:00Z", "the day is out of range"),
            ("2026-13-01T12:00:00Z", "the month is out of range"),
            ("2026-00-01T12:00:00Z", "the month is out of range"),
            ("2026-11-30T24:00:00Z", "the time of day is out of range"),
            ("2026-11-30T25:00:00Z", "the time of day is out of range"),
            ("2026-11-30T05:61:00Z", "the time of day is out of range"),
            ("2026-11-30T05:25:61Z", "the time of day is out of range"),
            ("2026-11-30T05:25:32+99:99", "the UTC offset is out of range"),
            ("2026-11-30T05:25:32+24:00", "the UTC offset is out of range"),
            ("2026-11-30T05:25:32-00:60", "the UTC offset is out of range"),
            (
                "2026-11-30T05:25:60Z",
                "a leap second (second 60) must fall at 23:59 UTC",
            ),
        ] {
            let invalid = read_rfc3339(text).expect_err(text);
            assert_eq!((invalid.text.as_str(), invalid.reason), (text, reason));
            assert_eq!(unix_millis(text), None, "{text}");
        }
        for shape in [
            "",
            "2026-11-30",
            "2026-11-30T05:25:32",
            "2026-11-30 05:25:32Z",
            "2026-11-30T05:25:32.Z",
            "2026-11-30T05:25:32+0100",
            "2026-11-30T05:25:32Z ",
            "+2026-11-30T05:25:32Z",
            "2026-1-30T05:25:32Z",
        ] {
            assert!(
                read_rfc3339(shape)
                    .expect_err(shape)
                    .reason
                    .starts_with("must be an RFC 3339 date-time"),
                "{shape:?}"
            );
        }
        assert_eq!(
            read_rfc3339("2026-02-31T25:61:61Z")
                .expect_err("no instant")
                .to_string(),
            r#""2026-02-31T25:61:61Z" is not an RFC 3339 instant: the day is out of range"#
        );
    }

    #[test]
    fn a_leap_second_reads_as_the_second_before_it() {
        assert_eq!(
            read_rfc3339("2016-12-31T23:59:60.250Z"),
            Ok(1_483_228_799_250),
            "2016-12-31T23:59:59.250Z"
        );
        assert_eq!(read_rfc3339("2016-12-31T18:59:60-05:00"), Ok(1_483_228_799_000));
    }

    #[test]
    fn an_instant_beyond_the_years_createdat_carries_is_read_and_not_taken() {
        let ms = read_rfc3339("0000-01-01T00:30:00.000+01:00").expect("a valid RFC 3339 instant");
        assert!(!TIMES.contains(&ms), "{ms}");
        let mut clock = Clock::new(ClockSource::Recorded);
        clock.tick(None, Some(1_796_016_332_007));
        clock.tick(None, Some(ms));
        assert_eq!(clock.now().as_str(), "2026-11-30T05:25:32.007Z");
    }

    #[test]
    fn times_beyond_rfc_3339_years_are_not_taken() {
        let mut clock = Clock::new(ClockSource::Recorded);
        clock.tick(None, Some(1_796_016_332_007));
        for beyond in [*TIMES.end() + 1, *TIMES.start() - 1, i64::MAX, i64::MIN] {
            clock.tick(None, Some(beyond));
            assert_eq!(clock.now().as_str(), "2026-11-30T05:25:32.007Z", "{beyond}");
            clock.tick(Some(beyond), None);
            assert_eq!(clock.now().as_str(), "2026-11-30T05:25:32.007Z", "{beyond}");
        }
        for edge in [*TIMES.start(), *TIMES.end()] {
            clock.tick(None, Some(edge));
            assert!(IsoDateTime::new(clock.now().as_str()).is_ok(), "{edge}");
        }
        assert_eq!(rfc3339_millis(*TIMES.start()), "0000-01-01T00:00:00.000Z");
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_millis(1_796_016_332_007), "2026-11-30T05:25:32.007Z");
        assert_eq!(rfc3339_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_millis(-1), "1969-12-31T23:59:59.999Z");
    }
}
