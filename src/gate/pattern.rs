//! A pattern over group keys or symbol names: a glob (globset), or a regex with a `re:` prefix.

use globset::{GlobBuilder, GlobMatcher};
use regex::Regex;

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
    Glob(GlobMatcher),
    Regex(Regex),
}

impl Pattern {
    /// Compiles `text`; the error is one line saying what is wrong.
    pub fn parse(text: &str) -> Result<Pattern, String> {
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
                let glob = text.replace("...", "…");
                Matcher::Glob(
                    GlobBuilder::new(&glob)
                        .literal_separator(false)
                        .build()
                        .map_err(|e| format!("invalid glob {text:?}: {}", glob_reason(&e)))?
                        .compile_matcher(),
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
    e.kind().to_string()
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
