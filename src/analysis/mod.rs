//! Analysis: demangling, grouping, diffing and verifying of the [`crate::model`].

pub mod demangle;
pub mod diff;
pub mod group;
pub mod report;
pub mod verify;
