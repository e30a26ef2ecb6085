//! `weakscan flags OLD NEW`: the objects whose visibility options differ between two compile
//! databases, grouped by build target.
//!
//! Objects are matched by output (as written, normalized lexically), then, among those left
//! unmatched, by source file as written, then by source file normalized against its
//! directory; a key matches only when it is unique on both sides. Each side's options are read
//! by [`visibility_of`] (response files included) for the arch the argv names
//! ([`arch_of_args`]); an object whose options cannot be read on either side is counted
//! unknown, not compared.

use crate::origin::compile_db::{
    CompileCommand, VisibilityFlags, arch_of_args, normalize, output_of, target_of, visibility_of,
};
use std::collections::{BTreeMap, HashMap};

/// The comparison of two compile databases.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlagsReport {
    /// The old database's path, as given (escaped).
    pub old: String,
    /// The new database's path, as given (escaped).
    pub new: String,
    /// Entries of the old database.
    pub old_entries: usize,
    /// Entries of the new database.
    pub new_entries: usize,
    /// Non-empty lines of the old input that are no compilation (a command dump), or 0.
    pub old_other_lines: usize,
    /// The same for the new input.
    pub new_other_lines: usize,
    /// Objects found in both.
    pub matched: usize,
    /// Of those, matched by source file (their outputs moved).
    pub matched_by_source: usize,
    /// Per target (the new side's, else the old's), the most changed first.
    pub targets: Vec<TargetFlags>,
}

impl FlagsReport {
    /// Objects whose options differ.
    pub fn changed(&self) -> usize {
        self.targets.iter().map(|t| t.changed.len()).sum()
    }
    /// Objects that compile without hidden visibility where they had it.
    pub fn lost_hidden(&self) -> usize {
        self.targets.iter().map(|t| t.lost_hidden).sum()
    }
    /// Objects that compile with hidden visibility where they had none.
    pub fn gained_hidden(&self) -> usize {
        self.targets.iter().map(|t| t.gained_hidden).sum()
    }
    /// Objects in the old database only.
    pub fn only_old(&self) -> usize {
        self.targets.iter().map(|t| t.only_old).sum()
    }
    /// Objects in the new database only.
    pub fn only_new(&self) -> usize {
        self.targets.iter().map(|t| t.only_new).sum()
    }
    /// Matched objects whose options cannot be read.
    pub fn unknown(&self) -> usize {
        self.targets.iter().map(|t| t.unknown).sum()
    }
}

/// One build target's objects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetFlags {
    /// The target ([`target_of`]); `None` when its output fits no known pattern.
    pub target: Option<String>,
    /// Objects of the target in both databases.
    pub matched: usize,
    /// Of those, no longer hidden by default ([`VisibilityFlags::hides_by_default`]).
    pub lost_hidden: usize,
    /// Of those, newly hidden by default.
    pub gained_hidden: usize,
    /// Of those, whose options cannot be read on one side at least (one reason kept).
    pub unknown: usize,
    /// The first reason an object's options cannot be read.
    pub unknown_reason: Option<String>,
    /// Objects in the old database only.
    pub only_old: usize,
    /// Objects in the new database only.
    pub only_new: usize,
    /// The objects whose options differ, in the new database's order.
    pub changed: Vec<ChangedObject>,
}

/// One object whose visibility options differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedObject {
    /// Its output (the new side's), or its source when it has none.
    pub object: String,
    /// Its source, as the new side writes it.
    pub source: String,
    /// The options in effect in the old build.
    pub old: VisibilityFlags,
    /// The options in effect in the new build.
    pub new: VisibilityFlags,
    /// The old build's command, whole.
    pub old_command: Vec<String>,
    /// The new build's command, whole.
    pub new_command: Vec<String>,
}

