//! The bind opcode streams of `LC_DYLD_INFO(_ONLY)`: regular (`bind_off/bind_size`), lazy
//! (`lazy_bind_off/lazy_bind_size`) and weak (`weak_bind_off/weak_bind_size`), one interpreter
//! for the three ([`walk_binds`], [`BindStream`] says how they differ). The weak stream is the
//! one weakscan models ([`walk_weak_binds`]); the other two give an importer's imports
//! ([`super::imports`]).
//!
//! A byte stream of opcodes (`<mach-o/loader.h>`), each byte `opcode | immediate`
//! (`BIND_OPCODE_MASK` 0xF0, `BIND_IMMEDIATE_MASK` 0x0F), some followed by ULEB/SLEB operands or a
//! C string:
//!
//! ```text
//! 0x00 DONE                                  end of the stream (lazy: end of one entry)
//! 0x10 SET_DYLIB_ORDINAL_IMM      (imm)      library ordinal; not allowed in weak_bind
//! 0x20 SET_DYLIB_ORDINAL_ULEB     uleb       library ordinal; not allowed in weak_bind
//! 0x30 SET_DYLIB_SPECIAL_IMM      (imm)      0, or 0xF0|imm as a signed byte (0xF: -1 main
//!                                            executable, 0xE: -2 flat lookup); not in weak_bind
//! 0x40 SET_SYMBOL_TRAILING_FLAGS_IMM (flags) cstring   symbol; flags 0x01 WEAK_IMPORT,
//!                                            0x08 NON_WEAK_DEFINITION (weak stream)
//! 0x50 SET_TYPE_IMM               (type)     1 pointer, 2 text absolute32, 3 text pcrel32
//! 0x60 SET_ADDEND_SLEB            sleb
//! 0x70 SET_SEGMENT_AND_OFFSET_ULEB (seg) uleb
//! 0x80 ADD_ADDR_ULEB              uleb       offset += uleb (wrapping)
//! 0x90 DO_BIND                               bind; offset += pointer size
//! 0xA0 DO_BIND_ADD_ADDR_ULEB      uleb       bind; offset += uleb + pointer size
//! 0xB0 DO_BIND_ADD_ADDR_IMM_SCALED (scale)   bind; offset += scale * ptr + ptr
//! 0xC0 DO_BIND_ULEB_TIMES_SKIPPING_ULEB uleb count, uleb skip: count × (bind; offset += skip + ptr)
//! 0xD0 THREADED (sub-opcode imm)  0: SET_BIND_ORDINAL_TABLE_SIZE_ULEB uleb, 1: APPLY
//! ```
//!
//! Semantics follow dyld's `MachOAnalyzer::forEachBind_OpcodesWeak` (dyld-1231.3) and the checks
//! of `MachOAnalyzer::invalidBindState`: the weak stream never sets a library ordinal (the
//! lookup is implicitly weak, ordinal -3); ordinal and threaded opcodes there are errors, as
//! dyld rejects them ("unexpected dylib ordinal in weak_bind", "bad bind opcode"). A symbol
//! set with `BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION` is a *strong override*: dyld hands it to its
//! strong handler, it binds nothing by itself and causes no lookup.
//!
//! Bind *targets* follow `forEachBindUnified_Opcodes`: a bind starts a new target when its
//! symbol is not the one of the previous target — dyld compares the name *pointers* first, so
//! every `SET_SYMBOL_TRAILING_FLAGS_IMM` executed since counts, even one that repeats the name —
//! or when its addend differs. Each target is one weak-def lookup.
//!
//! Hardening beyond dyld: every location must lie inside its segment; a repeat whose step
//! (`skip` + pointer size, wrapping as in dyld) is smaller than a pointer is refused, since it
//! would bind one location over and over; the stream may bind at most [`MAX_BIND_LOCATIONS`]
//! locations, checked before a repeat starts. So a repeat count of 2⁶⁴−1 is an error at once
//! (dyld's `uint32_t` loop counter would wrap).

use super::cursor::Cursor;
use crate::error::ParseError;
use std::borrow::Cow;

