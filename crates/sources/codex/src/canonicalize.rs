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

/// Implements [`Canonicalize`] for a provider item status whose every variant has the canonical
/// [`ItemStatus`](agentwire_canonical::ItemStatus) of the same name. The expansion is an
/// exhaustive `match`, so a status upstream adds still breaks the build at the invocation.
#[cfg(any(feature = "app-server", feature = "exec"))]
macro_rules! same_named_item_status {
    ($($provider:ty: $($variant:ident),+;)+) => {$(
        impl $crate::canonicalize::Canonicalize for $provider {
            type Canonical = agentwire_canonical::ItemStatus;

            fn canonical(&self) -> agentwire_canonical::ItemStatus {
                match self {
                    $(Self::$variant => agentwire_canonical::ItemStatus::$variant,)+
                }
            }
        }
    )+};
}

#[cfg(any(feature = "app-server", feature = "exec"))]
pub(crate) use same_named_item_status;
