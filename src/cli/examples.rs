//! The examples each subcommand's `--help` ends with, and the overview bare `weakscan` prints
//! (every command with its first example). Each example is a command line and what it does;
//! `tests` below parses every one, so none can name a flag that does not exist.

/// Each subcommand's examples, in the order of `weakscan --help`: (what it does, command line).
/// The first is the one the overview shows.
pub const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "scan",
        &[
            (
                "the answer and the fix, then the groups",
                "weakscan scan out/Release/node",
            ),
            (
                "a whole app: every dylib it loads",
                "weakscan scan MyApp.app",
            ),
            (
                "a stripped build, with its dSYM and compile database",
                "weakscan scan node --dsym node.dSYM --compile-commands compile_commands.json",
            ),
        ],
    ),
    (
        "diff",
        &[
            (
                "what changed between two builds",
                "weakscan diff v1/node v2/node",
            ),
            (
                "a pull-request comment linking the HTML report",
                "weakscan diff v1/node v2/node --format markdown --report-url URL",
            ),
            (
                "two stripped builds, each with its dSYM",
                "weakscan diff v1/node v2/node --old-dsym v1/node.dSYM --new-dsym v2/node.dSYM",
            ),
        ],
    ),
    (
        "flags",
        &[
            (
                "which objects compile with other visibility options than before",
                "weakscan flags v1/compile.json v2/compile.json",
            ),
            (
                "from ninja's command dumps, as Markdown",
                "weakscan flags old.txt new.txt --format markdown",
            ),
        ],
    ),
    (
        "verify",
        &[
            (
                "against a log of DYLD_PRINT_BINDINGS=1 ./MyApp 2> bind.log",
                "weakscan verify MyApp bind.log",
            ),
            (
                "accept up to 5 differences",
                "weakscan verify MyApp bind.log --tolerance 5",
            ),
        ],
    ),
    (
        "check",
        &[
            (
                "fail if the weak symbols grew since the baseline",
                "weakscan check node --baseline weakscan-baseline.json",
            ),
            (
                "allow 10% growth, as a pull-request comment",
                "weakscan check node --baseline base.json --max-increase 10% --format markdown",
            ),
            (
                "the budgets of a policy file",
                "weakscan check MyApp.app --config weakscan.toml",
            ),
        ],
    ),
    (
        "trend",
        &[
            (
                "three releases, in the order given",
                "weakscan trend v20/node v22/node v24/node",
            ),
            (
                "every build, ordered by the version in its path",
                "weakscan trend --sort version builds/*/node",
            ),
        ],
    ),
    (
        "bisect",
        &[
            (
                "the first version whose build grew by 10%: ./get VERSION prints its path",
                "weakscan bisect 1.0 1.1 1.2 --fetch ./get --max-increase 10%",
            ),
            (
                "versions from a file, builds kept: a second run fetches nothing",
                "weakscan bisect --versions v.txt --fetch ./get --cache dir --max-increase 50",
            ),
        ],
    ),
    (
        "baseline",
        &[
            (
                "record a build for check --baseline",
                "weakscan baseline out/Release/node -o weakscan-baseline.json",
            ),
            (
                "record a whole app",
                "weakscan baseline MyApp.app -o weakscan-baseline.json",
            ),
        ],
    ),
    (
        "report",
        &[
            (
                "one build",
                "weakscan report out/Release/node -o report.html",
            ),
            (
                "two builds compared",
                "weakscan report old/node new/node -o diff.html",
            ),
            (
                "a series of builds",
                "weakscan report v20/node v22/node v24/node -o trend.html",
            ),
        ],
    ),
    (
        "hide",
        &[
            (
                "the list for one relink, keeping what an addon binds",
                "weakscan hide node --importer addon.node -o hide.txt",
            ),
            (
                "one library's weak definitions, as an allow list",
                "weakscan hide app --library libfoo.a --exported -o exports.txt",
            ),
            (
                "a dylib of an app, keeping what its images share",
                "weakscan hide MyApp.app --image Contents/Frameworks/libfoo.dylib",
            ),
        ],
    ),
    (
        "completions",
        &[
            ("zsh", "weakscan completions zsh > ~/.zfunc/_weakscan"),
            (
                "fish",
                "weakscan completions fish > ~/.config/fish/completions/weakscan.fish",
            ),
        ],
    ),
    (
        "man",
        &[
            (
                "write the pages and read them",
                "weakscan man -o weakscan.1 && man ./weakscan.1",
            ),
            (
                "read them without a file (man-db)",
                "weakscan man | man -l -",
            ),
        ],
    ),
    (
        "schema",
        &[
            ("the schema of diff --format json", "weakscan schema diff"),
            (
                "of a baseline file",
                "weakscan schema baseline -o baseline.schema.json",
            ),
        ],
    ),
];