/// `BIND_OPCODE_DONE`.
pub const BIND_OPCODE_DONE: u8 = 0x00;
/// `BIND_OPCODE_SET_DYLIB_ORDINAL_IMM`.
pub const BIND_OPCODE_SET_DYLIB_ORDINAL_IMM: u8 = 0x10;
/// `BIND_OPCODE_SET_DYLIB_ORDINAL_ULEB`.
pub const BIND_OPCODE_SET_DYLIB_ORDINAL_ULEB: u8 = 0x20;
/// `BIND_OPCODE_SET_DYLIB_SPECIAL_IMM`.
pub const BIND_OPCODE_SET_DYLIB_SPECIAL_IMM: u8 = 0x30;
/// `BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM`.
pub const BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM: u8 = 0x40;
/// `BIND_OPCODE_SET_TYPE_IMM`.
pub const BIND_OPCODE_SET_TYPE_IMM: u8 = 0x50;
/// `BIND_OPCODE_SET_ADDEND_SLEB`.
pub const BIND_OPCODE_SET_ADDEND_SLEB: u8 = 0x60;
/// `BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB`.
pub const BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB: u8 = 0x70;
/// `BIND_OPCODE_ADD_ADDR_ULEB`.
pub const BIND_OPCODE_ADD_ADDR_ULEB: u8 = 0x80;
/// `BIND_OPCODE_DO_BIND`.
pub const BIND_OPCODE_DO_BIND: u8 = 0x90;
/// `BIND_OPCODE_DO_BIND_ADD_ADDR_ULEB`.
pub const BIND_OPCODE_DO_BIND_ADD_ADDR_ULEB: u8 = 0xA0;
/// `BIND_OPCODE_DO_BIND_ADD_ADDR_IMM_SCALED`.
pub const BIND_OPCODE_DO_BIND_ADD_ADDR_IMM_SCALED: u8 = 0xB0;
/// `BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB`.
pub const BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB: u8 = 0xC0;
/// `BIND_OPCODE_THREADED`.
pub const BIND_OPCODE_THREADED: u8 = 0xD0;
/// `BIND_SYMBOL_FLAGS_WEAK_IMPORT`.
pub const BIND_SYMBOL_FLAGS_WEAK_IMPORT: u8 = 0x01;
/// `BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION`.
pub const BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION: u8 = 0x08;
/// `BIND_TYPE_POINTER`.
pub const BIND_TYPE_POINTER: u8 = 1;
/// `BIND_TYPE_TEXT_ABSOLUTE32`.
pub const BIND_TYPE_TEXT_ABSOLUTE32: u8 = 2;
/// `BIND_TYPE_TEXT_PCREL32`.
pub const BIND_TYPE_TEXT_PCREL32: u8 = 3;

/// Upper bound on the locations one stream may bind (2²⁰, 32 bytes each here and 16 in the
/// model); more is reported as malformed. Node.js 22 binds 8237.
pub const MAX_BIND_LOCATIONS: usize = 1 << 20;

/// Budget for the total length of the bind targets' names, per byte of the stream (plus
/// 1 MiB). Each target costs its name plus [`TARGET_COST_BYTES`]; a stream that set one long
/// name once and then flipped the addend for every bind would otherwise make memory quadratic
/// in the stream's size. Real targets each follow their own `SET_SYMBOL`.
pub const MAX_TARGET_NAME_BYTES_PER_STREAM_BYTE: usize = 4;
/// What each bind target and each strong override costs in the name budget besides its name:
/// the model keeps a target, a site and a lookup per target (about 100 bytes), so flipping the
/// addend of a short name (3 stream bytes a target) is held to about 12 × the stream in
/// memory. A real target's `SET_SYMBOL`, name and bind (name + 4 bytes or more) leave room for
/// this from a 6-byte name on (`__Znwm`), and the fixed 1 MiB covers 30 000 shorter ones.
pub const TARGET_COST_BYTES: usize = 32;

/// The segment facts the interpreter checks each location against, in load-command order
/// (the index is the `SET_SEGMENT_AND_OFFSET_ULEB` immediate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentBounds {
    /// `vmsize` of the segment, in bytes.
    pub vm_size: u64,
    /// `initprot` has `VM_PROT_WRITE`.
    pub writable: bool,
    /// The segment is `__LINKEDIT` (dyld refuses binds into it).
    pub is_linkedit: bool,
}

/// One bound location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeakBind {
    /// Index into [`WeakBindTable::symbols`].
    pub symbol: u32,
    /// Addend set by `SET_ADDEND_SLEB`.
    pub addend: i64,
    /// Segment index (into the image's `LC_SEGMENT_64` commands).
    pub segment_index: u8,
    /// Offset of the location from the start of the segment, in bytes.
    pub segment_offset: u64,
    /// `BIND_TYPE_*`.
    pub bind_type: u8,
    /// Bind-target index per dyld's `forEachBindUnified_Opcodes` rule (0-based).
    pub target: u32,
}

/// Everything the weak-bind stream says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WeakBindTable {
    /// Distinct symbol names, in order of first `SET_SYMBOL_TRAILING_FLAGS_IMM`.
    pub symbols: Vec<String>,
    /// Every bound location, in stream order.
    pub binds: Vec<WeakBind>,
    /// Names announced with `BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION` (no lookup, no bind).
    pub strong_overrides: Vec<String>,
    /// Number of bind targets per dyld's rule (the weak-def lookups dyld makes for them).
    pub targets: u32,
}

/// Interprets a weak-bind stream. `segments` gives the image's segments in load-command
/// order; `pointer_size` is 8 for the 64-bit images weakscan reads.
///
/// Errors (with the offset of the opcode): truncated operands, ULEB overflow, unknown opcodes,
/// ordinal or threaded opcodes, a bind before a segment or symbol is set, a segment index out of
/// range, a location past its segment's `vmsize`, an unknown bind type, a pointer bind into a
/// non-writable segment, more than [`MAX_BIND_LOCATIONS`] locations, target names longer in total
/// than [`MAX_TARGET_NAME_BYTES_PER_STREAM_BYTE`] × `data.len()` + 1 MiB.
pub fn parse_weak_binds(
    data: &[u8],
    segments: &[SegmentBounds],
    pointer_size: u64,
) -> Result<WeakBindTable, ParseError> {
    let mut binds = Vec::new();
    let walk = walk_weak_binds(data, segments, pointer_size, |b| binds.push(*b))?;
    Ok(WeakBindTable {
        symbols: walk.symbols.iter().map(|n| n.to_string()).collect(),
        binds,
        strong_overrides: walk
            .strong_overrides
            .iter()
            .map(|&id| walk.symbols[id as usize].to_string())
            .collect(),
        targets: walk.targets,
    })
}

