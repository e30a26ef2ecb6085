//! The answer first: the one- or two-line headline and the `fix:` block that `scan` and `diff`
//! print before their tables (table and Markdown alike), so the top group, where it comes
//! from and what to change fit the first screen.
//!
//! ```text
//! 6822 weak-def lookups at launch, from 6800 weak-bound symbols
//! largest: v8::internal::StaticCallInterfaceDescriptor<…> 2158, from libv8_base_without_compiler.a(interface-descriptors.o)
//! fix: compile libv8_base_without_compiler.a with -fvisibility=hidden: -3939 lookups (58%), about 3.9–11.7 ms
//!      most from: interface-descriptors.o 2158, bytecodes.o 320, liftoff-compiler.o 289
//!      next: libnode.a -1635, libv8_compiler.a -1041 (fix plan below the groups)
//!      hiding it may also hide an API addons or plug-ins use (up to 7132 other exports): --importer DIR names what they bind to; keep that with visibility("default") or -exported_symbols_list
//! ```

use crate::analysis::attribute::{NO_ATTRIBUTION, NO_DEBUG_INFO};
use crate::analysis::check::{Figure, ImageCheck};
use crate::analysis::compiled_differently::LibraryChange;
use crate::analysis::diff::percent_change;
use crate::analysis::fix_plan::{Candidate, DefinersRead, FixPlan};
use crate::analysis::group::{Group, GroupFrom};
use crate::analysis::report::{DiffReport, ImageSummary, PairReport};
use crate::analysis::visibility::{Compiled, VisibilityReport};
use crate::text::count;

/// How names are set in the text: as they are (a terminal) or as Markdown code spans.
pub type Quote = fn(&str) -> String;

/// A name as it is.
pub fn plain(s: &str) -> String {
    s.to_string()
}

/// Candidates after the first named in the fix block.
const NEXT_CANDIDATES: usize = 2;

/// The headline of one scanned image: its lookups, and its largest group with its object.
pub fn scan_headline(s: &ImageSummary, top: Option<&Group>, q: Quote) -> Vec<String> {
    let lookups = s.stats().lookups;
    let seen = if s.log.is_some() { "seen" } else { "at launch" };
    let mut first = match (lookups, s.weak_bind_symbols) {
        (Some(0), _) | (None, Some(0)) => {
            "no weak-def lookups: nothing for dyld to coalesce".into()
        }
        (Some(l), Some(b)) => format!(
            "{} {seen}, from {}",
            count(l, "weak-def lookup", "weak-def lookups"),
            count(b, "weak-bound symbol", "weak-bound symbols")
        ),
        (Some(l), None) => format!("{} {seen}", count(l, "weak-def lookup", "weak-def lookups")),
        (None, b) => format!("{} weak-bound symbols", crate::output::fig(b)),
    };
    if let Some(e) = s.weak_def_exports.filter(|_| lookups == Some(0)) {
        first.push_str(&format!(
            " ({})",
            count(e, "weak-def export", "weak-def exports")
        ));
    }
    let mut lines = vec![first];
    if let Some(g) = top.filter(|g| g.stats.lookups.unwrap_or(0) > 0) {
        lines.push(format!(
            "largest: {} {}{}",
            q(&g.key),
            crate::output::fig(g.stats.lookups),
            from_text(g.from.as_ref(), q)
        ));
    }
    lines
}

/// The headline of one pair of a diff: the lookups' change and what it costs at launch, and
/// the largest group change with its object; then, when the two builds' compile databases
/// explain the growth, the `cause:` ([`flags_cause`]).
pub fn diff_headline(p: &PairReport, q: Quote) -> Vec<String> {
    let mut line = diff_lookups(p);
    if let (Some(o), Some(n)) = (p.old.stats().lookups, p.new.stats().lookups)
        && o != n
    {
        line.push_str(&format!(
            ": {} ({})",
            launch_change(n as i64 - o as i64),
            crate::analysis::estimate::per_lookup_short()
        ));
    }
    if let Some(g) = p.groups.iter().find(|g| !g.delta.is_zero()) {
        line.push_str(&format!(
            "; largest change: {} {}{}",
            q(&g.key),
            crate::output::signed(g.delta.lookups.or(g.delta.weak_bound_symbols)),
            from_text(g.from.as_ref(), q)
        ));
    }
    let mut lines = vec![line];
    lines.extend(flags_cause(p, q));
    lines
}

