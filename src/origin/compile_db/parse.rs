//! Reading the database: serde's streaming deserializer, entry by entry, into [`CompileCommand`]s.

use super::*;

/// Reads a compilation database. See the [module documentation](self) for the format and the
/// errors; a JSON error anywhere in the text is reported before an unusable entry.
///
/// The text is read as a stream (serde's `SeqAccess`): each entry becomes a [`CompileCommand`]
/// as it is read, with no JSON tree of the whole database, so the memory held is the entries'
/// strings (boxed, the argv in one allocation, one copy of each distinct `directory`), not a
/// tree several times the text's size.
///
/// A `command` holding several commands, joined by `&&`, `||`, `;`, `|` or `&` outside quotes
/// (as separate words or attached, `a.o&&`; a newline is whitespace between arguments, not a
/// separator), keeps only the compiler invocation that makes the entry, the first that fits of:
/// the one whose last `-o` is the entry's `output` (both normalized against `directory`); the
/// one with `-c` and an argument that is the entry's `file`; the only one with `-c`. When none fits, `arguments` holds every command's words and
/// [`CompileCommand::unknown`] says why the visibility is unknown.
pub fn parse_compile_db(bytes: &[u8]) -> Result<Vec<CompileCommand>, CompileDbError> {
    let top: Top = serde_json::from_slice(bytes).map_err(|e| {
        let (line, column) = (e.line(), e.column());
        let mut message = e.to_string();
        let at = format!(" at line {line} column {column}");
        if let Some(m) = message.strip_suffix(&at) {
            message.truncate(m.len());
        }
        CompileDbError::Json {
            line,
            column,
            message,
        }
    })?;
    top.0
}

/// The whole database, read by [`TopVisitor`]: the entries, or the first problem.
pub(super) struct Top(Result<Vec<CompileCommand>, CompileDbError>);

impl<'de> de::Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

/// Anything that is not an array is `NotAnArray` (maps and arrays still read to their end, so
/// that a JSON error after them wins, as with a tree).
pub(super) struct TopVisitor;

macro_rules! not_this {
    ($out:expr, $null:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($null)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($null)
        }
    };
}

pub(super) fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

pub(super) fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of entries")
    }
    not_this!(
        Top(Err(CompileDbError::NotAnArray)),
        Top(Err(CompileDbError::NotAnArray))
    );
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Top, A::Error> {
        drain_map(map)?;
        Ok(Top(Err(CompileDbError::NotAnArray)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        let mut entries = Vec::new();
        let mut first_error = None;
        let mut index = 0;
        let mut directories: HashMap<Arc<str>, ()> = HashMap::new();
        while let Some(Entry(entry)) = seq.next_element()? {
            match entry {
                Ok(mut e) if first_error.is_none() => {
                    match directories.get_key_value(&e.directory) {
                        Some((d, ())) => e.directory = d.clone(),
                        None => {
                            directories.insert(e.directory.clone(), ());
                        }
                    }
                    entries.push(e);
                }
                Ok(_) => {}
                Err(message) if first_error.is_none() => {
                    first_error = Some(CompileDbError::Entry { index, message });
                    entries = Vec::new();
                }
                Err(_) => {}
            }
            index += 1;
        }
        Ok(Top(match first_error {
            Some(e) => Err(e),
            None => {
                entries.shrink_to_fit();
                Ok(entries)
            }
        }))
    }
}

/// One element of the array: its command, or what is wrong with it.
pub(super) struct Entry(Result<CompileCommand, &'static str>);

impl<'de> de::Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

pub(super) struct EntryVisitor;

/// An entry's key, as far as it matters.
pub(super) enum Key {
    Directory,
    File,
    Output,
    Arguments,
    Command,
    Other,
}

pub(super) struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
        Ok(match k {
            "directory" => Key::Directory,
            "file" => Key::File,
            "output" => Key::Output,
            "arguments" => Key::Arguments,
            "command" => Key::Command,
            _ => Key::Other,
        })
    }
}

/// A value that should be a string: `Null` for JSON `null`, `Other` for any other type.
#[derive(Default)]
pub(super) enum Str {
    #[default]
    Absent,
    Null,
    Text(String),
    Other,
}

impl<'de> de::Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrVisitor)
    }
}

