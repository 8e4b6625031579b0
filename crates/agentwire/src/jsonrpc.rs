//! JSON-RPC request/response pairing, for every source that speaks JSON-RPC over a duplex stream.
//!
//! A response carries only the `id` of the request it answers, and both sides number their own
//! requests (an agent's `fs/read_text_file` id 0 and the client's `initialize` id 0 coexist), so
//! a request is remembered under the direction it travelled and its id until the response
//! travelling the other way arrives. `M` is what a source keeps per request: its method (to
//! decode the result as that method's type), or more.

use std::collections::HashMap;

use agentwire_protocol::RequestId;

use crate::frame::Direction;

/// Requests awaiting their response, keyed by (the direction the request travelled, its id).
#[derive(Debug)]
pub struct Pending<M> {
    open: HashMap<(Direction, RequestId), M>,
}

impl<M> Default for Pending<M> {
    fn default() -> Self {
        Pending { open: HashMap::new() }
    }
}

impl<M> Pending<M> {
    /// Remembers a request that travelled in `dir` (a repeated id replaces the earlier one).
    pub fn sent(&mut self, dir: Direction, id: RequestId, method: M) {
        self.open.insert((dir, id), method);
    }

    /// What was remembered of the request a response travelling in `response_dir` answers,
    /// forgetting it.
    pub fn answered(&mut self, response_dir: Direction, id: &RequestId) -> Option<M> {
        self.open.remove(&(opposite(response_dir), id.clone()))
    }

    /// What is remembered of a request that travelled in `request_dir` and is still open.
    pub fn open(&self, request_dir: Direction, id: &RequestId) -> Option<&M> {
        self.open.get(&(request_dir, id.clone()))
    }
}

/// The other direction: a response travels opposite to its request.
fn opposite(dir: Direction) -> Direction {
    match dir {
        Direction::In => Direction::Out,
        Direction::Out => Direction::In,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_numbers_its_own_requests() {
        let mut pending = Pending::default();
        pending.sent(Direction::Out, RequestId::Integer(1), "initialize");
        pending.sent(Direction::In, RequestId::Integer(1), "fs/read_text_file");
        assert_eq!(
            pending.open(Direction::In, &RequestId::Integer(1)),
            Some(&"fs/read_text_file")
        );
        assert_eq!(
            pending.answered(Direction::In, &RequestId::Integer(1)),
            Some("initialize")
        );
        assert_eq!(pending.answered(Direction::In, &RequestId::Integer(1)), None);
        assert_eq!(
            pending.answered(Direction::Out, &RequestId::String("1".into())),
            None,
            "1 and \"1\" are different ids"
        );
        assert_eq!(
            pending.answered(Direction::Out, &RequestId::Integer(1)),
            Some("fs/read_text_file")
        );
    }
}
