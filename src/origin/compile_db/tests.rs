//! Unit tests of the compile database: parsing, the argv rules, response files, storage.

use super::*;

mod database {
    use super::*;

    fn cmd(directory: &str, file: &str, output: Option<&str>, args: &[&str]) -> CompileCommand {
        CompileCommand {
            directory: directory.into(),
            file: file.into(),
            output: output.map(Into::into),
            arguments: args.iter().collect(),
            unknown: None,
        }
    }

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

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
    fn visibility_flags_last_wins() {
        let v = |args: &[&str]| visibility_flags(&args.iter().collect());
        assert_eq!(v(&["c++", "-c", "a.cc"]), VisibilityFlags::default());
        assert!(!v(&["c++"]).hides_by_default());
        let f = v(&["c++", "-fvisibility=hidden", "-fvisibility-inlines-hidden"]);
        assert_eq!(f.visibility.as_deref(), Some("hidden"));
        assert!(f.inlines_hidden && !f.ms_compat && f.hides_by_default());
        let f = v(&["c++", "-fvisibility=hidden", "-fvisibility=default"]);
        assert_eq!(f.visibility.as_deref(), Some("default"));
        assert!(!f.hides_by_default());
        assert!(v(&["c++", "-fvisibility=internal"]).hides_by_default());
        assert!(!v(&["c++", "-fvisibility=protected"]).hides_by_default());
        assert!(!v(&["c++", "-fvisibility=Hidden"]).hides_by_default());
        // ms-compat and -fvisibility=: the last one wins (clang/test/Driver/visibility.cpp).
        assert!(v(&["c++", "-fvisibility=default", "-fvisibility-ms-compat"]).hides_by_default());
        let f = v(&["c++", "-fvisibility-ms-compat", "-fvisibility=default"]);
        assert!(!f.ms_compat && !f.hides_by_default());
        assert!(v(&["c++", "-fvisibility-ms-compat"]).hides_by_default());
        // -f/-fno-visibility-inlines-hidden: last wins.
        assert!(
            !v(&[
                "c++",
                "-fvisibility-inlines-hidden",
                "-fno-visibility-inlines-hidden"
            ])
            .inlines_hidden
        );
        assert!(
            v(&[
                "c++",
                "-fno-visibility-inlines-hidden",
                "-fvisibility-inlines-hidden"
            ])
            .inlines_hidden
        );
        // Look-alikes and the separate form the driver rejects.
        let f = v(&[
            "c++",
            "-fvisibility-inlines-hidden-static-local-var",
            "-fvisibility-global-new-delete-hidden",
            "-ftype-visibility=hidden",
            "-fvisibility",
            "hidden",
        ]);
        assert_eq!(f, VisibilityFlags::default());
        // -Xclang: applied after all driver options.
        let f = v(&[
            "c++",
            "-Xclang",
            "-fvisibility=hidden",
            "-fvisibility=default",
        ]);
        assert_eq!(f.visibility.as_deref(), Some("hidden"));
        let f = v(&["c++", "-Xclang", "-fvisibility", "-Xclang", "internal"]);
        assert_eq!(f.visibility.as_deref(), Some("internal"));
        let f = v(&[
            "c++",
            "-fvisibility-ms-compat",
            "-Xclang",
            "-fvisibility=default",
        ]);
        assert!(!f.hides_by_default());
        assert!(v(&["c++", "-Xclang", "-fvisibility-inlines-hidden"]).inlines_hidden);
        // A dangling -Xclang, a dangling cc1 -fvisibility.
        assert_eq!(v(&["c++", "-Xclang"]), VisibilityFlags::default());
        assert_eq!(
            v(&["c++", "-Xclang", "-fvisibility"]),
            VisibilityFlags::default()
        );
    }

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

