//! Our parsers against independent readers, on every committed fixture:
//! the object crate (container, segments, export trie, weak binds, chained imports and chains,
//! nlist `N_WEAK_DEF`), and `llvm-objdump` from LLVM 22 when installed.

use crate::util::{all_fixtures, llvm_nm, llvm_objdump, nm_debug_map, required, weakscan};
use object::LittleEndian as LE;
use object::macho;
use object::read::macho::{
    FatArch, LoadCommandIterator, MachHeader, MachOFatFile32, MachOFatFile64,
};
use object::{Object, ObjectSymbol, SymbolFlags};
use std::collections::BTreeSet;
use std::path::Path;
use weakscan::macho::bind_opcodes::{SegmentBounds, parse_weak_binds};
use weakscan::macho::chained_fixups::{ChainedFixup, Visited, parse_chained_fixups, walk_chain};
use weakscan::macho::export_trie::parse_export_trie;
use weakscan::macho::file::{MachOFile, SliceLocation};
use weakscan::macho::load_commands::{LoadCommands, read_load_commands};

/// (offset, size) of each slice per object.
fn object_slices(data: &[u8]) -> Vec<(u64, u64)> {
    match object::FileKind::parse(data).unwrap() {
        object::FileKind::MachOFat32 => MachOFatFile32::parse(data)
            .unwrap()
            .arches()
            .iter()
            .map(|a| a.file_range())
            .collect(),
        object::FileKind::MachOFat64 => MachOFatFile64::parse(data)
            .unwrap()
            .arches()
            .iter()
            .map(|a| a.file_range())
            .collect(),
        _ => vec![(0, data.len() as u64)],
    }
}

fn linkedit(slice: &[u8], off: u32, size: u32) -> &[u8] {
    &slice[off as usize..off as usize + size as usize]
}

