//! Stateless conversions from provider types to canonical ones.
//!
//! They would be `From` impls, but both sides are foreign to this crate (the generated crates
//! own them) and the orphan rule forbids that; a local trait gives the same `x.canonical()`
//! shape and keeps every conversion an exhaustive `match`.

/// A provider value with one canonical meaning.
pub trait Canonicalize {
    /// The canonical type.
    type Canonical;
    /// The canonical value.
    fn canonical(&self) -> Self::Canonical;
}
