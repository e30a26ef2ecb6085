//! The printed form of a C++ name, exactly as GNU `c++filt -_` prints it.
//!
//! When the build found GNU libiberty (see `build.rs`), names are printed by the same code GNU
//! c++filt runs: `cplus_demangle` with `DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE` and the AUTO style
//! (binutils `cxxfilt.c`, `demangle_it`; libiberty `cplus-dem.c`), which for a `_Z` name is
//! `rust_demangle`, then `cplus_demangle_v3`. `cxxfilt.c` calls the allocation-free callback forms
//! of both and abandons the printing (longjmp out of the callback) once the text would outgrow
//! the caller's bound, so a hostile name costs time and memory in proportion to that bound, never
//! to its exponential expansion.
//!
//! Without libiberty, [`printer`] is [`Printer::CppDemangle`] and names are printed by
//! cpp_demangle, which differs from c++filt on some names (docs/names.md lists the kinds).

/// Which code prints the names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Printer {
    /// GNU libiberty, as `c++filt -_` (the build found it).
    Libiberty,
    /// The cpp_demangle crate (the build did not find libiberty).
    CppDemangle,
}

impl Printer {
    /// One line for `--version` and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Printer::Libiberty => "GNU libiberty (names exactly as c++filt -_ prints them)",
            Printer::CppDemangle => {
                "cpp_demangle (built without GNU libiberty: some names differ from c++filt)"
            }
        }
    }
}

/// The printer this build uses.
pub const fn printer() -> Printer {
    if cfg!(weakscan_libiberty) {
        Printer::Libiberty
    } else {
        Printer::CppDemangle
    }
}

/// Longest name (without the Mach-O `_`) given to libiberty, in bytes. libiberty keeps its
/// working memory on the stack, about 100 bytes per byte of the name (`d_demangle_callback`:
/// two components and one substitution slot per byte, plus the printer's scopes and templates),
/// so this keeps a name within a tenth of the demangling threads' stack; a longer name is kept
/// raw and counted as a failure.
pub const MAX_NAME_BYTES: usize = 256 << 10;

/// Why libiberty gave no printed form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not a name libiberty demangles (c++filt prints it unchanged).
    NotMangled,
    /// The printed form would be longer than the bound.
    TooLong,
    /// The name is longer than [`MAX_NAME_BYTES`] or holds a NUL byte.
    BadInput,
    /// The printed bytes are not UTF-8 (a length that cuts a multi-byte character).
    NotUtf8,
    /// This build has no libiberty ([`printer`] is [`Printer::CppDemangle`]).
    Unavailable,
}

/// Without libiberty: always [`Refusal::Unavailable`].
#[cfg(not(weakscan_libiberty))]
pub fn print(_plain: &str, _limit: usize) -> Result<String, Refusal> {
    Err(Refusal::Unavailable)
}

/// Prints `plain` (a mangled name without the Mach-O `_`) as c++filt does, in at most `limit`
/// bytes.
///
/// Errors: [`Refusal`]. Never panics; thread-safe (libiberty's callback forms keep no state).
#[cfg(weakscan_libiberty)]
pub fn print(plain: &str, limit: usize) -> Result<String, Refusal> {
    use std::ffi::{c_char, c_long};
    unsafe extern "C" {
        fn weakscan_cxxfilt(name: *const c_char, buf: *mut c_char, cap: usize) -> c_long;
    }
    if plain.len() > MAX_NAME_BYTES || plain.as_bytes().contains(&0) {
        return Err(Refusal::BadInput);
    }
    thread_local! {
        /// The NUL-terminated name and the output room, reused by every name of a thread.
        static BUFFERS: std::cell::RefCell<(Vec<u8>, Vec<u8>)> = const {
            std::cell::RefCell::new((Vec::new(), Vec::new()))
        };
    }
    BUFFERS.with_borrow_mut(|(name, out)| {
        name.clear();
        name.extend_from_slice(plain.as_bytes());
        name.push(0);
        out.clear();
        out.reserve(limit);
        // SAFETY: `name` is NUL-terminated; `out` has room for `limit` bytes, and
        // weakscan_cxxfilt writes at most that many and returns how many it wrote.
        let n = unsafe { weakscan_cxxfilt(name.as_ptr().cast(), out.as_mut_ptr().cast(), limit) };
        let text = match n {
            -1 => return Err(Refusal::NotMangled),
            n if n >= 0 && (n as usize) <= limit => {
                // SAFETY: the first `n` bytes were written (see above).
                unsafe { out.set_len(n as usize) };
                &out[..]
            }
            _ => return Err(Refusal::TooLong),
        };
        std::str::from_utf8(text)
            .map(str::to_string)
            .map_err(|_| Refusal::NotUtf8)
    })
}

#[cfg(all(test, weakscan_libiberty))]
mod tests {
    use super::*;

    #[test]
    fn prints_as_cxxfilt() {
        assert_eq!(
            print("_ZNK5boost16cpp_regex_traitsIcE7isctypeEcj", 1024).unwrap(),
            "boost::cpp_regex_traits<char>::isctype(char, unsigned int) const"
        );
        // DMGL_VERBOSE, as c++filt: the standard substitution is spelled out.
        assert_eq!(
            print("_ZNSs4sizeEv", 1024).unwrap(),
            "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::size()"
        );
        assert_eq!(print("_Z", 64), Err(Refusal::NotMangled));
        assert_eq!(print("main", 64), Err(Refusal::NotMangled));
    }

    #[test]
    fn legacy_rust_names_as_cxxfilt() {
        // c++filt's cplus_demangle tries rust_demangle first (DMGL_VERBOSE keeps the hash); so
        // does weakscan, also with a `.suffix` after the final `E`.
        assert_eq!(
            print("_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE", 1024).unwrap(),
            "core::fmt::Write::write_fmt::h0123456789abcdef"
        );
        assert_eq!(
            print(
                "_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE.llvm.42",
                1024
            )
            .unwrap(),
            "core::fmt::Write::write_fmt::h0123456789abcdef"
        );
    }

    #[test]
    fn output_bound_stops_the_printing() {
        assert_eq!(
            print("_ZNK5boost16cpp_regex_traitsIcE7isctypeEcj", 20),
            Err(Refusal::TooLong)
        );
        assert_eq!(print("_Znwm", 0), Err(Refusal::TooLong));
    }

    #[test]
    fn regression_exponential_name_stops_at_the_bound() {
        // libiberty left to finish would print 2^32 copies of the first level.
        let raw = super::super::tests::exponential_name(32);
        let name = &raw[1..];
        assert_eq!(print(name, 16 * name.len() + 256), Err(Refusal::TooLong));
    }

    #[test]
    fn nul_and_oversized_names_are_refused() {
        assert_eq!(print("_Z1f\0v", 64), Err(Refusal::BadInput));
        let long = format!("_Z{}", "1a".repeat(MAX_NAME_BYTES));
        assert_eq!(print(&long, 64), Err(Refusal::BadInput));
    }
}
