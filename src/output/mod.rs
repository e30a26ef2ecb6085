//! Output formats; each renders the reports of [`crate::analysis::report`] or
//! [`crate::gate::budget`].

pub mod github;
pub mod json;
pub mod markdown;
pub mod table;

/// `s` cut to at most `width` characters by replacing its middle with `…`, so that long names
/// sharing a prefix still show where they differ.
pub fn clip_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width || width < 3 {
        return s.to_string();
    }
    let head = (width - 1) * 3 / 5;
    let tail = width - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}
