//! An entry's argv as clang's driver reads it: the shell commands of a `command`, which
//! arguments are options and which are their values, the visibility options, the output.

use super::path::normalize;
use super::{Argv, CompileCommand};

/// `command` split into shell commands at `&&`, `||`, `;`, `|` and `&` outside quotes (a
/// backslash escapes the next character outside single quotes, as in a POSIX shell). A newline
/// does not split: the format supports no shell features, only `"` and `\` are special
/// (<https://clang.llvm.org/docs/JSONCompilationDatabase.html>), so it cannot end a command, and
/// `shlex`, which then splits each command into words, reads it as whitespace between
/// arguments, as LLVM's GNU tokenizer does (`cl::TokenizeGNUCommandLine`). (clang's own tooling
/// reader, `CommandLineArgumentParser` in `clang/lib/Tooling/JSONCompilationDatabase.cpp`,
/// splits at spaces only and would keep the newline inside a word.)
pub(super) fn shell_commands(command: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut single, mut double, mut escaped) = (0, false, false, false);
    for (i, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '&' | '|' | ';' if !single && !double => {
                parts.push(&command[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&command[start..]);
    parts
}

/// The argv of the compiler invocation of `command` that makes the entry; see
/// [`parse_compile_db`].
pub(super) type Split = (Vec<String>, Option<&'static str>);

pub(super) fn split_command(
    command: &str,
    directory: &str,
    file: &str,
    output: Option<&str>,
) -> Result<Split, &'static str> {
    const CANNOT: &str = "`command` cannot be split (unbalanced quote or trailing backslash)";
    // CRLF line ends (a database written on Windows): `\r` is whitespace to LLVM's GNU
    // tokenizer (`cl::TokenizeGNUCommandLine`), not to `shlex`.
    let command = if command.contains("\r\n") {
        std::borrow::Cow::Owned(command.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(command)
    };
    let parts = shell_commands(&command);
    let mut commands: Vec<Vec<String>> = Vec::new();
    for p in &parts {
        let words = shlex::split(p).ok_or(CANNOT)?;
        if !words.is_empty() {
            commands.push(words);
        }
    }
    if commands.len() <= 1 {
        let mut args = commands.pop().unwrap_or_default();
        args.shrink_to_fit();
        return Ok((args, None));
    }
    let norm = |p: &str| normalize(p, Some(directory));
    let has_c = |a: &[String]| {
        let mut c = false;
        walk(a.iter().map(String::as_str), |arg| {
            c |= matches!(arg, Arg::Flag("-c"));
        });
        c
    };
    let by_output = output.and_then(|o| {
        let o = norm(o);
        commands
            .iter()
            .position(|a| last_output(a.iter().map(String::as_str)).is_some_and(|x| norm(x) == o))
    });
    let file = norm(file);
    let by_file = || {
        commands.iter().position(|a| {
            let mut names_file = false;
            walk(a.iter().map(String::as_str).skip(1), |arg| {
                if let Arg::Flag(f) | Arg::Input(f) = arg {
                    names_file |= !f.starts_with('-') && norm(f) == file;
                }
            });
            names_file && has_c(a)
        })
    };
    let only_c = || {
        let mut with_c = commands.iter().enumerate().filter(|(_, a)| has_c(a));
        match (with_c.next(), with_c.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    };
    match by_output.or_else(by_file).or_else(only_c) {
        Some(i) => {
            let mut args = commands.swap_remove(i);
            args.shrink_to_fit();
            Ok((args, None))
        }
        None => Ok((
            commands.concat(),
            Some("its `command` holds several commands and none is found to compile its `file`"),
        )),
    }
}

/// One argument of an argv as the driver reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arg<'a> {
    /// An option or an input before `--`.
    Flag(&'a str),
    /// The value of an option that takes the next argument (`-o FILE`): not an option.
    Operand(&'a str, &'a str),
    /// An argument of `-Xclang`, for the compiler proper (cc1).
    Cc1(&'a str),
    /// After `--`: an input, whatever it looks like.
    Input(&'a str),
}

/// clang driver options (`clang/include/clang/Driver/Options.td`) whose value may be the next
/// argument (`Separate` or `JoinedOrSeparate` kinds): that argument is their value, never an
/// option. Only the exact spelling takes the next argument (`-DX` and `-xc++` are joined).
/// `-Xclang` is handled apart; any `-Xarch_ARCH` also takes the next argument.
pub const SEPARATE_VALUE_OPTIONS: &[&str] = &[
    "-o",
    "-D",
    "-U",
    "-I",
    "-F",
    "-L",
    "-l",
    "-u",
    "-include",
    "-include-pch",
    "-imacros",
    "-isystem",
    "-isystem-after",
    "-iquote",
    "-idirafter",
    "-iframework",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-ivfsoverlay",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-x",
    "-arch",
    "-target",
    "--target",
    "--sysroot",
    "-Xlinker",
    "-Xpreprocessor",
    "-Xassembler",
    "-Xanalyzer",
    "-Xopenmp-target",
    "-Xcuda-fatbinary",
    "-Xcuda-ptxas",
    "-mllvm",
    "-serialize-diagnostics",
    "-dependency-file",
    "-dependency-dot",
    "--param",
    "-working-directory",
];

/// Reads `args` as clang's driver does, calling `each` for every argument: the values of
/// [`SEPARATE_VALUE_OPTIONS`] and of `-Xarch_*` are operands, the argument after `-Xclang`
/// goes to cc1, and everything after `--` is an input. A dangling option (no value) ends the
/// walk. [`walk_for`] also applies the `-Xarch_*` arguments of one arch.
pub(super) fn walk<'a>(args: impl IntoIterator<Item = &'a str>, mut each: impl FnMut(Arg<'a>)) {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            args.by_ref().for_each(|a| each(Arg::Input(a)));
            return;
        }
        if arg == "-Xclang" {
            match args.next() {
                Some(a) => each(Arg::Cc1(a)),
                None => return,
            }
        } else if SEPARATE_VALUE_OPTIONS.contains(&arg) || arg.starts_with("-Xarch_") {
            match args.next() {
                Some(a) => each(Arg::Operand(arg, a)),
                None => return,
            }
        } else {
            each(Arg::Flag(arg));
        }
    }
}

/// Whether clang's driver passes the argument of `-Xarch_<NAME> ARG` to a compilation for
/// `arch`: `Some(true)` or `Some(false)`, `None` when `arch` is not known. clang compares `NAME`
/// with the arch name of the target and the `-arch` being compiled, as strings
/// (`ToolChain::TranslateXarchArgs(Args, BoundArch, …)` in `clang/lib/Driver/ToolChain.cpp`:
/// `A->getValue() == getArchName() || A->getValue() == BoundArch`), so `-Xarch_arm64` does not
/// reach an `arm64e` compilation nor `-Xarch_x86_64` an `x86_64h` one (clang-22 warns
/// "argument unused"); weakscan's arch names are the `-arch` names
/// ([`crate::macho::file::arch_name`]). `-Xarch_host ARG` applies to the host compilation,
/// which every Mach-O compilation without offloading is, and `-Xarch_device ARG` only to an
/// offload device (CUDA, HIP, OpenMP), which no Mach-O slice is: always and never.
pub fn xarch_applies(name: &str, arch: Option<&str>) -> Option<bool> {
    match name {
        "host" => Some(true),
        "device" => Some(false),
        name => arch.map(|a| a == name),
    }
}

/// [`walk`] for a compilation for `arch`: the argument of an `-Xarch_*` that applies to it
/// ([`xarch_applies`]) is read as an option in its place, as clang's driver translates it in
/// place (`-fvisibility=default -Xarch_x86_64 -fvisibility=hidden` is hidden for x86_64); one
/// that does not apply, or whose arch is not known, stays an operand.
pub(super) fn walk_for<'a>(
    args: impl IntoIterator<Item = &'a str>,
    arch: Option<&str>,
    mut each: impl FnMut(Arg<'a>),
) {
    walk(args, |arg| match arg {
        Arg::Operand(opt, value)
            if opt
                .strip_prefix("-Xarch_")
                .and_then(|name| xarch_applies(name, arch))
                == Some(true) =>
        {
            each(Arg::Flag(value))
        }
        other => each(other),
    });
}

/// The value of the last `-o FILE` (or `-oFILE` when `FILE` ends in `.o` or `.obj`) of an argv
/// (`args[0]` is the compiler and is not read).
pub(super) fn last_output<'a>(args: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut out = None;
    walk(args.into_iter().skip(1), |arg| match arg {
        Arg::Operand("-o", o) => out = Some(o),
        Arg::Flag(a) => {
            if let Some(o) = a.strip_prefix("-o")
                && (o.ends_with(".o") || o.ends_with(".obj"))
            {
                out = Some(o);
            }
        }
        _ => {}
    });
    out
}

/// Whether `arg` is spelled as a visibility option (`-fvisibility…`, `-fno-visibility…`),
/// look-alikes included.
pub(super) fn is_visibility_option(arg: &str) -> bool {
    arg.starts_with("-fvisibility") || arg.starts_with("-fno-visibility")
}

/// The visibility options of one compilation, as the compiler will apply them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VisibilityFlags {
    /// The value of the last `-fvisibility=VALUE` (`default`, `hidden`, `internal`,
    /// `protected`); `None` when not given, which is `default`.
    pub visibility: Option<String>,
    /// `-fvisibility-inlines-hidden` is in effect: given, and not cancelled by a later
    /// `-fno-visibility-inlines-hidden`.
    pub inlines_hidden: bool,
    /// `-fvisibility-ms-compat` is in effect: given after the last `-fvisibility=`. clang's driver
    /// takes the last of the two and turns `-fvisibility-ms-compat` into `-fvisibility=hidden
    /// -ftype-visibility=default` (types keep default visibility, functions and variables are
    /// hidden).
    pub ms_compat: bool,
    /// `-fno-visibility-inlines-hidden-static-local-var` is in effect: given after the last
    /// `-fvisibility-inlines-hidden-static-local-var`. clang's Darwin driver passes the positive
    /// form unless one of the two is given (clang/lib/Driver/ToolChains/Darwin.cpp
    /// `Darwin::addClangTargetOptions`), so `false` is a Darwin compilation's default: with
    /// `-fvisibility-inlines-hidden`, a function-local static of a hidden inline function is
    /// hidden too (clang/lib/AST/Decl.cpp `getLVForLocalDecl`).
    pub no_static_local_var: bool,
    /// The value of the last `-fvisibility-global-new-delete=VALUE` (`force-default`,
    /// `force-protected`, `force-hidden`, `source`), `-fvisibility-global-new-delete-hidden`
    /// being its alias for `force-hidden` (`clang/include/clang/Driver/Options.td`): the
    /// visibility of the global `operator new` and `operator delete`. `None` when not given.
    pub global_new_delete: Option<String>,
}

impl VisibilityFlags {
    /// Functions and variables are hidden unless marked otherwise: `-fvisibility=hidden` or
    /// `internal`, or `-fvisibility-ms-compat` (clang's driver passes `-fvisibility=hidden` for
    /// it, `clang/lib/Driver/ToolChains/Clang.cpp`). Values are compared as clang does, case
    /// sensitively; `protected` does not hide.
    pub fn hides_by_default(&self) -> bool {
        self.ms_compat || matches!(self.visibility.as_deref(), Some("hidden" | "internal"))
    }
}

/// The visibility options in an argv compiled for `arch` (`arguments[0]`, the compiler, is read
/// like the rest: it never matches). Pure: response files are not read (see [`visibility_of`]).
///
/// The spellings handled are clang's driver options (`clang/include/clang/Driver/Options.td`),
/// which GCC shares: `-fvisibility=VALUE` (joined only: the driver rejects `-fvisibility VALUE`),
/// `-fvisibility-ms-compat`, `-fvisibility-inlines-hidden` and `-fno-visibility-inlines-hidden`,
/// the last one of each pair winning. Only options count: not the value of an option that takes
/// the next argument ([`SEPARATE_VALUE_OPTIONS`]: `-o -fvisibility=hidden` names an output,
/// `-D -fvisibility=hidden` a macro), and nothing after `--` (inputs). Options passed straight
/// to the compiler proper with `-Xclang` are handled as cc1 sees them, after every driver option
/// whatever their position: `-Xclang -fvisibility=VALUE` (cc1 accepts the joined spelling),
/// `-Xclang -fvisibility -Xclang VALUE` (cc1's older separate spelling) and `-Xclang
/// -fvisibility-inlines-hidden`. `-Xarch_ARCH OPTION` counts as `OPTION`, in its place, when
/// it applies to `arch` ([`xarch_applies`]; not when `arch` is `None`).
/// `-f[no-]visibility-inlines-hidden-static-local-var` (driver or cc1) sets
/// [`VisibilityFlags::no_static_local_var`], `-fvisibility-global-new-delete=V` and its alias
/// `-fvisibility-global-new-delete-hidden` [`VisibilityFlags::global_new_delete`]. Not handled:
/// `-Wp,`, and options that only look alike (`-ftype-visibility=…`).
pub fn visibility_flags(arguments: &Argv, arch: Option<&str>) -> VisibilityFlags {
    visibility_of_args(arguments.iter(), arch)
}

/// Applies one visibility option to `flags`, the last one given winning: `-fvisibility=V` (or
/// cc1's `-fvisibility V`, with `V` in `value`), `-fvisibility-ms-compat`,
/// `-f[no-]visibility-inlines-hidden`, `-f[no-]visibility-inlines-hidden-static-local-var`,
/// `-fvisibility-global-new-delete=V` and `-fvisibility-global-new-delete-hidden`. Any other
/// argument changes nothing.
fn apply(flags: &mut VisibilityFlags, arg: &str, value: Option<&str>) {
    if let Some(v) = value.or_else(|| arg.strip_prefix("-fvisibility=")) {
        flags.visibility = Some(v.to_owned());
        flags.ms_compat = false;
    } else if arg == "-fvisibility-ms-compat" {
        flags.ms_compat = true;
    } else if arg == "-fvisibility-inlines-hidden" {
        flags.inlines_hidden = true;
    } else if arg == "-fno-visibility-inlines-hidden" {
        flags.inlines_hidden = false;
    } else if arg == "-fvisibility-inlines-hidden-static-local-var" {
        flags.no_static_local_var = false;
    } else if arg == "-fno-visibility-inlines-hidden-static-local-var" {
        flags.no_static_local_var = true;
    } else if let Some(v) = arg.strip_prefix("-fvisibility-global-new-delete=") {
        flags.global_new_delete = Some(v.to_owned());
    } else if arg == "-fvisibility-global-new-delete-hidden" {
        flags.global_new_delete = Some("force-hidden".to_owned());
    }
}

pub(super) fn visibility_of_args<'a>(
    arguments: impl IntoIterator<Item = &'a str>,
    arch: Option<&str>,
) -> VisibilityFlags {
    let mut flags = VisibilityFlags::default();
    let mut cc1: Vec<&str> = Vec::new();
    walk_for(arguments, arch, |arg| match arg {
        Arg::Cc1(a) => cc1.push(a),
        Arg::Flag(arg) => apply(&mut flags, arg, None),
        Arg::Operand(..) | Arg::Input(_) => {}
    });
    // cc1 also takes the value of `-fvisibility` as the next argument.
    let mut cc1 = cc1.into_iter();
    while let Some(arg) = cc1.next() {
        let value = if arg == "-fvisibility" {
            cc1.next()
        } else {
            None
        };
        if arg != "-fvisibility-ms-compat" {
            apply(&mut flags, arg, value);
        }
    }
    flags
}

/// The arch an argv compiles for, as far as it says: the value of its last `-arch ARCH`, else
/// the arch part (before the first `-`) of its last `-target T`, `--target T` or `--target=T`;
/// `None` when it names none (the host's, which weakscan does not guess).
pub fn arch_of_args<'a>(arguments: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let (mut arch, mut target) = (None, None);
    walk(arguments, |arg| match arg {
        Arg::Operand("-arch", a) => arch = Some(a),
        Arg::Operand("-target" | "--target", t) => target = Some(t),
        Arg::Flag(f) => {
            if let Some(t) = f.strip_prefix("--target=") {
                target = Some(t);
            }
        }
        _ => {}
    });
    arch.or_else(|| target.and_then(|t| t.split('-').next()))
        .filter(|a| !a.is_empty())
}

