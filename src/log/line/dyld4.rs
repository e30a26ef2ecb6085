//! dyld4's messages (dyld-1231.3 and later, macOS 12 on): weak-def lookups
//! (`Loader::resolveSymbol`), bind lines (`JustInTimeLoader::applyFixups`,
//! `PrebuiltLoader::applyFixups`), `fixup:` lines (`Loader::applyFixupsGeneric`), page-in
//! linking, and the warnings weakscan counts, each matched against dyld's format string.

use super::message::{BindTo, FixupKind, Message};
use super::scan::{decimal_u64, find, hex_u64, non_empty, quoted_then, rfind, split_once};

/// The message of a dyld4 line (after its prefix), if weakscan knows it.
pub(super) fn parse_dyld4(m: &[u8]) -> Option<Message<'_>> {
    if let Some(rest) = m.strip_prefix(b"looking for weak-def symbol ") {
        let symbol = match rest.strip_prefix(b"'") {
            Some(q) => q.strip_suffix(b"':")?,
            None => rest,
        };
        return non_empty(symbol).map(|symbol| Message::LookupStart { symbol });
    }
    if let Some(rest) = m.strip_prefix(b"  using non-weak ") {
        let (symbol, path) = quoted_then(rest, b"' in ")?;
        return Some(Message::UsingNonWeak { symbol, path });
    }
    if let Some(rest) = m.strip_prefix(b"  using ") {
        let (symbol, path) = quoted_then(rest, b"' in ")?;
        return Some(Message::Using { symbol, path });
    }
    if let Some(rest) = m.strip_prefix(b"  found use of ") {
        let (symbol, path) = quoted_then(rest, b"' in cache, need to override: ")?;
        return Some(Message::CacheOverride { symbol, path });
    }
    if let Some(rest) = m.strip_prefix(b"  found ") {
        let (symbol, path) = split_once(rest, b" in map, using impl from ")?;
        return Some(Message::FoundInMap {
            symbol: non_empty(symbol)?,
            path: non_empty(path)?,
        });
    }
    if let Some(rest) = m.strip_prefix(b"  did not find unhidden ") {
        let (symbol, rest) = quoted_then(rest, b"', trying self (")?;
        let image = non_empty(rest.strip_suffix(b")")?)?;
        return Some(Message::TryingSelf { symbol, image });
    }
    if m.starts_with(b"<") {
        return parse_bind(m);
    }
    if let Some(rest) = m.strip_prefix(b"fixup: *0x") {
        return parse_fixup(rest);
    }
    if let Some(path) = m.strip_prefix(b"Setting up kernel page-in linking for ") {
        return non_empty(path).map(|path| Message::PageIn { path });
    }
    if let Some(rest) = m.strip_prefix(b"__map_with_linking_np(") {
        let path = rest.strip_suffix(b") failed, falling back to linking in-process")?;
        return non_empty(path).map(|path| Message::PageInFallback { path });
    }
    if let Some(rest) = m.strip_prefix(b"symbol '") {
        let (symbol, _) = split_once(rest, b"' missing from root that overrides ")?;
        return Some(Message::MissingFromRoot {
            symbol: non_empty(symbol)?,
        });
    }
    if m.starts_with(b"cache patch: ") {
        return Some(Message::CachePatch);
    }
    if let Some(symbol) = m.strip_prefix(b"Symbol not found: ") {
        return non_empty(symbol).map(|symbol| Message::SymbolNotFound { symbol });
    }
    if is_page_in_range(m) {
        return Some(Message::PageInRange);
    }
    None
}

