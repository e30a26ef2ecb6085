//! Output formats.