pub(super) struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Str;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Str, E> {
        Ok(Str::Text(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Str, E> {
        Ok(Str::Text(s))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Str, E> {
        Ok(Str::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Str, E> {
        Ok(Str::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Str, A::Error> {
        drain_seq(seq)?;
        Ok(Str::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Str, A::Error> {
        drain_map(map)?;
        Ok(Str::Other)
    }
}

/// The `arguments` value: `Array(None)` when an element is not a string.
#[derive(Default)]
pub(super) enum Args {
    #[default]
    Absent,
    Null,
    Array(Option<Vec<String>>),
    Other,
}

impl<'de> de::Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ArgsVisitor)
    }
}

pub(super) struct ArgsVisitor;

impl<'de> Visitor<'de> for ArgsVisitor {
    type Value = Args;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of strings")
    }
    not_this!(Args::Other, Args::Null);
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Args, A::Error> {
        drain_map(map)?;
        Ok(Args::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Args, A::Error> {
        let mut args = Some(Vec::new());
        while let Some(s) = seq.next_element::<Str>()? {
            match (s, &mut args) {
                (Str::Text(s), Some(a)) => a.push(s),
                _ => args = None,
            }
        }
        if let Some(a) = &mut args {
            a.shrink_to_fit();
        }
        Ok(Args::Array(args))
    }
}

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entry")
    }
    not_this!(Entry(Err("not an object")), Entry(Err("not an object")));
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Entry, A::Error> {
        drain_seq(seq)?;
        Ok(Entry(Err("not an object")))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        // As a JSON object read into a map: a repeated key keeps its last value.
        let (mut directory, mut file, mut output) = (Str::Absent, Str::Absent, Str::Absent);
        let (mut arguments, mut command) = (Args::Absent, Str::Absent);
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Directory => directory = map.next_value()?,
                Key::File => file = map.next_value()?,
                Key::Output => output = map.next_value()?,
                Key::Arguments => arguments = map.next_value()?,
                Key::Command => command = map.next_value()?,
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Entry(entry_of(directory, file, output, arguments, command)))
    }
}

/// A string field: `None` when absent or null, `Err` when not a string.
pub(super) fn string(v: Str) -> Result<Option<String>, ()> {
    match v {
        Str::Absent | Str::Null => Ok(None),
        Str::Text(s) => Ok(Some(s)),
        Str::Other => Err(()),
    }
}

pub(super) fn entry_of(
    directory: Str,
    file: Str,
    output: Str,
    arguments: Args,
    command: Str,
) -> Result<CompileCommand, &'static str> {
    let directory = string(directory)
        .map_err(|()| "`directory` is not a string")?
        .ok_or("no `directory`")?;
    let file = string(file)
        .map_err(|()| "`file` is not a string")?
        .ok_or("no `file`")?;
    let output = string(output).map_err(|()| "`output` is not a string")?;
    let mut unknown = None;
    let arguments: Vec<String> = match (arguments, command) {
        (Args::Array(Some(args)), _) => args,
        (Args::Array(None), _) => {
            return Err("`arguments` has an element that is not a string");
        }
        (Args::Null | Args::Absent, Str::Text(command)) => {
            let (args, u) = split_command(&command, &directory, &file, output.as_deref())?;
            unknown = u;
            args
        }
        (Args::Null | Args::Absent, Str::Absent | Str::Null) => {
            return Err("neither `arguments` nor `command`");
        }
        (Args::Null | Args::Absent, Str::Other) => return Err("`command` is not a string"),
        (Args::Other, _) => return Err("`arguments` is not an array"),
    };
    if arguments.iter().any(|a| a.contains('\0')) {
        unknown = Some(NUL_ARGUMENT);
    }
    let arguments: Argv = arguments.iter().collect();
    Ok(CompileCommand {
        directory: directory.into(),
        file: file.into_boxed_str(),
        output: output.map(String::into_boxed_str),
        arguments,
        unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::strings;
    use super::*;

    #[test]
    fn parses_arguments_and_command_forms() {
        let db = br#"[
          {"directory": "/b", "file": "a.cc", "arguments": ["c++", "-c", "a.cc", "-o", "a.o"], "output": "a.o"},
          {"directory": "/b", "file": "/s/b c.cc", "command": "c++ -DX='a b' \"-DY=\\\"q\\\"\" -c '/s/b c.cc'", "extra": 1},
          {"directory": "/b", "file": "c.cc", "arguments": ["c++"], "command": "c++ 'unbalanced"},
          {"directory": "/b", "file": "d.cc", "arguments": null, "command": "cc -c d.cc", "output": null}
        ]"#;
        let cmds = parse_compile_db(db).unwrap();
        assert_eq!(cmds.len(), 4);
        assert_eq!(cmds[0].output.as_deref(), Some("a.o"));
        assert_eq!(
            cmds[0].arguments,
            strings(&["c++", "-c", "a.cc", "-o", "a.o"])
        );
        assert_eq!(
            cmds[1].arguments,
            strings(&["c++", "-DX=a b", "-DY=\"q\"", "-c", "/s/b c.cc"])
        );
        assert_eq!(cmds[1].output, None);
        // `arguments` wins; the bad `command` is not split.
        assert_eq!(cmds[2].arguments, strings(&["c++"]));
        assert_eq!(cmds[3].arguments, strings(&["cc", "-c", "d.cc"]));
        assert_eq!(cmds[3].output, None);
        assert_eq!(parse_compile_db(b" [ ] ").unwrap(), []);
    }

    #[test]
    fn hostile_databases_are_errors() {
        let e = parse_compile_db(b"").unwrap_err();
        assert!(
            matches!(
                e,
                CompileDbError::Json {
                    line: 1,
                    column: 0,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = parse_compile_db(b"[\n  {\"file\": \"a\",\n  ]").unwrap_err();
        assert!(matches!(e, CompileDbError::Json { line: 3, .. }), "{e:?}");
        assert!(
            e.to_string().starts_with("compile database: not JSON: "),
            "{e}"
        );
        assert!(e.to_string().ends_with("(line 3, column 3)"), "{e}");
        let deep = "[".repeat(100_000);
        assert!(matches!(
            parse_compile_db(deep.as_bytes()),
            Err(CompileDbError::Json { .. })
        ));
        assert!(matches!(
            parse_compile_db(b"\xff\xfe"),
            Err(CompileDbError::Json { .. })
        ));
        for top in [&b"{}"[..], b"\"x\"", b"null", b"12"] {
            assert_eq!(parse_compile_db(top), Err(CompileDbError::NotAnArray));
        }
        assert_eq!(
            CompileDbError::NotAnArray.to_string(),
            "compile database: the top level is not an array of entries"
        );
        let ok = r#"{"directory": "/b", "file": "a.cc", "arguments": ["cc"]}"#;
        let cases: &[(&str, &str)] = &[
            ("[]", "not an object"),
            ("1", "not an object"),
            (r#"{"file": "a.cc", "arguments": ["cc"]}"#, "no `directory`"),
            (
                r#"{"directory": null, "file": "a.cc", "arguments": ["cc"]}"#,
                "no `directory`",
            ),
            (
                r#"{"directory": 1, "file": "a.cc", "arguments": ["cc"]}"#,
                "`directory` is not a string",
            ),
            (r#"{"directory": "/b", "arguments": ["cc"]}"#, "no `file`"),
            (
                r#"{"directory": "/b", "file": ["a"], "arguments": ["cc"]}"#,
                "`file` is not a string",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc"}"#,
                "neither `arguments` nor `command`",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "arguments": null, "command": null}"#,
                "neither",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "arguments": "cc -c"}"#,
                "`arguments` is not an array",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "arguments": ["cc", 1]}"#,
                "not a string",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": ["cc"]}"#,
                "`command` is not a string",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc 'a"}"#,
                "cannot be split",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc \"a"}"#,
                "cannot be split",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc a\\"}"#,
                "cannot be split",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc", "output": 5}"#,
                "`output` is not a string",
            ),
        ];
        for (entry, what) in cases {
            let db = format!("[{ok}, {entry}]");
            let e = parse_compile_db(db.as_bytes()).unwrap_err();
            let CompileDbError::Entry { index, message } = e else {
                panic!("{entry}: {e:?}");
            };
            assert_eq!(index, 1, "{entry}");
            assert!(message.contains(what), "{entry}: {message}");
        }
        let e = parse_compile_db(br#"[{"directory": "/b", "file": "a"}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "compile database: entry 0 (0-based): neither `arguments` nor `command`"
        );
    }

    #[test]
    fn a_json_error_after_a_bad_entry_wins() {
        assert!(matches!(
            parse_compile_db(b"[1, {"),
            Err(CompileDbError::Json { .. })
        ));
        assert!(matches!(
            parse_compile_db(br#"{"a": [1, 2]} x"#),
            Err(CompileDbError::Json { .. })
        ));
        assert_eq!(
            parse_compile_db(br#"[{"directory": "/b", "file": "a", "file": 1, "command": "cc"}]"#),
            Err(CompileDbError::Entry {
                index: 0,
                message: "`file` is not a string"
            })
        );
    }

    #[test]
    fn entries_share_their_directory_and_mark_a_nul() {
        let db = parse_compile_db(
            br#"[{"directory": "/b", "file": "a.cc", "arguments": ["cc", "-DX=\u0000"]},
                 {"directory": "/c", "file": "b.cc", "command": "cc -c b.cc"},
                 {"directory": "/b", "file": "c.cc", "arguments": ["cc", "-DX=\ufffd"]}]"#,
        )
        .unwrap();
        assert!(Arc::ptr_eq(&db[0].directory, &db[2].directory));
        assert!(!Arc::ptr_eq(&db[0].directory, &db[1].directory));
        assert_eq!(db[0].unknown, Some(NUL_ARGUMENT));
        assert_eq!(db[1].unknown, None);
        assert_eq!(db[2].unknown, None);
        assert!(visibility_of(&db[2], Some("x86_64")).is_ok());
    }
}
