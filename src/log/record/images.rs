//! The images of the process read, made from what was recorded once the log ends: the errors
//! only the whole log shows, the main executable, each image's lookups and weak-bind targets
//! (the treat-as-weak targets dyld appends told apart), and what the log lets each figure know.

use super::intern::{Id, Interner};
use super::recorder::{ImageBuild, Recorder};
use super::{MAX_LOG_IMAGES, too_many_images};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{
    BindTarget, FixupFormat, Image, LogFormat, LogSource, Lookup, LookupReason, Name, Site, Source,
    TREAT_AS_WEAK,
};
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
        let main = self.main_image();
        // The treat-as-weak targets `forEachBindTarget_ChainedFixups` appends after a chained
        // main executable's imports (bind# ≥ import count): the last 22 bind lines of the run,
        // in `sTreatAsWeak` order, each after its lookup. They are lookups, not weak binds of
        // the image's own (its imports with ordinal -3 are).
        let appended: Vec<usize> = self
            .images
            .iter()
            .map(|b| appended_treat_as_weak(b, &self.symbols))
            .collect();
        let names = Names {
            symbols: std::mem::take(&mut self.symbols).into_names(),
            paths: std::mem::take(&mut self.paths).into_names(),
            images: std::mem::take(&mut self.image_names).into_names(),
        };
        let per_image = self.lookups_per_image(main, &names, &appended);
        let mut images = Vec::new();
        // Each image's records are freed once its targets are built.
        let builds = std::mem::take(&mut self.images);
        for (i, (mut b, lookups)) in builds.into_iter().zip(per_image).enumerate() {
            let name = &names.images[i];
            let run_count = b.runs.len();
            let targets = bind_targets(&mut b, appended[i], lookups_known, name, &names);
            let targets_known =
                b.dyld2 || lookups_known || run_count >= 2 || b.opcode_fixups || b.weak_fixup_lines;
            let sites_known = b.dyld2 || b.opcode_fixups;
            if targets.is_empty() && lookups.is_empty() && i != main {
                if run_count > 0 || b.dyld2 {
                    self.facts.images_without_weak_binds += 1;
                }
                continue;
            }
            let source = LogSource {
                format,
                pid: key,
                targets_known,
                sites_known,
                lookups_known,
                facts: Default::default(),
            };
            images.push((i, log_image(path, name, &b, targets, lookups, source)));
        }
        // Main executable first, then in order of appearance.
        images.sort_by_key(|(i, _)| (*i != main, *i));
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
        } else if self.angle_form {
            LogFormat::Dyld4Macos26
        } else if self.lookup_lines {
            LogFormat::Dyld4
        } else {
            LogFormat::Dyld4NoLookups
        }
    }

    /// The main executable: the first image dyld fixes up, or an unnamed one if none is.
    fn main_image(&mut self) -> usize {
        self.images
            .iter()
            .position(|b| !b.runs.is_empty() || b.dyld2)
            .unwrap_or_else(|| self.image(b"(main executable)"))
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
/// `appended` treat-as-weak ones ending its last run), then its dyld2 weak binds. Frees those
/// records of `b` as it goes.
fn bind_targets(
    b: &mut ImageBuild,
    appended: usize,
    lookups_known: bool,
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
            let weak =
                rec.via_lookup || rec.missing || rec.weak_fixup || (!lookups_known && r >= 1);
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

    #[test]
    fn a_file_without_dyld_lines_is_an_error() {
        let err = read("hello\nworld\n", None).unwrap_err();
        assert!(
            err.to_string().contains("no dyld lines in 2 lines"),
            "{err}"
        );
    }
}
