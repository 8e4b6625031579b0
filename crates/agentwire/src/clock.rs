//! `createdAt`: RFC 3339 UTC with milliseconds, from Unix milliseconds, without a date crate.

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
}

impl Clock {
    /// A clock that falls back as `source` says.
    pub fn new(source: ClockSource) -> Self {
        Clock {
            source,
            last_ms: 0,
            known: source == ClockSource::Wall,
            formatted: None,
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
                ms
            }
            (None, ClockSource::Wall) => wall_ms(),
            (None, ClockSource::Recorded) => self.last_ms,
        };
        if ms != self.last_ms {
            self.last_ms = ms;
            self.formatted = None;
        }
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

/// `2026-11-30T05:25:32.007Z` (any fraction, `Z` or an offset) -> Unix milliseconds: the inverse
/// of [`rfc3339_millis`], for sources whose lines carry their time as text. `None` for anything
/// else.
pub fn unix_millis(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    let number = |from: usize, to: usize| -> Option<i64> {
        let digits = text.get(from..to)?;
        if digits.bytes().all(|b| b.is_ascii_digit()) {
            digits.parse().ok()
        } else {
            None
        }
    };
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if bytes.len() < 20
        || separators.iter().any(|&(at, expected)| bytes[at] != expected)
        || !matches!(bytes[10], b'T' | b't')
    {
        return None;
    }
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        millis = format!("{:0<3}", &fraction[..digits.min(3)]).parse::<i64>().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest.as_bytes() {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] if [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit()) => {
            let value = |a: &u8, b: &u8| i64::from(a - b'0') * 10 + i64::from(b - b'0');
            let minutes = value(h1, h2) * 60 + value(m1, m2);
            if *sign == b'-' { -minutes } else { minutes }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    Some((((days * 24 + hour) * 60 + minute - offset_minutes) * 60 + second) * 1000 + millis)
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

    use super::{Clock, ClockSource, TIMES, civil_from_days, rfc3339_millis, unix_millis};

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