/// `<%s/bind#N> -> …`, also `<%s/bind#N(variant-table#D)> -> %p`.
fn parse_bind(m: &[u8]) -> Option<Message<'_>> {
    let (head, to) = split_once(&m[1..], b"> -> ")?;
    let (image, index) = split_once(head, b"/bind#")?;
    let image = non_empty(image)?;
    let (index, rest) = decimal_u64(index)?;
    if !rest.is_empty() {
        // `N(variant-table#D)`: prebuilt function variant.
        let inner = rest.strip_prefix(b"(variant-table#")?.strip_suffix(b")")?;
        decimal_u64(inner).filter(|(_, r)| r.is_empty())?;
    }
    let to = if let Some(rest) = to.strip_prefix(b"missing-weak-bind") {
        if rest.is_empty() {
            BindTo::Prebuilt
        } else {
            let symbol = rest.strip_prefix(b" (")?.strip_suffix(b")")?;
            BindTo::MissingWeak {
                symbol: non_empty(symbol)?,
            }
        }
    } else {
        let (address, rest) = hex_u64(to.strip_prefix(b"0x")?)?;
        if rest.is_empty() {
            BindTo::Prebuilt
        } else if let Some(inner) = rest.strip_prefix(b" <").and_then(|r| r.strip_suffix(b">)")) {
            let (library, symbol) = split_once(inner, b"/")?;
            if let Some(v) = symbol.strip_prefix(b"variant-table#") {
                let (_, v) = decimal_u64(v)?;
                let symbol = v.strip_prefix(b"('")?.strip_suffix(b"')")?;
                BindTo::Variant {
                    address,
                    library: non_empty(library)?,
                    symbol: non_empty(symbol)?,
                }
            } else {
                BindTo::Resolved {
                    address,
                    library: non_empty(library)?,
                    symbol: non_empty(symbol)?,
                    angle_form: true,
                }
            }
        } else {
            let inner = rest.strip_prefix(b" (")?.strip_suffix(b")")?;
            match split_once(inner, b"/") {
                Some((library, symbol)) => BindTo::Resolved {
                    address,
                    library: non_empty(library)?,
                    symbol: non_empty(symbol)?,
                    angle_form: false,
                },
                None => {
                    // `(%s+0x%08llX)`: prebuilt.
                    let at = rfind(inner, b"+0x")?;
                    hex_u64(&inner[at + 3..]).filter(|(_, r)| r.is_empty())?;
                    BindTo::Prebuilt
                }
            }
        }
    };
    Some(Message::Bind { image, index, to })
}

/// After `fixup: *0x`.
fn parse_fixup(rest: &[u8]) -> Option<Message<'_>> {
    let (address, rest) = hex_u64(rest)?;
    if let Some(r) = rest.strip_prefix(b" (skipping missing weak bind) <") {
        let (image, index) = target_ref(r, b"/weak-bind#")?;
        return Some(Message::Fixup {
            address,
            kind: FixupKind::SkippedWeakBind,
            image,
            index,
        });
    }
    let rest = rest.strip_prefix(b" = 0x")?;
    let (_, rest) = hex_u64(rest)?;
    let (kind, image, index) = if rest.is_empty() {
        (FixupKind::Plain, &b""[..], 0)
    } else if rest == b" <rebase>" {
        (FixupKind::Rebase, &b""[..], 0)
    } else if let Some(v) = rest.strip_prefix(b" <function-variant-table#") {
        let (n, r) = decimal_u64(v)?;
        (r == b">").then_some(())?;
        (FixupKind::FunctionVariant, &b""[..], n)
    } else if is_objc_fixup(rest) {
        (FixupKind::ObjC, &b""[..], 0)
    } else {
        let r = rest.strip_prefix(b" <")?;
        if let Some((image, index)) = target_ref(r, b"/weak-bind#") {
            (FixupKind::WeakBind, image, index)
        } else {
            let (image, index) = target_ref(r, b"/bind#")?;
            (FixupKind::Bind, image, index)
        }
    };
    Some(Message::Fixup {
        address,
        kind,
        image,
        index,
    })
}

/// A prebuilt loader's Objective-C fixup tag (PrebuiltLoader.cpp, dyld-940 … 1378):
/// ` <objc-info preoptimized>`, ` <objc-protocol>`, ` <objc-selector '%s'>`,
/// ` <mark swift stable>`, ` <mark method list uniqued>`.
fn is_objc_fixup(rest: &[u8]) -> bool {
    matches!(
        rest,
        b" <objc-info preoptimized>"
            | b" <objc-protocol>"
            | b" <mark swift stable>"
            | b" <mark method list uniqued>"
    ) || (rest.starts_with(b" <objc-selector '") && rest.ends_with(b"'>"))
}

/// `IMAGE<sep>N>` → (IMAGE, N).
fn target_ref<'a>(r: &'a [u8], sep: &[u8]) -> Option<(&'a [u8], u64)> {
    let r = r.strip_suffix(b">")?;
    let at = rfind(r, sep)?;
    let (n, rest) = decimal_u64(&r[at + sep.len()..])?;
    rest.is_empty().then_some(())?;
    Some((non_empty(&r[..at])?, n))
}

/// `%14.*s (%c%c%c) 0x%012llX->0x%012llX (fileOffset=0x%0llX, size=%lluKB)`.
fn is_page_in_range(m: &[u8]) -> bool {
    let Some(open) = find(m, b" (") else {
        return false;
    };
    let r = &m[open + 2..];
    if r.len() < 7 || r[3] != b')' || !r[4..].starts_with(b" 0x") {
        return false;
    }
    let Some((_, r)) = hex_u64(&r[7..]) else {
        return false;
    };
    let Some(r) = r.strip_prefix(b"->0x") else {
        return false;
    };
    let Some((_, r)) = hex_u64(r) else {
        return false;
    };
    r.starts_with(b" (fileOffset=0x") && r.ends_with(b"KB)")
}

