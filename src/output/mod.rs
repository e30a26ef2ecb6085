//! Output formats; each renders the reports of [`crate::analysis::report`] or
//! [`crate::gate::budget`].

pub mod github;
pub mod json;
pub mod markdown;
pub mod table;
