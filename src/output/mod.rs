//! Output: the formats, each rendering the reports of [`crate::analysis`] into a
//! [`std::io::Write`] (never one big string), and [`sink`], where that writer goes. Nothing here
//! imports [`crate::gate`].

pub mod baseline;
pub mod github;
pub mod json;
pub mod markdown;
pub mod sink;
pub mod table;

pub use crate::analysis::check::clip_middle;
