//! Any bytes, as lines in both line formats: a frame read with the checking pass is the frame
//! serde_json reads (the same direction, time and message bytes, or the same error), and the
//! JSON-RPC envelope built from the members the pass found is the one serde_json reads.
#![no_main]

use agentwire::frame::{Frame, LineFormat};
use agentwire_core::jsonrpc;
use agentwire_protocol::RawEnvelope;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    for line in input.split('\n') {
        for format in [LineFormat::Transcript, LineFormat::Bare] {
            let checked = Frame::parse(line, format);
            let read = Frame::parse_with_serde_json(line, format);
            let seen = |frame: &Frame<'_>| (frame.dir, frame.ts, frame.msg.get().as_ptr(), frame.msg.get().len());
            assert_eq!(
                checked.as_ref().map(seen).map_err(ToString::to_string),
                read.as_ref().map(seen).map_err(ToString::to_string),
                "{format:?}: {line:?}"
            );
            let Ok(frame) = checked else { continue };
            let built = jsonrpc::envelope(&frame).map(|envelope| format!("{envelope:?}"));
            let parsed = serde_json::from_str::<RawEnvelope<'_>>(frame.msg.get()).map(|envelope| format!("{envelope:?}"));
            assert_eq!(
                built.map_err(|err| err.to_string()),
                parsed.map_err(|err| err.to_string()),
                "{format:?}: {line:?}"
            );
        }
    }
});
