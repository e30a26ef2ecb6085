//! Finding the entry that compiled a source file or produced an object file.

use super::CompileCommand;
use super::argv::{output_of, target_of};
use super::path::normalize;
use crate::origin::link_map::split_object;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// What [`CompileDbIndex::find`] found: an index into the commands it was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// Exactly one entry.
    Unique(usize),
    /// This many entries fit equally well.
    Ambiguous(usize),
    /// No entry.
    None,
}

/// Lookup tables over a compilation database, built once: entries by normalized source path,
/// by normalized output path, by source file name and by output file name. Each table is a
/// sorted list of (hash of the key, entry), 16 bytes an entry, the keys kept once per entry:
/// a lookup takes the run of its key's hash (SipHash with fixed keys) and keeps the entries
/// whose key is equal.
#[derive(Debug, Clone, Default)]
pub struct CompileDbIndex {
    /// Per entry: the normalized source path.
    files: Vec<Box<str>>,
    /// Per entry: the normalized output path, if known ([`output_of`]).
    outputs: Vec<Option<Box<str>>>,
    /// Per entry: [`target_of`].
    targets: Vec<Option<Box<str>>>,
    /// Per entry: a hash of (source, output, argv), to tell exact duplicates.
    fingerprints: Vec<u64>,
    by_file: Table,
    by_output: Table,
    by_file_name: Table,
    by_output_name: Table,
}

/// (hash of a key, entry), sorted.
#[derive(Debug, Clone, Default)]
pub(super) struct Table(Vec<(u64, usize)>);

pub(super) fn key_hash(key: &str) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl Table {
    fn new(mut rows: Vec<(u64, usize)>) -> Self {
        rows.sort_unstable();
        rows.shrink_to_fit();
        Table(rows)
    }

    /// The entries (ascending) whose key, as `key_of` gives it, is `key`; `None` when none.
    fn get<'a>(&self, key: &str, key_of: impl Fn(usize) -> Option<&'a str>) -> Option<Vec<usize>> {
        let h = key_hash(key);
        let start = self.0.partition_point(|&(x, _)| x < h);
        let found: Vec<usize> = self.0[start..]
            .iter()
            .take_while(|&&(x, _)| x == h)
            .map(|&(_, i)| i)
            .filter(|&i| key_of(i) == Some(key))
            .collect();
        (!found.is_empty()).then_some(found)
    }
}

