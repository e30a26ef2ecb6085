//! Finds GNU libiberty, the demangler GNU c++filt runs, and compiles weakscan's bounded call into
//! it (`src/analysis/demangle/cxxfilt.c`) and the walk of its parse tree for the group keys
//! (`keys.c`). When found, the build sets `cfg(weakscan_libiberty)`
//! and weakscan prints every C++ name exactly as `c++filt -_` does; otherwise names are printed by
//! cpp_demangle, and `weakscan --version` says so.
//!
//! Where libiberty is looked for, in order:
//! * `WEAKSCAN_LIBIBERTY_DIR`: a prefix holding `include/demangle.h` (or
//!   `include/libiberty/demangle.h`) and `lib/libiberty.a` (built with `-fPIC`);
//! * the C compiler's own search path (`cc -print-file-name=libiberty.a`, as Debian's
//!   `libiberty-dev` installs it) with the header in `/usr/include/libiberty` or
//!   `/usr/local/include/libiberty`.
//!
//! `WEAKSCAN_LIBIBERTY=off` builds without it; `WEAKSCAN_REQUIRE_LIBIBERTY=1` (as `.ci/run` sets)
//! makes a missing libiberty a build error instead of a warning.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rustc-check-cfg=cfg(weakscan_libiberty)");
    println!("cargo:rerun-if-changed=src/analysis/demangle/cxxfilt.c");
    println!("cargo:rerun-if-changed=src/analysis/demangle/keys.c");
    println!("cargo:rerun-if-changed=src/analysis/demangle/cxxfilt.h");
    for var in [
        "WEAKSCAN_LIBIBERTY",
        "WEAKSCAN_LIBIBERTY_DIR",
        "WEAKSCAN_REQUIRE_LIBIBERTY",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let required = std::env::var_os("WEAKSCAN_REQUIRE_LIBIBERTY").is_some_and(|v| v == "1");
    if std::env::var_os("WEAKSCAN_LIBIBERTY").is_some_and(|v| v == "off") {
        if required {
            panic!("WEAKSCAN_LIBIBERTY=off and WEAKSCAN_REQUIRE_LIBIBERTY=1 contradict each other");
        }
        return;
    }
    match find() {
        Some((include, lib)) => {
            cc::Build::new()
                .file("src/analysis/demangle/cxxfilt.c")
                .file("src/analysis/demangle/keys.c")
                .include(&include)
                .warnings(true)
                .compile("weakscan_cxxfilt");
            println!("cargo:rustc-link-search=native={}", lib.display());
            println!("cargo:rustc-link-lib=static=iberty");
            println!("cargo:rustc-cfg=weakscan_libiberty");
            println!(
                "cargo:rustc-env=WEAKSCAN_LIBIBERTY_PATH={}",
                lib.join("libiberty.a").display()
            );
        }
        None if required => panic!(
            "WEAKSCAN_REQUIRE_LIBIBERTY=1 but GNU libiberty was not found: install libiberty-dev \
             (Debian, Ubuntu) or set WEAKSCAN_LIBIBERTY_DIR to a prefix with include/demangle.h \
             and lib/libiberty.a"
        ),
        None => println!(
            "cargo:warning=GNU libiberty not found: C++ names will be printed by cpp_demangle, \
             which differs from c++filt on some names (install libiberty-dev, or set \
             WEAKSCAN_LIBIBERTY_DIR; see docs/names.md)"
        ),
    }
}

/// The include directory holding `demangle.h` and the directory holding `libiberty.a`.
fn find() -> Option<(PathBuf, PathBuf)> {
    if let Some(dir) = std::env::var_os("WEAKSCAN_LIBIBERTY_DIR") {
        let dir = PathBuf::from(dir);
        let include = [dir.join("include/libiberty"), dir.join("include")]
            .into_iter()
            .find(|d| d.join("demangle.h").is_file())?;
        let lib = [dir.join("lib"), dir.join("lib64"), dir.clone()]
            .into_iter()
            .find(|d| d.join("libiberty.a").is_file())?;
        return Some((include, lib));
    }
    let include = ["/usr/include/libiberty", "/usr/local/include/libiberty"]
        .into_iter()
        .map(PathBuf::from)
        .find(|d| d.join("demangle.h").is_file())?;
    let compiler = cc::Build::new().get_compiler();
    let out = compiler
        .to_command()
        .arg("-print-file-name=libiberty.a")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // The compiler prints the bare name back when it does not find the file.
    if !path.is_absolute() || !path.is_file() {
        return None;
    }
    Some((include, path.parent().map(Path::to_path_buf)?))
}