/// Objects a `cause:` line names.
const CAUSE_OBJECTS: usize = 3;

/// `cause: libfoo.a: 812 objects compile without -fvisibility=hidden since NEW; they bring +3939
/// lookups (a.o 2158, b.o 320, c.o 289, 809 more)`: the library of the section "compiled
/// differently" whose objects lost hidden visibility and explain a diff's growth
/// ([`growth_by_flags`]), with its objects of the most lookups, and the lookups that came with
/// `MH_WEAK_DEFINES` when the change brought the flag
/// ([`LibraryChange::weak_defines_lookups`]); `None` without one.
pub fn flags_cause(p: &PairReport, q: Quote) -> Option<String> {
    let l = growth_by_flags(p)?;
    let since = p
        .compiled_differently
        .as_ref()
        .map_or("", |c| c.since.as_str());
    let (verb, they) = if l.lost_hidden == 1 {
        ("compiles", "it brings")
    } else {
        ("compile", "they bring")
    };
    let mut objects: Vec<String> = l
        .lost_hidden_objects()
        .take(CAUSE_OBJECTS)
        .map(|o| format!("{} {}", q(member(&o.object)), o.lookups))
        .collect();
    if l.lost_hidden > CAUSE_OBJECTS {
        objects.push(format!("{} more", l.lost_hidden - CAUSE_OBJECTS));
    }
    let weak_defines = if l.weak_defines_lookups > 0 {
        format!(
            "; with {} came {} of operator new and delete (+{} in all)",
            q("MH_WEAK_DEFINES"),
            count(l.weak_defines_lookups, "lookup", "lookups"),
            l.brought()
        )
    } else {
        String::new()
    };
    Some(format!(
        "cause: {}: {} {verb} without {} since {}; {they} +{} ({}){weak_defines}",
        q(&l.library),
        count(l.lost_hidden, "object", "objects"),
        q("-fvisibility=hidden"),
        q(since),
        count(l.lookups_lost_hidden, "lookup", "lookups"),
        objects.join(", ")
    ))
}

/// The lookups' change of one pair of a diff: `weak-def lookups 6822 → 1886 (-4936, -72%)`.
pub fn diff_lookups(p: &PairReport) -> String {
    match (p.old.stats().lookups, p.new.stats().lookups) {
        (Some(o), Some(n)) => format!("weak-def lookups {o} → {n} ({})", change_text(o, n)),
        _ => "weak-def lookups: n/a".to_string(),
    }
}

/// `about +3.6–10.9 ms at launch` for 3661 more lookups (`-` for fewer).
pub fn launch_change(lookups: i64) -> String {
    let (lo, hi) = crate::analysis::estimate::ms_of_lookups(lookups.abs());
    let sign = if lookups < 0 { '-' } else { '+' };
    format!("about {sign}{} at launch", ms_range((lo, hi)))
}

/// `−4936, −72%` (`+5` when the old figure is 0).
fn change_text(o: usize, n: usize) -> String {
    let d = n as i64 - o as i64;
    match percent_change(Some(o), Some(n)) {
        Some(p) => format!("{d:+}, {p:+.0}%"),
        None => format!("{d:+}"),
    }
}

/// `, from libfoo.a(foo.o)` (and how many more objects), or nothing.
fn from_text(from: Option<&GroupFrom>, q: Quote) -> String {
    match from {
        Some(f) if f.objects == 1 => format!(", from {}", q(&f.object)),
        Some(f) if f.objects > 1 => format!(", from {} and {} more", q(&f.object), f.objects - 1),
        _ => String::new(),
    }
}

