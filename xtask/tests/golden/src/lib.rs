//! The emitter goldens (`xtask/src/codegen/emitter_goldens.rs` checks they are what the generator
//! writes for `xtask/tests/fixtures/`), compiled with the lint policy of a generated crate.
#![deny(warnings)]

#[rustfmt::skip]
pub mod jsonrpc;

#[rustfmt::skip]
pub mod stream;
