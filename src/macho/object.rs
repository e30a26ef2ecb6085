//! Before linking: the weak definitions that object files (`MH_OBJECT`) and static archives
//! will make the linked image export.
//!
//! An object file has no export trie: its exports are in the `LC_SYMTAB` symbol table
//! ([`super::symtab`]). ld64 (`macho_relocatable_file.cpp`, `Parser::parse` and
//! `Atom::scope`/`combine`) and ld64.lld (`InputFiles.cpp` `ObjFile::parseSymbols`) read an
//! `nlist_64` as a definition the link may export when:
//!
//! ```text
//! (n_type & N_STAB) == 0                  not a debugging entry
//! (n_type & N_TYPE) == N_SECT             defined in a section
//! (n_type & N_EXT)  != 0                  external …
//! (n_type & N_PEXT) == 0                  … and not private extern (-fvisibility=hidden)
//! (n_desc & N_WEAK_DEF) != 0              a weak definition (coalesced)
//! !(n_desc & N_WEAK_DEF && n_desc & N_WEAK_REF)   not auto-hide ("weak def can be hidden":
//!                                         linkonce_odr whose address is never taken)
//! ```
//!
//! This is an **upper bound** of what the link exports: an export list (`-exported_symbols_list`),
//! `-hidden-l`, dead stripping and LTO can remove symbols, and a weak definition is only
//! weak-*bound* (a dyld lookup) when the linked image also uses it. Figures an object cannot give
//! (weak binds, sites, lookups) are absent, not zero.
//!
//! An archive's members are read with [`super::archive`]; each distinct name counts once (the
//! link keeps one copy), attributed to the first member that defines it. A member that is not a
//! 64-bit little-endian Mach-O object (LLVM bitcode of an LTO build, another arch) is an error:
//! its symbols would be missing from the figures.

use super::archive::read_members_in;
use super::cursor::symbol_name;
use super::file::{MachOFile, SliceLocation, arch_name};
use super::symtab::{
    N_EXT, N_PEXT, N_SECT, N_STAB, N_TYPE, N_WEAK_DEF, N_WEAK_REF, Nlist, for_each_nlist,
    for_each_string,
};
use crate::error::{ErrorKind, ParseError, Result};
use crate::model::{
    Attribution, AttributionSource, FixupFormat, Image, Name, ObjectOrigin, Source, WeakDefinition,
};

/// `MH_OBJECT`.
pub const MH_OBJECT: u32 = 0x1;
/// `!<arch>\n`.
pub use super::archive::AR_MAGIC;

/// `nlist` is a weak definition an object exports to the link (see the module docs).
pub fn exports_weak_definition(n: &Nlist) -> bool {
    n.n_type & N_STAB == 0
        && n.n_type & N_TYPE == N_SECT
        && n.n_type & N_EXT != 0
        && n.n_type & N_PEXT == 0
        && n.n_desc & N_WEAK_DEF != 0
        && n.n_desc & N_WEAK_REF == 0
}

/// The arch and exported weak definitions of the `MH_OBJECT` at `offset` (`size` bytes) of
/// `file`; `what` names it in errors (`x86_64`, `libfoo.a(foo.o)`).
///
/// Errors: not a 64-bit little-endian Mach-O object, load commands that do not fit, a symbol or
/// string table outside the object, a name offset past the string table.
pub fn object_weak_definitions(
    file: &MachOFile,
    offset: u64,
    size: u64,
    what: &str,
) -> Result<(String, Vec<Name>)> {
    let (arch, names) = object_symbols(file, offset, size, what, |n| {
        exports_weak_definition(n).then_some(false)
    })?;
    Ok((arch, names.into_iter().map(|(n, _)| n).collect()))
}

/// `nlist` is an external weak definition (`N_SECT`, `N_EXT`, `N_WEAK_DEF`): `Some(hidden)`,
/// hidden when it is private extern (`N_PEXT`) or auto-hide (`N_WEAK_DEF | N_WEAK_REF`), which
/// both linkers keep out of the exports (ld64-956.6 `Parser<A>::scopeFromSymbol` and
/// `OutputFile::partitionSymbolTable`; lld/MachO `createDefined`); `None` for any other entry.
pub fn weak_definition_hidden(n: &Nlist) -> Option<bool> {
    let weak = n.n_type & N_STAB == 0
        && n.n_type & N_TYPE == N_SECT
        && n.n_type & N_EXT != 0
        && n.n_desc & N_WEAK_DEF != 0;
    weak.then_some(n.n_type & N_PEXT != 0 || n.n_desc & N_WEAK_REF != 0)
}

