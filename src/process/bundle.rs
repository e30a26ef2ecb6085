//! Which file is a process's main executable, and which directory bounds what may be read.
//!
//! * a file: it is the main executable; the root is the `.app` it sits in
//!   (`X.app/Contents/MacOS/x`), else its directory;
//! * an `.app` (or any directory with `Contents/Info.plist`): `Contents/MacOS/` +
//!   `CFBundleExecutable` (Apple's "Bundle Programming Guide", macOS bundle layout);
//! * a `.framework` (or a directory with `Resources/Info.plist` or `Info.plist`): its
//!   `CFBundleExecutable` beside `Resources/` (a dylib: the analysis starts from it);
//! * another directory: its one `MH_EXECUTE` file at the top level.
//!
//! The property list is read with the `plist` crate (XML, binary and ASCII), on the calling
//! thread's stack, at most [`MAX_PLIST_DEPTH`] levels deep and [`MAX_PLIST_VALUES`] values.
//! Errors (exit 2): a bundle without an `Info.plist`, a malformed one (or one nested deeper or
//! larger), one without `CFBundleExecutable` or naming a file that is not there, a directory
//! with no or several executables.

use super::resolve::{Roots, Walked, walk};
use crate::error::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};

/// The main executable of a process and the root directory of its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The main executable.
    pub main: PathBuf,
    /// The directory nothing outside of which is read (besides `--search` and `--sysroot`).
    pub root: PathBuf,
}

/// Finds the main executable of `input` (a file, bundle or directory) as the module docs say.
/// Inside a directory, nothing outside it is opened, `stat`ed or `readlink`ed
/// ([`super::resolve::walk`]): an `Info.plist` or main executable that is a symlink out of
/// the bundle is an error, and a top-level entry that links out of a plain directory is not a
/// candidate (the count is given when no executable is found).
pub fn locate(input: &Path) -> Result<Located> {
    let meta = std::fs::metadata(input).map_err(|e| Error::io(input, &e))?;
    if !meta.is_dir() {
        let root = enclosing_app(input)
            .or_else(|| input.parent().map(Path::to_path_buf))
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        return Ok(Located {
            main: input.to_path_buf(),
            root,
        });
    }
    let roots = Roots {
        dirs: vec![std::fs::canonicalize(input).map_err(|e| Error::io(input, &e))?],
        ..Roots::default()
    };
    let plists = [
        ("Contents/Info.plist", "Contents/MacOS"),
        ("Resources/Info.plist", ""),
        ("Versions/Current/Resources/Info.plist", "Versions/Current"),
        ("Info.plist", ""),
    ];
    for (plist, exe_dir) in plists {
        let path = input.join(plist);
        let real = match inside(&roots, input, Path::new(plist))? {
            Walked::File(real) => real,
            _ => continue,
        };
        let exe = bundle_executable(&path, &real)?;
        let rel = Path::new(exe_dir).join(&exe);
        let main = input.join(&rel);
        if !matches!(inside(&roots, input, &rel)?, Walked::File(_)) {
            return Err(Error::new(
                ErrorKind::Malformed,
                &path,
                format!(
                    "CFBundleExecutable {exe:?} names no file ({} is missing)",
                    crate::text::escape_path(&main)
                ),
            ));
        }
        return Ok(Located {
            main,
            root: input.to_path_buf(),
        });
    }
    let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("");
    if matches!(ext, "app" | "framework" | "bundle") {
        return Err(Error::new(
            ErrorKind::Malformed,
            input,
            format!(
                "a .{ext} without Contents/Info.plist or Resources/Info.plist: name the main \
                 executable with --process FILE"
            ),
        ));
    }
    the_one_executable(input, &roots)
}

