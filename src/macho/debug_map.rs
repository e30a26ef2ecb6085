//! The debug map: the stabs a static linker writes into a linked image's symbol table, naming
//! the object file (and source file) each symbol was linked from.
//!
//! A linker writes, for every object file that has DWARF, one run of stab entries (`nlist_64`
//! with `N_STAB` bits, `<mach-o/stab.h>`), in symbol-table order (ld64 `OutputFile.cpp`
//! `synthesizeDebugNotes`; LLVM `lld/MachO/SyntheticSections.cpp` `SymtabSection::emitStabs`):
//!
//! ```text
//! N_SO    n_strx → "/Users/admin/build/ws/out/../deps/v8/src/codegen/"   // ld64: directory …
//! N_SO    n_strx → "interface-descriptors.cc"                            // … then file name;
//!                                                                        // lld: one full path
//! N_OSO   n_strx → "/…/out/Release/libv8_base_without_compiler.a(interface-descriptors.o)",
//!         n_sect = cpu subtype, n_desc = 1, n_value = modification time
//! N_BNSYM n_value = address                  ┐
//! N_FUN   n_strx → "__ZN2v88internal…", n_value = address
//! N_FUN   n_strx → "" , n_value = size       │ one per function
//! N_ENSYM n_value = address                  ┘
//! N_STSYM n_strx → name, n_value = address   // non-external data
//! N_GSYM  n_strx → name, n_value = 0         // external data
//! N_LCSYM n_strx → name, n_value = address   // non-external zero-fill data
//! N_SO    n_strx → ""                        // end of this object's stabs
//! ```
//!
//! ld64 also writes one empty `N_SO` before the first object, and `N_SOL`, `N_OLEVEL`,
//! `N_AST` and other stab types may appear; they are skipped. The reading follows what
//! dsymutil does (`llvm/tools/dsymutil/MachODebugMapParser.cpp`): each `N_OSO` starts an
//! object, the symbol stabs after it belong to it, and `N_FUN` entries with an empty name
//! (function ends) carry no symbol. Rules here, beyond dsymutil's:
//!
//! * a run that is still open at the end of the table ("N_OSO with no closing N_SO"), or that
//!   holds two `N_OSO`, is malformed: an error;
//! * a run with `N_SO` but no `N_OSO` (an object with no path) is counted, and its symbol
//!   stabs with the named stabs outside any run ([`DebugMapStats::stray_symbol_stabs`]).
//!
//! The table is read in windows of 64 KiB ([`super::symtab`]): the stabs' string offsets are collected
//! first (8 bytes per symbol stab), then the string table is read in ascending offset order,
//! only where those names are.

use super::symtab::{Nlist, ReadTable, for_each_nlist, for_each_string};
use crate::error::ParseError;

/// `N_GSYM`: global symbol (external data).
pub const N_GSYM: u8 = 0x20;
/// `N_FUN`: procedure (a name and address, then an unnamed entry giving the size).
pub const N_FUN: u8 = 0x24;
/// `N_STSYM`: static symbol (non-external data).
pub const N_STSYM: u8 = 0x26;
/// `N_LCSYM`: `.lcomm` symbol (non-external zero-fill data).
pub const N_LCSYM: u8 = 0x28;
/// `N_BNSYM`: begin nsect symbol.
pub const N_BNSYM: u8 = 0x2e;
/// `N_ENSYM`: end nsect symbol.
pub const N_ENSYM: u8 = 0x4e;
/// `N_SO`: source file name (directory, file, or empty: end of an object's stabs).
pub const N_SO: u8 = 0x64;
/// `N_OSO`: object file name.
pub const N_OSO: u8 = 0x66;

/// One object file of the debug map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugObject {
    /// The `N_OSO` path as written: a loose object (`/…/obj/foo.o`) or an archive member
    /// (`/…/libfoo.a(foo.o)`); escaped to one line ([`super::cursor::symbol_name`]).
    pub path: String,
    /// The source file: the `N_SO` directory joined with the `N_SO` file name (ld64), or the one
    /// `N_SO` path (lld); `None` when the run has no `N_SO`. Not normalized (`out/../src/x.cc`).
    pub source: Option<String>,
}