/// The `fix:` block of one scanned image, from its fix plan (and its objects' compile commands
/// when `scan --compile-commands` gave them); empty when nothing leaks.
pub fn scan_fix(
    s: &ImageSummary,
    plan: &FixPlan,
    visibility: Option<&VisibilityReport>,
    q: Quote,
) -> Vec<String> {
    let total = s.stats().lookups.unwrap_or(0);
    plan_fix(total, plan, visibility, "fix plan below the groups", q)
}

/// The `fix:` block of a fix plan of an image of `total` lookups: its best candidate, the
/// objects it is most in (or what the compile database says of them), the next candidates
/// (`more` says where the rest are) and, for a library, how to keep an API exported.
fn plan_fix(
    total: usize,
    plan: &FixPlan,
    visibility: Option<&VisibilityReport>,
    more: &str,
    q: Quote,
) -> Vec<String> {
    let Some(best) = plan.candidates.first().filter(|c| c.hidden.lookups > 0) else {
        return Vec::new();
    };
    let total = total.max(1);
    let mut lines = vec![format!(
        "fix: {}: {}-{} ({}%), about {} ({})",
        change_of(best, q),
        at_most(&plan.definers),
        count(best.hidden.lookups, "lookup", "lookups"),
        best.hidden.lookups * 100 / total,
        ms_range(best.hidden.estimated_ms),
        crate::analysis::estimate::per_lookup_short()
    )];
    lines.extend(weak_defines_line(best));
    lines.extend(definers_lines(plan, 1, q));
    lines.extend(objects_line(best, visibility, q));
    let next: Vec<String> = plan.candidates[1..]
        .iter()
        .filter(|c| c.hidden.lookups > 0)
        .take(NEXT_CANDIDATES)
        .map(|c| format!("{} -{}", q(&c.library), c.hidden.lookups))
        .collect();
    if !next.is_empty() {
        lines.push(format!("next: {} ({more})", next.join(", ")));
    }
    if is_library(best) && best.other_exports > 0 {
        lines.push(format!(
            "hiding it may also hide an API addons or plug-ins use (up to {} other exports): \
             {} names what they bind to; keep that with {} or {}",
            best.other_exports,
            q("--importer DIR"),
            q("visibility(\"default\")"),
            q("-exported_symbols_list")
        ));
    }
    indent(lines)
}

