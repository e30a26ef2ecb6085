//! The cache of fetched builds (`--cache DIR`): `DIR/VERSION/NAME`, a copy of the file the
//! fetch printed under its own name (`DIR/22.11.0/node`), the layout `scripts/fetch-node.sh`
//! writes too.
//!
//! An entry is a directory named by the version holding one regular file (or a symlink to
//! one); a missing or empty directory is no entry. A copy is written to a directory of a
//! random name in `DIR` (tempfile: `O_EXCL`), synced, then renamed to `DIR/VERSION`, so an
//! entry is whole or absent, whatever stops weakscan. An entry is never replaced.

use crate::error::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};

/// `--cache DIR`.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache in `dir`, made when it does not exist.
    ///
    /// Errors: `dir` cannot be made, or is not a directory (`Io`).
    pub fn open(dir: &Path) -> Result<Cache> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
        if !std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
            return Err(Error::new(ErrorKind::Io, dir, "not a directory (--cache)"));
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    /// The cached build of `version`: `Ok(None)` when there is none; `Err` (why, one line)
    /// when its directory holds something else than one file.
    pub fn lookup(&self, version: &str) -> std::result::Result<Option<PathBuf>, String> {
        let entry = self.dir.join(version);
        let shown = crate::text::escape_path(&entry);
        let meta = match std::fs::symlink_metadata(&entry) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cache entry {shown}: {e}")),
            Ok(m) => m,
        };
        if !meta.is_dir() {
            return Err(format!(
                "cache entry {shown} is not a directory (an entry is DIR/VERSION/FILE)"
            ));
        }
        let mut files = Vec::new();
        // Two names are enough to refuse an entry: the walk stops there.
        for e in std::fs::read_dir(&entry).map_err(|e| format!("cache entry {shown}: {e}"))? {
            let e = e.map_err(|e| format!("cache entry {shown}: {e}"))?;
            files.push(e.path());
            if files.len() > 1 {
                return Err(format!(
                    "cache entry {shown} holds more than one file (an entry is one build)"
                ));
            }
        }
        match files.pop() {
            None => Ok(None),
            Some(f) if std::fs::metadata(&f).is_ok_and(|m| m.is_file()) => Ok(Some(f)),
            Some(f) => Err(format!(
                "cache entry {} is not a regular file",
                crate::text::escape_path(&f)
            )),
        }
    }

    /// Copies the build `from` into the entry of `version`: the copy's path, or why it could
    /// not be made (one line).
    pub fn store(&self, version: &str, from: &Path) -> std::result::Result<PathBuf, String> {
        let fail = |e: std::io::Error| {
            format!(
                "could not copy {} into the cache {}: {e}",
                crate::text::escape_path(from),
                crate::text::escape_path(&self.dir)
            )
        };
        let name = from
            .file_name()
            .ok_or_else(|| format!("{} has no file name", crate::text::escape_path(from)))?;
        let tmp = tempfile::Builder::new()
            .prefix(".weakscan-")
            .tempdir_in(&self.dir)
            .map_err(fail)?;
        let copy = tmp.path().join(name);
        std::fs::copy(from, &copy).map_err(fail)?;
        std::fs::File::open(&copy)
            .and_then(|f| f.sync_all())
            .map_err(fail)?;
        let entry = self.dir.join(version);
        let kept = tmp.keep();
        if let Err(e) = std::fs::rename(&kept, &entry) {
            let _ = std::fs::remove_dir_all(&kept);
            // Another run may have stored the same version meanwhile: its entry is as good.
            return match self.lookup(version) {
                Ok(Some(p)) => Ok(p),
                _ => Err(fail(e)),
            };
        }
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(entry.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_build_is_found_by_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(&dir.path().join("c")).unwrap();
        assert_eq!(cache.lookup("1.0"), Ok(None));
        let build = dir.path().join("node");
        std::fs::write(&build, "bytes").unwrap();
        let stored = cache.store("1.0", &build).unwrap();
        assert_eq!(stored, dir.path().join("c/1.0/node"));
        assert_eq!(std::fs::read(&stored).unwrap(), b"bytes");
        assert_eq!(cache.lookup("1.0"), Ok(Some(stored)));
        // Nothing else is left in the cache.
        let names: Vec<_> = std::fs::read_dir(dir.path().join("c")).unwrap().collect();
        assert_eq!(names.len(), 1);
        // An empty entry is none; one of two files is refused.
        std::fs::create_dir(dir.path().join("c/2.0")).unwrap();
        assert_eq!(cache.lookup("2.0"), Ok(None));
        std::fs::write(dir.path().join("c/2.0/a"), "").unwrap();
        std::fs::write(dir.path().join("c/2.0/b"), "").unwrap();
        assert!(
            cache
                .lookup("2.0")
                .unwrap_err()
                .contains("more than one file")
        );
        std::fs::write(dir.path().join("c/3.0"), "").unwrap();
        assert!(cache.lookup("3.0").unwrap_err().contains("not a directory"));
        assert!(Cache::open(&dir.path().join("c/3.0")).is_err());
    }
}