fn check_slice(path: &Path, file: &MachOFile, loc: &SliceLocation, slice: &[u8]) {
    let name = format!("{} {}", path.display(), loc.arch);
    let lc: LoadCommands = read_load_commands(file, loc).unwrap();
    let header = macho::MachHeader64::<LE>::parse(slice, 0).unwrap();
    assert_eq!(header.flags(LE).0, lc.flags, "{name} flags");
    assert_eq!(header.filetype(LE).0, lc.filetype, "{name} filetype");
    assert_eq!(header.cputype(LE).0, loc.cputype, "{name} cputype");

    let mut segments = Vec::new();
    let mut dyld_info = None;
    let mut exports_trie = None;
    let mut chained = None;
    let mut cmds: LoadCommandIterator<LE> = header.load_commands(LE, slice, 0).unwrap();
    while let Some(cmd) = cmds.next().unwrap() {
        if let Some((seg, _)) = cmd.segment_64().unwrap() {
            let n = seg.segname.iter().position(|&b| b == 0).unwrap_or(16);
            segments.push((
                String::from_utf8_lossy(&seg.segname[..n]).into_owned(),
                seg.vmaddr.get(LE),
                seg.vmsize.get(LE),
                seg.fileoff.get(LE),
                seg.filesize.get(LE),
            ));
        } else if let Some(d) = cmd.dyld_info().unwrap() {
            dyld_info = Some(d);
        } else if let Some(d) = cmd.dyld_exports_trie().unwrap() {
            exports_trie = Some(d);
        } else if let Some(d) = cmd.dyld_chained_fixups().unwrap() {
            chained = Some(d);
        }
    }
    let ours: Vec<_> = lc
        .segments
        .iter()
        .map(|s| (s.name.clone(), s.vmaddr, s.vmsize, s.fileoff, s.filesize))
        .collect();
    assert_eq!(ours, segments, "{name} segments");

    // Export trie: every terminal, with flags.
    let (trie_iter, trie_bytes) = if let Some(t) = exports_trie {
        (
            t.exports_trie(LE, slice).unwrap(),
            linkedit(slice, t.dataoff.get(LE), t.datasize.get(LE)),
        )
    } else {
        let d = dyld_info.expect("a trie somewhere");
        (
            d.exports_trie(LE, slice).unwrap(),
            linkedit(slice, d.export_off.get(LE), d.export_size.get(LE)),
        )
    };
    let mut theirs = BTreeSet::new();
    let mut it = trie_iter;
    while let Some(e) = it.next().unwrap() {
        theirs.insert((String::from_utf8_lossy(e.name()).into_owned(), e.flags().0));
    }
    let ours: BTreeSet<(String, u64)> = parse_export_trie(trie_bytes)
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.flags))
        .collect();
    assert!(!ours.is_empty(), "{name}: exports");
    assert_eq!(ours, theirs, "{name} export trie");

    // nlist: external defined symbols with N_WEAK_DEF are exactly the weak-def exports.
    let obj = object::File::parse(slice).unwrap();
    let nlist_weak: BTreeSet<String> = obj
        .symbols()
        .filter(|s| s.is_global() && s.is_definition())
        .filter(|s| matches!(s.flags(), SymbolFlags::MachO { n_desc, .. } if n_desc.0 & macho::N_WEAK_DEF.0 != 0))
        .map(|s| s.name().unwrap().to_string())
        .collect();
    let trie_weak: BTreeSet<String> = ours
        .iter()
        .filter(|(_, f)| f & 0x04 != 0)
        .map(|(n, _)| n.clone())
        .collect();
    assert_eq!(
        trie_weak, nlist_weak,
        "{name}: weak-def exports vs nlist N_WEAK_DEF"
    );

    if let Some(d) = dyld_info {
        // Opcode weak binds: every location.
        let mut theirs = Vec::new();
        let mut binds = d.weak_binds(LE, slice, 8).unwrap();
        while let Some(b) = binds.next().unwrap() {
            theirs.push((
                b.segment_index,
                b.segment_offset,
                String::from_utf8_lossy(b.symbol).into_owned(),
                b.addend,
            ));
        }
        let bounds: Vec<SegmentBounds> = lc
            .segments
            .iter()
            .map(|s| SegmentBounds {
                vm_size: s.vmsize,
                writable: s.initprot & 2 != 0,
                is_linkedit: s.name == "__LINKEDIT",
            })
            .collect();
        let table = parse_weak_binds(
            linkedit(slice, d.weak_bind_off.get(LE), d.weak_bind_size.get(LE)),
            &bounds,
            8,
        )
        .unwrap();
        let ours: Vec<_> = table
            .binds
            .iter()
            .map(|b| {
                (
                    b.segment_index,
                    b.segment_offset,
                    table.symbols[b.symbol as usize].clone(),
                    b.addend,
                )
            })
            .collect();
        assert!(!ours.is_empty(), "{name}: weak binds");
        assert_eq!(ours, theirs, "{name} weak binds");
    }

    if let Some(c) = chained {
        let fixups = c.chained_fixups(LE, slice).unwrap();
        let theirs_imports: Vec<(i32, String, i64)> = fixups
            .imports(LE)
            .unwrap()
            .map(|i| {
                let i = i.unwrap();
                (
                    i.dylib.0,
                    String::from_utf8_lossy(i.name).into_owned(),
                    i.addend,
                )
            })
            .collect();
        let blob = linkedit(slice, c.dataoff.get(LE), c.datasize.get(LE));
        let ours = parse_chained_fixups(blob, lc.segments.len(), lc.dylib_count).unwrap();
        let ours_imports: Vec<(i32, String, i64)> = ours
            .imports
            .iter()
            .map(|i| (i.library_ordinal, i.name.clone(), i.addend))
            .collect();
        assert_eq!(ours_imports, theirs_imports, "{name} chained imports");

        // Every bind of every chain: (segment, offset in segment, import ordinal).
        let mut theirs = Vec::new();
        for seg in fixups.segments(LE).unwrap() {
            let seg = seg.unwrap();
            let s = &lc.segments[seg.index() as usize];
            let data = &slice[s.fileoff as usize..(s.fileoff + s.filesize) as usize];
            for f in seg.fixups(LE, lc.segments[1].vmaddr, data) {
                let (off, fixup) = f.unwrap();
                if let object::read::macho::Fixup::Bind(b) = fixup {
                    theirs.push((seg.index() as usize, off, b.ordinal));
                }
            }
        }
        let mut mine = Vec::new();
        for st in &ours.segments {
            let s = &lc.segments[st.segment_index];
            let data = &slice[s.fileoff as usize..(s.fileoff + s.filesize) as usize];
            let mut visited = Visited::new(data.len());
            for (page, starts) in st.page_chain_starts.iter().enumerate() {
                for &start in starts {
                    let base = page as u64 * u64::from(st.page_size) + u64::from(start);
                    walk_chain(
                        data,
                        st.pointer_format,
                        base,
                        ours.imports.len() as u32,
                        &mut visited,
                        |off, f| {
                            if let ChainedFixup::Bind { ordinal, .. } = f {
                                mine.push((st.segment_index, off, ordinal));
                            }
                        },
                    )
                    .unwrap();
                }
            }
        }
        assert!(!mine.is_empty(), "{name}: chained binds");
        assert_eq!(mine, theirs, "{name} chained binds");
    }
}

#[test]
fn parsers_agree_with_the_object_crate_on_every_fixture() {
    let fixtures = all_fixtures();
    assert!(fixtures.len() >= 15);
    for path in fixtures {
        let data = std::fs::read(&path).unwrap();
        let file = MachOFile::open(&path).unwrap();
        let slices = file.slices().unwrap();
        let ours: Vec<(u64, u64)> = slices.iter().map(|s| (s.offset, s.size)).collect();
        assert_eq!(ours, object_slices(&data), "{} slices", path.display());
        for loc in &slices {
            let slice = &data[loc.offset as usize..(loc.offset + loc.size) as usize];
            check_slice(&path, &file, loc, slice);
        }
    }
}

