//! Value parsers for the values a command accepts from a fixed list, where the list or its
//! `--help` lines differ by command: `--arch`, and `--format` of `trend` and `check`; and
//! `--width`, a number with a gap in its range. The
//! other fixed lists are the real types' `ValueEnum` (`Format` of scan, diff and verify,
//! `GroupByName`, `Sort`, `Figure`, `FileKind`, `Document`).

use crate::macho::ArchFilter;
use crate::output::Format;
use clap::ValueEnum;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use std::ffi::OsStr;

/// One of a fixed list of values, each a name with its `--help` line and what it parses to. A
/// value not listed (or not UTF-8) gets clap's own error, as a `ValueEnum` does: `invalid value
/// 'x' for '--arch <ARCH>'`, the names listed, the nearest suggested.
#[derive(Debug, Clone)]
pub struct OneOf<T>(Vec<(PossibleValue, T)>);

impl<T: Clone + Send + Sync + 'static> TypedValueParser for OneOf<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let ignore_case = arg.is_some_and(clap::Arg::is_ignore_case_set);
        if let Some(text) = value.to_str()
            && let Some((_, v)) = self.0.iter().find(|(p, _)| p.matches(text, ignore_case))
        {
            return Ok(v.clone());
        }
        // clap's error for a value not listed, of the value read lossily (as a `ValueEnum`'s
        // parser reads one that is not UTF-8): such a value matches no name.
        let lossy = value.to_string_lossy();
        let names = PossibleValuesParser::new(self.0.iter().map(|(p, _)| p.clone()));
        match names.parse_ref(cmd, arg, OsStr::new(lossy.as_ref())) {
            Err(e) => Err(e),
            Ok(_) => Err(clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd)),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|(p, _)| p.clone())))
    }
}

/// `--arch`: the slice of a universal file by its arch name, or every slice (`all`).
pub fn arch() -> OneOf<ArchFilter> {
    let only = |name: &'static str| {
        (
            PossibleValue::new(name).help(name),
            ArchFilter::Only(name.into()),
        )
    };
    OneOf(vec![
        only("arm64"),
        only("arm64e"),
        only("x86_64"),
        (
            PossibleValue::new("all").help("Every slice"),
            ArchFilter::All,
        ),
    ])
}

/// `trend --format`: table, json or markdown.
pub fn trend_format() -> OneOf<Format> {
    formats(&[
        (Format::Table, None),
        (Format::Json, None),
        (Format::Markdown, Some(MARKDOWN)),
    ])
}

/// `hide --format`: table or json.
pub fn hide_format() -> OneOf<Format> {
    formats(&[(Format::Table, None), (Format::Json, None)])
}

/// `check --format`: every format.
pub fn check_format() -> OneOf<Format> {
    formats(&[
        (Format::Table, None),
        (Format::Json, None),
        (Format::Markdown, Some(MARKDOWN)),
        (Format::Github, Some("GitHub Actions annotations")),
    ])
}

/// `--help` of `--format markdown` for `trend` and `check`.
const MARKDOWN: &str = "Markdown (PR comment, job summary)";

/// `list`'s formats, named as [`Format`]'s `ValueEnum` names them, each with its `--help` line:
/// `Format`'s own, or the one given.
fn formats(list: &[(Format, Option<&'static str>)]) -> OneOf<Format> {
    OneOf(
        list.iter()
            .filter_map(|&(f, help)| {
                let value = f.to_possible_value()?;
                Some((
                    match help {
                        Some(h) => value.help(h),
                        None => value,
                    },
                    f,
                ))
            })
            .collect(),
    )
}

/// `--width N`: 0 (no limit) or at least [`crate::output::table::MIN_WIDTH`] columns.
pub fn width(text: &str) -> Result<u16, String> {
    let min = crate::output::table::MIN_WIDTH;
    match text.parse::<u16>() {
        Ok(n) if n == 0 || n >= min => Ok(n),
        Ok(_) => Err(format!("{text} is not 0 (no limit) nor at least {min}")),
        Err(e) => Err(format!("{e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    /// `--format` parsed by `parser`: the format, or the error as clap prints it.
    fn parse(parser: clap::builder::ValueParser, value: &OsString) -> Result<Format, String> {
        clap::Command::new("w")
            .arg(clap::Arg::new("format").long("format").value_parser(parser))
            .try_get_matches_from([OsString::from("w"), "--format".into(), value.clone()])
            .map(|m| *m.get_one::<Format>("format").expect("given"))
            .map_err(|e| e.render().to_string())
    }

    #[test]
    fn a_listed_value_parses_and_any_other_is_refused_as_a_value_enum_refuses_it() {
        let every = [
            Format::Table,
            Format::Json,
            Format::Markdown,
            Format::Github,
        ];
        let ours = formats(&every.map(|f| (f, None)));
        let values = ["table", "github", "foo", "jso", "Table", "", "mark down"]
            .map(OsString::from)
            .into_iter()
            .chain([OsString::from_vec(vec![0xff, b'j'])]);
        for v in values {
            let enum_parser = clap::builder::EnumValueParser::<Format>::new();
            assert_eq!(
                parse(ours.clone().into(), &v),
                parse(enum_parser.into(), &v),
                "{v:?}"
            );
        }
        // The same names and help lines.
        let text = |p: Vec<PossibleValue>| -> Vec<String> {
            p.iter()
                .map(|v| format!("{} {:?}", v.get_name(), v.get_help().map(|h| h.to_string())))
                .collect()
        };
        assert_eq!(
            text(ours.possible_values().unwrap().collect()),
            text(every.iter().filter_map(Format::to_possible_value).collect())
        );
    }

    #[test]
    fn trend_lists_no_github_and_arch_names_its_slices() {
        let trend = parse(trend_format().into(), &"github".into()).unwrap_err();
        assert!(
            trend.contains("invalid value 'github'")
                && trend.contains("[possible values: table, json, markdown]"),
            "{trend}"
        );
        assert_eq!(
            parse(check_format().into(), &"github".into()),
            Ok(Format::Github)
        );
        let arches: Vec<(String, ArchFilter)> = arch()
            .0
            .iter()
            .map(|(p, a)| (p.get_name().to_string(), a.clone()))
            .collect();
        assert_eq!(
            arches,
            [
                ("arm64".into(), ArchFilter::Only("arm64".into())),
                ("arm64e".into(), ArchFilter::Only("arm64e".into())),
                ("x86_64".into(), ArchFilter::Only("x86_64".into())),
                ("all".into(), ArchFilter::All),
            ]
        );
    }
}
