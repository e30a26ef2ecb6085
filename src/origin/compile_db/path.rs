//! Paths of a compilation database compared lexically: each joined to its entry's
//! `directory` and normalized without touching the file system (the build machine's paths need
//! not exist here).

/// `path` joined to `base` unless absolute, with `.`, `..` and repeated `/` resolved lexically.
/// See [`CompileDbIndex::find`].
pub fn normalize(path: &str, base: Option<&str>) -> String {
    let joined;
    let full = match base {
        Some(b) if !path.starts_with('/') && !b.is_empty() => {
            joined = format!("{b}/{path}");
            joined.as_str()
        }
        _ => path,
    };
    let absolute = full.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for p in full.split('/') {
        match p {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&l) if l != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            _ => parts.push(p),
        }
    }
    let body = parts.join("/");
    match (absolute, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".to_owned(),
        (false, false) => body,
    }
}