#[cfg(test)]
mod tests {
    use super::super::parse_line;
    use super::super::tests::msg;
    use super::*;

    #[test]
    fn lookup_blocks() {
        assert_eq!(
            msg("dyld[1]: looking for weak-def symbol '__ZN2v81fEv':"),
            Message::LookupStart {
                symbol: b"__ZN2v81fEv"
            }
        );
        assert_eq!(
            msg("dyld[1]: looking for weak-def symbol __ZN2v81fEv"),
            Message::LookupStart {
                symbol: b"__ZN2v81fEv"
            }
        );
        assert_eq!(
            msg("dyld[1]:   using '__Znwm' in /usr/lib/libc++abi.dylib"),
            Message::Using {
                symbol: b"__Znwm",
                path: b"/usr/lib/libc++abi.dylib"
            }
        );
        assert_eq!(
            msg("dyld[1]:   using non-weak '__Znam' in /Users/a b/app"),
            Message::UsingNonWeak {
                symbol: b"__Znam",
                path: b"/Users/a b/app"
            }
        );
        assert_eq!(
            msg("dyld[1]:   found __Znwm in map, using impl from /usr/lib/libc++abi.dylib"),
            Message::FoundInMap {
                symbol: b"__Znwm",
                path: b"/usr/lib/libc++abi.dylib"
            }
        );
        assert_eq!(
            msg("dyld[1]:   did not find unhidden '_x', trying self (plugin.bundle)"),
            Message::TryingSelf {
                symbol: b"_x",
                image: b"plugin.bundle"
            }
        );
        assert_eq!(
            msg(
                "dyld[1]:   found use of '__Znam' in cache, need to override: /usr/lib/libc++abi.dylib"
            ),
            Message::CacheOverride {
                symbol: b"__Znam",
                path: b"/usr/lib/libc++abi.dylib"
            }
        );
    }

    #[test]
    fn bind_lines_of_every_generation() {
        assert_eq!(
            msg("dyld[1]: <node/bind#12> -> 0x104f3a2c0 (node/__ZN2v84base2OSEv)"),
            Message::Bind {
                image: b"node",
                index: 12,
                to: BindTo::Resolved {
                    address: 0x104f3a2c0,
                    library: b"node",
                    symbol: b"__ZN2v84base2OSEv",
                    angle_form: false
                }
            }
        );
        assert_eq!(
            msg("dyld[1]: <node/bind#0> -> 0x0 (<none>/__ZnwmSt19__type_descriptor_t)"),
            Message::Bind {
                image: b"node",
                index: 0,
                to: BindTo::Resolved {
                    address: 0,
                    library: b"<none>",
                    symbol: b"__ZnwmSt19__type_descriptor_t",
                    angle_form: false
                }
            }
        );
        assert_eq!(
            msg("dyld[1]: <node/bind#7> -> 0x7ff80a1b2c30 <libc++abi.dylib/__Znwm>)"),
            Message::Bind {
                image: b"node",
                index: 7,
                to: BindTo::Resolved {
                    address: 0x7ff80a1b2c30,
                    library: b"libc++abi.dylib",
                    symbol: b"__Znwm",
                    angle_form: true
                }
            }
        );
        assert_eq!(
            msg("dyld[1]: <a/bind#2> -> 0x10 <libfoo.dylib/variant-table#3('_f')>)"),
            Message::Bind {
                image: b"a",
                index: 2,
                to: BindTo::Variant {
                    address: 0x10,
                    library: b"libfoo.dylib",
                    symbol: b"_f"
                }
            }
        );
        assert_eq!(
            msg("dyld[1]: <app/bind#3> -> missing-weak-bind (__ZnamSt19__type_descriptor_t)"),
            Message::Bind {
                image: b"app",
                index: 3,
                to: BindTo::MissingWeak {
                    symbol: b"__ZnamSt19__type_descriptor_t"
                }
            }
        );
        for prebuilt in [
            "dyld[1]: <ls/bind#0> -> 0x1890a4b2c",
            "dyld[1]: <ls/bind#1> -> 0x1890a4b2c (libsystem_c.dylib+0x0004B2C0)",
            "dyld[1]: <ls/bind#2> -> missing-weak-bind",
            "dyld[1]: <ls/bind#3(variant-table#1)> -> 0x1890a4b2c",
        ] {
            assert!(
                matches!(
                    msg(prebuilt),
                    Message::Bind {
                        to: BindTo::Prebuilt,
                        ..
                    }
                ),
                "{prebuilt}"
            );
        }
    }