/// What the reader counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DebugMapStats {
    /// Entries with `N_STAB` bits.
    pub stabs: u64,
    /// `N_FUN` starts, `N_STSYM`, `N_LCSYM` and named `N_GSYM` entries.
    pub symbol_stabs: u64,
    /// Of those looked at (every `N_GSYM`, the wanted addresses), the ones outside any
    /// object's run (or in a run with no `N_OSO`): no object.
    pub stray_symbol_stabs: u64,
    /// Runs that had `N_SO` but no `N_OSO`.
    pub runs_without_object: u64,
}

/// The objects of a debug map (empty when the image has no stabs: a stripped image).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DebugMap {
    /// The objects, in symbol-table order; the index is the object number passed to the
    /// symbol callback of [`read_debug_map`].
    pub objects: Vec<DebugObject>,
    /// Counts.
    pub stats: DebugMapStats,
}

/// An `N_SO`/`N_OSO` entry, before its name is read.
#[derive(Clone, Copy)]
struct Marker {
    index: u32,
    n_type: u8,
    strx: u32,
}

/// A run of one object's stabs: entries `start..end` belong to `object`.
struct Run {
    start: u32,
    end: u32,
    object: Option<u32>,
}

/// A symbol stab, as [`read_debug_map`] hands it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StabSymbol<'a> {
    /// An `N_GSYM` (external data: its `n_value` is 0), by name.
    Name(&'a [u8]),
    /// An `N_FUN` start (`n_sect` ≠ 0), `N_STSYM` or `N_LCSYM`, by its address (`n_value`):
    /// the address the export trie gives the same symbol (an offset from the mach header,
    /// plus the `__TEXT` vm address). Only addresses `wanted` accepts are handed out, so the
    /// names of the image's ~100k functions are never read.
    Address(u64),
}

