//! The DWARF file of a `.dSYM` bundle: `Contents/Resources/DWARF/` holds one file (dsymutil
//! names it after the binary), beside `Contents/Info.plist`.

use crate::error::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};

/// The DWARF file of a bundle, or `path` itself if it is not a directory.
pub(super) fn dwarf_file(path: &Path) -> Result<PathBuf> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
    if !meta.is_dir() {
        return Ok(path.to_path_buf());
    }
    const DIR: &str = "Contents/Resources/DWARF";
    let dir = path.join(DIR);
    let no_file = |why: String| Error::new(ErrorKind::Io, path, format!("no DWARF file: {why}"));
    let entries = std::fs::read_dir(&dir).map_err(|e| no_file(format!("{DIR}: {e}")))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| no_file(format!("{DIR}: {e}")))?;
        let name = entry.file_name();
        let is_file = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file());
        if is_file && !name.to_string_lossy().starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    match names.len() {
        0 => Err(no_file(format!("{DIR} is empty"))),
        1 => Ok(dir.join(&names[0])),
        _ => {
            let bundle = path.file_name().unwrap_or_default().to_string_lossy();
            let stem = bundle.strip_suffix(".dSYM").unwrap_or(&bundle);
            match names.iter().find(|n| n.to_string_lossy() == stem) {
                Some(n) => Ok(dir.join(n)),
                None => {
                    let list: Vec<_> = names.iter().map(|n| n.to_string_lossy()).collect();
                    Err(Error::new(
                        ErrorKind::Usage,
                        path,
                        format!(
                            "{DIR} has several DWARF files ({}) and none is named {stem}",
                            list.join(", ")
                        ),
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::super::read_dsym;
    use crate::error::ErrorKind;

    #[test]
    fn bundles_without_one_dwarf_file() {
        let uuid = binary_uuid();
        let tmp = tempfile::tempdir().unwrap();
        let bundle = tmp.path().join("liba.dylib.dSYM");
        // No Contents/Resources/DWARF at all, then an empty one.
        std::fs::create_dir(&bundle).unwrap();
        let e = read_dsym(&bundle, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Io);
        assert!(
            e.message
                .contains("no DWARF file: Contents/Resources/DWARF: "),
            "{e}"
        );
        let dir = bundle.join("Contents/Resources/DWARF");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".DS_Store"), b"x").unwrap();
        let e = read_dsym(&bundle, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Io);
        assert!(
            e.message
                .ends_with(": no DWARF file: Contents/Resources/DWARF is empty")
        );
        // Several: the one named like the bundle wins; without it, a usage error.
        std::fs::write(dir.join("other"), b"x").unwrap();
        std::fs::write(dir.join("zzz"), b"x").unwrap();
        let e = read_dsym(&bundle, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Usage);
        assert!(
            e.message.ends_with(
                ": Contents/Resources/DWARF has several DWARF files (other, zzz) and none is \
                 named liba.dylib"
            ),
            "{e}"
        );
        std::fs::copy(dwarf_path(), dir.join("liba.dylib")).unwrap();
        assert_eq!(read_dsym(&bundle, "x86_64", uuid).unwrap(), index());
        // A missing path.
        let e = read_dsym(&tmp.path().join("none.dSYM"), "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Io);
    }
}