/// `llvm-objdump --macho` rows: weak-def export names, and (address, symbol) of weak binds.
fn llvm_view(objdump: &Path, path: &Path, arch: &str) -> (BTreeSet<String>, Vec<(u64, String)>) {
    let run = |flag: &str| {
        let out = std::process::Command::new(objdump)
            .args(["--macho", flag, "--arch", arch])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "llvm-objdump {flag} {}",
            path.display()
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let exports = run("--exports-trie")
        .lines()
        .filter(|l| l.contains("weak_def"))
        .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
        .collect();
    let mut binds = Vec::new();
    for l in run("--weak-bind").lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 6 && f[2].starts_with("0x") && f[3] == "pointer" {
            binds.push((
                u64::from_str_radix(&f[2][2..], 16).unwrap(),
                f[5].to_string(),
            ));
        }
    }
    for l in run("--dyld-info").lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 8 && f[4] == "bind" && f[6] == "weak" {
            binds.push((
                u64::from_str_radix(&f[2][2..], 16).unwrap(),
                f[7].to_string(),
            ));
        }
    }
    binds.sort();
    (exports, binds)
}

#[test]
fn images_agree_with_llvm_objdump_22() {
    let Some(objdump) = llvm_objdump() else {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-objdump from LLVM 22 is required but missing"
        );
        crate::util::skip("llvm-objdump from LLVM 22 not found (apt-get install llvm-22)");
        return;
    };
    for path in all_fixtures() {
        for image in weakscan::macho::read_file(&path, &weakscan::macho::ArchFilter::All).unwrap() {
            let arch = image.arch.as_deref().unwrap_or_default();
            let (exports, binds) = llvm_view(&objdump, &path, arch);
            let ours_exports: BTreeSet<String> = image
                .weak_definitions
                .iter()
                .map(|w| w.name.to_string())
                .collect();
            assert_eq!(
                ours_exports,
                exports,
                "{} {} weak-def exports",
                path.display(),
                arch
            );
            let mut ours_binds: Vec<(u64, String)> = image
                .bind_targets
                .iter()
                .flat_map(|t| {
                    t.sites
                        .iter()
                        .map(move |s| (s.address, t.symbol.to_string()))
                })
                .collect();
            ours_binds.sort();
            assert_eq!(
                ours_binds,
                binds,
                "{} {} weak-bind sites",
                path.display(),
                arch
            );
        }
    }
}

/// Checks weakscan's attribution of every weak-bound symbol and weak definition of `bin`'s
/// x86_64 slice against the debug map as llvm-nm-22 prints it: the same object for each symbol
/// llvm-nm names, and no object for the others. Returns how many symbols were compared.
pub fn attribution_agrees_with_llvm_nm(nm: &Path, bin: &Path) -> usize {
    let out = weakscan()
        .args(["baseline", "--arch", "x86_64", "-o", "-"])
        .arg(bin)
        .output()
        .expect("run weakscan");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let debug_map = nm_debug_map(nm, bin);
    let columns = doc["symbols"][0]["columns"].as_array().expect("columns");
    let column = |name: &str| columns.iter().position(|c| c == name).expect("a column");
    let (bound, defs) = (column("weak_bound"), column("weak_defs"));
    let mut compared = 0;
    for rows in doc["symbols"][0]["objects"].as_array().expect("objects") {
        let object = rows["origin"]["object"].as_str().unwrap_or("(none)");
        for row in rows["symbols"].as_array().expect("symbol rows") {
            // Each weak bind and each weak definition (as the two lists of a version-1 baseline).
            let lists = row[bound].as_u64().unwrap() + row[defs].as_u64().unwrap();
            if lists == 0 {
                continue;
            }
            let raw = row[0].as_str().expect("symbol");
            match debug_map.get(raw) {
                Some(oso) => {
                    // `dir/libfoo.a(member.o)` is keyed `libfoo.a(member.o)`; a loose object by
                    // its path below the objects' common directory.
                    let expected_tail = match oso.rsplit_once('/') {
                        Some((_, file)) if oso.ends_with(')') => file,
                        _ => oso.as_str(),
                    };
                    assert!(
                        expected_tail.ends_with(object) || oso.ends_with(object),
                        "{}: {raw}: weakscan says {object}, llvm-nm says {oso}",
                        bin.display()
                    );
                }
                None => assert!(
                    object.starts_with('('),
                    "{}: {raw}: weakscan says {object}, llvm-nm has no stab",
                    bin.display()
                ),
            }
            compared += lists as usize;
        }
    }
    compared
}

#[test]
fn attribution_agrees_with_llvm_nm_on_every_x86_64_fixture() {
    let Some(nm) = llvm_nm() else {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-nm from LLVM 22 is required but missing"
        );
        crate::util::skip("llvm-nm from LLVM 22 not found (apt-get install llvm-22)");
        return;
    };
    let mut total = 0;
    for bin in all_fixtures() {
        let name = bin.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.contains("x86_64") || name.contains("universal")) {
            continue;
        }
        total += attribution_agrees_with_llvm_nm(&nm, &bin);
    }
    assert!(total > 200, "only {total} symbols compared");
}