/// Reads the debug map of a symbol table of `nsyms` entries and a string table of `strsize`
/// bytes, calling `on_symbol(symbol, object)` for each symbol stab inside an object's run:
/// functions and static data by address (those `wanted` accepts), external data by name (in
/// string-table order; a name may come more than once). `read_symtab` and `read_strtab` read
/// the two tables ([`ReadTable`]).
///
/// Errors: a string offset past the string table, an unterminated string, a run with no
/// closing `N_SO` or with two `N_OSO` (the error's offset is the entry's byte offset in the
/// symbol table, or the string's offset in the string table), or an error of a read.
pub fn read_debug_map<E: From<ParseError>>(
    nsyms: u32,
    strsize: u64,
    mut read_symtab: impl ReadTable<E>,
    mut read_strtab: impl ReadTable<E>,
    wanted: impl Fn(u64) -> bool,
    mut on_symbol: impl FnMut(StabSymbol<'_>, u32),
) -> Result<DebugMap, E> {
    let mut stats = DebugMapStats::default();
    let mut markers: Vec<Marker> = Vec::new();
    // (strx << 32 | entry index) of N_GSYM: sorted by string offset for the string-table pass.
    let mut named: Vec<u64> = Vec::new();
    // (entry index, address) of wanted functions and static data.
    let mut addressed: Vec<(u32, u64)> = Vec::new();
    for_each_nlist(nsyms, &mut read_symtab, |n: Nlist| {
        if !n.is_stab() {
            return Ok(());
        }
        stats.stabs += 1;
        match n.n_type {
            N_SO | N_OSO => markers.push(Marker {
                index: n.index,
                n_type: n.n_type,
                strx: n.strx,
            }),
            N_GSYM => named.push(u64::from(n.strx) << 32 | u64::from(n.index)),
            // An N_FUN with n_sect 0 ends a function (its n_value is the size).
            N_FUN if n.n_sect == 0 => {}
            N_FUN | N_STSYM | N_LCSYM => {
                stats.symbol_stabs += 1;
                if wanted(n.n_value) {
                    addressed.push((n.index, n.n_value));
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    if markers.is_empty() {
        // Symbol stabs with no object at all.
        stats.symbol_stabs += named.len() as u64;
        stats.stray_symbol_stabs = (addressed.len() + named.len()) as u64;
        return Ok(DebugMap {
            objects: Vec::new(),
            stats,
        });
    }

    // The markers' names, then the runs they delimit.
    let mut order: Vec<u32> = (0..markers.len() as u32).collect();
    order.sort_unstable_by_key(|&m| markers[m as usize].strx);
    let offsets: Vec<u32> = order.iter().map(|&m| markers[m as usize].strx).collect();
    let mut names: Vec<String> = vec![String::new(); markers.len()];
    for_each_string(strsize, &offsets, &mut read_strtab, |i, s| {
        names[order[i] as usize] = super::cursor::symbol_name(s);
        Ok(())
    })?;
    drop((order, offsets));
    let mut objects: Vec<DebugObject> = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    // The open run: its first entry, source so far, object.
    let mut open: Option<(u32, Option<String>, Option<u32>)> = None;
    let at = |m: &Marker| u64::from(m.index) * 16;
    for (m, name) in markers.iter().zip(names) {
        match (m.n_type, name.is_empty(), &mut open) {
            (N_SO, true, _) => {
                if let Some((start, _, object)) = open.take() {
                    if object.is_none() {
                        stats.runs_without_object += 1;
                    }
                    runs.push(Run {
                        start,
                        end: m.index,
                        object,
                    });
                }
            }
            (N_SO, false, Some((_, _, Some(_)))) => {
                return Err(ParseError::new("N_OSO with no closing N_SO", at(m)).into());
            }
            (N_SO, false, Some((_, source, None))) => {
                // ld64's directory then file name; a second directory replaces the first.
                *source = Some(match source.take() {
                    Some(dir) if dir.ends_with('/') && !name.starts_with('/') => dir + &name,
                    _ => name,
                });
            }
            (N_SO, false, None) => open = Some((m.index, Some(name), None)),
            (_, _, Some((_, _, Some(_)))) => {
                return Err(
                    ParseError::new("two N_OSO entries with no N_SO between", at(m)).into(),
                );
            }
            (_, _, Some((_, source, object @ None))) => {
                *object = Some(objects.len() as u32);
                objects.push(DebugObject {
                    path: name,
                    source: source.clone(),
                });
            }
            (_, _, None) => {
                open = Some((m.index, None, Some(objects.len() as u32)));
                objects.push(DebugObject {
                    path: name,
                    source: None,
                });
            }
        }
    }
    if let Some((start, _, Some(_))) = open {
        return Err(ParseError::new("N_OSO with no closing N_SO", u64::from(start) * 16).into());
    }

    // The object of entry `index`: that of the last run starting at or before it.
    let object_of = |index: u32| {
        let r = runs.partition_point(|r| r.start <= index);
        match r.checked_sub(1).map(|r| &runs[r]) {
            Some(Run {
                end,
                object: Some(object),
                ..
            }) if index < *end => Some(*object),
            _ => None,
        }
    };
    for &(index, address) in &addressed {
        match object_of(index) {
            Some(object) => on_symbol(StabSymbol::Address(address), object),
            None => stats.stray_symbol_stabs += 1,
        }
    }
    // External data by name, in string-table order.
    named.sort_unstable();
    let offsets: Vec<u32> = named.iter().map(|&k| (k >> 32) as u32).collect();
    for_each_string(strsize, &offsets, &mut read_strtab, |i, s| {
        if s.is_empty() {
            return Ok(());
        }
        stats.symbol_stabs += 1;
        match object_of(named[i] as u32) {
            Some(object) => on_symbol(StabSymbol::Name(s), object),
            None => stats.stray_symbol_stabs += 1,
        }
        Ok(())
    })?;
    Ok(DebugMap { objects, stats })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symbol table and string table built entry by entry.
    #[derive(Default)]
    struct Tables {
        syms: Vec<u8>,
        strs: Vec<u8>,
    }

    impl Tables {
        fn new() -> Self {
            // ld64 and lld start the string table with " \0".
            Tables {
                syms: Vec::new(),
                strs: b" \0".to_vec(),
            }
        }
        fn str(&mut self, s: &str) -> u32 {
            if s.is_empty() {
                return 1;
            }
            let at = self.strs.len() as u32;
            self.strs.extend_from_slice(s.as_bytes());
            self.strs.push(0);
            at
        }
        fn entry(&mut self, n_type: u8, name: &str, value: u64) -> &mut Self {
            let strx = self.str(name);
            self.raw(strx, n_type, value)
        }
        fn raw(&mut self, strx: u32, n_type: u8, value: u64) -> &mut Self {
            self.raw_sect(strx, n_type, 1, value)
        }
        fn raw_sect(&mut self, strx: u32, n_type: u8, n_sect: u8, value: u64) -> &mut Self {
            self.syms.extend_from_slice(&strx.to_le_bytes());
            self.syms.extend_from_slice(&[n_type, n_sect, 0, 0]);
            self.syms.extend_from_slice(&value.to_le_bytes());
            self
        }
        fn read(&self) -> Result<(DebugMap, Vec<(String, u32)>), ParseError> {
            let mut found = Vec::new();
            let slice = |b: &[u8], o: u64, l: u64, buf: &mut Vec<u8>| {
                let part = b
                    .get(o as usize..(o + l) as usize)
                    .ok_or(ParseError::new("read out of range", o))?;
                buf.clear();
                buf.extend_from_slice(part);
                Ok(())
            };
            let map = read_debug_map(
                (self.syms.len() / 16) as u32,
                self.strs.len() as u64,
                |o, l, buf: &mut Vec<u8>| slice(&self.syms, o, l, buf),
                |o, l, buf: &mut Vec<u8>| slice(&self.strs, o, l, buf),
                |address| address != 0x9999,
                |symbol, object| {
                    let shown = match symbol {
                        StabSymbol::Name(name) => String::from_utf8_lossy(name).into_owned(),
                        StabSymbol::Address(a) => format!("{a:#x}"),
                    };
                    found.push((shown, object))
                },
            )?;
            found.sort();
            Ok((map, found))
        }
    }

    fn function(t: &mut Tables, name: &str, addr: u64) {
        // The end entry: no name, no section, the size as value.
        t.entry(N_BNSYM, "", addr)
            .entry(N_FUN, name, addr)
            .raw_sect(1, N_FUN, 0, 0x10)
            .entry(N_ENSYM, "", addr);
    }

    #[test]
    fn ld64_runs_give_objects_sources_and_symbols() {
        let mut t = Tables::new();
        t.entry(0x0f, "_main", 0x1000) // a regular symbol: skipped
            .entry(N_SO, "", 0)
            .entry(N_SO, "/build/out/../src/", 0)
            .entry(N_SO, "a.cc", 0)
            .entry(N_OSO, "/build/out/libfoo.a(a.o)", 0);
        function(&mut t, "__ZN3fooIiE3getEv", 0x1000);
        function(&mut t, "__ZN3fooIiE9unwantedEv", 0x9999);
        t.entry(N_GSYM, "__ZZN3fooIiE3getEvE1x", 0)
            .entry(N_SO, "", 0)
            .entry(N_SO, "/build/src/b.cc", 0) // lld: one full path
            .entry(N_OSO, "/build/out/b.o", 0)
            .entry(N_STSYM, "__ZL6statics", 0x2000)
            .entry(N_LCSYM, "__ZL3bss", 0x3000)
            .entry(N_SOL, "/build/src/b.h", 0) // skipped
            .entry(N_SO, "", 0);
        let (map, found) = t.read().unwrap();
        assert_eq!(
            map.objects,
            vec![
                DebugObject {
                    path: "/build/out/libfoo.a(a.o)".into(),
                    source: Some("/build/out/../src/a.cc".into()),
                },
                DebugObject {
                    path: "/build/out/b.o".into(),
                    source: Some("/build/src/b.cc".into()),
                },
            ]
        );
        assert_eq!(
            found,
            vec![
                ("0x1000".into(), 0),
                ("0x2000".into(), 1),
                ("0x3000".into(), 1),
                ("__ZZN3fooIiE3getEvE1x".into(), 0),
            ]
        );
        assert_eq!(map.stats.symbol_stabs, 5);
        assert_eq!(map.stats.stray_symbol_stabs, 0);
    }

    const N_SOL: u8 = 0x84;

    #[test]
    fn no_stabs_is_an_empty_map() {
        let mut t = Tables::new();
        t.entry(0x0f, "_main", 0x1000).entry(0x01, "_printf", 0);
        let (map, found) = t.read().unwrap();
        assert_eq!(map, DebugMap::default());
        assert!(found.is_empty());
    }

    #[test]
    fn stray_stabs_and_runs_without_objects_are_counted() {
        let mut t = Tables::new();
        t.entry(N_GSYM, "_before", 0)
            .entry(N_SO, "/src/a.cc", 0)
            .entry(N_GSYM, "_no_object", 0)
            .entry(N_SO, "", 0);
        let (map, found) = t.read().unwrap();
        assert!(found.is_empty());
        assert_eq!(map.stats.stray_symbol_stabs, 2);
        assert_eq!(map.stats.runs_without_object, 1);
    }

    #[test]
    fn an_object_with_no_closing_so_is_an_error() {
        let mut t = Tables::new();
        t.entry(N_SO, "/src/a.cc", 0)
            .entry(N_OSO, "/o/a.o", 0)
            .entry(N_GSYM, "_x", 0);
        assert_eq!(t.read().unwrap_err().message, "N_OSO with no closing N_SO");
        // A new source file while an object is open.
        let mut t = Tables::new();
        t.entry(N_OSO, "/o/a.o", 0).entry(N_SO, "/src/b.cc", 0);
        let e = t.read().unwrap_err();
        assert_eq!((e.message, e.offset), ("N_OSO with no closing N_SO", 16));
        let mut t = Tables::new();
        t.entry(N_OSO, "/o/a.o", 0).entry(N_OSO, "/o/b.o", 0);
        assert_eq!(
            t.read().unwrap_err().message,
            "two N_OSO entries with no N_SO between"
        );
    }

    #[test]
    fn string_offsets_are_checked() {
        let mut t = Tables::new();
        t.entry(N_SO, "/src/a.cc", 0)
            .entry(N_OSO, "/o/a.o", 0)
            .raw(0xffff, N_GSYM, 0)
            .entry(N_SO, "", 0);
        let e = t.read().unwrap_err();
        assert_eq!(
            (e.message, e.offset),
            ("string offset past the string table", 0xffff)
        );
        let mut t = Tables::new();
        t.entry(N_SO, "/src/a.cc", 0).entry(N_SO, "", 0);
        t.strs.push(b'x'); // a last name with no NUL
        let last = t.strs.len() as u32 - 1;
        t.raw(last, N_OSO, 0);
        assert_eq!(t.read().unwrap_err().message, "unterminated string");
    }

    #[test]
    fn names_longer_than_a_window_are_read_whole() {
        let long = format!("__Z{}", "a".repeat(3 << 20));
        let mut t = Tables::new();
        t.entry(N_SO, "/src/a.cc", 0)
            .entry(N_OSO, "/o/a.o", 0)
            .entry(N_GSYM, "_short", 0)
            .entry(N_GSYM, &long, 0)
            .entry(N_GSYM, "_after", 0)
            .entry(N_SO, "", 0);
        let (_, found) = t.read().unwrap();
        let mut names: Vec<usize> = found.iter().map(|(n, _)| n.len()).collect();
        names.sort();
        names.reverse();
        assert_eq!(names, vec![long.len(), 6, 6]);
    }
}