/// The `fix:` block of one pair of a diff: what to change when lookups grew (the library the
/// largest increase comes from), else what still leaks in the new build; empty when nothing does.
pub fn diff_fix(p: &PairReport, plan: Option<&FixPlan>, q: Quote) -> Vec<String> {
    let (Some(o), Some(n)) = (p.old.stats().lookups, p.new.stats().lookups) else {
        return Vec::new();
    };
    let best = plan
        .and_then(|p| p.candidates.first())
        .filter(|c| c.hidden.lookups > 0);
    // Whether the best candidate's figures are bounds, and how to make them exact.
    let bound = plan.map_or("", |p| at_most(&p.definers));
    let exact_line = || plan.and_then(|p| at_most_line(&p.definers, None, q));
    if n <= o {
        // Nothing grew: what still leaks in the new build, if anything.
        return best.map_or_else(Vec::new, |b| {
            let mut lines = vec![format!(
                "fix what remains: {}: {bound}-{} of the new build's {}",
                change_of(b, q),
                b.hidden.lookups,
                count(n, "lookup", "lookups")
            )];
            lines.extend(exact_line());
            if p.visibility.is_some() {
                lines.extend(objects_line(b, p.visibility.as_ref(), q));
            }
            indent(lines)
        });
    }
    let grown = p
        .groups
        .iter()
        .filter(|g| g.delta.lookups.unwrap_or(0) > 0)
        .find_map(|g| Some((g, g.from.as_ref().filter(|f| f.objects > 0)?)));
    let mut lines = Vec::new();
    match grown {
        Some((g, f)) => {
            lines.push(format!(
                "fix: compile {} with {}: it brought {} {}",
                q(library_of(&f.object)),
                q("-fvisibility=hidden"),
                q(&g.key),
                crate::output::signed(g.delta.lookups)
            ));
            // What `--compile-commands` says of that object.
            let compiled = p
                .visibility
                .as_ref()
                .and_then(|v| v.objects.iter().find(|o| o.object == f.object));
            if let Some(o) = compiled {
                lines.push(compiled_line(&o.source, &o.compiled, q));
            }
        }
        None => lines.push(format!(
            "fix: compile the new weak definitions with {} (+{})",
            q("-fvisibility=hidden"),
            count(n - o, "lookup", "lookups")
        )),
    }
    lead_with_compiled_differently(&mut lines, p, q);
    if let Some(best) = best {
        let same = grown.is_some_and(|(_, f)| library_of(&f.object) == best.library);
        lines.push(if same {
            format!(
                "that saves {bound}{} in the new build, about {} ({})",
                count(best.hidden.lookups, "lookup", "lookups"),
                ms_range(best.hidden.estimated_ms),
                crate::analysis::estimate::per_lookup_short()
            )
        } else {
            format!(
                "the new build's fix plan starts with: {}: {bound}-{}",
                change_of(best, q),
                count(best.hidden.lookups, "lookup", "lookups")
            )
        });
        lines.extend(exact_line());
    }
    indent(lines)
}

/// `compile libfoo.a with -fvisibility=hidden`, or for symbols the attribution does not name,
/// what to compile and how to name it.
fn change_of(c: &Candidate, q: Quote) -> String {
    let flag = q(c.flag.option());
    match c.library.as_str() {
        NO_ATTRIBUTION => format!(
            "compile this image's sources with {flag} (--dsym or --map names the libraries)"
        ),
        NO_DEBUG_INFO => format!("compile the sources the debug map does not name with {flag}"),
        library => format!("compile {} with {flag}", q(library)),
    }
}

/// What the definers of the plan's symbols say: that its figures are at most and how to make
/// them exact (not every object was read), the first `shared` sets of libraries that must be
/// hidden together (as far as the objects read show), and the smallest set that removes the
/// most lookups (when every object was read); then the libraries whose symbols no flag hides,
/// their objects compiling with `-fvisibility=hidden` already (`--compile-commands`).
pub fn definers_lines(plan: &FixPlan, shared: usize, q: Quote) -> Vec<String> {
    let d = &plan.definers;
    if plan.candidates.iter().all(|c| c.hidden.lookups == 0) && plan.shared.is_empty() {
        return marked_default_lines(plan, q);
    }
    let mut lines: Vec<String> = at_most_line(d, None, q).into_iter().collect();
    lines.extend(
        plan.shared
            .iter()
            .filter(|sh| sh.hidden.lookups > 0)
            .take(shared)
            .map(|sh| {
                let e: Vec<String> = sh
                    .examples
                    .iter()
                    .map(|raw| q(&crate::analysis::demangle::demangle_one(raw).demangled(raw)))
                    .collect();
                format!(
                    "needs {} together: -{} of {} they all define ({}{})",
                    and_list(&sh.libraries, q),
                    count(sh.hidden.lookups, "lookup", "lookups"),
                    count(sh.hidden.weak_bound_symbols, "symbol", "symbols"),
                    e.join(", "),
                    if sh.hidden.weak_bound_symbols > e.len() {
                        ", …"
                    } else {
                        ""
                    }
                )
            }),
    );
    if let Some(t) = &plan.together {
        lines.push(format!(
            "hide {} together: -{}, about {}",
            and_list(&t.libraries, q),
            count(t.hidden.lookups, "lookup", "lookups"),
            ms_range(t.hidden.estimated_ms)
        ));
    }
    lines.extend(marked_default_lines(plan, q));
    lines
}