    #[test]
    fn target_of_patterns() {
        let t = |file: &str, output: &str| target_of(&cmd("/b", file, Some(output), &["cc"]));
        assert_eq!(
            t(
                "../../deps/v8/src/codegen/interface-descriptors.cc",
                "obj.target/v8_base_without_compiler/deps/v8/src/codegen/interface-descriptors.o"
            )
            .as_deref(),
            Some("v8_base_without_compiler")
        );
        assert_eq!(
            t(
                "../../deps/v8/src/codegen/interface-descriptors.cc",
                "obj/deps/v8/v8_base_without_compiler.interface-descriptors.o"
            )
            .as_deref(),
            Some("v8_base_without_compiler")
        );
        assert_eq!(
            t(
                "/s/tools/mksnapshot.cc",
                "obj.host/mksnapshot/tools/mksnapshot.o"
            )
            .as_deref(),
            Some("mksnapshot")
        );
        assert_eq!(
            t("/s/src/x.cc", "obj.host/tools/v8_torque.x.o").as_deref(),
            Some("v8_torque")
        );
        assert_eq!(
            t("/s/src/a.b.cc", "obj/src/my_target.a.b.o").as_deref(),
            Some("my_target")
        );
        assert_eq!(
            t("/s/src/foo.cc", "src/CMakeFiles/foo_lib.dir/foo.cc.o").as_deref(),
            Some("foo_lib")
        );
        assert_eq!(
            t(
                "pkg/foo.cc",
                "bazel-out/darwin-fastbuild/bin/pkg/_objs/foo/foo.o"
            )
            .as_deref(),
            Some("foo")
        );
        assert_eq!(
            t("/s/foo.m", "/DD/Build/Intermediates.noindex/P.build/Release/App.build/Objects-normal/arm64/foo.o").as_deref(),
            Some("App")
        );
        assert_eq!(
            t("../src/foo.c", "libfoo.a.p/src_foo.c.o").as_deref(),
            Some("libfoo.a")
        );
        assert_eq!(t("/s/foo.cc", "foo.o"), None);
        assert_eq!(t("/s/foo.cc", "obj/foo.o"), None);
        assert_eq!(t("/s/foo.cc", "CMakeFiles/.dir/foo.o"), None);
        assert_eq!(t("/s/foo.cc", ""), None);
        // No output at all (gyp's compile_commands_json): unknown.
        assert_eq!(
            target_of(&cmd("out", "/s/foo.cc", None, &["c++", "-c", "/s/foo.cc"])),
            None
        );
        // `-o` as the fallback.
        let c = cmd(
            "/b",
            "/s/x.cc",
            None,
            &["c++", "-c", "/s/x.cc", "-o", "CMakeFiles/t.dir/x.cc.o"],
        );
        assert_eq!(output_of(&c), Some("CMakeFiles/t.dir/x.cc.o"));
        assert_eq!(target_of(&c).as_deref(), Some("t"));
        let c = cmd(
            "/b",
            "/s/x.cc",
            None,
            &["c++", "-objcmt-migrate-all", "-ox.o", "-o"],
        );
        assert_eq!(output_of(&c), Some("x.o"));
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
        assert!(visibility_flags(&db[0].arguments).hides_by_default());
        assert!(!visibility_flags(&db[1].arguments).hides_by_default());
        assert_eq!(output_of(&db[0]), None);
        let idx = CompileDbIndex::new(&db);
        assert_eq!(
            idx.find(Some("/Users/ci/node/deps/v8/src/x.cc"), None),
            Match::Unique(0)
        );
        assert_eq!(idx.find(None, Some("/o/libuv.a(y.o)")), Match::None);
    }

    /// 4000 entries × 3000 lookups: hash lookups, not a scan per lookup.
    #[test]
    fn big_index_is_fast() {
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
        let start = std::time::Instant::now();
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
        let took = start.elapsed();
        if !cfg!(debug_assertions) {
            assert!(took.as_millis() < 200, "took {took:?}");
        }
    }
}

mod visibility_of_tests {
    use super::*;

