//! The mapping crate (under construction).