/// One line per candidate with lookups of symbols marked `visibility("default")`
/// ([`Candidate::marked_default`]), most first.
fn marked_default_lines(plan: &FixPlan, q: Quote) -> Vec<String> {
    let mut marked: Vec<&Candidate> = plan
        .candidates
        .iter()
        .filter(|c| c.marked_default.lookups > 0)
        .collect();
    marked.sort_by_key(|c| std::cmp::Reverse(c.marked_default.lookups));
    marked
        .iter()
        .map(|c| {
            format!(
                "{}: {} of {} stay: compiled with {} already, so marked {} in the source",
                q(&c.library),
                count(c.marked_default.lookups, "lookup", "lookups"),
                count(c.marked_default.weak_bound_symbols, "symbol", "symbols"),
                q("-fvisibility=hidden"),
                q("visibility(\"default\")")
            )
        })
        .collect()
}

/// `at most: …`: that the figures depending on other definers are bounds and how to make them
/// exact (how many objects were not read, where to point `--objects`), when `d` is not exact;
/// `image` names the image they are of (a process).
pub fn at_most_line(d: &DefinersRead, image: Option<&str>, q: Quote) -> Option<String> {
    if d.exact {
        return None;
    }
    let missing = d.not_on_disk + d.unreadable;
    let why = if d.unreadable > 0 && d.not_on_disk == 0 {
        "could not be read"
    } else {
        "are not on this disk"
    };
    let dir = d.first_missing.as_deref().map(objects_dir).unwrap_or("DIR");
    let of = image.map(|i| format!(" for {}", q(i))).unwrap_or_default();
    Some(format!(
        "at most{of}: another library may define the same symbols, and the objects the image \
         was linked from {why} ({missing} of {}): for exact figures give {} or run in the \
         build tree",
        d.objects,
        q(&format!("--objects {dir}"))
    ))
}