/// The options in effect, as clang options (`-fvisibility=hidden -fvisibility-inlines-hidden`),
/// `(none)` when none is.
pub fn describe(f: &VisibilityFlags) -> String {
    let mut parts = Vec::new();
    if f.ms_compat {
        parts.push("-fvisibility-ms-compat".to_owned());
    } else if let Some(v) = &f.visibility {
        parts.push(format!("-fvisibility={v}"));
    }
    if f.inlines_hidden {
        parts.push("-fvisibility-inlines-hidden".to_owned());
    }
    if f.no_static_local_var {
        parts.push("-fno-visibility-inlines-hidden-static-local-var".to_owned());
    }
    if let Some(v) = &f.global_new_delete {
        parts.push(format!("-fvisibility-global-new-delete={v}"));
    }
    if parts.is_empty() {
        "(none)".to_owned()
    } else {
        parts.join(" ")
    }
}

/// How one object's visibility options changed between two builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The same options.
    Same,
    /// No longer hidden by default ([`VisibilityFlags::hides_by_default`]).
    LostHidden,
    /// Newly hidden by default.
    GainedHidden,
    /// Other options differ (`-fvisibility-inlines-hidden`, `protected`, …).
    Other,
}

/// How the options went from `old` to `new`.
pub fn change(old: &VisibilityFlags, new: &VisibilityFlags) -> Change {
    if old == new {
        return Change::Same;
    }
    match (old.hides_by_default(), new.hides_by_default()) {
        (true, false) => Change::LostHidden,
        (false, true) => Change::GainedHidden,
        _ => Change::Other,
    }
}

/// An entry's visibility options for the arch its argv names.
fn flags_of(c: &CompileCommand) -> Result<VisibilityFlags, String> {
    visibility_of(c, arch_of_args(c.arguments.iter()))
}

/// The keys an entry is matched by, in order of preference.
fn keys(c: &CompileCommand) -> [Option<String>; 3] {
    [
        output_of(c).map(|o| normalize(o, None)),
        Some(normalize(&c.file, None)),
        Some(normalize(&c.file, Some(&c.directory))),
    ]
}

/// Pairs of (old index, new index), in the new database's order, and how many were paired by
/// source (see the [module documentation](self)).
pub fn pair(old: &[CompileCommand], new: &[CompileCommand]) -> (Vec<(usize, usize)>, usize) {
    let old_keys: Vec<_> = old.iter().map(keys).collect();
    let new_keys: Vec<_> = new.iter().map(keys).collect();
    let (mut old_done, mut new_done) = (vec![false; old.len()], vec![false; new.len()]);
    let mut pairs = Vec::new();
    let mut by_source = 0;
    for level in 0..3 {
        fn unique<'k>(
            keys: &'k [[Option<String>; 3]],
            done: &[bool],
            level: usize,
        ) -> HashMap<&'k str, Option<usize>> {
            let mut m: HashMap<&str, Option<usize>> = HashMap::new();
            for (i, k) in keys.iter().enumerate() {
                if let (false, Some(k)) = (done[i], &k[level]) {
                    m.entry(k.as_str())
                        .and_modify(|v| *v = None)
                        .or_insert(Some(i));
                }
            }
            m
        }
        let o = unique(&old_keys, &old_done, level);
        let n = unique(&new_keys, &new_done, level);
        let mut found: Vec<(usize, usize)> = n
            .iter()
            .filter_map(|(k, ni)| Some(((*o.get(k)?)?, (*ni)?)))
            .collect();
        found.sort_by_key(|&(_, n)| n);
        for &(oi, ni) in &found {
            old_done[oi] = true;
            new_done[ni] = true;
        }
        if level > 0 {
            by_source += found.len();
        }
        pairs.extend(found);
    }
    pairs.sort_by_key(|&(_, n)| n);
    (pairs, by_source)
}

/// The target of `c` in `targets`, added when new.
fn target_entry<'a>(
    targets: &'a mut BTreeMap<Option<String>, TargetFlags>,
    c: &CompileCommand,
) -> &'a mut TargetFlags {
    let t = target_of(c);
    targets.entry(t.clone()).or_insert_with(|| TargetFlags {
        target: t,
        ..TargetFlags::default()
    })
}

