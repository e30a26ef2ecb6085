//! The images of the process read, made from what was recorded once the log ends: the errors
//! only the whole log shows, the main executable, each image's lookups and weak-bind targets
//! (the treat-as-weak targets dyld appends told apart), and what the log lets each figure know.

use super::intern::{Id, Interner};
use super::recorder::{ImageBuild, Recorder};
use super::roles::role;
use super::{MAX_LOG_IMAGES, too_many_images};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{
    BindTarget, FixupFormat, Image, LogFormat, LogSource, Lookup, LookupReason, MainBy, Name, Site,
    Source, TREAT_AS_WEAK,
};
use std::collections::HashMap;
use std::path::Path;

/// The interned names as the model's text, by id.
struct Names {
    symbols: Vec<Name>,
    paths: Vec<Name>,
    images: Vec<Name>,
}

impl Names {
    /// A weak-bind target of the image named `image`: `symbol` (+ `addend`) bound to the image
    /// `library` (`None`: to none) at `sites`.
    fn target(
        &self,
        image: &Name,
        symbol: Id,
        library: Option<Id>,
        addend: i64,
        sites: Vec<Site>,
    ) -> BindTarget {
        let supplier = library.map(|l| self.images[l as usize].clone());
        BindTarget {
            symbol: self.symbols[symbol as usize].clone(),
            addend,
            sites,
            defined_here: supplier.as_ref() == Some(image),
            supplier,
        }
    }
}

impl Recorder {
    /// The images of the process read, the main executable first, then in order of appearance;
    /// `path` names the log, `pid` is the process asked for. Errors: as
    /// [`read_log`](super::read_log).
    pub(super) fn finish(mut self, path: &Path, pid: Option<u32>) -> Result<Vec<Image>> {
        self.close_lookup();
        self.check(path, pid)?;
        let key = self.processes.selected.flatten();
        let format = self.format();
        let lookups_known = self.lookup_lines;
        // From dyld-1323.3 the brackets tell the two streams apart: `(…/…)` is an opcode
        // weak-bind target, `<…/…>)` a regular or chained one.
        let brackets = format == LogFormat::Dyld4Macos26;
        (self.facts.forms, self.facts.dyld) = self.forms.report();
        // The treat-as-weak targets `forEachBindTarget_ChainedFixups` appends after a chained
        // main executable's imports (bind# ≥ import count): the last 22 bind lines of the run,
        // in `sTreatAsWeak` order, each after its lookup. They are lookups, not weak binds of
        // the image's own (its imports with ordinal -3 are).
        let mut appended: Vec<usize> = self
            .images
            .iter()
            .map(|b| appended_treat_as_weak(b, &self.symbols))
            .collect();
        let (main, main_by) = self.main_image(&appended, format == LogFormat::Dyld2);
        // The unnamed main executable may have added a slot.
        appended.resize(self.images.len(), 0);
        let names = Names {
            symbols: std::mem::take(&mut self.symbols).into_names(),
            paths: std::mem::take(&mut self.paths).into_names(),
            images: std::mem::take(&mut self.image_names).into_names(),
        };
        let paths = self.image_paths(&names);
        let per_image = self.lookups_per_image(main, &names, &appended);
        let order = self.fixup_positions();
        let main_order = order[main];
        let mut images = Vec::new();
        // Each image's records are freed once its targets are built.
        let builds = std::mem::take(&mut self.images);
        for (i, (mut b, lookups)) in builds.into_iter().zip(per_image).enumerate() {
            let name = &names.images[i];
            let run_count = b.runs.len();
            let paren = b.runs.iter().flatten().any(|r| r.paren);
            let targets = bind_targets(&mut b, appended[i], lookups_known, brackets, name, &names);
            // An image without bind lines has no weak binds, whatever the log prints.
            let targets_known = b.dyld2
                || lookups_known
                || run_count >= 2
                || b.opcode_fixups
                || b.weak_fixup_lines
                || run_count == 0
                || (brackets && paren);
            let sites_known = b.dyld2 || b.opcode_fixups || run_count == 0;
            if !b.fixed_up() && lookups.is_empty() && i != main {
                continue;
            }
            if targets.is_empty() && lookups.is_empty() && i != main && (run_count > 0 || b.dyld2) {
                self.facts.images_without_weak_binds += 1;
            }
            let source = LogSource {
                format,
                pid: key,
                role: role(order[i], main_order, i == main),
                main_by: (i == main).then_some(main_by),
                fixup_order: order[i],
                image_path: paths[i].clone(),
                lines: b.lines,
                renamed_binds: b.renamed,
                targets_known,
                sites_known,
                lookups_known,
                facts: Default::default(),
            };
            images.push((i, log_image(path, name, &b, targets, lookups, source)));
        }
        // Main executable first, then in the order dyld fixed them up.
        images.sort_by_key(|(i, _)| (*i != main, order[*i].unwrap_or(u32::MAX), *i));
        let facts = std::sync::Arc::new(self.facts);
        Ok(images
            .into_iter()
            .map(|(_, mut img)| {
                if let Source::Log(l) = &mut img.source {
                    l.facts = facts.clone();
                }
                img
            })
            .collect())
    }