/// `at most ` when `d` is not exact, else nothing: the prefix of a figure that is then a bound.
pub fn at_most(d: &DefinersRead) -> &'static str {
    if d.exact { "" } else { "at most " }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String], q: Quote) -> String {
    let quoted: Vec<String> = items.iter().map(|i| q(i)).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// Where to point `--objects` for an object not found: the build's `…/obj` directory when the
/// path has one, else the directory of its archive or file.
fn objects_dir(named: &str) -> &str {
    let file = named
        .strip_suffix(')')
        .and_then(|p| p.rfind('(').map(|i| &p[..i]))
        .unwrap_or(named);
    if let Some(i) = file.find("/obj/") {
        return &file[..i + 4];
    }
    if file.starts_with("obj/") {
        return "obj";
    }
    file.rfind('/').map_or(".", |i| &file[..i])
}

/// A candidate named by the attribution (not a group of unnamed symbols).
fn is_library(c: &Candidate) -> bool {
    !c.library.starts_with('(')
}

/// The object part of `lib.a(obj.o)`, or the whole key.
fn member(object: &str) -> &str {
    object
        .strip_suffix(')')
        .and_then(|o| o.split_once('('))
        .map_or(object, |(_, m)| m)
}

/// The library part of `lib.a(obj.o)`, or the whole key.
fn library_of(object: &str) -> &str {
    object
        .strip_suffix(')')
        .and_then(|o| o.split_once('('))
        .map_or(object, |(l, _)| l)
}

/// The candidate's objects with the most lookups, or its first object's compile command.
fn objects_line(c: &Candidate, v: Option<&VisibilityReport>, q: Quote) -> Option<String> {
    let first = c.objects.first()?;
    if let Some(o) = v.and_then(|v| v.objects.iter().find(|o| o.object == first.object)) {
        return Some(compiled_line(&o.source, &o.compiled, q));
    }
    if c.objects_total == 1 && first.object == c.library {
        return None;
    }
    let list: Vec<String> = c
        .objects
        .iter()
        .map(|o| format!("{} {}", q(member(&o.object)), o.lookups))
        .collect();
    Some(format!("most from: {}", list.join(", ")))
}

/// What the compile database says of the top object.
fn compiled_line(source: &str, compiled: &Compiled, q: Quote) -> String {
    match compiled {
        Compiled::Found {
            hidden: false,
            target,
            ..
        } => format!(
            "{} compiles with default visibility{} (compile database)",
            q(source),
            target
                .as_deref()
                .map(|t| format!(", target {}", q(t)))
                .unwrap_or_default()
        ),
        Compiled::Found { hidden: true, .. } => format!(
            "{} compiles hidden already: its symbols are marked visibility(\"default\") in the source",
            q(source)
        ),
        Compiled::Unknown { reason, .. } => {
            format!("{}: visibility unknown ({})", q(source), q(reason))
        }
        Compiled::Ambiguous { entries } => {
            format!("{}: {entries} compile commands fit", q(source))
        }
        Compiled::NotFound => format!("{}: not in the compile database", q(source)),
    }
}

/// `3.9–11.7 ms`, or `16–48 µs` below a millisecond.
pub fn ms_range((lo, hi): (f64, f64)) -> String {
    if hi < 1.0 {
        format!("{:.0}–{:.0} µs", lo * 1000.0, hi * 1000.0)
    } else {
        format!("{lo:.1}–{hi:.1} ms")
    }
}

/// What `-fvisibility-inlines-hidden` saves of `c`'s lookups: `12` when the name proves it,
/// else `3–12` (at least – at most).
pub fn inlines_range(c: &Candidate) -> String {
    let (lo, hi) = (c.inlines_hidden_at_least.lookups, c.inlines_hidden.lookups);
    if lo == hi {
        hi.to_string()
    } else {
        format!("{lo}–{hi}")
    }
}

/// The line saying that hiding `c` leaves the image with no exported weak definition, and the
/// lookups that go with `MH_WEAK_DEFINES`; `None` when it does not.
pub fn weak_defines_line(c: &Candidate) -> Option<String> {
    let n = c.hidden.weak_defines_lookups;
    (n > 0).then(|| {
        format!(
            "it is the last leaker: the image is left with no weak definition, so MH_WEAK_DEFINES \
             goes and with it {} of operator new and delete (counted)",
            count(n, "lookup", "lookups")
        )
    })
}

/// The library of the section "compiled differently" that explains a diff's growth: the first
/// (most lookups from objects that lost hidden visibility), when the lookups grew and it has
/// such lookups.
pub fn growth_by_flags(p: &PairReport) -> Option<&LibraryChange> {
    let (Some(o), Some(n)) = (p.old.stats().lookups, p.new.stats().lookups) else {
        return None;
    };
    p.compiled_differently
        .as_ref()?
        .libraries
        .first()
        .filter(|l| n > o && l.lost_hidden > 0 && l.brought() > 0)
}

/// Makes a growing diff's `fix:` name the change the headline's `cause:` found: `fix: compile
/// libfoo.a with -fvisibility=hidden again`, in place of the same advice for the library the
/// largest increase comes from, else before it (that line losing its `fix: `).
fn lead_with_compiled_differently(lines: &mut Vec<String>, p: &PairReport, q: Quote) {
    let Some(l) = growth_by_flags(p) else {
        return;
    };
    let again = format!(
        "fix: compile {} with {} again",
        q(&l.library),
        q("-fvisibility=hidden")
    );
    let same = format!(
        "fix: compile {} with {}: ",
        q(&l.library),
        q("-fvisibility=hidden")
    );
    if let Some(first) = lines.first_mut() {
        if let Some(rest) = first.strip_prefix(&same) {
            *first = format!("{again}: {rest}");
            return;
        }
        if let Some(rest) = first.strip_prefix("fix: ") {
            *first = rest.to_owned();
        }
    }
    lines.insert(
        0,
        format!(
            "{again}: +{} since it lost it",
            count(l.brought(), "lookup", "lookups")
        ),
    );
}

/// The objects of a diff's attribution the section "compiled differently" could not
/// compare, by reason; `None` when every one was.
pub fn not_compared(
    c: &crate::analysis::compiled_differently::CompiledDifferently,
) -> Option<String> {
    let parts: Vec<String> = [
        (c.not_in_new, "with no unique entry in the new database"),
        (c.not_in_old, "with no entry in the old database"),
        (c.unknown, "whose options cannot be read"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, why)| format!("{n} {why}"))
    .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "not compared, of {}: {}",
            crate::text::count(c.objects, "object", "objects"),
            parts.join(", ")
        )
    })
}