/// What [`walk_weak_binds`] returns besides the binds it hands out: the names as text, borrowed
/// from the stream (escaped copies only for names that are not printable ASCII, see
/// [`crate::text`]), so a caller makes a shared [`crate::model::Name`] only of the names it
/// keeps (a Node.js build: 6,794 of its 6,800 weak-bound names are its own weak definitions,
/// whose names it already has; 1.1 MB not allocated).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WeakBindNames<'a> {
    /// Distinct symbol names set, in order of first `SET_SYMBOL_TRAILING_FLAGS_IMM` (a
    /// [`WeakBind::symbol`] indexes this).
    pub symbols: Vec<Cow<'a, str>>,
    /// Names announced with `BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION`, one per announcement, as
    /// indexes into `symbols`.
    pub strong_overrides: Vec<u32>,
    /// Number of bind targets per dyld's rule.
    pub targets: u32,
}

/// [`parse_weak_binds`] without collecting the binds: each is handed to `visit` in stream
/// order, so a caller keeps only what it needs (weakscan: one site per location). Names are
/// interned (each distinct name once) and borrowed from `data`. The same checks and errors.
pub fn walk_weak_binds<'a>(
    data: &'a [u8],
    segments: &[SegmentBounds],
    pointer_size: u64,
    mut visit: impl FnMut(&WeakBind),
) -> Result<WeakBindNames<'a>, ParseError> {
    walk_binds(data, BindStream::Weak, segments, pointer_size, 0, |b| {
        visit(&WeakBind {
            symbol: b.symbol,
            addend: b.addend,
            segment_index: b.segment_index,
            segment_offset: b.segment_offset,
            bind_type: b.bind_type,
            target: b.target,
        })
    })
}

/// Which of the three opcode streams of `LC_DYLD_INFO(_ONLY)` a stream is: they share the
/// opcodes of `<mach-o/loader.h>` but not their rules (dyld `forEachBind_OpcodesRegular`,
/// `forEachBind_OpcodesLazy`, `forEachBind_OpcodesWeak`, dyld-1378 common/MachOAnalyzer.cpp).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindStream {
    /// `bind_off/bind_size`: binds done at load. `DONE` ends the stream; the library ordinal
    /// must be set before a bind; the bind type starts at 0 (dyld: "unknown bind type" until
    /// `SET_TYPE_IMM`); a new target at each `SET_SYMBOL` or `SET_ADDEND`.
    Regular,
    /// `lazy_bind_off/lazy_bind_size`: one entry per lazy pointer, each ended by `DONE` (which
    /// does not end the stream); only the ordinal, symbol, addend, segment and `DO_BIND`
    /// opcodes are allowed ("bad lazy bind opcode"); pointer binds only; each bind a target.
    Lazy,
    /// `weak_bind_off/weak_bind_size`: weak-def coalescing; no library ordinal (implicitly
    /// [`BIND_SPECIAL_DYLIB_WEAK_LOOKUP`]), strong overrides, the target rule of
    /// `forEachBindUnified_Opcodes` (see the module doc).
    Weak,
}

/// `BIND_SPECIAL_DYLIB_SELF`: the image itself.
pub const BIND_SPECIAL_DYLIB_SELF: i32 = 0;
/// `BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE`: the main executable (`-bundle_loader`).
pub const BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE: i32 = -1;
/// `BIND_SPECIAL_DYLIB_FLAT_LOOKUP`: every loaded image in load order (`-undefined
/// dynamic_lookup`, `-flat_namespace`).
pub const BIND_SPECIAL_DYLIB_FLAT_LOOKUP: i32 = -2;
/// `BIND_SPECIAL_DYLIB_WEAK_LOOKUP`: weak-def coalescing (the weak stream's implicit ordinal).
pub const BIND_SPECIAL_DYLIB_WEAK_LOOKUP: i32 = -3;

/// One bound location of any stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bind {
    /// Index into [`BindNames::symbols`].
    pub symbol: u32,
    /// The library ordinal: ≥ 1 a dylib load command (1-based), or a `BIND_SPECIAL_DYLIB_*`
    /// value (0 self, -1 main executable, -2 flat lookup, -3 weak lookup).
    pub library_ordinal: i32,
    /// `BIND_SYMBOL_FLAGS_WEAK_IMPORT` of the symbol (missing allowed; always false in the
    /// weak stream, as dyld reads it).
    pub weak_import: bool,
    /// Addend set by `SET_ADDEND_SLEB`.
    pub addend: i64,
    /// Segment index (into the image's `LC_SEGMENT_64` commands).
    pub segment_index: u8,
    /// Offset of the location from the start of the segment, in bytes.
    pub segment_offset: u64,
    /// `BIND_TYPE_*`.
    pub bind_type: u8,
    /// Bind-target index within the stream (0-based), per the stream's rule.
    pub target: u32,
}