    /// Each image's position in the order dyld fixed them up (`None`: no line of its own).
    fn fixup_positions(&self) -> Vec<Option<u32>> {
        let mut at = vec![None; self.images.len()];
        for (k, &i) in self.order.iter().enumerate() {
            // Fewer images than MAX_LOG_IMAGES: the position fits.
            at[i] = Some(k as u32);
        }
        at
    }

    /// Each image's full path: its page-in line's, else the first `using … in PATH` path whose
    /// leaf is its name.
    fn image_paths(&self, names: &Names) -> Vec<Option<Name>> {
        let mut by_leaf: HashMap<&str, usize> = HashMap::new();
        for (p, full) in names.paths.iter().enumerate() {
            by_leaf.entry(leaf(full)).or_insert(p);
        }
        self.images
            .iter()
            .zip(&names.images)
            .map(|(b, name)| {
                let p = b
                    .path
                    .map(|p| p as usize)
                    .or_else(|| by_leaf.get(name.as_str()).copied())?;
                Some(names.paths[p].clone())
            })
            .collect()
    }
    /// The errors the whole log shows: no lines of the PID asked for (a usage error listing
    /// the PIDs seen), no dyld lines, or more images than [`MAX_LOG_IMAGES`].
    fn check(&self, path: &Path, pid: Option<u32>) -> Result<()> {
        if let Some(want) = pid.filter(|w| !self.processes.seen(*w)) {
            let seen: Vec<String> = self
                .facts
                .pids
                .iter()
                .filter_map(|p| p.pid.map(|p| p.to_string()))
                .collect();
            return Err(Error::new(
                ErrorKind::Usage,
                path,
                if seen.is_empty() {
                    format!("no lines of PID {want}: the log has no dyld4 PIDs")
                } else {
                    format!("no lines of PID {want} (PIDs seen: {})", seen.join(", "))
                },
            ));
        }
        if self.facts.dyld_lines == 0 {
            return Err(Error::new(
                ErrorKind::Malformed,
                path,
                format!(
                    "no dyld lines in {} line{} (was DYLD_PRINT_BINDINGS=1 set?)",
                    self.facts.lines,
                    if self.facts.lines == 1 { "" } else { "s" }
                ),
            ));
        }
        if self.image_names.names.len() > MAX_LOG_IMAGES {
            return Err(too_many_images(path, self.image_names.names.len()));
        }
        Ok(())
    }

    /// The format of the process read, from the lines it wrote.
    fn format(&self) -> LogFormat {
        let dyld2 = self.processes.selected == Some(None);
        if dyld2 {
            LogFormat::Dyld2
        } else if self.forms.from_1323() {
            LogFormat::Dyld4Macos26
        } else if self.lookup_lines {
            LogFormat::Dyld4
        } else {
            LogFormat::Dyld4NoLookups
        }
    }