/// The block's lines after the first, set under its text.
fn indent(mut lines: Vec<String>) -> Vec<String> {
    for l in lines.iter_mut().skip(1) {
        l.insert_str(0, "     ");
    }
    lines
}

/// The headline of one checked image: the first budget it exceeds (the finding's own sentence)
/// and the others by name, or that every budget holds; then its most offending group with its
/// object. Empty when the image has no budget (`check --importer` alone).
pub fn check_headline(img: &ImageCheck, q: Quote) -> Vec<String> {
    if img.budgets.is_empty() {
        return Vec::new(); // only importers checked: the verdict says how they fared
    }
    let mut failures = img.failures();
    let Some(first) = failures.next() else {
        let figures: Vec<String> = img
            .figures
            .iter()
            .map(|l| format!("{} {}", l.figure.label(), l.counted))
            .collect();
        return vec![format!(
            "{} {} ({})",
            count(img.budgets.len(), "budget", "budgets"),
            if img.budgets.len() == 1 {
                "holds"
            } else {
                "hold"
            },
            figures.join(", ")
        )];
    };
    let mut line = first.sentence(q);
    // The other failing budgets by title, each once (an increase given as a count and as a
    // percentage is one title).
    let mut others: Vec<(String, usize)> = Vec::new();
    for f in failures {
        let title = match &f.pattern {
            Some(p) => format!("group {}", q(p)),
            None => f.title(),
        };
        match others.iter_mut().find(|(t, _)| *t == title) {
            Some((_, n)) => *n += 1,
            None => others.push((title, 1)),
        }
    }
    if !others.is_empty() {
        let list: Vec<String> = others
            .iter()
            .map(|(t, n)| {
                if *n > 1 {
                    format!("{t} (×{n})")
                } else {
                    t.clone()
                }
            })
            .collect();
        line.push_str(&format!("; also exceeded: {}", list.join(", ")));
    }
    let mut lines = vec![line];
    lines.extend(check_cost(img).map(|c| format!("cost: {c}")));
    if let Some(o) = img.offending_groups.first() {
        let what = if o.baseline.is_some() {
            "largest change"
        } else {
            "largest"
        };
        lines.push(format!(
            "{what}: {} {}{}",
            q(&o.key),
            o.value_text(),
            from_text(o.from.as_ref(), q)
        ));
    }
    lines
}

/// What a failing check's lookups cost at launch: their change since the baseline, else how
/// far they are over a failing maximum; nothing when neither applies.
pub fn check_cost(img: &ImageCheck) -> Option<String> {
    let lookups = img
        .figures
        .iter()
        .find(|l| l.figure == Figure::PredictedWeakLookups)?;
    let source = crate::analysis::estimate::per_lookup_short();
    if let Some(b) = lookups.baseline.filter(|&b| b != lookups.counted) {
        let d = lookups.counted as i64 - b as i64;
        return Some(format!(
            "{d:+} weak-def lookups since the baseline: {} ({source})",
            launch_change(d)
        ));
    }
    let max = img.failures().find(|f| {
        f.figure == Figure::PredictedWeakLookups && f.pattern.is_none() && f.baseline.is_none()
    })?;
    let over = (max.value as i64 - max.limit as i64).max(0);
    Some(format!(
        "{over} weak-def lookups over the maximum: {} ({source})",
        launch_change(over)
    ))
}

