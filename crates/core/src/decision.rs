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

impl std::str::FromStr for Decision {
    type Err = String;

    /// The wire value of `request.resolved.decision` back into a [`Decision`] (what a host
    /// answering a request says, in the same vocabulary it read).
    fn from_str(name: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .copied()
            .find(|decision| decision.as_str() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Self::ALL.iter().map(|decision| decision.as_str()).collect();
                crate::source::unknown_name("decision", name, &known)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_decision_parses_back_from_its_wire_value() {
        for decision in Decision::ALL {
            assert_eq!(decision.as_str().parse::<Decision>(), Ok(*decision));
        }
        let err = "approve".parse::<Decision>().unwrap_err();
        assert_eq!(
            err,
            "unknown decision \"approve\"; known: accept, acceptForSession, decline, cancel, answered, error"
        );
    }
}
