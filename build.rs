//! Links the C++ runtime's `__cxa_demangle` (libc++abi: LLVM's Itanium demangler, the code of
//! Apple's `c++filt`, llvm-cxxfilt, lldb and crash logs), which prints every C++ name. When found,
//! the build sets `cfg(weakscan_libcxxabi)`; otherwise names are printed by cpp_demangle, with a
//! warning, and `weakscan --version` says so. Group keys never depend on this: they come from
//! weakscan's own reading of the names in every build (docs/names.md).
//!
//! Where libc++abi comes from:
//! * macOS: the system's `/usr/lib/libc++abi.dylib` (every macOS has it; the SDK's
//!   `libc++abi.tbd` links it), so `cargo install` needs nothing else;
//! * elsewhere, linked statically: `WEAKSCAN_LIBCXXABI_DIR`, a directory holding `libc++abi.a`
//!   (or its `lib/` or `lib64/` does), else LLVM 22's lib directory `/usr/lib/llvm-22/lib`
//!   (Debian and Ubuntu: `libc++abi-22-dev`).
//!
//! `WEAKSCAN_PRINTER=cpp_demangle` builds without it (`WEAKSCAN_PRINTER=libcxxabi`, the default,
//! names libc++abi); `WEAKSCAN_REQUIRE_LIBCXXABI=1` (as `.ci/run` sets) makes a missing libc++abi
//! a build error instead of a warning.

use std::path::PathBuf;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(weakscan_libcxxabi)");
    for var in [
        "WEAKSCAN_PRINTER",
        "WEAKSCAN_LIBCXXABI_DIR",
        "WEAKSCAN_REQUIRE_LIBCXXABI",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let required = std::env::var_os("WEAKSCAN_REQUIRE_LIBCXXABI").is_some_and(|v| v == "1");
    match std::env::var("WEAKSCAN_PRINTER").as_deref() {
        Err(_) | Ok("" | "libcxxabi") => {}
        Ok("cpp_demangle") if required => panic!(
            "WEAKSCAN_PRINTER=cpp_demangle and WEAKSCAN_REQUIRE_LIBCXXABI=1 contradict each other"
        ),
        Ok("cpp_demangle") => return,
        Ok(other) => panic!(
            "WEAKSCAN_PRINTER={other:?}: expected `libcxxabi` (the default) or `cpp_demangle`"
        ),
    }
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(os.as_str(), "macos" | "ios") {
        println!("cargo:rustc-link-lib=dylib=c++abi");
        println!("cargo:rustc-cfg=weakscan_libcxxabi");
        return;
    }
    match find_static() {
        Some(dir) => {
            if let Some(from) = std::env::var_os("WEAKSCAN_LIBCXXABI_DIR") {
                println!("cargo:rerun-if-changed={}", PathBuf::from(from).display());
            }
            println!(
                "cargo:rerun-if-changed={}",
                dir.join("libc++abi.a").display()
            );
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static=c++abi");
            println!("cargo:rustc-cfg=weakscan_libcxxabi");
        }
        None if required => panic!(
            "WEAKSCAN_REQUIRE_LIBCXXABI=1 but libc++abi.a was not found: install libc++abi-22-dev \
             (Debian, Ubuntu) or set WEAKSCAN_LIBCXXABI_DIR to the directory holding libc++abi.a"
        ),
        None => println!(
            "cargo:warning=libc++abi not found: C++ names will be printed by cpp_demangle, which \
             differs from c++filt (LLVM's) on some names (install libc++abi-22-dev, or set \
             WEAKSCAN_LIBCXXABI_DIR; see docs/names.md)"
        ),
    }
}

/// The directory holding `libc++abi.a`.
fn find_static() -> Option<PathBuf> {
    let candidates = match std::env::var_os("WEAKSCAN_LIBCXXABI_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            vec![dir.clone(), dir.join("lib"), dir.join("lib64")]
        }
        None => vec![PathBuf::from("/usr/lib/llvm-22/lib")],
    };
    candidates
        .into_iter()
        .find(|d| d.join("libc++abi.a").is_file())
}