/// The one `MH_EXECUTE` file at the top of directory `input` (canonical in `roots`): each entry
/// checked against the root before it is opened, and opened only as a regular file.
fn the_one_executable(input: &Path, roots: &Roots) -> Result<Located> {
    let mut executables: Vec<PathBuf> = Vec::new();
    let mut links_out = 0usize;
    let entries = std::fs::read_dir(input).map_err(|e| Error::io(input, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(input, &e))?;
        let kind = entry
            .file_type()
            .map_err(|e| Error::io(&entry.path(), &e))?;
        let p = entry.path();
        let real = if kind.is_file() {
            roots.dirs[0].join(entry.file_name())
        } else if kind.is_symlink() {
            match walk(&roots.dirs[0].join(entry.file_name()), roots) {
                Walked::File(real) => real,
                Walked::Refused(_) => {
                    links_out += 1;
                    continue;
                }
                _ => continue,
            }
        } else {
            continue;
        };
        if is_main_executable(&real) {
            executables.push(p);
        }
    }
    executables.sort();
    match executables.len() {
        1 => Ok(Located {
            main: executables.remove(0),
            root: input.to_path_buf(),
        }),
        0 => Err(Error::new(
            ErrorKind::Usage,
            input,
            format!(
                "no Mach-O executable (MH_EXECUTE) at the top of this directory{}: name the main \
                 executable with --process FILE",
                match links_out {
                    0 => String::new(),
                    n => format!(
                        " ({n} {} out of it not followed)",
                        if n == 1 { "symlink" } else { "symlinks" }
                    ),
                }
            ),
        )),
        n => Err(Error::new(
            ErrorKind::Usage,
            input,
            format!(
                "{n} Mach-O executables at the top of this directory ({}): name one with \
                 --process FILE",
                executables
                    .iter()
                    .filter_map(|p| p.file_name())
                    .map(|n| n.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// [`walk`] of `rel` inside the bundle at `input` (its canonical path is `roots.dirs[0]`): an
/// error when it leads out of it (a symlink out of the bundle is not read, as no dependency
/// outside the roots is).
fn inside(roots: &Roots, input: &Path, rel: &Path) -> Result<Walked> {
    match walk(&roots.dirs[0].join(rel), roots) {
        Walked::Refused(why) => Err(Error::new(
            ErrorKind::Malformed,
            &input.join(rel),
            format!(
                "a symlink out of the bundle ({why}): nothing outside the bundle, --search and \
                 --sysroot is read"
            ),
        )),
        w => Ok(w),
    }
}

/// Largest `Info.plist` read, in bytes.
const MAX_PLIST_BYTES: u64 = 1 << 20;

/// Deepest nesting of arrays and dictionaries read in an `Info.plist` (Apple's own nest a few
/// levels: `CFBundleDocumentTypes` → a dictionary → `LSItemContentTypes` → a string).
pub const MAX_PLIST_DEPTH: usize = 256;

/// `CFBundleExecutable` of the property list at `path` (read from `real`, its canonical path):
/// a plain file name. The file is opened without blocking and read only if it is a regular file,
/// up to [`MAX_PLIST_BYTES`] (an Info.plist is a few KiB; a sparse 1 GiB one took 1.8 GB).
/// Errors: larger, not a property list, nested deeper than [`MAX_PLIST_DEPTH`] or holding more
/// than [`MAX_PLIST_VALUES`] values, not a dictionary, no `CFBundleExecutable` string, or one
/// that is not a file name.
fn bundle_executable(path: &Path, real: &Path) -> Result<String> {
    let bad = |what: String| Error::new(ErrorKind::Malformed, path, what);
    use std::io::Read;
    let file = open_regular(real).map_err(|e| Error::io(path, &e))?;
    let mut bytes = Vec::new();
    file.take(MAX_PLIST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, &e))?;
    if bytes.len() as u64 > MAX_PLIST_BYTES {
        return Err(bad(format!(
            "larger than {} MiB: not an Info.plist",
            MAX_PLIST_BYTES >> 20
        )));
    }
    let exe = executable_of(&bytes).map_err(bad)?;
    if exe.is_empty() || exe.contains('/') || exe == ".." || exe == "." {
        return Err(bad(format!(
            "CFBundleExecutable {exe:?} is not a file name"
        )));
    }
    Ok(exe)
}

/// `CFBundleExecutable` of the property list `bytes` (XML, binary or ASCII), read on the
/// calling thread's stack. The `plist` crate reads events and builds a value without
/// recursion, but dropping a value recurses once per level of nesting (150k nested `<array>`s
/// overflowed an 8 MiB stack), and a binary list's objects may be referenced many times, each
/// reference read again (40 arrays of two references to the one before: 242 bytes, 2⁴⁰
/// values; 4,000 references to one 1 MB `<data>`: 4 GB). So its events pass through
/// [`Bounded`], which ends them past [`MAX_PLIST_DEPTH`] levels, [`MAX_PLIST_VALUES`] values or
/// [`MAX_PLIST_VALUE_BYTES`] bytes of strings and data: no value deeper or larger is ever
/// built, dropped or left half-built. Errors, in words: not a property list (the crate's message, kept to one
/// line by [`Error`]), too deep, too many values, not a dictionary, no `CFBundleExecutable`
/// string.
fn executable_of(bytes: &[u8]) -> std::result::Result<String, String> {
    let mut events = Bounded {
        events: plist::stream::Reader::new(std::io::Cursor::new(bytes)),
        depth: 0,
        values: 0,
        bytes: 0,
        stopped: None,
    };
    let value = plist::Value::from_events(&mut events);
    if let Some(why) = events.stopped {
        return Err(format!("the property list {why}: not an Info.plist"));
    }
    let value = value.map_err(|e| format!("not a readable property list: {e}"))?;
    let dict = value
        .as_dictionary()
        .ok_or("the property list is not a dictionary")?;
    let exe = dict
        .get("CFBundleExecutable")
        .ok_or("no CFBundleExecutable key")?
        .as_string()
        .ok_or("CFBundleExecutable is not a string")?;
    Ok(exe.to_string())
}

/// Most values (events) read from an `Info.plist`: one per byte of the largest read
/// ([`MAX_PLIST_BYTES`]). Without shared references no property list holds more values than
/// bytes (each XML value takes several, each binary reference at least one).
pub const MAX_PLIST_VALUES: usize = MAX_PLIST_BYTES as usize;

/// Most bytes of strings and data (UTF-8) read from an `Info.plist`: 4 × [`MAX_PLIST_BYTES`]
/// (a UTF-16 string of the file grows to at most 1.5 × its bytes in UTF-8; shared references
/// are counted each time read).
pub const MAX_PLIST_VALUE_BYTES: usize = 4 * MAX_PLIST_BYTES as usize;

/// Why [`Bounded`] ended a property list's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    /// An array or dictionary opened [`MAX_PLIST_DEPTH`] levels deep.
    Nesting,
    /// More than [`MAX_PLIST_VALUES`] events.
    Values,
    /// More than [`MAX_PLIST_VALUE_BYTES`] bytes of strings and data.
    Bytes,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Nesting => write!(f, "is nested deeper than {MAX_PLIST_DEPTH} levels"),
            Stopped::Values => write!(
                f,
                "holds more than {MAX_PLIST_VALUES} values (shared references read again)"
            ),
            Stopped::Bytes => write!(
                f,
                "holds more than {MAX_PLIST_VALUE_BYTES} bytes of strings and data (shared \
                 references read again)"
            ),
        }
    }
}

/// A property list's events, ended (`None`, which the value builder takes for a cut file) at
/// the first array or dictionary opened [`MAX_PLIST_DEPTH`] levels deep, at the event past
/// [`MAX_PLIST_VALUES`] or the string or data past [`MAX_PLIST_VALUE_BYTES`], with `stopped`
/// saying which.
struct Bounded<I> {
    events: I,
    depth: usize,
    values: usize,
    bytes: usize,
    stopped: Option<Stopped>,
}

impl<I: Iterator<Item = std::result::Result<plist::stream::OwnedEvent, plist::Error>>> Iterator
    for Bounded<I>
{
    type Item = std::result::Result<plist::stream::OwnedEvent, plist::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped.is_some() {
            return None;
        }
        let event = self.events.next()?;
        self.values += 1;
        if self.values > MAX_PLIST_VALUES {
            self.stopped = Some(Stopped::Values);
            return None;
        }
        self.bytes += match &event {
            Ok(plist::stream::Event::String(s)) => s.len(),
            Ok(plist::stream::Event::Data(d)) => d.len(),
            _ => 0,
        };
        if self.bytes > MAX_PLIST_VALUE_BYTES {
            self.stopped = Some(Stopped::Bytes);
            return None;
        }
        match &event {
            Ok(plist::stream::Event::StartArray(_) | plist::stream::Event::StartDictionary(_)) => {
                self.depth += 1;
                if self.depth > MAX_PLIST_DEPTH {
                    self.stopped = Some(Stopped::Nesting);
                    return None;
                }
            }
            Ok(plist::stream::Event::EndCollection) => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        Some(event)
    }
}

/// `path` opened for reading with `O_NONBLOCK` (a FIFO cannot hang the open), if `fstat` says
/// it is a regular file. Errors: it cannot be opened, or is not a regular file.
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// The `X.app` directory `path` sits in as `X.app/Contents/MacOS/<file>`.
fn enclosing_app(path: &Path) -> Option<PathBuf> {
    let macos = path.parent()?;
    let contents = macos.parent()?;
    let app = contents.parent()?;
    (macos.file_name()? == "MacOS" && contents.file_name()? == "Contents")
        .then(|| app.to_path_buf())
}

/// Whether the file starts as a thin 64-bit `MH_EXECUTE`, or is a universal file (whose first
/// slice is then taken to be one: universal dylibs at the top of a directory are rare).
fn is_main_executable(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    let Ok(mut f) = open_regular(path) else {
        return false;
    };
    if f.read_exact(&mut head).is_err() {
        return false;
    }
    match head[..4] {
        [0xcf, 0xfa, 0xed, 0xfe] => {
            u32::from_le_bytes([head[12], head[13], head[14], head[15]]) == crate::model::MH_EXECUTE
        }
        [0xca, 0xfe, 0xba, 0xbe] | [0xca, 0xfe, 0xba, 0xbf] => false,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enclosing_app_is_found_from_the_executable() {
        assert_eq!(
            enclosing_app(Path::new("/x/A.app/Contents/MacOS/A")),
            Some(PathBuf::from("/x/A.app"))
        );
        assert_eq!(enclosing_app(Path::new("/x/bin/a")), None);
    }

    #[test]
    fn bundle_executable_reads_xml_and_refuses_paths() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("Info.plist");
        let write = |exe: &str| {
            std::fs::write(
                &p,
                format!(
                    "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict>\
                     <key>CFBundleExecutable</key><string>{exe}</string></dict></plist>"
                ),
            )
            .unwrap()
        };
        write("App");
        assert_eq!(bundle_executable(&p, &p).unwrap(), "App");
        write("../../bin/sh");
        assert!(
            bundle_executable(&p, &p)
                .unwrap_err()
                .message
                .contains("not a file name")
        );
        std::fs::write(&p, "<?xml version=\"1.0\"?><plist><dict><key>").unwrap();
        assert!(
            bundle_executable(&p, &p)
                .unwrap_err()
                .message
                .contains("not a readable property list")
        );
    }

    /// An XML Info.plist naming `App`, with `levels` arrays nested in it (the dictionary is the
    /// first level).
    fn nested_xml(levels: usize) -> String {
        format!(
            "<plist><dict><key>CFBundleExecutable</key><string>App</string><key>x</key>{}{}</dict></plist>",
            "<array>".repeat(levels),
            "</array>".repeat(levels)
        )
    }

    // Regression (hostile-input campaign): 150k nested arrays overflowed the stack (abort), and
    // a sparse 1 GiB Info.plist was read whole (1.8 GB).
    #[test]
    fn regression_deep_or_huge_plists_aborted_or_took_gigabytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("Info.plist");
        std::fs::write(&p, nested_xml(65_000)).unwrap();
        let e = bundle_executable(&p, &p).unwrap_err();
        assert!(
            e.message.contains("nested deeper than 256 levels"),
            "{}",
            e.message
        );
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(1 << 30).unwrap();
        let e = bundle_executable(&p, &p).unwrap_err();
        assert!(e.message.contains("larger than 1 MiB"), "{}", e.message);
    }

    // The bound that lets the property list be read on the caller's stack (the regression under
    // `ulimit -v` is `io::regression_a_bundle_could_not_be_read_under_a_memory_limit_…`): every
    // format, to the bound and past it, cut or not.
    #[test]
    fn plists_of_every_format_are_read_to_the_depth_bound_and_refused_past_it() {
        let too_deep = "nested deeper than 256 levels";
        assert_eq!(
            executable_of(nested_xml(MAX_PLIST_DEPTH - 1).as_bytes()),
            Ok("App".into())
        );
        let e = executable_of(nested_xml(MAX_PLIST_DEPTH).as_bytes()).unwrap_err();
        assert!(e.contains(too_deep), "{e}");
        // Cut in the middle: refused as unreadable or too deep, without building the rest.
        let xml = nested_xml(100_000);
        let e = executable_of(&xml.as_bytes()[..xml.len() / 2]).unwrap_err();
        assert!(e.contains(too_deep), "{e}");
        let e = executable_of(&nested_xml(10).as_bytes()[..100]).unwrap_err();
        assert!(e.contains("not a readable property list"), "{e}");
        // ASCII (NeXTSTEP): two bytes a level, 500k levels in 1 MiB.
        let ascii = |levels: usize| {
            format!(
                "{{ CFBundleExecutable = App; x = {}{}; }}",
                "(".repeat(levels),
                ")".repeat(levels)
            )
        };
        assert_eq!(
            executable_of(ascii(MAX_PLIST_DEPTH - 1).as_bytes()),
            Ok("App".into())
        );
        let e = executable_of(ascii(500_000).as_bytes()).unwrap_err();
        assert!(e.contains(too_deep), "{e}");
        // Binary, written by the crate.
        let binary = |levels: usize| {
            let mut v = plist::Value::Array(Vec::new());
            for _ in 1..levels {
                v = plist::Value::Array(vec![v]);
            }
            let mut d = plist::Dictionary::new();
            d.insert("CFBundleExecutable".into(), "App".into());
            d.insert("x".into(), v);
            let mut out = Vec::new();
            plist::Value::Dictionary(d)
                .to_writer_binary(&mut out)
                .unwrap();
            out
        };
        assert_eq!(
            executable_of(&binary(MAX_PLIST_DEPTH - 1)),
            Ok("App".into())
        );
        let e = executable_of(&binary(MAX_PLIST_DEPTH)).unwrap_err();
        assert!(e.contains(too_deep), "{e}");
        // Deep, then closed, then more: the depth is of the deepest point, not the count.
        let wide = format!(
            "<plist><dict>{}<key>CFBundleExecutable</key><string>App</string></dict></plist>",
            "<key>y</key><array><array></array></array>".repeat(10_000)
        );
        assert_eq!(executable_of(wide.as_bytes()), Ok("App".into()));
    }

    /// A binary property list (`bplist00`, CoreFoundation's CFBinaryPList.c layout: objects,
    /// offset table, 32-byte trailer) of `objects` (encoded; 4-byte offsets, 1-byte references)
    /// whose object 0 is the top.
    fn bplist(objects: &[Vec<u8>]) -> Vec<u8> {
        let mut out = b"bplist00".to_vec();
        let mut offsets = Vec::new();
        for o in objects {
            offsets.extend_from_slice(&(out.len() as u32).to_be_bytes());
            out.extend_from_slice(o);
        }
        let table = out.len() as u64;
        out.extend_from_slice(&offsets);
        out.extend_from_slice(&[0, 0, 0, 0, 0, 0, 4, 1]);
        out.extend_from_slice(&(objects.len() as u64).to_be_bytes());
        out.extend_from_slice(&0u64.to_be_bytes());
        out.extend_from_slice(&table.to_be_bytes());
        out
    }

    /// A binary property list naming `App` whose key `X` holds object 4 + `extra.len()` - 1
    /// (the last of `extra`, objects 4 and on).
    fn app_with(extra: Vec<Vec<u8>>) -> Vec<u8> {
        let x = 3 + extra.len() as u8;
        let mut objects = vec![
            vec![0xD2, 1, 3, 2, x], // {1: 2, 3: x}
            b"\x5F\x10\x12CFBundleExecutable".to_vec(),
            b"\x53App".to_vec(),
            b"\x51X".to_vec(),
        ];
        objects.extend(extra);
        bplist(&objects)
    }

    /// `levels` arrays (≤ 40), each of two references to the one before; the first is `x`.
    fn shared_references(levels: u8) -> Vec<u8> {
        let mut extra = vec![b"\x51x".to_vec()];
        extra.extend((0..levels).map(|k| vec![0xA2, 4 + k, 4 + k]));
        app_with(extra)
    }

    // Regression (hostile-input review): a binary Info.plist whose arrays reference the one
    // before twice, 40 levels in 242 bytes, expands to 2⁴⁰ values: `scan App.app` ran until
    // killed, before and after the depth bound. Now its values are counted and it is refused.
    #[test]
    fn regression_a_binary_plist_of_shared_references_expanded_without_end() {
        assert_eq!(executable_of(&shared_references(3)), Ok("App".into()));
        let e = executable_of(&shared_references(40)).unwrap_err();
        assert!(
            e.contains("holds more than 1048576 values (shared references read again)"),
            "{e}"
        );
    }

    // Regression (hostile-input review): values were counted, not their bytes: a binary
    // Info.plist of 4,000 references to one 1 MB `<data>` took 4 GB (an abort under `ulimit
    // -v`), and a UTF-16 string referenced 3,000 times ran past 60 s.
    #[test]
    fn regression_shared_references_to_one_large_value_took_gigabytes() {
        let data = |len: usize, refs: u8| {
            let mut d = vec![0x4F, 0x12];
            d.extend_from_slice(&(len as u32).to_be_bytes());
            d.resize(6 + len, b'd');
            let mut array = vec![0xAF, 0x10, refs];
            array.extend(std::iter::repeat_n(4, refs.into()));
            app_with(vec![d, array])
        };
        assert_eq!(executable_of(&data(1 << 16, 60)), Ok("App".into()));
        let e = executable_of(&data(1 << 16, 200)).unwrap_err();
        assert!(
            e.contains("holds more than 4194304 bytes of strings and data"),
            "{e}"
        );
    }
}