/// Compares `old` with `new` (see the [module documentation](self)). `old_path` and `new_path`
/// name them in the report.
pub fn flags_report(
    old: &[CompileCommand],
    new: &[CompileCommand],
    old_path: String,
    new_path: String,
) -> FlagsReport {
    let (pairs, matched_by_source) = pair(old, new);
    let mut targets: BTreeMap<Option<String>, TargetFlags> = BTreeMap::new();
    let (mut old_paired, mut new_paired) = (vec![false; old.len()], vec![false; new.len()]);
    for &(oi, ni) in &pairs {
        old_paired[oi] = true;
        new_paired[ni] = true;
        let (o, n) = (&old[oi], &new[ni]);
        let t = target_entry(&mut targets, n);
        t.matched += 1;
        match (flags_of(o), flags_of(n)) {
            (Ok(a), Ok(b)) if change(&a, &b) == Change::Same => {}
            (Ok(a), Ok(b)) => {
                match change(&a, &b) {
                    Change::LostHidden => t.lost_hidden += 1,
                    Change::GainedHidden => t.gained_hidden += 1,
                    Change::Same | Change::Other => {}
                }
                t.changed.push(ChangedObject {
                    object: output_of(n).unwrap_or(&n.file).to_owned(),
                    source: n.file.to_string(),
                    old: a,
                    new: b,
                    old_command: o.arguments.iter().map(str::to_owned).collect(),
                    new_command: n.arguments.iter().map(str::to_owned).collect(),
                });
            }
            (Err(e), _) | (_, Err(e)) => {
                t.unknown += 1;
                t.unknown_reason.get_or_insert(e);
            }
        }
    }
    for (c, _) in old.iter().zip(&old_paired).filter(|(_, p)| !**p) {
        target_entry(&mut targets, c).only_old += 1;
    }
    for (c, _) in new.iter().zip(&new_paired).filter(|(_, p)| !**p) {
        target_entry(&mut targets, c).only_new += 1;
    }
    let mut targets: Vec<TargetFlags> = targets.into_values().collect();
    targets.sort_by(|a, b| {
        (b.changed.len(), b.only_old + b.only_new)
            .cmp(&(a.changed.len(), a.only_old + a.only_new))
            .then_with(|| a.target.cmp(&b.target))
    });
    FlagsReport {
        old: old_path,
        new: new_path,
        old_entries: old.len(),
        new_entries: new.len(),
        old_other_lines: 0,
        new_other_lines: 0,
        matched: pairs.len(),
        matched_by_source,
        targets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(dir: &str, file: &str, output: Option<&str>, args: &[&str]) -> CompileCommand {
        CompileCommand {
            directory: dir.into(),
            file: file.into(),
            output: output.map(Into::into),
            arguments: args.iter().collect(),
            unknown: None,
        }
    }

    fn obj(dir: &str, target: &str, stem: &str, flags: &[&str]) -> CompileCommand {
        let file = format!("../../src/{stem}.cc");
        let out = format!("obj/src/{target}.{stem}.o");
        let mut args = vec!["c++"];
        args.extend(flags);
        args.extend(["-c", &file, "-o", &out]);
        cmd(dir, &file, Some(&out), &args)
    }

    #[test]
    fn changed_objects_grouped_by_target() {
        let old = vec![
            obj("/o", "v8_base", "a", &["-fvisibility=hidden"]),
            obj("/o", "v8_base", "b", &["-fvisibility=hidden"]),
            obj("/o", "uv", "c", &[]),
            obj("/o", "gone", "d", &[]),
        ];
        let new = vec![
            obj(
                "/n",
                "v8_base",
                "a",
                &["-fvisibility=hidden", "-fvisibility=default"],
            ),
            obj(
                "/n",
                "v8_base",
                "b",
                &["-Xclang", "-fvisibility=default", "-fvisibility=hidden"],
            ),
            obj("/n", "uv", "c", &["-fvisibility-ms-compat"]),
            obj("/n", "uv", "e", &[]),
        ];
        let r = flags_report(&old, &new, "A".into(), "B".into());
        assert_eq!((r.matched, r.matched_by_source), (3, 0));
        assert_eq!((r.changed(), r.lost_hidden(), r.gained_hidden()), (3, 2, 1));
        assert_eq!((r.only_old(), r.only_new()), (1, 1));
        assert_eq!(r.targets[0].target.as_deref(), Some("v8_base"));
        assert_eq!(r.targets[0].changed.len(), 2);
        assert_eq!(
            describe(&r.targets[0].changed[0].old),
            "-fvisibility=hidden"
        );
        assert_eq!(
            describe(&r.targets[0].changed[0].new),
            "-fvisibility=default"
        );
        assert_eq!(r.targets[1].target.as_deref(), Some("uv"));
        assert_eq!((r.targets[1].gained_hidden, r.targets[1].only_new), (1, 1));
    }

    #[test]
    fn changes_are_told_by_hidden_visibility_first() {
        let f = |v: Option<&str>, inlines: bool| VisibilityFlags {
            visibility: v.map(Into::into),
            inlines_hidden: inlines,
            ..VisibilityFlags::default()
        };
        let hidden = f(Some("hidden"), false);
        assert_eq!(change(&hidden, &hidden), Change::Same);
        assert_eq!(change(&hidden, &f(None, true)), Change::LostHidden);
        assert_eq!(
            change(&f(Some("default"), false), &hidden),
            Change::GainedHidden
        );
        // `default` named or not is the same visibility, but other options.
        assert_eq!(
            change(&f(None, false), &f(Some("default"), false)),
            Change::Other
        );
        assert_eq!(change(&hidden, &f(Some("internal"), true)), Change::Other);
    }

    #[test]
    fn moved_outputs_matched_by_source() {
        let old = vec![cmd(
            "/o",
            "src/a.cc",
            Some("old/a.o"),
            &["cc", "-fvisibility=hidden", "-c", "src/a.cc"],
        )];
        let new = vec![cmd(
            "/o",
            "src/a.cc",
            Some("new/a.o"),
            &["cc", "-c", "src/a.cc"],
        )];
        let r = flags_report(&old, &new, "A".into(), "B".into());
        assert_eq!((r.matched, r.matched_by_source, r.lost_hidden()), (1, 1, 1));
        // A source compiled twice on one side is not matched by source.
        let new2 = vec![
            new[0].clone(),
            cmd("/o", "src/a.cc", Some("new/b.o"), &["cc"]),
        ];
        let r = flags_report(&old, &new2, "A".into(), "B".into());
        assert_eq!((r.matched, r.only_old(), r.only_new()), (0, 1, 2));
    }

    #[test]
    fn unreadable_options_are_counted_unknown() {
        let old = vec![cmd(
            "/o",
            "a.cc",
            Some("a.o"),
            &["cc", "-Xarch_arm64", "-fvisibility=hidden"],
        )];
        let new = vec![cmd("/o", "a.cc", Some("a.o"), &["cc"])];
        let r = flags_report(&old, &new, "A".into(), "B".into());
        assert_eq!((r.unknown(), r.changed()), (1, 0));
        assert!(r.targets[0].unknown_reason.is_some());
        // With the arch named in the argv, the -Xarch_ option is read.
        let old = vec![cmd(
            "/o",
            "a.cc",
            Some("a.o"),
            &[
                "cc",
                "-arch",
                "arm64",
                "-Xarch_arm64",
                "-fvisibility=hidden",
            ],
        )];
        let r = flags_report(&old, &new, "A".into(), "B".into());
        assert_eq!((r.unknown(), r.lost_hidden()), (0, 1));
    }
}