/// The names of a stream; see [`WeakBindNames`].
pub type BindNames<'a> = WeakBindNames<'a>;

/// Interprets any of the three streams, handing each bound location to `visit` in stream
/// order; `dylib_count` is the number of dylib load commands (the largest valid ordinal).
///
/// The checks of [`parse_weak_binds`], plus, in the regular and lazy streams, dyld's
/// `invalidBindState` on ordinals: a bind before `SET_DYLIB_ORDINAL` ("missing preceding
/// BIND_OPCODE_SET_DYLIB_ORDINAL"), an ordinal above `dylib_count` or below -3; and the lazy
/// stream's opcode set. `BIND_OPCODE_THREADED` (arm64e binds of iOS 12, which dyld-1378 calls
/// a "bad bind opcode") is unsupported.
pub fn walk_binds<'a>(
    data: &'a [u8],
    stream: BindStream,
    segments: &[SegmentBounds],
    pointer_size: u64,
    dylib_count: u32,
    mut visit: impl FnMut(&Bind),
) -> Result<BindNames<'a>, ParseError> {
    let mut state = State {
        names: WeakBindNames::default(),
        ids: Default::default(),
        binds: 0,
        stream,
        segments,
        pointer_size,
        dylib_count,
        bind_type: match stream {
            BindStream::Regular => 0,
            BindStream::Lazy | BindStream::Weak => BIND_TYPE_POINTER,
        },
        ordinal: (stream == BindStream::Weak).then_some(i64::from(BIND_SPECIAL_DYLIB_WEAK_LOOKUP)),
        weak_import: false,
        segment: None,
        offset: 0,
        symbol: None,
        generation: 0,
        addend: 0,
        last: None,
        name_bytes_left: data
            .len()
            .saturating_mul(MAX_TARGET_NAME_BYTES_PER_STREAM_BYTE)
            .saturating_add(1 << 20),
    };
    let mut c = Cursor::new(data, 0);
    while !c.at_end() {
        let op_pos = c.pos() as u64;
        let byte = c.u8()?;
        let (opcode, imm) = (byte & 0xF0, byte & 0x0F);
        let Some((count, advance)) = state.opcode(&mut c, opcode, imm, op_pos)? else {
            if opcode == BIND_OPCODE_DONE && stream != BindStream::Lazy {
                break;
            }
            continue;
        };
        if count > 1 && advance < pointer_size {
            return Err(ParseError::new(
                "bind repeat step wraps around (skip too large)",
                op_pos,
            ));
        }
        if count > (MAX_BIND_LOCATIONS - state.binds) as u64 {
            return Err(ParseError::new("too many bind locations", op_pos));
        }
        for _ in 0..count {
            let b = state.bind(op_pos)?;
            visit(&b);
            state.offset = state.offset.wrapping_add(advance);
        }
    }
    Ok(state.names)
}

/// The interpreter's registers, as in dyld's `forEachBind_Opcodes*`; `'d` is the stream's
/// lifetime, `'s` the segments'.
struct State<'d, 's> {
    names: WeakBindNames<'d>,
    /// Name → index into `names.symbols`.
    ids: foldhash::HashMap<Cow<'d, str>, u32>,
    /// Locations bound so far.
    binds: usize,
    stream: BindStream,
    segments: &'s [SegmentBounds],
    pointer_size: u64,
    dylib_count: u32,
    bind_type: u8,
    /// The library ordinal set (wide, so a huge ULEB is refused rather than wrapped).
    ordinal: Option<i64>,
    weak_import: bool,
    segment: Option<u8>,
    offset: u64,
    /// Index into `names.symbols`.
    symbol: Option<u32>,
    /// `SET_SYMBOL` opcodes executed (and, in the regular stream, `SET_ADDEND`s; in the lazy
    /// stream, binds): each starts a target (dyld compares the name pointers).
    generation: u64,
    addend: i64,
    /// (generation, addend) of the previous bind, for the target rule.
    last: Option<(u64, i64)>,
    /// Target name bytes still allowed (see [`MAX_TARGET_NAME_BYTES_PER_STREAM_BYTE`]).
    name_bytes_left: usize,
}