    /// The main executable and how it was told: the image whose bind targets end with the
    /// appended treat-as-weak names (a chained main executable with `MH_WEAK_DEFINES`); else
    /// the first image fixed up whose name is not a library's (inserted dylibs come first:
    /// [`LogRole::Inserted`]); else the first image fixed up; else an unnamed placeholder.
    /// dyld2 binds the main executable first (`dyld::link` of it before the inserted ones).
    fn main_image(&mut self, appended: &[usize], dyld2: bool) -> (usize, MainBy) {
        let order = &self.order;
        let chosen = if dyld2 {
            order.first().map(|&i| (i, MainBy::FirstFixedUp))
        } else {
            order
                .iter()
                .find(|&&i| appended[i] > 0)
                .map(|&i| (i, MainBy::AppendedTreatAsWeak))
                .or_else(|| {
                    let names = &self.image_names.names;
                    let paths = &self.paths.names;
                    order
                        .iter()
                        .position(|&i| {
                            let path = self.images[i].path.map(|p| &*paths[p as usize]);
                            !library_name(&names[i], path)
                        })
                        .map(|k| {
                            let by = if k == 0 {
                                MainBy::FirstFixedUp
                            } else {
                                MainBy::NotALibrary
                            };
                            (order[k], by)
                        })
                })
                .or_else(|| order.first().map(|&i| (i, MainBy::FirstFixedUp)))
        };
        chosen.unwrap_or_else(|| (self.image(b"(main executable)"), MainBy::Unnamed))
    }

    /// Each image's lookups, those made for no image named going to `main`; counts the lookups
    /// no bind line followed. `appended[i]` treat-as-weak targets end image `i`'s last run.
    fn lookups_per_image(
        &mut self,
        main: usize,
        names: &Names,
        appended: &[usize],
    ) -> Vec<Vec<Lookup>> {
        let mut per_image: Vec<Vec<Lookup>> = {
            // Counted first, so each list is allocated once, at its size.
            let mut n = vec![0usize; self.images.len()];
            for l in &self.lookups {
                n[l.image.unwrap_or(main)] += 1;
            }
            n.into_iter().map(Vec::with_capacity).collect()
        };
        for l in std::mem::take(&mut self.lookups) {
            let i = l.image.unwrap_or(main);
            if !l.bound {
                self.facts.lookups_without_bind += 1;
            }
            per_image[i].push(Lookup {
                symbol: names.symbols[l.symbol as usize].clone(),
                reason: if l.bound {
                    LookupReason::BindTarget
                } else {
                    LookupReason::StrongOverrideCheck
                },
                supplier: l.supplier.map(|p| names.paths[p as usize].clone()),
            });
        }
        for (i, lookups) in per_image.iter_mut().enumerate() {
            // The last bound lookup of each appended name is the appended target's.
            for name in TREAT_AS_WEAK.iter().take(appended[i]) {
                if let Some(l) = lookups
                    .iter_mut()
                    .rev()
                    .find(|l| l.reason == LookupReason::BindTarget && l.symbol == *name)
                {
                    l.reason = LookupReason::TreatAsWeakTarget;
                }
            }
        }
        per_image
    }
}

/// The weak-bind targets of the image `name` recorded in `b`: those of its bind lines (but the
/// `appended` treat-as-weak ones ending its last run), then its dyld2 weak binds. A bind line
/// is a weak-bind target after its lookup, as `missing-weak-bind`, when a `weak-bind#N` fixup
/// line names it, in the `(…/…)` form of a log with `brackets` (dyld-1323.3+), or in a run
/// after the first in a log without lookup lines. Frees those records of `b` as it goes.
fn bind_targets(
    b: &mut ImageBuild,
    appended: usize,
    lookups_known: bool,
    brackets: bool,
    name: &Name,
    names: &Names,
) -> Vec<BindTarget> {
    let mut targets =
        Vec::with_capacity(b.runs.iter().map(Vec::len).sum::<usize>() + b.dyld2_list.len());
    for (r, run) in b.runs.iter().enumerate() {
        let own = if r + 1 == b.runs.len() {
            run.len() - appended
        } else {
            run.len()
        };
        for rec in &run[..own] {
            let weak = rec.via_lookup
                || rec.missing
                || rec.weak_fixup
                || (brackets && rec.paren)
                || (!lookups_known && r >= 1);
            let (true, Some(symbol)) = (weak, rec.symbol) else {
                continue;
            };
            let sites = rec.sites.iter().map(|&a| log_site(a)).collect();
            targets.push(names.target(name, symbol, rec.library, 0, sites));
        }
    }
    drop(std::mem::take(&mut b.runs));
    drop(std::mem::take(&mut b.dyld2_first));
    drop(std::mem::take(&mut b.dyld2_more));
    push_dyld2_targets(b, name, names, &mut targets);
    targets.shrink_to_fit();
    targets
}

