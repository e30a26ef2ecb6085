//! One log line: its prefix (which process wrote it) and its message (what dyld said).
//!
//! Prefixes, from dyld's `RuntimeState::vlog` (dyld-1231.3 `dyld/DyldRuntimeState.cpp`) and
//! dyld2's `dyld::log`:
//!
//! ```text
//! dyld[PID]: MESSAGE              dyld4, to stderr or DYLD_PRINT_TO_FILE
//! <LEVEL>PROGNAME[PID]: MESSAGE   dyld4 to syslog (LEVEL = LOG_USER|LOG_NOTICE = 13)
//! dyld: MESSAGE                   dyld2 (macOS ≤ 11): no PID
//! ```
//!
//! The program's own output shares the stream: a line may be program output only, or program
//! output with no newline followed by a dyld line (`hellodyld[42]: …`). A `dyld[PID]: ` found
//! inside a line starts a dyld message only if that message is one weakscan knows; otherwise
//! the whole line is program output.
//!
//! Messages are matched against dyld's format strings verbatim (see `docs/logs.md` and
//! `docs/dyld-weak-binding.md` for every string and the dyld function that prints
//! it). Symbol names are bytes in the log; they become `String`s losslessly, invalid UTF-8 as
//! `\xNN` (as for names read from Mach-O files).

use crate::macho::cursor::symbol_name;

/// Who wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// dyld4 (`dyld[PID]: ` or the syslog form): the process id.
    Dyld4 {
        /// The process id.
        pid: u32,
        /// Written in the syslog form `<13>progname[PID]: `.
        syslog: bool,
    },
    /// dyld2 (`dyld: `): no process id.
    Dyld2,
}

/// A line split into its writer and dyld message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DyldLine<'a> {
    /// Who wrote it.
    pub writer: Writer,
    /// Program output before the prefix on the same line (no newline in between).
    pub program_output_before: bool,
    /// What dyld said.
    pub message: Message<'a>,
}

/// The target of a bind line (`<image/bind#N> -> …`, `JustInTimeLoader::applyFixups` and
/// `PrebuiltLoader::applyFixups`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindTo<'a> {
    /// `-> %p (%s/%s)`: resolved to `address` in image `library` (a leaf name, or `<none>`).
    Resolved {
        /// The bound address.
        address: u64,
        /// Leaf name of the image supplying it, `<none>` when unresolved.
        library: &'a [u8],
        /// The symbol.
        symbol: &'a [u8],
        /// Printed in dyld-1323.3's `<%s/%s>)` form (macOS 26's regular binds).
        angle_form: bool,
    },
    /// `-> %p <%s/variant-table#%d('%s')>)` (dyld-1323.3 function variants).
    Variant {
        /// The bound address.
        address: u64,
        /// Leaf name of the supplying image.
        library: &'a [u8],
        /// The symbol.
        symbol: &'a [u8],
    },
    /// `-> missing-weak-bind (%s)`: a weak bind no image defines (left untouched).
    MissingWeak {
        /// The symbol.
        symbol: &'a [u8],
    },
    /// Prebuilt loaders (OS programs): `-> %p`, `-> %p (%s+0x%08llX)` or `-> missing-weak-bind`;
    /// no symbol name.
    Prebuilt,
}

/// What a `fixup:` line (`Loader::applyFixupsGeneric`) says about one location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixupKind {
    /// `= 0x…` alone: a chained fixup applied in-process (rebase or bind, not told apart).
    Plain,
    /// `<rebase>`.
    Rebase,
    /// `<image/bind#N>`: a regular bind of an opcode image.
    Bind,
    /// `<image/weak-bind#N>`: a weak bind of an opcode image.
    WeakBind,
    /// `(skipping missing weak bind) <image/weak-bind#N>`.
    SkippedWeakBind,
}

/// The kind of a dyld2 bind line (`ImageLoaderMachO::bindLocation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dyld2BindKind {
    /// `bind:`.
    Regular,
    /// `lazy bind:`.
    Lazy,
    /// `weak bind:` (coalescing, `ImageLoader::weakBind`).
    Weak,
}