/// The `fix:` block of a failing checked binary, from its fix plan; empty when it has none
/// (a process, or nothing to hide), where the report falls back to the general advice.
pub fn check_fix(img: &ImageCheck, q: Quote) -> Vec<String> {
    let more = format!("{} lists the whole plan", q("weakscan scan"));
    let Some(plan) = &img.fix_plan else {
        return Vec::new();
    };
    let total = img
        .figures
        .iter()
        .find(|l| l.figure == Figure::PredictedWeakLookups)
        .map_or(0, |l| l.total);
    plan_fix(total, plan, None, &more, q)
}

/// One line saying what a diff changed, for the end of its GitHub annotations: the lookups
/// old → new over every pair, the largest group change with its object, and the first line of
/// the fix; `no pairs compared` when the builds share no image.
pub fn diff_summary(r: &DiffReport) -> String {
    let Some(first) = r.pairs.first() else {
        return "no pairs compared".into();
    };
    if r.pairs.len() == 1 {
        let mut line = diff_headline(first, plain).join("; ");
        if let Some(fix) = diff_fix(first, Some(&first.fix_plan), plain).first() {
            line.push_str(&format!("; {}", short_fix(fix)));
        }
        return line;
    }
    let (mut old, mut new) = (0usize, 0usize);
    for p in &r.pairs {
        old += p.old.stats().lookups.unwrap_or(0);
        new += p.new.stats().lookups.unwrap_or(0);
    }
    let mut line = format!(
        "{}: weak-def lookups {old} → {new} ({})",
        count(r.pairs.len(), "pair", "pairs"),
        change_text(old, new)
    );
    let top = r
        .pairs
        .iter()
        .flat_map(|p| p.groups.iter().map(move |g| (p, g)))
        .filter(|(_, g)| !g.delta.is_zero())
        .max_by_key(|(_, g)| g.delta.lookups.unwrap_or(0).unsigned_abs());
    if let Some((p, g)) = top {
        line.push_str(&format!(
            "; largest change: {} {} in {}{}",
            g.key,
            crate::output::signed(g.delta.lookups.or(g.delta.weak_bound_symbols)),
            p.label,
            from_text(g.from.as_ref(), plain)
        ));
        if let Some(fix) = diff_fix(p, Some(&p.fix_plan), plain).first() {
            line.push_str(&format!("; {}", short_fix(fix)));
        }
    }
    line
}

/// The first line of a diff's fix without what the line before it says already (the group
/// it brought).
fn short_fix(line: &str) -> &str {
    let line = line.trim_start();
    line.split_once(": it brought ")
        .map_or(line, |(fix, _)| fix)
}

/// `scan --importer`: per candidate of `plan` whose weak definitions an importer imports, one
/// line naming the importers (with how many of them each imports and a few names): hiding
/// them would break those importers at load time.
pub fn imported_by(plan: &FixPlan, q: Quote) -> Vec<String> {
    plan.candidates
        .iter()
        .filter(|c| !c.imported_by.is_empty())
        .map(|c| {
            let who: Vec<String> = c
                .imported_by
                .iter()
                .map(|i| {
                    let names: Vec<String> = i
                        .examples
                        .iter()
                        .map(|e| super::importers::symbol_text(&e.symbol, &e.name, q))
                        .collect();
                    format!("{} ({}: {})", q(&i.importer), i.symbols, names.join(", "))
                })
                .collect();
            format!(
                "hiding {} breaks importers: {}",
                q(&c.library),
                who.join("; ")
            )
        })
        .collect()
}