/// Adds the dyld2 weak-bind targets of the image `name` recorded in `b` to `targets`, each
/// with its sites in log order; frees the sites of `b`.
fn push_dyld2_targets(
    b: &mut ImageBuild,
    name: &Name,
    names: &Names,
    targets: &mut Vec<BindTarget>,
) {
    let mut site_counts = vec![0u32; b.dyld2_list.len()];
    for &(t, _) in &b.dyld2_sites {
        site_counts[t as usize] += 1;
    }
    let first = targets.len();
    for (&(symbol, addend, library), &n) in b.dyld2_list.iter().zip(&site_counts) {
        let sites = Vec::with_capacity(n as usize);
        targets.push(names.target(name, symbol, library, addend, sites));
    }
    drop(site_counts);
    for &(t, address) in &b.dyld2_sites {
        targets[first + t as usize].sites.push(log_site(address));
    }
    drop(std::mem::take(&mut b.dyld2_sites));
}

/// The model's image `name` of the log at `path`, from `b` and what was made of it.
fn log_image(
    path: &Path,
    name: &Name,
    b: &ImageBuild,
    targets: Vec<BindTarget>,
    lookups: Vec<Lookup>,
    source: LogSource,
) -> Image {
    let fixup_format = if b.opcode_fixups {
        Some(FixupFormat::Opcodes)
    } else if b.chained {
        Some(FixupFormat::Chained)
    } else {
        None
    };
    Image {
        path: crate::text::escape_path(path),
        name: name.to_string(),
        arch: None,
        filetype: None,
        flags: None,
        fixup_format,
        weak_definitions: Vec::new(),
        other_exports: Default::default(),
        bind_targets: targets,
        strong_overrides: Vec::new(),
        lookups,
        source: Source::Log(source),
        attribution: None,
        uuid: None,
        linkage: None,
    }
}

/// How many treat-as-weak targets dyld appended to `b`'s last run: `TREAT_AS_WEAK.len()` when
/// the run ends with them, in order, each after its lookup, else 0.
fn appended_treat_as_weak(b: &ImageBuild, symbols: &Interner) -> usize {
    let Some(run) = b.runs.last() else {
        return 0;
    };
    let n = TREAT_AS_WEAK.len();
    if b.opcode_fixups || run.len() < n {
        return 0;
    }
    let tail = &run[run.len() - n..];
    let all = tail.iter().zip(TREAT_AS_WEAK).all(|(rec, want)| {
        rec.via_lookup
            && rec
                .symbol
                .is_some_and(|s| &*symbols.names[s as usize] == want.as_bytes())
    });
    if all { n } else { 0 }
}