/// One recognized dyld message. Byte slices borrow from the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message<'a> {
    /// `looking for weak-def symbol '%s':` (dyld-1231.3+; `%s` without quotes in older
    /// builds' cache-builder path): starts one weak-def lookup (`Loader::resolveSymbol`).
    LookupStart {
        /// The symbol looked up.
        symbol: &'a [u8],
    },
    /// `  using '%s' in %s`: the first definition found, by full path.
    Using {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        path: &'a [u8],
    },
    /// `  using non-weak '%s' in %s`: a later non-weak definition replaces a weak one.
    UsingNonWeak {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        path: &'a [u8],
    },
    /// `  found %s in map, using impl from %s` (after 5000 lookups dyld keeps a map).
    FoundInMap {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        path: &'a [u8],
    },
    /// `  did not find unhidden '%s', trying self (%s)`: the requester is hidden from flat
    /// lookup; `image` is its leaf name.
    TryingSelf {
        /// The symbol.
        symbol: &'a [u8],
        /// Leaf name of the requesting image.
        image: &'a [u8],
    },
    /// `  found use of '%s' in cache, need to override: %s`.
    CacheOverride {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the shared-cache image whose uses are patched.
        path: &'a [u8],
    },
    /// `<%s/bind#N> -> …`: one bind target of image `image` (leaf name).
    Bind {
        /// Leaf name of the image being fixed up.
        image: &'a [u8],
        /// Its bind-target index (`N`).
        index: u64,
        /// What it was bound to.
        to: BindTo<'a>,
    },
    /// `fixup: *0x… …`: one location.
    Fixup {
        /// The (slid) address of the location.
        address: u64,
        /// What was written.
        kind: FixupKind,
        /// Leaf name of the image, for `Bind`, `WeakBind` and `SkippedWeakBind`.
        image: &'a [u8],
        /// Bind-target index, for `Bind`, `WeakBind` and `SkippedWeakBind`.
        index: u64,
    },
    /// `Setting up kernel page-in linking for %s` (chained fixups applied by the kernel: no
    /// `fixup:` lines follow for this image).
    PageIn {
        /// Full path of the image.
        path: &'a [u8],
    },
    /// A page-in linking range line, `%14.*s (%c%c%c) 0x…->0x… (fileOffset=0x…, size=…KB)`.
    PageInRange,
    /// `symbol '%s' missing from root that overrides %s. …` (printed without any switch).
    MissingFromRoot {
        /// The symbol.
        symbol: &'a [u8],
    },
    /// `cache patch: %p = 0x%0lX`.
    CachePatch,
    /// `Symbol not found: %s` (the first line of dyld's launch error; the launch failed).
    SymbolNotFound {
        /// The symbol.
        symbol: &'a [u8],
    },
    /// dyld2 `dyld: %sbind: %s:0x%08lX = %s:%s, *0x%08lX = 0x%08lX[ + %ld]`.
    Dyld2Bind {
        /// Regular, lazy or weak.
        kind: Dyld2BindKind,
        /// Leaf name of the image being bound.
        image: &'a [u8],
        /// The location.
        address: u64,
        /// Leaf name of the supplying image, or `<missing weak_import>`.
        library: &'a [u8],
        /// The symbol.
        symbol: &'a [u8],
        /// The addend (0 when not printed).
        addend: i64,
    },
    /// dyld2 `dyld: weak bind, setting all uses of %s in %s to 0x%lX from %s`
    /// (DYLD_PRINT_WEAK_BINDINGS).
    Dyld2WeakSetAllUses {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        from: &'a [u8],
    },
    /// Another dyld2 DYLD_PRINT_WEAK_BINDINGS line (`weak bind start:`, `checking for weak
    /// symbols in %s`, `  found weak %s at 0x%lX in %s`, `weak bind, found %s weak=%d in %s `,
    /// `weak binding all uses of %s to copy from %s`, `weak bind load order …`,
    /// `weak binding adding … to map`, `weak bind end`).
    Dyld2WeakOther,
}

/// Splits `line` (no line terminator) into writer and message. `None`: not a recognized dyld
/// line; [`split_prefix`] tells program output from an unknown dyld message.
pub fn parse_line(line: &[u8]) -> Option<DyldLine<'_>> {
    if let Some((writer, rest)) = split_prefix(line) {
        return Some(DyldLine {
            writer,
            program_output_before: false,
            message: parse_message(writer, rest)?,
        });
    }
    let (writer, message) = find_embedded(line)?;
    Some(DyldLine {
        writer,
        program_output_before: true,
        message,
    })
}

/// The message after a prefix, if weakscan knows it.
pub fn parse_message(writer: Writer, message: &[u8]) -> Option<Message<'_>> {
    match writer {
        Writer::Dyld4 { .. } => parse_dyld4(message),
        Writer::Dyld2 => parse_dyld2(message),
    }
}