/// The output of an entry: its `output` key, else the argument of the last `-o` in its argv
/// (`-o FILE`, or `-oFILE` when `FILE` ends in `.o` or `.obj`; before `--`, and not the value of
/// another option).
pub fn output_of(cmd: &CompileCommand) -> Option<&str> {
    if let Some(o) = &cmd.output {
        return Some(o);
    }
    last_output(cmd.arguments.iter())
}

/// A best-effort name of the build target an entry belongs to, from its output path
/// ([`output_of`]); `None` when no pattern fits. The patterns, tried in this order:
///
/// | build system | output path | target |
/// |---|---|---|
/// | CMake | `…/CMakeFiles/TARGET.dir/…` | `TARGET` |
/// | Bazel | `…/_objs/TARGET/…/x.o` | `TARGET` |
/// | Xcode | `…/PROJECT.build/CONFIG/TARGET.build/Objects-normal…/ARCH/x.o` (the last `.build` before `Objects-normal`) | `TARGET` |
/// | gyp, ninja | `obj[.TOOLSET]/DIR/TARGET.STEM.o` (`STEM`: the source's name without extension) | `TARGET` |
/// | gyp, make | `…/obj.TOOLSET/TARGET/…/x.o` (`obj.target`, `obj.host`) | `TARGET` |
/// | Meson | `…/TARGET.p/x.o` (`TARGET` is the product's file name, e.g. `libfoo.a`) | `TARGET` |
pub fn target_of(cmd: &CompileCommand) -> Option<String> {
    let output = output_of(cmd)?;
    let parts: Vec<&str> = output.split('/').filter(|p| !p.is_empty()).collect();
    let (name, dirs) = parts.split_last()?;
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    // CMake
    for w in dirs.windows(2) {
        if w[0] == "CMakeFiles"
            && let Some(t) = w[1].strip_suffix(".dir")
        {
            return non_empty(t);
        }
    }
    // Bazel
    if let Some(i) = dirs.iter().position(|&d| d == "_objs")
        && let Some(t) = dirs.get(i + 1)
    {
        return non_empty(t);
    }
    // Xcode
    if let Some(i) = dirs.iter().position(|d| d.starts_with("Objects-normal"))
        && let Some(t) = dirs[..i]
            .iter()
            .rev()
            .find_map(|d| d.strip_suffix(".build"))
    {
        return non_empty(t);
    }
    // gyp: ninja (`obj/…/TARGET.STEM.o`) or make (`obj.TOOLSET/TARGET/…`)
    if let Some(i) = dirs
        .iter()
        .position(|&d| d == "obj" || d.starts_with("obj."))
    {
        let source = cmd.file.rsplit('/').next().unwrap_or("");
        let stem = source.rsplit_once('.').map_or(source, |(s, _)| s);
        if !stem.is_empty()
            && let Some(t) = name
                .strip_suffix(".o")
                .and_then(|n| n.strip_suffix(stem))
                .and_then(|n| n.strip_suffix('.'))
            && !t.is_empty()
        {
            return Some(t.to_owned());
        }
        if dirs[i] != "obj"
            && let Some(t) = dirs.get(i + 1)
        {
            return non_empty(t);
        }
    }
    // Meson
    dirs.last()
        .and_then(|d| d.strip_suffix(".p"))
        .and_then(non_empty)
}

