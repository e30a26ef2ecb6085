//! Shortening a printed C++ name without cutting an identifier: what a table cell, a comment or
//! a report shows of a name too long for its room.
//!
//! Steps, each taken only while the name is still too long:
//!
//! 1. **Lists fold.** Each outermost template-argument list and parameter list becomes `<…>`
//!    or `(…)`, the longest first: `v8::internal::StaticCallInterfaceDescriptor<…>::Initialize(…)::registers`.
//! 2. **Outer scopes fold, from the left**, into `…::`: `…::StaticCallInterfaceDescriptor<…>::Initialize(…)::registers`.
//!    The leaf (the last component) and the template head (the first component with a list)
//!    always show ([`fold_name`]); a leading prefix outside the scopes (`guard variable for `, a
//!    return type) is kept. An example of a group ([`fold_member`]), shown beside the group's
//!    key (which holds the template head), may fold the head too: `…::Initialize(…)::registers`.
//!
//! What is left may still be wider than the room (one long identifier): the caller wraps it,
//! or, where a hard bound is needed, cuts it (`output::comment::clip_name`). A name whose
//! brackets do not balance as a printed name's do is not folded by lists, only by scopes.
//!
//! Brackets are read as LLVM's printer writes names: `operator<`, `operator<<`, `operator()`,
//! `operator->` and the like are names, not brackets; `>>` closes two lists.

use std::borrow::Cow;

/// `name` within `max` columns as `width` measures them, folded as the module docs say;
/// borrowed when it fits.
pub fn fold_name<'a>(name: &'a str, max: usize, width: impl Fn(&str) -> usize) -> Cow<'a, str> {
    fold(name, max, &width, true)
}

/// [`fold_name`] of a group's member shown beside the group's key: its template head may fold
/// too, the leaf never.
pub fn fold_member<'a>(name: &'a str, max: usize, width: impl Fn(&str) -> usize) -> Cow<'a, str> {
    fold(name, max, &width, false)
}

fn fold<'a>(
    name: &'a str,
    max: usize,
    width: &impl Fn(&str) -> usize,
    keep_head: bool,
) -> Cow<'a, str> {
    if width(name) <= max {
        return Cow::Borrowed(name);
    }
    let folded = fold_lists(name, max, width);
    if width(&folded) <= max {
        return Cow::Owned(folded);
    }
    Cow::Owned(fold_scopes(&folded, max, width, keep_head))
}

