//! Constants of weakscan's JSON documents that are both written ([`crate::output`]) and read
//! back ([`crate::gate::baseline`]); the shapes are in `docs/json.md`.

/// Version of the JSON schema (`schema_version`) of every document but the baseline file;
/// bump it on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Version of the baseline file's schema (`schema_version`), which is stored and read back, so
/// it changes on its own: 2 since symbols are rows of raw names and figures. `check` reads
/// this version and version 1.
pub const BASELINE_SCHEMA_VERSION: u32 = 2;

/// The columns of a baseline file's symbol rows (`schema_version` 2), in order: the raw name,
/// then what the symbol adds to its image's figures; flags are 0 or 1. A reader takes a row's
/// first cells by these names and ignores further columns, so a later version may append one.
pub const BASELINE_COLUMNS: [&str; 7] = [
    "symbol",
    "weak_bound",
    "defined_here",
    "sites",
    "lookups",
    "weak_defs",
    "thread_local",
];

/// The `command` value of a baseline file (`weakscan baseline`).
pub const BASELINE_COMMAND: &str = "baseline";
/// The `command` value of a process diff (`weakscan diff OLD.app NEW.app --format json`).
pub const PROCESS_DIFF_COMMAND: &str = "process-diff";
/// The `command` value of a process verify (`weakscan verify APP LOG --format json`).
pub const PROCESS_VERIFY_COMMAND: &str = "process-verify";
/// The `command` value of a trend (`weakscan trend FILE… --format json`).
pub const TREND_COMMAND: &str = "trend";

/// The `command` value of a bisection (`weakscan bisect VERSION… --format json`).
pub const BISECT_COMMAND: &str = "bisect";

/// The `command` value of a flags comparison (`weakscan flags OLD NEW --format json`).
pub const FLAGS_COMMAND: &str = "flags";

/// The `command` value of a symbol list's report (`weakscan hide BIN -o FILE --format json`).
pub const HIDE_COMMAND: &str = "hide";

/// A `--format json` document (or baseline file) that has a JSON Schema
/// (`weakscan schema NAME`, `docs/schemas/NAME.schema.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Document {
    /// `weakscan scan --format json`.
    Scan,
    /// `weakscan diff --format json`.
    Diff,
    /// `weakscan check --format json`.
    Check,
    /// `weakscan verify --format json`.
    Verify,
    /// A baseline file (`weakscan baseline`).
    Baseline,
    /// `weakscan scan APP|DIR --format json` or `scan --process MAIN --format json`: a whole
    /// process.
    Process,
    /// `weakscan diff OLD.app NEW.app --format json` (or `diff --process`): two versions of a
    /// whole process.
    ProcessDiff,
    /// `weakscan verify APP LOG --format json` (or `verify --process MAIN LOG`): a whole
    /// process held against a dyld log.
    ProcessVerify,
    /// `weakscan trend FILE… --format json`: a series of builds.
    Trend,
    /// `weakscan flags OLD NEW --format json`: two compile databases compared.
    Flags,
    /// `weakscan bisect VERSION… --format json`: the step of a list of versions where the
    /// criterion is first exceeded, and its diff.
    Bisect,
    /// `weakscan hide BIN -o FILE --format json`: what a link-time symbol list saves and keeps.
    Hide,
}

impl Document {
    /// Every document, in the order of the docs.
    pub const ALL: [Document; 12] = [
        Document::Scan,
        Document::Diff,
        Document::Check,
        Document::Verify,
        Document::Baseline,
        Document::Process,
        Document::ProcessDiff,
        Document::ProcessVerify,
        Document::Trend,
        Document::Flags,
        Document::Bisect,
        Document::Hide,
    ];

    /// The `command` value of the document, and the name of its schema file.
    pub fn name(self) -> &'static str {
        match self {
            Document::Scan => "scan",
            Document::Diff => "diff",
            Document::Check => "check",
            Document::Verify => "verify",
            Document::Baseline => BASELINE_COMMAND,
            Document::Process => "process",
            Document::ProcessDiff => PROCESS_DIFF_COMMAND,
            Document::ProcessVerify => PROCESS_VERIFY_COMMAND,
            Document::Trend => TREND_COMMAND,
            Document::Flags => FLAGS_COMMAND,
            Document::Bisect => BISECT_COMMAND,
            Document::Hide => HIDE_COMMAND,
        }
    }

    /// The `schema_version` the document is written with.
    pub fn schema_version(self) -> u32 {
        match self {
            Document::Baseline => BASELINE_SCHEMA_VERSION,
            _ => SCHEMA_VERSION,
        }
    }

    /// One line on what writes the document, for the schema's `description`.
    pub fn description(self) -> &'static str {
        match self {
            Document::Scan => "What `weakscan scan --format json` writes. Fields: docs/json.md.",
            Document::Diff => "What `weakscan diff --format json` writes. Fields: docs/json.md.",
            Document::Check => "What `weakscan check --format json` writes. Fields: docs/json.md.",
            Document::Verify => {
                "What `weakscan verify --format json` writes. Fields: docs/json.md."
            }
            Document::Process => {
                "What `weakscan scan APP|DIR --format json` (or `scan --process MAIN`) writes: a \
                 whole process. Fields: docs/json.md, docs/process.md."
            }
            Document::ProcessDiff => {
                "What `weakscan diff OLD.app NEW.app --format json` (or `diff --process OLD NEW`) \
                 writes: two versions of a whole process. Fields: docs/json.md, docs/process.md."
            }
            Document::ProcessVerify => {
                "What `weakscan verify APP LOG --format json` (or `verify --process MAIN LOG`) \
                 writes: a whole process held against a dyld log. Fields: docs/json.md, \
                 docs/process.md."
            }
            Document::Trend => {
                "What `weakscan trend FILE… --format json` writes: a series of builds, each \
                 step's change, the largest steps flagged with the groups behind them. Fields: \
                 docs/trend.md."
            }
            Document::Flags => {
                "What `weakscan flags OLD NEW --format json` writes: the objects whose \
                 visibility options differ between two compile databases, by target. Fields: \
                 docs/json.md."
            }
            Document::Bisect => {
                "What `weakscan bisect VERSION… --format json` writes: each version tested with \
                 its verdict and figures, the step found (the last good and the first bad \
                 version) and the diff of that step. Fields: docs/json.md, docs/trend.md."
            }
            Document::Hide => {
                "What `weakscan hide BIN -o FILE --format json` writes: the link-time symbol \
                 list's scope, what it saves (as the fix plan counts it), what stays exported \
                 and why. Fields: docs/fix-plan.md."
            }
            Document::Baseline => {
                "A baseline file (`weakscan baseline -o FILE`): the images and largest groups of \
                 scan's document, plus each symbol per arch as a row of its raw name and \
                 figures. Fields: docs/json.md."
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::attribute::OriginLevel;
    use crate::analysis::group::GroupBy;

    #[test]
    fn group_by_name_lists_what_group_by_writes() {
        let schema = schemars::schema_for!(crate::analysis::group::GroupByName).to_value();
        let mut listed: Vec<String> = schema["enum"]
            .as_array()
            .expect("a string enum")
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let mut written: Vec<String> = [
            GroupBy::Symbol,
            GroupBy::Pattern,
            GroupBy::Template,
            GroupBy::Namespace(2),
            GroupBy::Origin(OriginLevel::Library),
            GroupBy::Origin(OriginLevel::Object),
            GroupBy::Origin(OriginLevel::Source),
        ]
        .iter()
        .map(|g| g.as_str().to_string())
        .collect();
        listed.sort();
        written.sort();
        assert_eq!(listed, written);
    }
}
