//! GitHub Actions output of `weakscan check` (`--format github`): one `::error` annotation per
//! failing budget, one with the offending groups and the fix per failing image, `::notice` for
//! notes and the verdict. See "Workflow commands for GitHub Actions".

use crate::analysis::check::CheckReport;
use std::io::{self, Write};

/// Escapes an annotation message (`%`, CR, LF).
fn message(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes an annotation property value (`%`, CR, LF, `:`, `,`).
fn property(s: &str) -> String {
    message(s).replace(':', "%3A").replace(',', "%2C")
}

fn annotation(out: &mut dyn Write, level: &str, title: &str, text: &str) -> io::Result<()> {
    writeln!(
        out,
        "::{level} title={}::{}",
        property(title),
        message(text)
    )
}

/// Renders a check report as workflow commands, ending with the verdict as a plain line.
pub fn check(out: &mut dyn Write, r: &CheckReport) -> io::Result<()> {
    let fix = r.fix();
    for img in &r.images {
        let what = format!("{} ({})", img.path, img.arch);
        for x in img.failures() {
            annotation(
                out,
                "error",
                &format!("weakscan check: {}", x.title()),
                &format!("{what}: {}", x.message),
            )?;
        }
        if !img.passed {
            let mut text = format!("{what}: {}:", r.offenders_caption(img));
            for o in &img.offending_groups {
                text += &format!("\n  {}: {}", o.key, o.value_text());
                for e in o.examples_within(200) {
                    text += &format!("\n    {e}");
                }
            }
            text.push_str("\nHow to fix:");
            for f in &fix {
                text += &format!("\n  - {f}");
            }
            annotation(
                out,
                "error",
                "weakscan check: offending groups and fix",
                &text,
            )?;
        }
        for n in &img.notes {
            annotation(
                out,
                "notice",
                "weakscan check: note",
                &format!("{what}: {n}"),
            )?;
        }
    }
    let level = if r.passed { "notice" } else { "error" };
    annotation(out, level, "weakscan check", &r.verdict())?;
    writeln!(out, "weakscan check {}", r.verdict())?;
    Ok(())
}
