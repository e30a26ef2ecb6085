//! dyld2's messages (macOS 11 and earlier, `dyld: ` with no PID): the bind lines of
//! `ImageLoaderMachO::bindLocation` (`DYLD_PRINT_BINDINGS`) and the `DYLD_PRINT_WEAK_BINDINGS`
//! lines of `ImageLoader::weakBind`.

use super::message::{Dyld2BindKind, Message};
use super::scan::{decimal_u64, hex_u64, non_empty, split_once};

/// The message of a dyld2 line (after `dyld: `), if weakscan knows it.
pub(super) fn parse_dyld2(m: &[u8]) -> Option<Message<'_>> {
    for (prefix, kind) in [
        (&b"bind: "[..], Dyld2BindKind::Regular),
        (b"lazy bind: ", Dyld2BindKind::Lazy),
        (b"weak bind: ", Dyld2BindKind::Weak),
    ] {
        if let Some(rest) = m.strip_prefix(prefix) {
            return parse_dyld2_bind(rest, kind);
        }
    }
    if let Some(rest) = m.strip_prefix(b"weak bind, setting all uses of ") {
        let (symbol, rest) = split_once(rest, b" in ")?;
        let (_, rest) = split_once(rest, b" to 0x")?;
        let (_, from) = split_once(rest, b" from ")?;
        return Some(Message::Dyld2WeakSetAllUses {
            symbol: non_empty(symbol)?,
            from: non_empty(from)?,
        });
    }
    let other: [&[u8]; 7] = [
        b"weak bind start:",
        b"weak bind end",
        b"checking for weak symbols in ",
        b"  found weak ",
        b"weak bind, found ",
        b"weak binding all uses of ",
        b"weak bind load order ",
    ];
    if other.iter().any(|p| m.starts_with(p)) || m.starts_with(b"weak binding adding ") {
        return Some(Message::Dyld2WeakOther);
    }
    None
}

/// After `%sbind: `: `%s:0x%08lX = %s:%s, *0x%08lX = 0x%08lX[ + %ld]`.
fn parse_dyld2_bind(rest: &[u8], kind: Dyld2BindKind) -> Option<Message<'_>> {
    let (image, rest) = split_once(rest, b":0x")?;
    let (address, rest) = hex_u64(rest)?;
    let rest = rest.strip_prefix(b" = ")?;
    let (target, value) = split_once(rest, b", *0x")?;
    let (library, symbol) = if let Some(s) = target.strip_prefix(b"<missing weak_import>:") {
        (&b"<missing weak_import>"[..], s)
    } else {
        split_once(target, b":")?
    };
    let (_, value) = hex_u64(value)?;
    let value = value.strip_prefix(b" = 0x")?;
    let (_, value) = hex_u64(value)?;
    let addend = if value.is_empty() {
        0
    } else {
        let a = value.strip_prefix(b" + ")?;
        let (neg, digits) = match a.strip_prefix(b"-") {
            Some(d) => (true, d),
            None => (false, a),
        };
        let (n, r) = decimal_u64(digits)?;
        r.is_empty().then_some(())?;
        let n = i64::try_from(n).ok()?;
        if neg { -n } else { n }
    };
    Some(Message::Dyld2Bind {
        kind,
        image: non_empty(image)?,
        address,
        library: non_empty(library)?,
        symbol: non_empty(symbol)?,
        addend,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse_line;
    use super::super::tests::msg;
    use super::*;

    #[test]
    fn dyld2_lines() {
        assert_eq!(
            msg("dyld: weak bind: node:0x1000A0010 = node:__ZN2v81fEv, *0x1000A0010 = 0x100001230"),
            Message::Dyld2Bind {
                kind: Dyld2BindKind::Weak,
                image: b"node",
                address: 0x1000A0010,
                library: b"node",
                symbol: b"__ZN2v81fEv",
                addend: 0
            }
        );
        assert_eq!(
            msg(
                "dyld: lazy bind: node:0x1000A0018 = libSystem.B.dylib:_printf, *0x1000A0018 = 0x7FF8001"
            ),
            Message::Dyld2Bind {
                kind: Dyld2BindKind::Lazy,
                image: b"node",
                address: 0x1000A0018,
                library: b"libSystem.B.dylib",
                symbol: b"_printf",
                addend: 0
            }
        );
        assert_eq!(
            msg(
                "dyld: bind: app:0x100008010 = <missing weak_import>:_opt, *0x100008010 = 0x00000000 + -8"
            ),
            Message::Dyld2Bind {
                kind: Dyld2BindKind::Regular,
                image: b"app",
                address: 0x100008010,
                library: b"<missing weak_import>",
                symbol: b"_opt",
                addend: -8
            }
        );
        assert_eq!(
            msg(
                "dyld: weak bind, setting all uses of __Znwm in /a/app to 0x7FF8 from /usr/lib/libc++abi.dylib"
            ),
            Message::Dyld2WeakSetAllUses {
                symbol: b"__Znwm",
                from: b"/usr/lib/libc++abi.dylib"
            }
        );
        assert_eq!(msg("dyld: weak bind start:"), Message::Dyld2WeakOther);
        assert!(parse_line(b"dyld: weak bind: node:0x10 = node:_x, *0x10 = 0x1 + 9z").is_none());
    }
}