impl CompileDbIndex {
    /// The index of `commands`; [`Match::Unique`] holds positions in that slice.
    pub fn new(commands: &[CompileCommand]) -> Self {
        let n = commands.len();
        let mut index = CompileDbIndex {
            files: Vec::with_capacity(n),
            outputs: Vec::with_capacity(n),
            targets: Vec::with_capacity(n),
            fingerprints: Vec::with_capacity(n),
            ..CompileDbIndex::default()
        };
        let (mut by_file, mut by_file_name) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut by_output, mut by_output_name) = (Vec::new(), Vec::new());
        for (i, cmd) in commands.iter().enumerate() {
            let file = normalize(&cmd.file, Some(&cmd.directory));
            let output = output_of(cmd).map(|o| normalize(o, Some(&cmd.directory)));
            let mut h = DefaultHasher::new();
            (&file, &output, &cmd.arguments).hash(&mut h);
            index.fingerprints.push(h.finish());
            by_file_name.push((key_hash(base_name(&file)), i));
            by_file.push((key_hash(&file), i));
            if let Some(o) = &output {
                by_output_name.push((key_hash(base_name(o)), i));
                by_output.push((key_hash(o), i));
            }
            index.files.push(file.into_boxed_str());
            index.outputs.push(output.map(String::into_boxed_str));
            index
                .targets
                .push(target_of(cmd).map(String::into_boxed_str));
        }
        index.by_file = Table::new(by_file);
        index.by_file_name = Table::new(by_file_name);
        index.by_output = Table::new(by_output);
        index.by_output_name = Table::new(by_output_name);
        index
    }

    fn file_of(&self, i: usize) -> Option<&str> {
        Some(&self.files[i])
    }

    fn output_at(&self, i: usize) -> Option<&str> {
        self.outputs[i].as_deref()
    }

    /// The entry compiling `source` (an absolute path as a debug map records it, e.g.
    /// `/Users/admin/build/ws/out/../deps/v8/src/codegen/interface-descriptors.cc`) or producing
    /// `object` (a path of a link map's or debug map's object list: a loose `/p/x.o` or an
    /// archive member `/p/libv8.a(x.o)`, see [`split_object`]).
    ///
    /// Paths are normalized lexically, with no filesystem access: a relative `file` or `output`
    /// is joined to its entry's `directory`, `.` and `..` are resolved (`..` at the root stays
    /// at the root; a relative `directory`, as gyp writes it, leaves a relative path), repeated
    /// `/` are merged; comparisons are case-sensitive. The rules, in order; the first that finds
    /// any entry decides:
    ///
    /// 1. the entries whose normalized `file` equals the normalized `source`;
    /// 2. for a loose object, the entries whose normalized output equals its normalized path;
    /// 3. the entries whose `file` shares the longest run of trailing path components with
    ///    `source`, at least 2 (the build machine's checkout usually differs from the one the
    ///    database was made in: `/Users/admin/build/ws/deps/v8/src/x.cc` and
    ///    `/home/me/node/deps/v8/src/x.cc` share `deps/v8/src/x.cc`, 4 components);
    /// 4. the entries whose output's file name equals the object's file name (an archive
    ///    member's name, `interface-descriptors.o`, or a loose object's base name).
    ///
    /// One entry is [`Match::Unique`]. Several are narrowed by the object, each step kept only
    /// if it leaves at least one: to those whose output is the loose object's path, then to
    /// those whose output file name is the object's, then to those whose [`target_of`] is the
    /// archive's (`libv8_base.a` is target `libv8_base.a`, `libv8_base` or `v8_base`). What is
    /// left is `Unique` if one entry, or if all are exact duplicates (same normalized `file` and
    /// output, same argv), else [`Match::Ambiguous`] with their number.
    pub fn find(&self, source: Option<&str>, object: Option<&str>) -> Match {
        let object = object.map(|o| {
            let (archive, member) = split_object(o);
            Object {
                archive,
                loose: archive.is_none().then(|| normalize(member, None)),
                name: base_name(member),
            }
        });
        let object = object.as_ref();
        let source = source.map(|s| normalize(s, None));
        // 1. exact source
        if let Some(cands) = source
            .as_ref()
            .and_then(|s| self.by_file.get(s, |i| self.file_of(i)))
        {
            return self.narrow(&cands, object);
        }
        // 2. exact output of a loose object
        if let Some(cands) = object
            .and_then(|o| o.loose.as_ref())
            .and_then(|p| self.by_output.get(p, |i| self.output_at(i)))
        {
            return self.narrow(&cands, object);
        }
        // 3. longest common suffix of components, at least 2
        if let Some(source) = &source
            && let Some(cands) = self
                .by_file_name
                .get(base_name(source), |i| self.file_of(i).map(base_name))
        {
            let mut best = 0;
            let mut tied: Vec<usize> = Vec::new();
            for c in cands {
                let n = common_suffix(source, &self.files[c]);
                if n > best {
                    best = n;
                    tied.clear();
                }
                if n == best {
                    tied.push(c);
                }
            }
            if best >= 2 {
                return self.narrow(&tied, object);
            }
        }
        // 4. object file name = output file name
        if let Some(cands) = object.filter(|o| !o.name.is_empty()).and_then(|o| {
            self.by_output_name
                .get(o.name, |i| self.output_at(i).map(base_name))
        }) {
            return self.narrow(&cands, object);
        }
        Match::None
    }

    fn narrow(&self, cands: &[usize], object: Option<&Object<'_>>) -> Match {
        let mut cands: Vec<usize> = cands.to_vec();
        if let Some(o) = object {
            if let Some(p) = &o.loose {
                keep_if_any(&mut cands, |c| {
                    self.outputs[c].as_deref() == Some(p.as_str())
                });
            }
            keep_if_any(&mut cands, |c| {
                self.outputs[c].as_deref().map(base_name) == Some(o.name)
            });
            if let Some(a) = o.archive {
                let file = base_name(a);
                let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
                let bare = stem.strip_prefix("lib").unwrap_or(stem);
                keep_if_any(
                    &mut cands,
                    |c| matches!(self.targets[c].as_deref(), Some(t) if t == file || t == stem || t == bare),
                );
            }
        }
        match cands.as_slice() {
            [] => Match::None,
            [one] => Match::Unique(*one),
            [first, rest @ ..] => {
                if rest
                    .iter()
                    .all(|&c| self.fingerprints[c] == self.fingerprints[*first])
                {
                    Match::Unique(*first)
                } else {
                    Match::Ambiguous(cands.len())
                }
            }
        }
    }
}