/// The last component of a path.
fn leaf(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A library's name: a leaf ending in `.dylib`, `.so` or `.bundle`, or a path inside a
/// `.framework` (the main executable is none of these).
fn library_name(leaf: &[u8], path: Option<&[u8]>) -> bool {
    [&b".dylib"[..], b".so", b".bundle"]
        .iter()
        .any(|s| leaf.ends_with(s))
        || path.is_some_and(|p| p.windows(11).any(|w| w == b".framework/"))
}

fn log_site(address: u64) -> Site {
    Site {
        address,
        segment_index: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::read;
    use crate::model::FixupFormat;

    #[test]
    fn chained_images_without_lookup_lines_have_unknown_targets() {
        let log = "\
dyld[9]: Setting up kernel page-in linking for /tmp/app
dyld[9]: <app/bind#0> -> 0x7ff800001000 (libSystem.B.dylib/_printf)
dyld[9]: <app/bind#1> -> 0x100004000 (app/__ZN1AIiE1fEv)
";
        let app = &read(log, None).unwrap()[0];
        assert_eq!(app.weak_bind_symbols(), None);
        assert_eq!(app.weak_bind_sites(), None);
        assert_eq!(app.fixup_format, Some(FixupFormat::Chained));
    }

    #[test]
    fn lookups_without_any_bind_line_belong_to_an_unnamed_main_executable() {
        // A log cut right after the strong-override checks.
        let log = "dyld[3]: looking for weak-def symbol '__Znwm':\n\
                   dyld[3]:   using '__Znwm' in /usr/lib/libc++abi.dylib\n\
                   dyld[3]: looking for weak-def symbol '__Znam':\n";
        let images = read(log, None).unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].name, "(main executable)");
        assert_eq!(images[0].seen_weak_lookups(), Some(2));
        assert_eq!(images[0].weak_bind_symbols(), Some(0));
    }

    /// Lookups of `handleStrongWeakDefOverrides` (22 treat-as-weak names, no bind line) then
    /// the bind lines of `images`, each `(leaf, [symbols looked up and bound])`.
    fn launch(images: &[(&str, &[&str])]) -> String {
        let mut log = String::new();
        for n in crate::model::TREAT_AS_WEAK {
            log += &format!("dyld[5]: looking for weak-def symbol '{n}':\n");
        }
        for (image, weak) in images {
            log +=
                &format!("dyld[5]: <{image}/bind#0> -> 0x7ff800001000 (libSystem.B.dylib/_puts)\n");
            for (k, sym) in weak.iter().enumerate() {
                log += &format!("dyld[5]: looking for weak-def symbol '{sym}':\n");
                log += &format!(
                    "dyld[5]: <{image}/bind#{}> -> 0x100004000 ({image}/{sym})\n",
                    k + 1
                );
            }
        }
        log
    }

    #[test]
    fn regression_lookups_without_bind_went_to_an_inserted_dylib_fixed_up_first() {
        // DYLD_INSERT_LIBRARIES: dyld fixes the inserted dylib up before the main executable;
        // the strong-override checks are the main executable's, not the first image's.
        let log = launch(&[
            ("libinterpose.dylib", &["__Z1fv"]),
            ("app", &["__Z1gv", "__Z1hv"]),
        ]);
        let images = read(&log, None).unwrap();
        let names: Vec<&str> = images.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["app", "libinterpose.dylib"]);
        assert_eq!(images[0].seen_weak_lookups(), Some(22 + 2));
        assert_eq!(images[1].seen_weak_lookups(), Some(1));
        let roles: Vec<_> = images.iter().map(|i| i.log().unwrap().role).collect();
        assert_eq!(
            roles,
            [crate::model::LogRole::Main, crate::model::LogRole::Inserted]
        );
    }

    #[test]
    fn regression_images_without_weak_binds_were_dropped() {
        // ex3 prints bind lines but binds nothing weak: it is an image of the log all the same.
        let log = launch(&[
            ("app", &["__Z1gv"]),
            ("ex3", &[]),
            ("libz.dylib", &["__Z1hv"]),
        ]);
        let images = read(&log, None).unwrap();
        let names: Vec<&str> = images.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["app", "ex3", "libz.dylib"]);
        assert_eq!(images[1].weak_bind_symbols(), Some(0));
        assert_eq!(images[1].seen_weak_lookups(), Some(0));
        assert_eq!(images[1].log().unwrap().facts.images_without_weak_binds, 1);
    }

    #[test]
    fn regression_page_in_only_image_lost_its_name() {
        // A chained image with no bind targets prints only its page-in lines.
        let log = "\
dyld[9]: Setting up kernel page-in linking for /Users/ci/build/tool
dyld[9]:   __DATA_CONST (rw.) 0x000104004000->0x000104008000 (fileOffset=0x4000, size=16KB)
";
        let images = read(log, None).unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].name, "tool");
        assert_eq!(images[0].fixup_format, Some(FixupFormat::Chained));
        assert_eq!(images[0].weak_bind_symbols(), Some(0));
    }

    #[test]
    fn a_file_without_dyld_lines_is_an_error() {
        let err = read("hello\nworld\n", None).unwrap_err();
        assert!(
            err.to_string().contains("no dyld lines in 2 lines"),
            "{err}"
        );
    }
}