impl<'d> State<'d, '_> {
    /// Executes one opcode: `Some((count, advance))` for a bind opcode (how many locations,
    /// and how far to advance after each), `None` for the others.
    fn opcode(
        &mut self,
        c: &mut Cursor<'d>,
        opcode: u8,
        imm: u8,
        op_pos: u64,
    ) -> Result<Option<(u64, u64)>, ParseError> {
        let err = |m: &'static str| ParseError::new(m, op_pos);
        let (weak, lazy) = (
            self.stream == BindStream::Weak,
            self.stream == BindStream::Lazy,
        );
        let ptr = self.pointer_size;
        match opcode {
            BIND_OPCODE_DONE => {}
            BIND_OPCODE_SET_DYLIB_ORDINAL_IMM
            | BIND_OPCODE_SET_DYLIB_ORDINAL_ULEB
            | BIND_OPCODE_SET_DYLIB_SPECIAL_IMM
                if weak =>
            {
                return Err(err("unexpected dylib ordinal in weak_bind"));
            }
            BIND_OPCODE_SET_DYLIB_ORDINAL_IMM => self.ordinal = Some(i64::from(imm)),
            BIND_OPCODE_SET_DYLIB_ORDINAL_ULEB => {
                self.ordinal = Some(i64::try_from(c.uleb()?).unwrap_or(i64::MAX));
            }
            BIND_OPCODE_SET_DYLIB_SPECIAL_IMM => {
                // The special ordinals are negative: the immediate sign-extended from 4 bits.
                self.ordinal = Some(if imm == 0 {
                    0
                } else {
                    i64::from((0xF0 | imm) as i8)
                });
            }
            BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM => {
                let name = c.cstr()?;
                let strong = weak && imm & BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION != 0;
                self.weak_import = !weak && imm & BIND_SYMBOL_FLAGS_WEAK_IMPORT != 0;
                self.set_symbol(name, strong, op_pos)?;
            }
            BIND_OPCODE_SET_ADDEND_SLEB => {
                self.addend = c.sleb()?;
                if self.stream == BindStream::Regular {
                    self.generation += 1;
                }
            }
            BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB => {
                self.segment = Some(imm);
                self.offset = c.uleb()?;
            }
            BIND_OPCODE_DO_BIND => return Ok(Some((1, ptr))),
            _ if lazy => return Err(err("bad lazy bind opcode")),
            BIND_OPCODE_SET_TYPE_IMM => self.bind_type = imm,
            BIND_OPCODE_ADD_ADDR_ULEB => self.offset = self.offset.wrapping_add(c.uleb()?),
            BIND_OPCODE_DO_BIND_ADD_ADDR_ULEB => {
                return Ok(Some((1, c.uleb()?.wrapping_add(ptr))));
            }
            BIND_OPCODE_DO_BIND_ADD_ADDR_IMM_SCALED => {
                return Ok(Some((1, (u64::from(imm) + 1) * ptr)));
            }
            BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB => {
                let count = c.uleb()?;
                return Ok(Some((count, c.uleb()?.wrapping_add(ptr))));
            }
            BIND_OPCODE_THREADED if weak => {
                return Err(err(
                    "threaded bind opcode in weak_bind (dyld: bad bind opcode)",
                ));
            }
            BIND_OPCODE_THREADED => {
                return Err(ParseError::unsupported(
                    "threaded binds (BIND_OPCODE_THREADED) are not supported",
                    op_pos,
                ));
            }
            _ => return Err(err("unknown bind opcode")),
        }
        Ok(None)
    }

    fn charge(&mut self, name_len: usize, op_pos: u64) -> Result<(), ParseError> {
        self.name_bytes_left = self
            .name_bytes_left
            .checked_sub(name_len.saturating_add(TARGET_COST_BYTES))
            .ok_or_else(|| {
                ParseError::new(
                    "bind targets' names exceed 4 bytes per stream byte (a stream built to blow up)",
                    op_pos,
                )
            })?;
        Ok(())
    }

    fn set_symbol(
        &mut self,
        raw: &'d [u8],
        strong_override: bool,
        op_pos: u64,
    ) -> Result<(), ParseError> {
        // A name comes back once per run of binds: only its first time is kept (an escaped
        // one is then copied twice, into the list and the index; printable ones never).
        let text = crate::text::escape_bytes_cow(raw);
        let id = match self.ids.get(text.as_ref()) {
            Some(&id) => id,
            None => {
                let id = self.names.symbols.len() as u32;
                self.names.symbols.push(text.clone());
                self.ids.insert(text, id);
                id
            }
        };
        if strong_override {
            self.charge(self.names.symbols[id as usize].len(), op_pos)?;
            self.names.strong_overrides.push(id);
        }
        self.symbol = Some(id);
        self.generation += 1;
        Ok(())
    }

    /// Records one location, checked as dyld's `invalidBindState` does.
    fn bind(&mut self, op_pos: u64) -> Result<Bind, ParseError> {
        let err = |m: &'static str| ParseError::new(m, op_pos);
        let seg_index = self
            .segment
            .ok_or_else(|| err("bind before SET_SEGMENT_AND_OFFSET_ULEB"))?;
        let seg = self
            .segments
            .get(usize::from(seg_index))
            .filter(|s| !s.is_linkedit)
            .ok_or_else(|| err("bind segment index out of range"))?;
        if seg.vm_size < self.pointer_size || self.offset > seg.vm_size - self.pointer_size {
            return Err(err("bind location past the end of its segment"));
        }
        let sym = self
            .symbol
            .ok_or_else(|| err("bind before SET_SYMBOL_TRAILING_FLAGS_IMM"))?;
        let ordinal = self
            .ordinal
            .ok_or_else(|| err("bind before SET_DYLIB_ORDINAL"))?;
        if ordinal > i64::from(self.dylib_count) {
            return Err(err("bind library ordinal above the dylib count"));
        }
        if ordinal < i64::from(BIND_SPECIAL_DYLIB_WEAK_LOOKUP) {
            return Err(err("unknown special library ordinal"));
        }
        match self.bind_type {
            BIND_TYPE_POINTER if !seg.writable => {
                return Err(err("pointer bind in a non-writable segment"));
            }
            BIND_TYPE_POINTER | BIND_TYPE_TEXT_ABSOLUTE32 | BIND_TYPE_TEXT_PCREL32 => {}
            _ => return Err(err("unknown bind type")),
        }
        // A new target when another SET_SYMBOL ran (dyld compares the name pointers) or the
        // addend differs; in the lazy stream, at every bind.
        if self.last != Some((self.generation, self.addend)) {
            let name = self.names.symbols[sym as usize].len();
            self.charge(name, op_pos)?;
            self.names.targets += 1;
        }
        self.last = Some((self.generation, self.addend));
        if self.stream == BindStream::Lazy {
            self.generation += 1;
        }
        self.binds += 1;
        Ok(Bind {
            symbol: sym,
            library_ordinal: i32::try_from(ordinal)
                .map_err(|_| err("bind library ordinal above the dylib count"))?,
            weak_import: self.weak_import,
            addend: self.addend,
            segment_index: seg_index,
            segment_offset: self.offset,
            bind_type: self.bind_type,
            target: self.names.targets - 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs() -> Vec<SegmentBounds> {
        vec![
            SegmentBounds {
                vm_size: 0x4000,
                writable: false,
                is_linkedit: false,
            }, // __TEXT
            SegmentBounds {
                vm_size: 0x100,
                writable: true,
                is_linkedit: false,
            }, // __DATA
            SegmentBounds {
                vm_size: 0x4000,
                writable: false,
                is_linkedit: true,
            }, // __LINKEDIT
        ]
    }

    fn sym(flags: u8, name: &str) -> Vec<u8> {
        let mut v = vec![BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM | flags];
        v.extend_from_slice(name.as_bytes());
        v.push(0);
        v
    }

    #[test]
    fn every_bind_form_counts_its_locations() {
        let mut s = Vec::new();
        s.extend(sym(0, "__Z1av"));
        s.extend([
            BIND_OPCODE_SET_TYPE_IMM | 1,
            BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1,
            0x00,
        ]);
        s.push(BIND_OPCODE_DO_BIND); // @0
        s.extend([BIND_OPCODE_DO_BIND_ADD_ADDR_ULEB, 0x08]); // @8, then +16
        s.push(BIND_OPCODE_DO_BIND_ADD_ADDR_IMM_SCALED | 1); // @0x18, then +16
        s.extend([BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB, 3, 8]); // @0x28,0x38,0x48
        s.extend(sym(0, "__Z1bv"));
        s.extend([BIND_OPCODE_SET_ADDEND_SLEB, 0x7f]); // addend -1
        s.extend([BIND_OPCODE_ADD_ADDR_ULEB, 0x08]); // 0x58 + 8 = 0x60
        s.push(BIND_OPCODE_DO_BIND); // @0x60
        s.push(BIND_OPCODE_DONE);
        s.push(0xff); // ignored after DONE
        let t = parse_weak_binds(&s, &segs(), 8).unwrap();
        let offs: Vec<u64> = t.binds.iter().map(|b| b.segment_offset).collect();
        assert_eq!(offs, [0x0, 0x8, 0x18, 0x28, 0x38, 0x48, 0x60]);
        assert_eq!(t.symbols, ["__Z1av", "__Z1bv"]);
        assert_eq!(t.targets, 2);
        assert_eq!(t.binds[6].addend, -1);
        assert_eq!(t.binds[6].target, 1);
    }

    #[test]
    fn addend_change_starts_a_new_target() {
        let mut s = sym(0, "_x");
        s.extend([
            BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1,
            0,
            BIND_OPCODE_DO_BIND,
        ]);
        s.extend([BIND_OPCODE_SET_ADDEND_SLEB, 4, BIND_OPCODE_DO_BIND]);
        s.push(BIND_OPCODE_DO_BIND); // same symbol, same addend: same target
        s.extend(sym(0, "_x")); // the same name set again is a new target (dyld: pointer)
        s.push(BIND_OPCODE_DO_BIND);
        let t = parse_weak_binds(&s, &segs(), 8).unwrap();
        assert_eq!(t.targets, 3);
        // Names are interned: the target rule counts SET_SYMBOLs, not distinct names.
        assert_eq!(t.symbols, ["_x"]);
        assert_eq!(
            t.binds.iter().map(|b| b.target).collect::<Vec<_>>(),
            [0, 1, 1, 2]
        );
    }

    #[test]
    fn strong_override_binds_nothing() {
        let mut s = sym(BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION, "__Znwm");
        s.extend(sym(0, "_y"));
        s.extend([
            BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1,
            0,
            BIND_OPCODE_DO_BIND,
        ]);
        let t = parse_weak_binds(&s, &segs(), 8).unwrap();
        assert_eq!(t.strong_overrides, ["__Znwm"]);
        assert_eq!(t.binds.len(), 1);
        assert_eq!(t.targets, 1);
    }

    #[test]
    fn huge_repeat_count_stops_at_segment_end() {
        let mut s = sym(0, "_x");
        s.extend([BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1, 0]);
        s.extend([BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB]);
        s.extend([
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00,
        ]);
        let e = parse_weak_binds(&s, &segs(), 8).unwrap_err();
        assert_eq!(e.message, "too many bind locations");
        // A skip of 2^64-8 makes the step wrap to 0: one location bound forever.
        let mut s = sym(0, "_x");
        s.extend([BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1, 0]);
        s.extend([BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB, 0x10]);
        s.extend([0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        let e = parse_weak_binds(&s, &segs(), 8).unwrap_err();
        assert_eq!(e.message, "bind repeat step wraps around (skip too large)");
        // A count that runs off the segment.
        let mut s = sym(0, "_x");
        s.extend([BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1, 0]);
        s.extend([BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB, 0x21, 0]); // 33 × 8 > 0x100
        let e = parse_weak_binds(&s, &segs(), 8).unwrap_err();
        assert_eq!(e.message, "bind location past the end of its segment");
    }

    #[test]
    fn malformed_streams_are_errors() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                vec![BIND_OPCODE_SET_DYLIB_ORDINAL_IMM | 1],
                "unexpected dylib ordinal in weak_bind",
            ),
            (
                vec![BIND_OPCODE_THREADED | 1],
                "threaded bind opcode in weak_bind (dyld: bad bind opcode)",
            ),
            (vec![0xE0], "unknown bind opcode"),
            (
                vec![BIND_OPCODE_DO_BIND],
                "bind before SET_SEGMENT_AND_OFFSET_ULEB",
            ),
            (
                vec![
                    BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1,
                    0,
                    BIND_OPCODE_DO_BIND,
                ],
                "bind before SET_SYMBOL_TRAILING_FLAGS_IMM",
            ),
            (
                [
                    sym(0, "_x"),
                    vec![
                        BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 9,
                        0,
                        BIND_OPCODE_DO_BIND,
                    ],
                ]
                .concat(),
                "bind segment index out of range",
            ),
            (
                [
                    sym(0, "_x"),
                    vec![
                        BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 2,
                        0,
                        BIND_OPCODE_DO_BIND,
                    ],
                ]
                .concat(),
                "bind segment index out of range",
            ),
            (
                [
                    sym(0, "_x"),
                    vec![
                        BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB,
                        0,
                        BIND_OPCODE_DO_BIND,
                    ],
                ]
                .concat(),
                "pointer bind in a non-writable segment",
            ),
            (
                [
                    sym(0, "_x"),
                    vec![
                        BIND_OPCODE_SET_TYPE_IMM | 7,
                        BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1,
                        0,
                        BIND_OPCODE_DO_BIND,
                    ],
                ]
                .concat(),
                "unknown bind type",
            ),
            (
                [
                    sym(0, "_x"),
                    vec![
                        BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1,
                        0xf9,
                        0x01,
                        BIND_OPCODE_DO_BIND,
                    ],
                ]
                .concat(),
                "bind location past the end of its segment",
            ),
            (
                vec![BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1, 0x80],
                "truncated ULEB128",
            ),
            (
                vec![BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM, b'a'],
                "unterminated string",
            ),
        ];
        for (bytes, msg) in cases {
            let e = parse_weak_binds(&bytes, &segs(), 8).unwrap_err();
            assert_eq!(e.message, msg, "stream {bytes:02x?}");
        }
    }

    #[test]
    fn empty_stream_is_empty() {
        assert_eq!(
            parse_weak_binds(&[], &segs(), 8).unwrap(),
            WeakBindTable::default()
        );
    }

    /// Fuzz-audit finding: one long name set once, then the addend flipped before every bind,
    /// made a target (and two copies of the name) per 3 bytes of stream.
    #[test]
    fn addend_flipping_targets_are_budgeted() {
        let segs = vec![SegmentBounds {
            vm_size: 1 << 40,
            writable: true,
            is_linkedit: false,
        }];
        let stream = |name_len: usize, flips: usize| {
            let mut s = vec![BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM];
            s.extend(std::iter::repeat_n(b'a', name_len));
            s.extend([0, BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB, 0]);
            for _ in 0..flips {
                s.extend([BIND_OPCODE_SET_ADDEND_SLEB, 0, BIND_OPCODE_DO_BIND]);
                s.extend([BIND_OPCODE_SET_ADDEND_SLEB, 1, BIND_OPCODE_DO_BIND]);
            }
            s
        };
        let ok = parse_weak_binds(&stream(100, 4096), &segs, 8).unwrap();
        assert_eq!(ok.targets, 8192);
        let e = parse_weak_binds(&stream(64 << 10, 4096), &segs, 8).unwrap_err();
        assert_eq!(
            e.message,
            "bind targets' names exceed 4 bytes per stream byte (a stream built to blow up)"
        );
    }

    fn walk(s: &[u8], stream: BindStream, dylibs: u32) -> Result<Vec<Bind>, ParseError> {
        let mut v = Vec::new();
        walk_binds(s, stream, &segs(), 8, dylibs, |b| v.push(*b))?;
        Ok(v)
    }

    #[test]
    fn regular_stream_carries_ordinals_and_weak_imports() {
        let mut s = vec![BIND_OPCODE_SET_DYLIB_ORDINAL_IMM | 2];
        s.extend(sym(BIND_SYMBOL_FLAGS_WEAK_IMPORT, "_a"));
        s.extend([BIND_OPCODE_SET_TYPE_IMM | 1]);
        s.extend([BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1, 0]);
        s.push(BIND_OPCODE_DO_BIND);
        s.push(BIND_OPCODE_SET_DYLIB_SPECIAL_IMM | 0x0E); // -2 flat lookup
        s.extend(sym(0, "_napi_x"));
        s.push(BIND_OPCODE_DO_BIND);
        s.push(BIND_OPCODE_SET_DYLIB_SPECIAL_IMM | 0x0F); // -1 main executable
        s.extend(sym(0, "_api"));
        s.push(BIND_OPCODE_DO_BIND);
        s.extend([BIND_OPCODE_SET_ADDEND_SLEB, 0]); // an addend opcode: a new target
        s.push(BIND_OPCODE_DO_BIND);
        s.push(BIND_OPCODE_DONE);
        s.push(0xFF); // after DONE: not read
        let b = walk(&s, BindStream::Regular, 2).unwrap();
        let got: Vec<(u32, i32, bool, u32)> = b
            .iter()
            .map(|b| (b.symbol, b.library_ordinal, b.weak_import, b.target))
            .collect();
        assert_eq!(
            got,
            [
                (0, 2, true, 0),
                (1, -2, false, 1),
                (2, -1, false, 2),
                (2, -1, false, 3)
            ]
        );
    }

    #[test]
    fn regular_stream_is_checked_as_dyld_does() {
        let bind = |pre: Vec<u8>| {
            let mut s = pre;
            s.extend(sym(0, "_a"));
            s.extend([BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1, 0]);
            s.push(BIND_OPCODE_DO_BIND);
            s
        };
        let typed = |ord: u8| {
            vec![
                BIND_OPCODE_SET_TYPE_IMM | 1,
                BIND_OPCODE_SET_DYLIB_ORDINAL_IMM | ord,
            ]
        };
        let cases = [
            (
                bind(vec![BIND_OPCODE_SET_TYPE_IMM | 1]),
                "bind before SET_DYLIB_ORDINAL",
            ),
            (bind(typed(3)), "bind library ordinal above the dylib count"),
            (
                bind(vec![
                    BIND_OPCODE_SET_TYPE_IMM | 1,
                    BIND_OPCODE_SET_DYLIB_SPECIAL_IMM | 0x0C,
                ]),
                "unknown special library ordinal",
            ),
            (
                bind(vec![
                    BIND_OPCODE_SET_TYPE_IMM | 1,
                    BIND_OPCODE_SET_DYLIB_ORDINAL_ULEB,
                    0xff,
                    0xff,
                    0xff,
                    0xff,
                    0x0f,
                ]),
                "bind library ordinal above the dylib count",
            ),
            // No SET_TYPE_IMM: dyld starts the regular stream at type 0.
            (
                bind(vec![BIND_OPCODE_SET_DYLIB_ORDINAL_IMM | 1]),
                "unknown bind type",
            ),
        ];
        for (s, msg) in cases {
            assert_eq!(
                walk(&s, BindStream::Regular, 2).unwrap_err().message,
                msg,
                "{s:02x?}"
            );
        }
        let e = walk(&[BIND_OPCODE_THREADED], BindStream::Regular, 2).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Unsupported);
        assert_eq!(
            walk(&bind(typed(2)), BindStream::Regular, 2).unwrap().len(),
            1
        );
    }

    #[test]
    fn lazy_stream_goes_on_after_done_and_refuses_other_opcodes() {
        let entry = |off: u8, name: &str| {
            let mut s = vec![BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | 1, off];
            s.push(BIND_OPCODE_SET_DYLIB_ORDINAL_IMM | 1);
            s.extend(sym(0, name));
            s.extend([BIND_OPCODE_DO_BIND, BIND_OPCODE_DONE]);
            s
        };
        let s = [entry(0, "_a"), entry(8, "_b"), entry(16, "_a")].concat();
        let b = walk(&s, BindStream::Lazy, 1).unwrap();
        assert_eq!(
            b.iter()
                .map(|b| (b.segment_offset, b.target))
                .collect::<Vec<_>>(),
            [(0, 0), (8, 1), (16, 2)]
        );
        for op in [
            BIND_OPCODE_SET_TYPE_IMM | 1,
            BIND_OPCODE_ADD_ADDR_ULEB,
            BIND_OPCODE_DO_BIND_ADD_ADDR_IMM_SCALED,
            BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB,
            BIND_OPCODE_THREADED,
        ] {
            let e = walk(&[op, 0, 0], BindStream::Lazy, 1).unwrap_err();
            assert_eq!(e.message, "bad lazy bind opcode");
        }
    }
}