/// The object a lookup names.
pub(super) struct Object<'a> {
    archive: Option<&'a str>,
    /// A loose object's normalized path.
    loose: Option<String>,
    /// A member's name, or a loose object's file name.
    name: &'a str,
}

pub(super) fn keep_if_any(cands: &mut Vec<usize>, keep: impl Fn(usize) -> bool) {
    if cands.iter().any(|&c| keep(c)) {
        cands.retain(|&c| keep(c));
    }
}

pub(super) fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How many trailing path components `a` and `b` share.
pub(super) fn common_suffix(a: &str, b: &str) -> usize {
    a.rsplit('/')
        .zip(b.rsplit('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

#[cfg(test)]
mod tests {
    use super::super::tests::cmd;
    use super::*;
    use crate::origin::compile_db::{parse_compile_db, visibility_flags};

    #[test]
    fn normalize_is_lexical() {
        let n = |p: &str, b: Option<&str>| normalize(p, b);
        assert_eq!(
            n("/Users/admin/build/ws/out/../deps/v8/src/x.cc", None),
            "/Users/admin/build/ws/deps/v8/src/x.cc"
        );
        assert_eq!(n("../../deps/x.cc", Some("/n/out/Release")), "/n/deps/x.cc");
        assert_eq!(n("/abs/./x.cc", Some("/ignored")), "/abs/x.cc");
        assert_eq!(n("a//b/./c/", Some("")), "a/b/c");
        assert_eq!(n("../../../../x", Some("/a")), "/x");
        assert_eq!(n("../x.cc", Some("out")), "x.cc");
        assert_eq!(n("../../x.cc", Some("out")), "../x.cc");
        assert_eq!(n("..", Some("..")), "../..");
        assert_eq!(n(".", None), ".");
        assert_eq!(n("", None), ".");
        assert_eq!(n("/", None), "/");
        assert_eq!(n("/..", None), "/");
    }

    /// A node-like database: gyp make outputs, one file compiled by two targets, a file name
    /// used in several directories.
    fn node_db() -> Vec<CompileCommand> {
        let d = "/home/me/node/out/Release";
        let make = |target: &str, src: &str| {
            let stem = src.rsplit('/').next().unwrap().rsplit_once('.').unwrap().0;
            let dir = src.rsplit_once('/').unwrap().0;
            let out = format!("obj.target/{target}/{dir}/{stem}.o");
            cmd(
                d,
                &format!("../../{src}"),
                Some(&out),
                &["c++", "-c", &format!("../../{src}"), "-o", &out],
            )
        };
        vec![
            make(
                "v8_base_without_compiler",
                "deps/v8/src/codegen/interface-descriptors.cc",
            ), // 0
            make("v8_base_without_compiler", "deps/v8/src/utils/utils.cc"), // 1
            make("libnode", "src/utils.cc"),                                // 2
            make(
                "v8_libbase",
                "deps/v8/src/base/utils/random-number-generator.cc",
            ), // 3
            make("v8_init", "deps/v8/src/init/setup-isolate.cc"),           // 4
            make("v8_snapshot", "deps/v8/src/init/setup-isolate.cc"),       // 5
            make("libnode", "src/api/utils.cc"),                            // 6
        ]
    }

    #[test]
    fn find_by_exact_source_and_output() {
        let db = node_db();
        let idx = CompileDbIndex::new(&db);
        assert_eq!(
            idx.find(
                Some(
                    "/home/me/node/out/Release/../../deps/v8/src/codegen/interface-descriptors.cc"
                ),
                None
            ),
            Match::Unique(0)
        );
        assert_eq!(
            idx.find(Some("/home/me/node/src/utils.cc"), None),
            Match::Unique(2)
        );
        // Two targets compile the same file: the object decides, else ambiguous.
        let src = "/home/me/node/deps/v8/src/init/setup-isolate.cc";
        assert_eq!(idx.find(Some(src), None), Match::Ambiguous(2));
        assert_eq!(
            idx.find(Some(src), Some("/home/me/node/out/Release/obj.target/v8_snapshot/deps/v8/src/init/setup-isolate.o")),
            Match::Unique(5)
        );
        assert_eq!(
            idx.find(
                Some(src),
                Some("/x/out/Release/libv8_init.a(setup-isolate.o)")
            ),
            Match::Unique(4)
        );
        assert_eq!(
            idx.find(Some(src), Some("/x/libother.a(setup-isolate.o)")),
            Match::Ambiguous(2)
        );
        // 2. a loose object by its output path.
        assert_eq!(
            idx.find(
                None,
                Some("/home/me/node/out/Release/./obj.target/libnode/src/api/utils.o")
            ),
            Match::Unique(6)
        );
    }

    #[test]
    fn find_by_common_suffix() {
        let db = node_db();
        let idx = CompileDbIndex::new(&db);
        // Built elsewhere: the debug map's path is in another checkout.
        assert_eq!(
            idx.find(
                Some("/Users/admin/build/ws/out/../deps/v8/src/codegen/interface-descriptors.cc"),
                None
            ),
            Match::Unique(0)
        );
        // `utils.cc` in three directories: `src/utils.cc` is the longest (2 components).
        assert_eq!(
            idx.find(Some("/Users/admin/build/ws/src/utils.cc"), None),
            Match::Unique(2)
        );
        assert_eq!(
            idx.find(Some("/Users/admin/ws/deps/v8/src/utils/utils.cc"), None),
            Match::Unique(1)
        );
        // Only the file name in common: not enough, and no object to fall back on.
        assert_eq!(idx.find(Some("/elsewhere/lib/utils.cc"), None), Match::None);
        // Two entries share 3 components with the source: ambiguous unless the object decides.
        let src = "/Users/admin/ws/deps/v8/src/init/setup-isolate.cc";
        assert_eq!(idx.find(Some(src), None), Match::Ambiguous(2));
        assert_eq!(
            idx.find(
                Some(src),
                Some("/Users/admin/ws/out/Release/libv8_snapshot.a(setup-isolate.o)")
            ),
            Match::Unique(5)
        );
        assert_eq!(idx.find(Some("/nowhere.cc"), None), Match::None);
        assert_eq!(idx.find(None, None), Match::None);
        assert_eq!(idx.find(Some(""), Some("")), Match::None);
    }

    #[test]
    fn find_by_object_name() {
        let db = node_db();
        let idx = CompileDbIndex::new(&db);
        assert_eq!(
            idx.find(None, Some("/Users/admin/ws/out/Release/libv8_base_without_compiler.a(interface-descriptors.o)")),
            Match::Unique(0)
        );
        // A source the database does not know, but the member name is unique.
        assert_eq!(
            idx.find(
                Some("/gen/interface-descriptors.cc"),
                Some("/o/libv8_base_without_compiler.a(interface-descriptors.o)")
            ),
            Match::Unique(0)
        );
        // `utils.o` is made by three entries: the archive's target narrows it to one or two.
        assert_eq!(
            idx.find(None, Some("/o/libfoo.a(utils.o)")),
            Match::Ambiguous(3)
        );
        assert_eq!(
            idx.find(None, Some("/o/libv8_base_without_compiler.a(utils.o)")),
            Match::Unique(1)
        );
        assert_eq!(
            idx.find(None, Some("/o/libnode.a(utils.o)")),
            Match::Ambiguous(2)
        );
        // A loose object of another build directory: by its file name.
        assert_eq!(
            idx.find(
                None,
                Some("/other/obj.target/v8_libbase/random-number-generator.o")
            ),
            Match::Unique(3)
        );
        assert_eq!(idx.find(None, Some("/o/libnode.a(nothing.o)")), Match::None);
    }

    #[test]
    fn exact_duplicates_count_once() {
        let a = cmd("/b", "x.cc", Some("x.o"), &["cc", "-c", "x.cc"]);
        let mut b = a.clone();
        let idx = CompileDbIndex::new(&[a.clone(), a.clone()]);
        assert_eq!(idx.find(Some("/b/x.cc"), None), Match::Unique(0));
        b.arguments = ["cc", "-c", "x.cc", "-O2"].iter().collect();
        let idx = CompileDbIndex::new(&[a, b]);
        assert_eq!(idx.find(Some("/b/x.cc"), None), Match::Ambiguous(2));
    }

    #[test]
    fn gyp_compile_commands_without_outputs() {
        // As gyp's compile_commands_json writes it: relative directory, absolute file, no -o.
        let db = parse_compile_db(
            br#"[
{"command": "c++ '-DV8_TARGET_ARCH_X64' -fvisibility=hidden -fvisibility-inlines-hidden -c /home/me/node/deps/v8/src/x.cc", "directory": "out", "file": "/home/me/node/deps/v8/src/x.cc"},
{"command": "cc -c /home/me/node/deps/uv/src/y.c", "directory": "out", "file": "/home/me/node/deps/uv/src/y.c"}
]"#,
        )
        .unwrap();
        assert!(visibility_flags(&db[0].arguments, Some("x86_64")).hides_by_default());
        assert!(!visibility_flags(&db[1].arguments, Some("x86_64")).hides_by_default());
        assert_eq!(output_of(&db[0]), None);
        let idx = CompileDbIndex::new(&db);
        assert_eq!(
            idx.find(Some("/Users/ci/node/deps/v8/src/x.cc"), None),
            Match::Unique(0)
        );
        assert_eq!(idx.find(None, Some("/o/libuv.a(y.o)")), Match::None);
    }

    /// 4000 entries × 3000 lookups each find their one entry (by source and object, and by
    /// object alone). That they are hash lookups is the index's design (its docs), not timed.
    #[test]
    fn big_index_finds_each_entry() {
        let db: Vec<CompileCommand> = (0..4000)
            .map(|i| {
                let src = format!("../../deps/v8/src/dir{}/file{i}.cc", i % 50);
                let out = format!("obj.target/t{}/deps/v8/src/dir{}/file{i}.o", i % 7, i % 50);
                cmd(
                    "/home/me/node/out/Release",
                    &src,
                    Some(&out),
                    &["c++", "-c", &src],
                )
            })
            .collect();
        let idx = CompileDbIndex::new(&db);
        let mut unique = 0;
        for i in 0..3000 {
            let src = format!("/Users/admin/ws/deps/v8/src/dir{}/file{i}.cc", i % 50);
            let obj = format!("/Users/admin/ws/out/Release/libt{}.a(file{i}.o)", i % 7);
            if let Match::Unique(j) = idx.find(Some(&src), Some(&obj)) {
                assert_eq!(j, i);
                unique += 1;
            }
            if let Match::Unique(j) = idx.find(None, Some(&obj)) {
                assert_eq!(j, i);
                unique += 1;
            }
        }
        assert_eq!(unique, 6000);
    }
}
