//! A pattern over group keys or symbol names: a glob (globset), or a regex with a `re:` prefix.
//!
//! Patterns come from policy files and flags, so their size is bounded before any compiler sees
//! them: at most [`MAX_PATTERN_BYTES`] bytes and [`MAX_BRACE_DEPTH`] nested `{…}` alternations
//! (globset's single-glob matcher panics with "regex compilation shouldn't fail" when its regex
//! exceeds the size limit, e.g. for `{a,` nested 125 deep). Globs are compiled through
//! `GlobSet::build`, which returns that failure as an error instead, and regexes through the regex
//! crate, whose size limit is an error too. Every failure is one line (exit 2).

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use regex::Regex;

/// Longest pattern accepted, in bytes. Real group keys are under 300 bytes (Node.js 22: the
/// longest template key is 191).
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Deepest nesting of `{…}` alternations accepted in a glob.
pub const MAX_BRACE_DEPTH: usize = 8;

/// A compiled glob or regex.
///
/// * A glob matches the whole key: `v8::internal::*`, `node::crypto::CryptoJob<…>`. `*` and `?`
///   match any characters including `:`; `[…]` and `{a,b}` work as in globset; `\` escapes. The
///   ASCII `...` is read as the `…` that group keys use for collapsed lists.
/// * `re:REGEX` is a regex (regex crate syntax) that matches anywhere in the key unless
///   anchored with `^`/`$`: `re:^v8::internal::.*Descriptor<…>$`.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The pattern as written.
    pub text: String,
    matcher: Matcher,
}

#[derive(Debug, Clone)]
enum Matcher {
    Glob(GlobSet),
    Regex(Regex),
}

impl Pattern {
    /// Compiles `text`; the error is one line saying what is wrong.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        if text.len() > MAX_PATTERN_BYTES {
            return Err(format!(
                "pattern too long: {} bytes (at most {MAX_PATTERN_BYTES})",
                text.len()
            ));
        }
        let matcher = match text.strip_prefix("re:") {
            Some(re) => Matcher::Regex(Regex::new(re).map_err(|e| {
                // regex errors span several lines with a caret; keep the last one.
                let msg = e.to_string();
                let last = msg.lines().last().unwrap_or("").trim();
                format!(
                    "invalid regex {re:?}: {}",
                    last.strip_prefix("error: ").unwrap_or(last)
                )
            })?),
            None => {
                let depth = brace_depth(text);
                if depth > MAX_BRACE_DEPTH {
                    return Err(format!(
                        "invalid glob {text:?}: {{…}} nested {depth} deep (at most {MAX_BRACE_DEPTH})"
                    ));
                }
                let glob = text.replace("...", "…");
                let glob = GlobBuilder::new(&glob)
                    .literal_separator(false)
                    .build()
                    .map_err(|e| format!("invalid glob {text:?}: {}", glob_reason(&e)))?;
                Matcher::Glob(
                    GlobSetBuilder::new()
                        .add(glob)
                        .build()
                        .map_err(|e| format!("invalid glob {text:?}: {}", glob_reason(&e)))?,
                )
            }
        };
        Ok(Pattern {
            text: text.to_string(),
            matcher,
        })
    }

    /// `s` matches.
    pub fn is_match(&self, s: &str) -> bool {
        match &self.matcher {
            Matcher::Glob(g) => g.is_match(s),
            Matcher::Regex(r) => r.is_match(s),
        }
    }
}

fn glob_reason(e: &globset::Error) -> String {
    // A regex error (too big) spans several lines; keep its last one.
    let msg = e.kind().to_string();
    msg.lines().last().unwrap_or("").trim().to_string()
}

/// The deepest nesting of unescaped `{` in a glob (`\` escapes the next character; inside
/// `[…]` a brace is literal).
fn brace_depth(glob: &str) -> usize {
    let (mut depth, mut max, mut escaped, mut class) = (0usize, 0usize, false, false);
    for c in glob.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !class => class = true,
            ']' if class => class = false,
            '{' if !class => {
                depth += 1;
                max = max.max(depth);
            }
            '}' if !class => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_keys_across_colons() {
        let p = Pattern::parse("v8::internal::*").unwrap();
        assert!(p.is_match("v8::internal::StaticCallInterfaceDescriptor<…>"));
        assert!(p.is_match("v8::internal::compiler::Foo<…>"));
        assert!(!p.is_match("v8::internal"));
        assert!(!p.is_match("node::v8::internal::x"));
        let dots = Pattern::parse("node::SPrintFImpl<...>").unwrap();
        assert!(dots.is_match("node::SPrintFImpl<…>"));
    }

    #[test]
    fn regexes_search_unless_anchored() {
        let p = Pattern::parse("re:Descriptor<…>$").unwrap();
        assert!(p.is_match("v8::internal::StaticCallInterfaceDescriptor<…>"));
        assert!(!p.is_match("v8::internal::StaticCallInterfaceDescriptor<…>::x"));
    }

    #[test]
    fn regression_too_big_globs_panicked_in_globset() {
        // `{a,` nested 125 deep, `*` 100,000 times, a 512 KiB string.
        let nested = "{a,".repeat(125);
        assert_eq!(
            Pattern::parse(&nested).unwrap_err(),
            format!("invalid glob {nested:?}: {{…}} nested 125 deep (at most 8)")
        );
        let stars = "*".repeat(100_000);
        assert_eq!(
            Pattern::parse(&stars).unwrap_err(),
            "pattern too long: 100000 bytes (at most 4096)"
        );
        let big = "x".repeat(512 << 10);
        assert!(
            Pattern::parse(&big)
                .unwrap_err()
                .starts_with("pattern too long")
        );
        let big_re = format!("re:{}", "a{1000}".repeat(600));
        assert!(Pattern::parse(&big_re).is_err());
        // Within the limits, the biggest still compile or fail with an error, never a panic.
        for p in [
            "{a,".repeat(8),
            format!("{}{}", "{a,".repeat(8), "}".repeat(8)),
            "*".repeat(4096),
            "[a-z]*{x,y}".repeat(300),
            "re:(a|b){100}{100}".to_string(),
        ] {
            let _ = Pattern::parse(&p);
        }
        assert!(
            Pattern::parse("v8::{internal,base}::*")
                .unwrap()
                .is_match("v8::base::x")
        );
    }

    #[test]
    fn errors_are_one_line() {
        let e = Pattern::parse("re:^node::(").unwrap_err();
        assert_eq!(e, "invalid regex \"^node::(\": unclosed group");
        let e = Pattern::parse("v8::[internal").unwrap_err();
        assert_eq!(
            e,
            "invalid glob \"v8::[internal\": unclosed character class; missing ']'"
        );
    }
}