/// Byte ranges (brackets included) of the outermost `<…>` and `(…)` lists of `name`; `None`
/// when its brackets do not balance.
fn outer_lists(name: &str) -> Option<Vec<(usize, usize)>> {
    let b = name.as_bytes();
    let mut stack: Vec<u8> = Vec::new();
    let mut lists = Vec::new();
    let mut open_at = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"operator") && (i == 0 || !is_ident(b[i - 1])) {
            i += "operator".len() + operator_token(&b[i + "operator".len()..]);
            continue;
        }
        match b[i] {
            b'<' | b'(' => {
                if stack.is_empty() {
                    open_at = i;
                }
                stack.push(b[i]);
            }
            b'>' | b')' => {
                let want = if b[i] == b'>' { b'<' } else { b'(' };
                if stack.pop() != Some(want) {
                    return None;
                }
                if stack.is_empty() {
                    lists.push((open_at, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    stack.is_empty().then_some(lists)
}

/// The length of an operator's symbol after `operator` (`()`, `[]`, `<<=`, `->*`, …), 0 for
/// anything else (a conversion operator's ` int`, a literal operator's `"" _x`).
fn operator_token(b: &[u8]) -> usize {
    if b.starts_with(b"()") || b.starts_with(b"[]") {
        return 2;
    }
    let symbolic = |c: u8| b"<>=!+-*/%^&|~,".contains(&c);
    b.iter().take(3).take_while(|&&c| symbolic(c)).count()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// `name` with its outermost lists folded, the longest first, until it fits.
fn fold_lists(name: &str, max: usize, width: &impl Fn(&str) -> usize) -> String {
    let Some(lists) = outer_lists(name) else {
        return name.to_string();
    };
    let mut order: Vec<usize> = (0..lists.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(lists[i].1 - lists[i].0));
    let mut folded = vec![false; lists.len()];
    let mut text = name.to_string();
    for i in order {
        let (s, e) = lists[i];
        if e - s <= "<…>".len() {
            continue;
        }
        folded[i] = true;
        text = render(name, &lists, &folded);
        if width(&text) <= max {
            break;
        }
    }
    text
}

/// `name` with the lists marked in `folded` written `<…>` or `(…)`.
fn render(name: &str, lists: &[(usize, usize)], folded: &[bool]) -> String {
    let mut out = String::with_capacity(name.len());
    let mut at = 0;
    for (&(s, e), &f) in lists.iter().zip(folded) {
        if !f {
            continue;
        }
        out.push_str(&name[at..s]);
        out.push_str(if name.as_bytes()[s] == b'<' {
            "<…>"
        } else {
            "(…)"
        });
        at = e;
    }
    out.push_str(&name[at..]);
    out
}

/// `name` with its leading scopes folded into `…::` until it fits, keeping its prefix, its
/// template head and its leaf.
fn fold_scopes(name: &str, max: usize, width: &impl Fn(&str) -> usize, keep_head: bool) -> String {
    // The `::` outside every list, and a prefix ending in a space before the first of them.
    let b = name.as_bytes();
    let (mut depth, mut seps, mut prefix_end) = (0i32, Vec::new(), 0);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => {
                seps.push(i);
                i += 2;
                continue;
            }
            b' ' if depth == 0 && seps.is_empty() => prefix_end = i + 1,
            _ => {}
        }
        i += 1;
    }
    if seps.is_empty() {
        return name.to_string();
    }
    let prefix = &name[..prefix_end];
    // Components start at prefix_end and after each separator; the head is the first that
    // holds a list, else the leaf.
    let starts: Vec<usize> = std::iter::once(prefix_end)
        .chain(seps.iter().map(|s| s + 2))
        .collect();
    let ends: Vec<usize> = seps
        .iter()
        .copied()
        .chain(std::iter::once(name.len()))
        .collect();
    let leaf = starts.len() - 1;
    let head = if keep_head {
        (0..starts.len())
            .find(|&k| name[starts[k]..ends[k]].contains(['<', '(']))
            .unwrap_or(leaf)
    } else {
        leaf
    };
    let mut best = name.to_string();
    for k in 1..=head {
        best = format!("{prefix}…::{}", &name[starts[k]..]);
        if width(&best) <= max {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    const NAME: &str = "guard variable for v8::internal::StaticCallInterfaceDescriptor<v8::internal::AllocateDescriptor>::Initialize(v8::internal::CallInterfaceDescriptorData*)::stats";

    #[test]
    fn lists_fold_first_then_scopes_from_the_left() {
        assert_eq!(fold_name(NAME, 200, chars), NAME);
        let one = "guard variable for v8::internal::StaticCallInterfaceDescriptor<v8::internal::AllocateDescriptor>::Initialize(…)::stats";
        assert_eq!(fold_name(NAME, chars(one), chars), one);
        assert_eq!(
            fold_name(NAME, 90, chars),
            "guard variable for v8::internal::StaticCallInterfaceDescriptor<…>::Initialize(…)::stats"
        );
        assert_eq!(
            fold_name(NAME, 70, chars),
            "guard variable for …::StaticCallInterfaceDescriptor<…>::Initialize(…)::stats"
        );
        // The template head and the leaf always show, however little room.
        assert_eq!(
            fold_name(NAME, 20, chars),
            "guard variable for …::StaticCallInterfaceDescriptor<…>::Initialize(…)::stats"
        );
        // A member beside its group's key: the head may fold too, the leaf never.
        assert_eq!(
            fold_member(NAME, 50, chars),
            "guard variable for …::Initialize(…)::stats"
        );
        assert_eq!(fold_member(NAME, 5, chars), "guard variable for …::stats");
    }

    #[test]
    fn no_identifier_is_cut() {
        let names = [
            NAME,
            "std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char>>::basic_string(char const*, unsigned long long&&)::error_and_abort_args",
            "absl::container_internal::raw_hash_set<absl::container_internal::FlatHashMapPolicy<int, int>, absl::hash_internal::Hash<int>>::AssertHashEqConsistent<int>(int const&)::'lambda'(unsigned long)::operator()(unsigned long) const::value",
            "bool std::operator<<char, std::char_traits<char>>(std::basic_ostream<char>&, char const*)",
            "v8::internal::operator<<(std::ostream&, v8::internal::Foo<1>)",
        ];
        let ident = |s: &str| -> Vec<String> {
            s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        };
        for name in names {
            let whole = ident(name);
            for max in [20, 40, 60, 80, 120] {
                let f = fold_name(name, max, chars);
                for w in ident(&f) {
                    assert!(whole.contains(&w), "{max}: {w} cut from {name}: {f}");
                }
            }
        }
    }

    #[test]
    fn operators_are_names_not_brackets() {
        assert_eq!(
            fold_name(
                "v8::internal::operator<<(std::ostream&, v8::internal::Foo<1> const&)",
                40,
                chars
            ),
            "v8::internal::operator<<(…)"
        );
        assert_eq!(
            fold_name(
                "Foo<int>::operator()(int, long, unsigned long long) const",
                30,
                chars
            ),
            "Foo<int>::operator()(…) const"
        );
        // Unbalanced: only scopes fold.
        assert_eq!(fold_name("a::b::c<d", 5, chars), "…::c<d");
    }
}