/// The examples of `command`, as its help ends: `Examples:`, then per example a `# what` line
/// and the command line, indented.
pub fn help(command: &str) -> Option<String> {
    let (_, list) = EXAMPLES.iter().find(|(c, _)| *c == command)?;
    let mut text = String::from("Examples:");
    for (what, line) in *list {
        text.push_str(&format!("\n  # {what}\n  {line}"));
    }
    Some(text)
}

/// What bare `weakscan` prints (on stderr, exit 2): what it does, then every command with its
/// one-line about (`about` gives it) and its first example.
pub fn overview(about: impl Fn(&str) -> String) -> String {
    let mut text = String::from(
        "weakscan: find the C++ weak symbols dyld must coalesce at launch, where they\n\
         come from and how to hide them; compare builds and gate releases on them.\n\n\
         Usage: weakscan <COMMAND> [OPTIONS] <FILE>...\n\nCommands:\n",
    );
    for (command, list) in EXAMPLES {
        text.push_str(&format!("  {command:<12} {}\n", about(command)));
        if let Some((_, line)) = list.first() {
            text.push_str(&format!("  {:<12}   {line}\n", ""));
        }
    }
    text.push_str("\n`weakscan COMMAND --help`: a command's options and more examples.\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// Every example parses as the command line it claims to be (a shell redirection, a pipe
    /// and what follows `&&` are the shell's, not weakscan's).
    #[test]
    fn every_example_parses() {
        for (command, list) in EXAMPLES {
            for (_, line) in *list {
                let words: Vec<&str> = line
                    .split(" && ")
                    .next()
                    .unwrap()
                    .split(" > ")
                    .next()
                    .unwrap()
                    .split(" | ")
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .collect();
                assert_eq!(words.get(1), Some(command), "{line}");
                if let Err(e) = crate::cli::Cli::try_parse_from(&words) {
                    panic!("{line}: {e}");
                }
            }
        }
    }

    /// Each subcommand has two or three examples; the overview names every subcommand and
    /// reads at 80 columns, and so do the examples.
    #[test]
    fn every_subcommand_has_examples_and_the_overview_fits_80_columns() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        let names: Vec<&str> = cli
            .get_subcommands()
            .map(|c| c.get_name())
            .filter(|n| *n != "help")
            .collect();
        let listed: Vec<&str> = EXAMPLES.iter().map(|(c, _)| *c).collect();
        assert_eq!(names, listed);
        for (command, list) in EXAMPLES {
            let n = list.len();
            assert!((2..=3).contains(&n), "{command}: {n}");
        }
        let text = overview(|c| {
            cli.find_subcommand(c)
                .and_then(|s| s.get_about())
                .map(|a| a.to_string())
                .unwrap_or_default()
        });
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line:?}");
        }
        for (command, _) in EXAMPLES {
            for line in help(command).unwrap().lines() {
                assert!(line.chars().count() <= 80, "{line:?}");
            }
        }
    }
}