    /// What [`visibility_of`] must say: the visibility value, or a piece of the reason.
    #[derive(Debug)]
    enum Want {
        Vis(Option<&'static str>),
        Unknown(&'static str),
    }
    use Want::{Unknown, Vis};

    fn entry(dir: &str, extra: &str) -> String {
        let dir = serde_json::to_string(dir).unwrap();
        format!(r#"[{{"directory": {dir}, "file": "a.cc", {extra}}}]"#)
    }

    /// Every case of the defect and of the rules: separate option values, `--`, several shell
    /// commands, response files present, missing, nested, looping, special and too large,
    /// NUL and control characters, and ordinary flags.
    #[test]
    fn regression_hidden_counted_as_a_flag_where_it_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("flags.rsp"),
            "-O2 '-DX=a b'\n  -fvisibility=hidden\n",
        )
        .unwrap();
        std::fs::write(d.join("outer.rsp"), "-c @flags.rsp").unwrap();
        std::fs::write(d.join("default.rsp"), "-fvisibility=default").unwrap();
        std::fs::write(d.join("loop.rsp"), "@loop.rsp").unwrap();
        std::fs::write(d.join("quoted.rsp"), r#""-fvisibility=hid"den \-c"#).unwrap();
        std::fs::write(
            d.join("big.rsp"),
            vec![b' '; RESPONSE_FILE_MAX_BYTES as usize + 1],
        )
        .unwrap();
        let mut half = vec![b' '; 600 << 10];
        half.extend_from_slice(b"-fvisibility=hidden");
        std::fs::write(d.join("half.rsp"), half).unwrap();
        std::fs::create_dir(d.join("dir.rsp")).unwrap();
        let fifo = std::ffi::CString::new(d.join("fifo.rsp").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let dir_s = d.to_str().unwrap();
        let cases: &[(&str, &str, Want)] = &[
            // Ordinary flags.
            ("plain", r#""arguments": ["cc", "-c", "a.cc"]"#, Vis(None)),
            (
                "hidden",
                r#""arguments": ["cc", "-fvisibility=hidden", "-c", "a.cc", "-o", "a.o"]"#,
                Vis(Some("hidden")),
            ),
            (
                "last wins",
                r#""arguments": ["cc", "-fvisibility=hidden", "-o", "a.o", "-fvisibility=default"]"#,
                Vis(Some("default")),
            ),
            (
                "-Xclang",
                r#""arguments": ["cc", "-Xclang", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
            (
                "command",
                r#""command": "cc -fvisibility=hidden -c a.cc""#,
                Vis(Some("hidden")),
            ),
            // Values of options that take the next argument.
            (
                "regression_hidden_as_the_value_of_-o",
                r#""arguments": ["cc", "-c", "a.cc", "-o", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "regression_hidden_as_the_value_of_-D",
                r#""arguments": ["cc", "-D", "-fvisibility=hidden", "-c", "a.cc"]"#,
                Vis(None),
            ),
            (
                "-U -I -include -imacros",
                r#""arguments": ["cc", "-U", "-fvisibility=hidden", "-I", "-fvisibility=hidden", "-include", "-fvisibility=hidden", "-imacros", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-isystem -iquote -idirafter",
                r#""arguments": ["cc", "-isystem", "-fvisibility=hidden", "-iquote", "-fvisibility=hidden", "-idirafter", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-MF -MT -MQ -x",
                r#""arguments": ["cc", "-MF", "-fvisibility=hidden", "-MT", "-fvisibility=hidden", "-MQ", "-fvisibility=hidden", "-x", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-arch -target -isysroot",
                r#""arguments": ["cc", "-arch", "-fvisibility=hidden", "-target", "-fvisibility=hidden", "-isysroot", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-Xlinker -Xpreprocessor -Xassembler -mllvm -Xarch_",
                r#""arguments": ["cc", "-Xlinker", "-fvisibility=hidden", "-Xpreprocessor", "-fvisibility=hidden", "-Xassembler", "-fvisibility=hidden", "-mllvm", "-fvisibility=hidden", "-Xarch_arm64", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "joined -D is a flag of its own",
                r#""arguments": ["cc", "-D-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "value then flag",
                r#""arguments": ["cc", "-D", "X", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
            (
                "-Xclang -o",
                r#""arguments": ["cc", "-Xclang", "-o", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
            (
                "dangling -o",
                r#""arguments": ["cc", "-fvisibility=hidden", "-o"]"#,
                Vis(Some("hidden")),
            ),
            // `--`.
            (
                "regression_hidden_after_double_dash_counted_as_a_flag",
                r#""arguments": ["cc", "-c", "--", "a.cc", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-Xclang after --",
                r#""arguments": ["cc", "--", "-Xclang", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            // Several shell commands in `command`.
            (
                "regression_hidden_in_a_second_command_after_&&",
                r#""command": "cc -c a.cc && cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "the second command is the entry's",
                r#""command": "cc -fvisibility=hidden -c b.cc && cc -c a.cc""#,
                Vis(None),
            ),
            (
                "the entry's command is hidden",
                r#""command": "cc -c b.cc; cc -fvisibility=hidden -c a.cc""#,
                Vis(Some("hidden")),
            ),
            (
                "attached &&",
                r#""command": "cc -c a.cc&&cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "attached ;",
                r#""command": "cc -c a.cc;cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "||",
                r#""command": "cc -c a.cc || cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "| to a tool without -c",
                r#""command": "cc -fvisibility=hidden -c x/../a.cc | tee -fvisibility=default""#,
                Vis(Some("hidden")),
            ),
            (
                "by output",
                r#""output": "o/a.o", "command": "cc -c a.cc -o o/b.o && cc -fvisibility=hidden -c a.cc -o o/./a.o""#,
                Vis(Some("hidden")),
            ),
            (
                "a quoted ; is not an operator",
                r#""command": "cc '-DX=a;b' \"-DY=c&&d\" -DZ=e\\|f -fvisibility=hidden -c a.cc""#,
                Vis(Some("hidden")),
            ),
            (
                "none compiles a.cc",
                r#""command": "cc -c x.cc && cc -fvisibility=hidden -c y.cc""#,
                Unknown("several commands"),
            ),
            // Response files.
            (
                "response file present",
                r#""arguments": ["cc", "@flags.rsp", "-c", "a.cc"]"#,
                Vis(Some("hidden")),
            ),
            (
                "response file then a later flag",
                r#""arguments": ["cc", "@flags.rsp", "-fvisibility=default"]"#,
                Vis(Some("default")),
            ),
            (
                "a later response file wins",
                r#""arguments": ["cc", "-fvisibility=hidden", "@default.rsp"]"#,
                Vis(Some("default")),
            ),
            (
                "nested response file",
                r#""command": "cc @outer.rsp""#,
                Vis(Some("hidden")),
            ),
            (
                "quotes and backslashes",
                r#""arguments": ["cc", "@quoted.rsp"]"#,
                Vis(Some("hidden")),
            ),
            (
                "regression_missing_response_file_reported_as_default",
                r#""arguments": ["cc", "@missing.rsp", "-c", "a.cc"]"#,
                Unknown("response file @missing.rsp: "),
            ),
            (
                "a response file naming itself",
                r#""arguments": ["cc", "@loop.rsp"]"#,
                Unknown("nested more than"),
            ),
            (
                "600 KiB",
                r#""arguments": ["cc", "@half.rsp"]"#,
                Vis(Some("hidden")),
            ),
            (
                "1200 KiB in all",
                r#""arguments": ["cc", "@half.rsp", "@half.rsp"]"#,
                Unknown("more than 1048576 bytes of response files"),
            ),
            (
                "too large",
                r#""arguments": ["cc", "@big.rsp"]"#,
                Unknown("more than 1048576 bytes of response files"),
            ),
            (
                "a directory",
                r#""arguments": ["cc", "@dir.rsp"]"#,
                Unknown("not a regular file"),
            ),
            (
                "a FIFO does not hang",
                r#""arguments": ["cc", "@fifo.rsp"]"#,
                Unknown("not a regular file"),
            ),
            (
                "a device",
                r#""arguments": ["cc", "@/dev/zero"]"#,
                Unknown("not a regular file"),
            ),
            (
                "empty name",
                r#""arguments": ["cc", "@"]"#,
                Unknown("response file @: "),
            ),
            (
                "after -- not read",
                r#""arguments": ["cc", "--", "@missing.rsp"]"#,
                Vis(None),
            ),
            (
                "the compiler itself is not one",
                r#""arguments": ["@missing.rsp", "-c", "a.cc"]"#,
                Vis(None),
            ),
            // NUL and control characters.
            (
                "regression_nul_in_a_flag_printed_in_the_verdict",
                r#""arguments": ["cc", "-fvisibility=hid\u0000den"]"#,
                Unknown("NUL"),
            ),
            (
                "NUL in any argument",
                r#""arguments": ["cc", "-DX=\u0000", "-fvisibility=hidden"]"#,
                Unknown("NUL"),
            ),
            (
                "control character",
                r#""arguments": ["cc", "-fvisibility=hidden\u001b[0m"]"#,
                Unknown("control character"),
            ),
            (
                "control character to cc1",
                r#""arguments": ["cc", "-Xclang", "-fvisibility=\nhidden"]"#,
                Unknown("control character"),
            ),
            (
                "tab in a -D value is fine",
                r#""arguments": ["cc", "-DX=a\tb", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
        ];
        for (what, extra, want) in cases {
            let db = parse_compile_db(entry(dir_s, extra).as_bytes())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let got = visibility_of(&db[0]);
            match (want, &got) {
                (Vis(v), Ok(f)) => assert_eq!(f.visibility.as_deref(), *v, "{what}"),
                (Unknown(why), Err(reason)) => {
                    assert!(reason.contains(why), "{what}: {reason:?}");
                    assert!(!reason.contains('\0') && !reason.contains('\n'), "{what}");
                }
                _ => panic!("{what}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn output_of_skips_values_and_inputs() {
        let c = |args: &[&str]| CompileCommand {
            directory: "/b".into(),
            file: "a.cc".into(),
            output: None,
            arguments: args.iter().collect(),
            unknown: None,
        };
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["cc", "-c", "a.cc", "-o", "a.o"], Some("a.o")),
            (&["cc", "-o", "a.o", "-o", "b.o"], Some("b.o")),
            (&["cc", "-D", "-o", "a.cc"], None),
            (&["cc", "-o", "a.o", "--", "-o", "b.o"], Some("a.o")),
            (&["cc", "-ob.o"], Some("b.o")),
            (&["cc", "-MF", "-ob.o"], None),
            (&["cc", "-o"], None),
        ];
        for (args, want) in cases {
            assert_eq!(output_of(&c(args)), *want, "{args:?}");
        }
    }

    #[test]
    fn gnu_words_split_as_llvm() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("  a  b\n\tc ", &["a", "b", "c"]),
            (r#"'a b' "c d""#, &["a b", "c d"]),
            (r#"a\ b"#, &["a b"]),
            (r#"x"y z"w"#, &["xy zw"]),
            (r#""a\"b""#, &["a\"b"]),
            ("'unclosed rest", &["unclosed rest"]),
            ("''", &[""]),
            ("trailing\\", &["trailing\\"]),
        ];
        for (text, want) in cases {
            assert_eq!(gnu_words(text), *want, "{text:?}");
        }
    }

    #[test]
    fn shell_commands_split_outside_quotes() {
        let cases: &[(&str, &[&str])] = &[
            ("cc -c a.cc", &["cc -c a.cc"]),
            ("a && b", &["a ", "", " b"]),
            ("a;b|c", &["a", "b", "c"]),
            ("'a;b' \"c|d\" e\\;f", &["'a;b' \"c|d\" e\\;f"]),
            ("a\nb", &["a", "b"]),
        ];
        for (command, want) in cases {
            assert_eq!(shell_commands(command), *want, "{command:?}");
        }
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
}

mod storage_tests {
    use super::*;

    #[test]
    fn argv_keeps_every_argument() {
        let cases: &[&[&str]] = &[&[], &[""], &["cc"], &["cc", "", "-c", "a b"], &["", ""]];
        for args in cases {
            let argv: Argv = args.iter().collect();
            assert_eq!(argv.iter().collect::<Vec<_>>(), *args, "{args:?}");
            assert_eq!(argv.len(), args.len(), "{args:?}");
            assert_eq!(argv.is_empty(), args.is_empty(), "{args:?}");
        }
        let argv: Argv = ["a\0b"].iter().collect();
        assert_eq!(argv.iter().collect::<Vec<_>>(), ["a\u{fffd}b"]);
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
        assert!(visibility_of(&db[2]).is_ok());
    }
}