/// Most dyld prefixes inside one line whose message is tried by [`find_embedded`]. Matching a
/// message may scan to the end of the line, so without a cap a line of repeated prefixes would
/// take time quadratic in its length (fuzz-audit finding); real program output holds one.
pub const MAX_EMBEDDED_PREFIXES: usize = 4;

/// Program output with no newline, then a dyld line: the first dyld prefix inside `line`
/// (not at its start) whose message weakscan knows, among the first
/// [`MAX_EMBEDDED_PREFIXES`] prefixes. Time: linear in the line's length.
pub fn find_embedded(line: &[u8]) -> Option<(Writer, Message<'_>)> {
    let mut from = 1;
    let mut tries = 0;
    while let Some(at) = line
        .get(from..)
        .and_then(|r| find(r, b"dyld"))
        .map(|i| i + from)
    {
        if let Some((writer, rest)) = split_prefix(&line[at..]) {
            if let Some(message) = parse_message(writer, rest) {
                return Some((writer, message));
            }
            tries += 1;
            if tries == MAX_EMBEDDED_PREFIXES {
                return None;
            }
        }
        from = at + 1;
    }
    None
}

/// `dyld[PID]: `, `<N>name[PID]: ` or `dyld: ` at the start of `line`: the writer and the
/// message after the prefix (known or not). `None`: program output.
pub fn split_prefix(line: &[u8]) -> Option<(Writer, &[u8])> {
    if let Some(rest) = line.strip_prefix(b"dyld[") {
        let (pid, rest) = decimal_u32(rest)?;
        let rest = rest.strip_prefix(b"]: ")?;
        return Some((Writer::Dyld4 { pid, syslog: false }, rest));
    }
    if let Some(rest) = line.strip_prefix(b"dyld: ") {
        return Some((Writer::Dyld2, rest));
    }
    if let Some(rest) = line.strip_prefix(b"<") {
        let (_, rest) = decimal_u32(rest)?;
        let rest = rest.strip_prefix(b">")?;
        let open = rest.iter().position(|&b| b == b'[')?;
        if open == 0 || rest[..open].contains(&b' ') {
            return None;
        }
        let (pid, rest) = decimal_u32(&rest[open + 1..])?;
        let rest = rest.strip_prefix(b"]: ")?;
        return Some((Writer::Dyld4 { pid, syslog: true }, rest));
    }
    None
}

fn parse_dyld4(m: &[u8]) -> Option<Message<'_>> {
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

fn parse_dyld2(m: &[u8]) -> Option<Message<'_>> {
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

/// `'SYM` + `quoted_sep` + rest, or (older dylds) `SYM` + `quoted_sep` without its leading
/// `'` + rest. `quoted_sep` starts with `'` (`b"' in "`).
fn quoted_then<'a>(s: &'a [u8], quoted_sep: &[u8]) -> Option<(&'a [u8], &'a [u8])> {
    debug_assert_eq!(quoted_sep.first(), Some(&b'\''));
    let (symbol, rest) = match s.strip_prefix(b"'") {
        Some(q) => split_once(q, quoted_sep)?,
        None => split_once(s, &quoted_sep[1..])?,
    };
    Some((non_empty(symbol)?, non_empty(rest)?))
}

fn non_empty(s: &[u8]) -> Option<&[u8]> {
    (!s.is_empty()).then_some(s)
}

/// The first `needle` (not empty) in `hay`. The needles are short separators whose first byte
/// is rare in a line (`'`, ` `, `/`, `>`), so the candidates are found with `memchr`: faster
/// on lines of ~200 bytes than setting up a substring searcher at each call.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memchr_iter(needle[0], hay).find(|&at| hay[at..].starts_with(needle))
}

/// The last `needle` (not empty) in `hay`, as [`find`].
fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memrchr_iter(needle[0], hay).find(|&at| hay[at..].starts_with(needle))
}

fn split_once<'a>(s: &'a [u8], sep: &[u8]) -> Option<(&'a [u8], &'a [u8])> {
    let at = find(s, sep)?;
    Some((&s[..at], &s[at + sep.len()..]))
}

/// Leading decimal digits (at least one, no overflow) and the rest.
fn decimal_u64(s: &[u8]) -> Option<(u64, &[u8])> {
    // One pass: this reads the PID of every line of the log.
    let mut v: u64 = 0;
    let mut n = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            break;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        n += 1;
    }
    (n > 0).then(|| (v, &s[n..]))
}

