//! Analysis: demangling, grouping and diffing of the [`crate::model`].

pub mod demangle;
pub mod diff;
pub mod group;
pub mod report;