/// The arch and every external weak definition of the `MH_OBJECT` at `offset` (`size` bytes)
/// of `file`, each with whether it is hidden ([`weak_definition_hidden`]); sorted by name, a
/// name defined twice once (hidden only if both are). Errors as [`object_weak_definitions`].
pub fn object_weak_symbols(
    file: &MachOFile,
    offset: u64,
    size: u64,
    what: &str,
) -> Result<(String, Vec<(Name, bool)>)> {
    object_symbols(file, offset, size, what, weak_definition_hidden)
}

/// The arch and the symbols `keep` selects (with the flag it gives), sorted by name, each name
/// once (its flags ANDed).
fn object_symbols(
    file: &MachOFile,
    offset: u64,
    size: u64,
    what: &str,
    keep: impl Fn(&Nlist) -> Option<bool>,
) -> Result<(String, Vec<(Name, bool)>)> {
    let bad = |m: String| file.error(ErrorKind::Malformed, format!("{what}: {m}"));
    if size < 32 {
        return Err(bad("truncated mach header".into()));
    }
    let h = file.read_range(offset, 32, "mach header")?;
    let word = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
    match word(0) {
        0xfeed_facf => {}
        // The bitcode wrapper, or raw bitcode ("BC" 0xC0DE).
        m if m == 0x0b17_c0de || h.starts_with(b"BC\xc0\xde") => {
            return Err(file.error(
                ErrorKind::Unsupported,
                format!("{what}: LLVM bitcode (an LTO build): its symbols cannot be read"),
            ));
        }
        m => {
            return Err(bad(format!(
                "not a 64-bit little-endian Mach-O object (magic {m:#010x})"
            )));
        }
    }
    let arch = arch_name(word(4), word(8));
    if word(12) != MH_OBJECT {
        return Err(bad(format!(
            "not an object file (filetype {:#x})",
            word(12)
        )));
    }
    let (ncmds, sizeofcmds) = (word(16), u64::from(word(20)));
    if sizeofcmds > size - 32 {
        return Err(bad(
            "truncated: load commands run past the end of the object".into(),
        ));
    }
    let cmds = file.read_range(offset + 32, sizeofcmds, "load commands")?;
    let mut at = 0usize;
    let mut symtab: Option<(u32, u32, u32, u32)> = None;
    for i in 0..ncmds {
        let get = |o: usize| {
            cmds.get(at + o..at + o + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let (Some(cmd), Some(cmdsize)) = (get(0), get(4)) else {
            return Err(bad(format!("load command {i} runs past sizeofcmds")));
        };
        let cmdsize = cmdsize as usize;
        if cmdsize < 8 || at + cmdsize > cmds.len() {
            return Err(bad(format!(
                "load command {i} has invalid cmdsize {cmdsize}"
            )));
        }
        if cmd == 0x2 {
            // LC_SYMTAB
            let (Some(a), Some(b), Some(c), Some(d)) = (get(8), get(12), get(16), get(20)) else {
                return Err(bad("LC_SYMTAB is too short".into()));
            };
            if symtab.replace((a, b, c, d)).is_some() {
                return Err(bad("more than one LC_SYMTAB".into()));
            }
        }
        at += cmdsize;
    }
    let Some((symoff, nsyms, stroff, strsize)) = symtab else {
        return Ok((arch, Vec::new())); // no symbols at all
    };
    let inside = |off: u32, len: u64| u64::from(off).checked_add(len).is_some_and(|e| e <= size);
    if !inside(symoff, u64::from(nsyms) * 16) {
        return Err(bad(
            "truncated: symbol table runs past the end of the object".into(),
        ));
    }
    if !inside(stroff, u64::from(strsize)) {
        return Err(bad(
            "truncated: string table runs past the end of the object".into(),
        ));
    }
    let table = |base: u32, name: &'static str| {
        move |off: u64, len: u64, buf: &mut Vec<u8>| {
            file.read_range_into(offset + u64::from(base) + off, len, name, buf)
                .map_err(Failure::Read)
        }
    };
    let mut kept: Vec<(u32, bool)> = Vec::new();
    for_each_nlist(nsyms, table(symoff, "symbol table"), |n| {
        if let Some(flag) = keep(&n) {
            kept.push((n.strx, flag));
        }
        Ok(())
    })
    .map_err(|e| e.into_error(file, what, "symbol table"))?;
    kept.sort_unstable();
    let strx: Vec<u32> = kept.iter().map(|k| k.0).collect();
    let mut names: Vec<(Name, bool)> = Vec::with_capacity(strx.len());
    for_each_string(
        u64::from(strsize),
        &strx,
        table(stroff, "string table"),
        |i, s| {
            names.push((Name::from(symbol_name(s)), kept[i].1));
            Ok(())
        },
    )
    .map_err(|e| e.into_error(file, what, "string table"))?;
    names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    names.dedup_by(|later, first| {
        let same = later.0 == first.0;
        if same {
            first.1 &= later.1;
        }
        same
    });
    Ok((arch, names))
}

/// A read failed, or what it read is malformed.
enum Failure {
    Parse(ParseError),
    Read(crate::error::Error),
}

impl From<ParseError> for Failure {
    fn from(e: ParseError) -> Self {
        Failure::Parse(e)
    }
}

impl Failure {
    fn into_error(self, file: &MachOFile, what: &str, table: &str) -> crate::error::Error {
        match self {
            Failure::Parse(e) => file.error(ErrorKind::Malformed, format!("{what}: {table}: {e}")),
            Failure::Read(e) => e,
        }
    }
}

/// The image of an object file or archive at `loc`: its exported weak definitions, attributed
/// to itself (an object) or to each member (an archive); `archive` says which.
pub fn read_object_image(file: &MachOFile, loc: &SliceLocation, archive: bool) -> Result<Image> {
    let file_name = file
        .path()
        .file_name()
        .map(|n| crate::text::escape_path(std::path::Path::new(n)))
        .unwrap_or_default();
    let mut objects: Vec<ObjectOrigin> = Vec::new();
    let mut symbols = crate::model::SymbolObjects::default();
    let mut definitions: Vec<WeakDefinition> = Vec::new();
    let mut arch: Option<String> = None;
    let mut add = |member_arch: String, names: Vec<Name>, object: ObjectOrigin| -> Result<()> {
        match &arch {
            Some(a) if *a != member_arch && !names.is_empty() => {
                return Err(file.error(
                    ErrorKind::Unsupported,
                    format!(
                        "{}: a {member_arch} object in a {a} archive (give a universal archive, or one per arch)",
                        object.path
                    ),
                ));
            }
            None if !names.is_empty() || !archive => arch = Some(member_arch),
            _ => {}
        }
        let o = objects.len() as u32;
        objects.push(object);
        for n in names {
            if let std::collections::hash_map::Entry::Vacant(v) = symbols.entry(n.clone()) {
                v.insert(o);
                definitions.push(WeakDefinition {
                    name: n,
                    thread_local: false,
                    address: None,
                });
            }
        }
        Ok(())
    };
    if archive {
        let members = read_members_in(file, loc.offset, loc.size)?;
        for m in &members.members {
            let label = format!("{file_name}({})", m.name);
            let (member_arch, names) = object_weak_definitions(file, m.offset, m.size, &label)?;
            add(
                member_arch,
                names,
                ObjectOrigin {
                    path: Name::from(label),
                    source: None,
                },
            )?;
        }
    } else {
        let (member_arch, names) = object_weak_definitions(file, loc.offset, loc.size, &loc.arch)?;
        add(
            member_arch,
            names,
            ObjectOrigin {
                path: Name::from(file_name.clone()),
                source: None,
            },
        )?;
    }
    definitions.sort_by(|a, b| a.name.cmp(&b.name));
    // A fat slice names its arch; a thin archive takes its members'.
    let arch = if loc.cputype != 0 {
        loc.arch.clone()
    } else {
        arch.unwrap_or_else(|| loc.arch.clone())
    };
    Ok(Image {
        path: crate::text::escape_path(file.path()),
        name: file_name,
        arch: Some(arch),
        filetype: Some(MH_OBJECT),
        flags: None,
        fixup_format: Some(FixupFormat::None),
        weak_definitions: definitions,
        other_exports: Default::default(),
        bind_targets: Vec::new(),
        strong_overrides: Vec::new(),
        lookups: Vec::new(),
        source: Source::Object,
        attribution: Some(Box::new(Attribution {
            from: AttributionSource::Object,
            objects,
            symbols,
            other_exports: Vec::new(),
            unplaced: 0,
            definers: None,
            compiled: Vec::new(),
        })),
        uuid: None,
        linkage: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn nlist(n_type: u8, n_desc: u16) -> Nlist {
        Nlist {
            index: 0,
            strx: 1,
            n_type,
            n_sect: 1,
            n_desc,
            n_value: 0,
        }
    }

    #[test]
    fn a_weak_definition_is_hidden_when_private_extern_or_auto_hide() {
        let ext = N_SECT | N_EXT;
        assert_eq!(weak_definition_hidden(&nlist(ext, N_WEAK_DEF)), Some(false));
        assert_eq!(
            weak_definition_hidden(&nlist(ext | N_PEXT, N_WEAK_DEF)),
            Some(true)
        );
        assert_eq!(
            weak_definition_hidden(&nlist(ext, N_WEAK_DEF | N_WEAK_REF)),
            Some(true)
        );
        assert_eq!(weak_definition_hidden(&nlist(ext, 0)), None);
        assert_eq!(weak_definition_hidden(&nlist(N_SECT, N_WEAK_DEF)), None);
    }

    #[test]
    fn which_symbols_the_link_exports_weak() {
        let ext = N_SECT | N_EXT;
        assert!(exports_weak_definition(&nlist(ext, N_WEAK_DEF)));
        assert!(!exports_weak_definition(&nlist(ext, 0)), "strong");
        assert!(
            !exports_weak_definition(&nlist(ext | N_PEXT, N_WEAK_DEF)),
            "hidden"
        );
        assert!(
            !exports_weak_definition(&nlist(N_SECT, N_WEAK_DEF)),
            "local"
        );
        assert!(
            !exports_weak_definition(&nlist(N_EXT, N_WEAK_DEF)),
            "undefined"
        );
        assert!(
            !exports_weak_definition(&nlist(ext, N_WEAK_DEF | N_WEAK_REF)),
            "auto-hide"
        );
        assert!(!exports_weak_definition(&nlist(0x24, N_WEAK_DEF)), "a stab");
    }

    /// An MH_OBJECT of one LC_SYMTAB with the given (n_type, n_desc, name) entries.
    fn object(entries: &[(u8, u16, &str)]) -> Vec<u8> {
        let mut strs = b" \0".to_vec();
        let mut syms = Vec::new();
        for (t, d, name) in entries {
            syms.extend((strs.len() as u32).to_le_bytes());
            syms.extend([*t, 1]);
            syms.extend(d.to_le_bytes());
            syms.extend(0u64.to_le_bytes());
            strs.extend(name.as_bytes());
            strs.push(0);
        }
        let symoff = 32 + 24;
        let stroff = symoff + syms.len();
        let mut b = Vec::new();
        for w in [0xfeed_facf_u32, 0x0100_0007, 3, MH_OBJECT, 1, 24, 0, 0] {
            b.extend(w.to_le_bytes());
        }
        for w in [2u32, 24, symoff as u32, entries.len() as u32, stroff as u32] {
            b.extend(w.to_le_bytes());
        }
        b.extend((strs.len() as u32).to_le_bytes());
        b.extend(syms);
        b.extend(strs);
        b
    }

    fn read(bytes: Vec<u8>) -> Result<(String, Vec<Name>)> {
        let len = bytes.len() as u64;
        let file = MachOFile::from_bytes(Path::new("t.o"), bytes);
        object_weak_definitions(&file, 0, len, "t.o")
    }

    #[test]
    fn hand_made_object() {
        let ext = N_SECT | N_EXT;
        let (arch, names) = read(object(&[
            (ext, N_WEAK_DEF, "__ZN1AIiE1fEv"),
            (ext | N_PEXT, N_WEAK_DEF, "__ZN1AIiE6hiddenEv"),
            (ext, N_WEAK_DEF | N_WEAK_REF, "__ZN1AIiE8autohideEv"),
            (ext, 0, "_main"),
            (ext, N_WEAK_DEF, "__ZN1AIiE1fEv"), // a repeat counts once
        ]))
        .unwrap();
        assert_eq!(arch, "x86_64");
        assert_eq!(names, vec![Name::from("__ZN1AIiE1fEv")]);
    }

    #[test]
    fn bad_objects_are_errors() {
        let mut b = object(&[(N_SECT | N_EXT, N_WEAK_DEF, "_x")]);
        b[36 + 4..36 + 8].copy_from_slice(&0x00ff_0000u32.to_le_bytes()); // nsyms
        let e = read(b).unwrap_err();
        assert!(e.message.contains("symbol table runs past the end"), "{e}");
        let mut b = object(&[(N_SECT | N_EXT, N_WEAK_DEF, "_x")]);
        b[32 + 24..32 + 28].copy_from_slice(&0xffffu32.to_le_bytes()); // n_strx
        let e = read(b).unwrap_err();
        assert!(
            e.message.contains("string offset past the string table"),
            "{e}"
        );
        let mut wrapper = 0x0b17_c0de_u32.to_le_bytes().to_vec();
        wrapper.resize(64, 0);
        let e = read(wrapper).unwrap_err();
        assert!(e.message.contains("LLVM bitcode"), "{e}");
        assert_eq!(e.kind, ErrorKind::Unsupported);
        let e = read(vec![0; 16]).unwrap_err();
        assert!(e.message.contains("truncated mach header"), "{e}");
    }
}
