//! The canonical decision vocabulary of `request.resolved`: one set of values for every source
//! and every API generation, the provider's own answer kept beside it in `resolution`.

/// What the client decided about a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Allowed, this once.
    Accept,
    /// Allowed for the rest of the session (or a broader rule the user granted).
    AcceptForSession,
    /// Refused; the agent goes on without it.
    Decline,
    /// Refused and the turn stopped, or nobody answered before the stream ended.
    Cancel,
    /// Questions answered, or a tool's result or credentials supplied.
    Answered,
    /// The client answered with an error instead of a result.
    Error,
}

impl Decision {
    /// Every value, in the order above.
    pub const ALL: &'static [Decision] = &[
        Self::Accept,
        Self::AcceptForSession,
        Self::Decline,
        Self::Cancel,
        Self::Answered,
        Self::Error,
    ];

    /// The wire value in `request.resolved.decision`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::AcceptForSession => "acceptForSession",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
            Self::Answered => "answered",
            Self::Error => "error",
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