    #[test]
    fn fixup_lines() {
        let f = |s| match msg(s) {
            Message::Fixup {
                address,
                kind,
                image,
                index,
            } => (address, kind, image.to_vec(), index),
            m => panic!("{m:?}"),
        };
        assert_eq!(
            f("dyld[1]: fixup: *0x000104F3A2C0 = 0x000104F3A2C8"),
            (0x104F3A2C0, FixupKind::Plain, vec![], 0)
        );
        assert_eq!(
            f("dyld[1]: fixup: *0x000104F3A2C0 = 0x000104F3A2C8 <rebase>"),
            (0x104F3A2C0, FixupKind::Rebase, vec![], 0)
        );
        assert_eq!(
            f("dyld[1]: fixup: *0x000104F3A2C0 = 0x7FF80A1B2C30 <node/bind#4>"),
            (0x104F3A2C0, FixupKind::Bind, b"node".to_vec(), 4)
        );
        assert_eq!(
            f("dyld[1]: fixup: *0x0104F3A2C0 = 0x00000104F3A2C8 <node/weak-bind#9>"),
            (0x104F3A2C0, FixupKind::WeakBind, b"node".to_vec(), 9)
        );
        assert_eq!(
            f("dyld[1]: fixup: *0x000104F3A2C0 (skipping missing weak bind) <node/weak-bind#2>"),
            (0x104F3A2C0, FixupKind::SkippedWeakBind, b"node".to_vec(), 2)
        );
        assert!(parse_line(b"dyld[1]: fixup: *0x000104F3A2C0 = 0x1 <node/bind#x>").is_none());
    }

    #[test]
    fn regression_function_variant_and_objc_fixup_lines_were_not_understood() {
        let f = |s| match msg(s) {
            Message::Fixup { kind, index, .. } => (kind, index),
            m => panic!("{m:?}"),
        };
        // dyld-1284.13+ Loader::applyFunctionVariantFixups keeps 12 digits.
        assert_eq!(
            f("dyld[1]: fixup: *0x000104F3A2C0 = 0x000104F3A100 <function-variant-table#3>"),
            (FixupKind::FunctionVariant, 3)
        );
        for objc in [
            "dyld[1]: fixup: *0x0001890A4B2C = 0x0001890A4B30 <objc-info preoptimized>",
            "dyld[1]: fixup: *0x0001890A4B2C = 0x0001890A4B30 <objc-protocol>",
            "dyld[1]: fixup: *0x0001890A4B2C = 0x0001890A4B30 <objc-selector 'init'>",
            "dyld[1]: fixup: *0x0001890A4B2C = 0x0001890A4B30 <mark swift stable>",
            "dyld[1]: fixup: *0x0001890A4B2C = 0x0001890A4B30 <mark method list uniqued>",
        ] {
            assert_eq!(f(objc), (FixupKind::ObjC, 0), "{objc}");
        }
        // dyld-1323.3+ classic relocations: 19 digits.
        assert_eq!(
            f("dyld[1]: fixup: *0x0000000000104F3A2C0 = 0x00007FF80A1B2C30 <a.out/bind#2>"),
            (FixupKind::Bind, 2)
        );
        assert!(parse_line(b"dyld[1]: fixup: *0x1 = 0x2 <function-variant-table#>").is_none());
        assert_eq!(
            msg(
                "dyld[1]: __map_with_linking_np(/tmp/app) failed, falling back to linking in-process"
            ),
            Message::PageInFallback { path: b"/tmp/app" }
        );
    }

    #[test]
    fn page_in_and_warnings() {
        assert_eq!(
            msg("dyld[1]: Setting up kernel page-in linking for /Users/ci/node"),
            Message::PageIn {
                path: b"/Users/ci/node"
            }
        );
        assert_eq!(
            msg(
                "dyld[1]:         __DATA (rw.) 0x000104F3A000->0x000104F3E000 (fileOffset=0x4000, size=16KB)"
            ),
            Message::PageInRange
        );
        assert_eq!(
            msg(
                "dyld[1]: symbol '_f' missing from root that overrides /usr/lib/libfoo.dylib. Use of that symbol in /usr/lib/libbar.dylib is being set to 0xBAD4007."
            ),
            Message::MissingFromRoot { symbol: b"_f" }
        );
    }
}
