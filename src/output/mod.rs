//! Output formats; each renders the reports of [`crate::analysis::report`].

pub mod json;
pub mod table;