#[cfg(test)]
mod tests {
    use super::super::tests::cmd;
    use super::*;

    #[test]
    fn visibility_flags_last_wins() {
        let v = |args: &[&str]| visibility_flags(&args.iter().collect(), Some("x86_64"));
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
        // The static-local-var option, the last of the pair winning.
        let f = v(&["c++", "-fno-visibility-inlines-hidden-static-local-var"]);
        assert!(f.no_static_local_var);
        let f = v(&[
            "c++",
            "-fno-visibility-inlines-hidden-static-local-var",
            "-fvisibility-inlines-hidden-static-local-var",
        ]);
        assert!(!f.no_static_local_var);
        // Look-alikes and the separate form the driver rejects.
        let f = v(&[
            "c++",
            "-fvisibility-inlines-hidden-static-local-var",
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
    fn global_new_delete_options_last_wins() {
        let v = |args: &[&str]| visibility_flags(&args.iter().collect(), Some("x86_64"));
        let f = v(&["c++", "-fvisibility-global-new-delete-hidden"]);
        assert_eq!(f.global_new_delete.as_deref(), Some("force-hidden"));
        let f = v(&[
            "c++",
            "-fvisibility-global-new-delete-hidden",
            "-fvisibility-global-new-delete=source",
        ]);
        assert_eq!(f.global_new_delete.as_deref(), Some("source"));
        let f = v(&[
            "c++",
            "-Xclang",
            "-fvisibility-global-new-delete=force-default",
            "-fvisibility-global-new-delete-hidden",
        ]);
        assert_eq!(f.global_new_delete.as_deref(), Some("force-default"));
        let f = v(&[
            "c++",
            "-Xarch_x86_64",
            "-fvisibility-global-new-delete-hidden",
        ]);
        assert_eq!(f.global_new_delete.as_deref(), Some("force-hidden"));
        let f = v(&[
            "c++",
            "-Xarch_arm64",
            "-fvisibility-global-new-delete-hidden",
        ]);
        assert_eq!(f.global_new_delete, None);
        assert!(!f.hides_by_default());
    }

    #[test]
    fn arch_of_args_reads_arch_then_target() {
        let a = |args: &[&str]| arch_of_args(args.iter().copied()).map(str::to_owned);
        assert_eq!(
            a(&["cc", "-arch", "arm64", "-c", "a.c"]).as_deref(),
            Some("arm64")
        );
        assert_eq!(
            a(&["cc", "-target", "x86_64-apple-macos11", "-arch", "arm64"]).as_deref(),
            Some("arm64")
        );
        assert_eq!(
            a(&["cc", "--target=arm64e-apple-ios"]).as_deref(),
            Some("arm64e")
        );
        assert_eq!(a(&["cc", "-D", "-arch", "x"]).as_deref(), None);
        assert_eq!(a(&["cc", "-c", "a.c"]), None);
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
    fn shell_commands_split_outside_quotes() {
        let cases: &[(&str, &[&str])] = &[
            ("cc -c a.cc", &["cc -c a.cc"]),
            ("a && b", &["a ", "", " b"]),
            ("a;b|c", &["a", "b", "c"]),
            ("'a;b' \"c|d\" e\\;f", &["'a;b' \"c|d\" e\\;f"]),
            ("a\nb", &["a\nb"]),
        ];
        for (command, want) in cases {
            assert_eq!(shell_commands(command), *want, "{command:?}");
        }
    }
}