fn decimal_u32(s: &[u8]) -> Option<(u32, &[u8])> {
    let (v, rest) = decimal_u64(s)?;
    Some((u32::try_from(v).ok()?, rest))
}

/// Leading hex digits (at least one, at most 16 significant) and the rest.
fn hex_u64(s: &[u8]) -> Option<(u64, &[u8])> {
    // One pass: this reads every address of the process read.
    let mut v: u64 = 0;
    let mut n = 0;
    for &b in s {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => break,
        };
        v = v.checked_mul(16)?.checked_add(u64::from(d))?;
        n += 1;
    }
    (n > 0).then(|| (v, &s[n..]))
}

/// A symbol or path from the log as a `String` (invalid UTF-8 as `\xNN`).
pub fn text(bytes: &[u8]) -> String {
    symbol_name(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(line: &str) -> Message<'_> {
        parse_line(line.as_bytes())
            .unwrap_or_else(|| panic!("not recognized: {line}"))
            .message
    }

    #[test]
    fn prefixes() {
        let l = parse_line(b"dyld[4242]: looking for weak-def symbol '__Znwm':").unwrap();
        assert_eq!(
            l.writer,
            Writer::Dyld4 {
                pid: 4242,
                syslog: false
            }
        );
        let l = parse_line(b"<13>node[77]: looking for weak-def symbol '__Znwm':").unwrap();
        assert_eq!(
            l.writer,
            Writer::Dyld4 {
                pid: 77,
                syslog: true
            }
        );
        let l = parse_line(b"hello worlddyld[5]: <app/bind#3> -> 0x10 (app/_x)").unwrap();
        assert!(l.program_output_before);
        assert_eq!(
            l.writer,
            Writer::Dyld4 {
                pid: 5,
                syslog: false
            }
        );
        assert!(parse_line(b"the dyld[5]: said nothing we know").is_none());
        assert!(parse_line(b"dyld[99999999999]: looking for weak-def symbol '_a':").is_none());
        assert_eq!(
            split_prefix(b"dyld[1]: something else"),
            Some((
                Writer::Dyld4 {
                    pid: 1,
                    syslog: false
                },
                &b"something else"[..]
            ))
        );
        assert_eq!(split_prefix(b"plain output"), None);
        for short in [
            &b""[..],
            b"d",
            b"dyld",
            b"dyld[",
            b"dyld[1]",
            b"<",
            b"<1>",
            b"<1>a[",
            b"xdyld",
        ] {
            assert!(parse_line(short).is_none(), "{short:?}");
        }
    }

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

    #[test]
    fn numbers_do_not_overflow() {
        assert!(parse_line(b"dyld[1]: <a/bind#99999999999999999999999> -> 0x1 (a/_x)").is_none());
        assert!(parse_line(b"dyld[1]: fixup: *0x11112222333344445 = 0x1").is_none());
    }

    proptest::proptest! {
        /// `find` and `rfind` (memchr on the needle's first byte) give the first and last
        /// match of a plain window search.
        #[test]
        fn find_is_a_substring_search(
            hay in proptest::collection::vec(proptest::sample::select(b"' in".to_vec()), 0..40),
            needle in proptest::collection::vec(proptest::sample::select(b"' in".to_vec()), 1..4),
        ) {
            let naive = || hay.windows(needle.len());
            proptest::prop_assert_eq!(find(&hay, &needle), naive().position(|w| w == needle));
            proptest::prop_assert_eq!(rfind(&hay, &needle), naive().rposition(|w| w == needle));
        }
    }

    /// Fuzz-audit finding: every `dyld` prefix in a line was tried, each scanning to the end of
    /// the line, so a line of repeated prefixes took time quadratic in its length. Only the
    /// first MAX_EMBEDDED_PREFIXES prefixes are tried.
    #[test]
    fn embedded_prefixes_tried_are_capped() {
        let good = "dyld[1]: looking for weak-def symbol '__Znwm':";
        let line = |junk: usize| format!("out{}{good}", "dyld[1]: <".repeat(junk));
        assert!(find_embedded(line(MAX_EMBEDDED_PREFIXES - 1).as_bytes()).is_some());
        assert!(find_embedded(line(MAX_EMBEDDED_PREFIXES).as_bytes()).is_none());
        assert!(find_embedded(line(100_000).as_bytes()).is_none());
    }
}
