//! The printed form of a C++ name, exactly as Apple's `c++filt` (llvm-cxxfilt) prints it.
//!
//! Names are printed by the C++ runtime's `__cxa_demangle` (libc++abi, `cxa_demangle.cpp`: LLVM's
//! Itanium demangler, `llvm/Demangle/ItaniumDemangle.h`), the code llvm-cxxfilt, lldb and crash
//! logs run: the system library on macOS, libc++abi linked statically elsewhere (`build.rs`).
//!
//! `__cxa_demangle` has no bound of its own: a name that back-references itself prints an
//! output exponential in its length, and its parser recurses once per nesting level. So it is
//! only ever given a name that cpp_demangle, with its recursion limit, parsed and printed
//! within the caller's bound first ([`super::printed_within`]): both demanglers expand every
//! substitution in full, so that bounds this printing too (the `printer` fuzz target checks
//! it). Its output is checked against the bound again.
//!
//! Without libc++abi, [`printer`] is [`Printer::CppDemangle`] and names are printed by
//! cpp_demangle, which differs from c++filt on some names (docs/names.md lists the kinds).

/// Which code prints the names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Printer {
    /// libc++abi's `__cxa_demangle` (LLVM's demangler, as Apple's `c++filt` prints).
    Libcxxabi,
    /// The cpp_demangle crate (the build did not link libc++abi).
    CppDemangle,
}

impl Printer {
    /// One line for `--version` and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Printer::Libcxxabi => {
                "libc++abi __cxa_demangle (names exactly as c++filt on macOS, llvm-cxxfilt, prints them)"
            }
            Printer::CppDemangle => {
                "cpp_demangle (built without libc++abi: some names differ from c++filt)"
            }
        }
    }
}

/// The printer this build uses.
pub const fn printer() -> Printer {
    if cfg!(weakscan_libcxxabi) {
        Printer::Libcxxabi
    } else {
        Printer::CppDemangle
    }
}

/// Longest name (without the Mach-O `_`) given to a demangler (cpp_demangle too), in bytes; a
/// longer name is kept raw, with no keys, and counted as a failure.
pub const MAX_NAME_BYTES: usize = 256 << 10;

/// Why no printed form was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not a name `__cxa_demangle` demangles (c++filt prints it unchanged).
    NotMangled,
    /// The printed form is longer than the bound.
    TooLong,
    /// cpp_demangle could not parse the name, or not print it within the bound, so nothing
    /// bounds `__cxa_demangle`'s printing of it and it was not called.
    Unbounded,
    /// The name is longer than [`MAX_NAME_BYTES`] or holds a NUL byte.
    BadInput,
    /// The printed bytes are not UTF-8.
    NotUtf8,
    /// `__cxa_demangle` could not allocate its memory.
    NoMemory,
    /// This build has no libc++abi ([`printer`] is [`Printer::CppDemangle`]).
    Unavailable,
}

/// Prints `plain` (a mangled name without the Mach-O `_`) as c++filt on macOS does, in at most
/// `limit` bytes: first checks, with cpp_demangle, that its printing stays within `limit`
/// ([`super::printed_within`]), then calls `__cxa_demangle`. Runs on a thread with
/// [`crate::pool::STACK_BYTES`] of stack, as the demangling threads have: cpp_demangle recurses
/// up to its recursion limit ([`super::RECURSION_LIMIT`]) on a hostile name.
///
/// Errors: [`Refusal`]. Never panics; thread-safe.
pub fn print(plain: &str, limit: usize) -> Result<String, Refusal> {
    if !super::printed_within(plain, limit) {
        return Err(Refusal::Unbounded);
    }
    print_bounded(plain, limit)
}

/// [`print()`] of a name whose printing cpp_demangle has already bounded by `limit` (the caller
/// checked it: see the module docs).
#[cfg(not(weakscan_libcxxabi))]
pub(super) fn print_bounded(_plain: &str, _limit: usize) -> Result<String, Refusal> {
    Err(Refusal::Unavailable)
}

/// [`print()`] of a name whose printing cpp_demangle has already bounded by `limit` (the caller
/// checked it: see the module docs).
#[cfg(weakscan_libcxxabi)]
pub(super) fn print_bounded(plain: &str, limit: usize) -> Result<String, Refusal> {
    use std::ffi::{c_char, c_int};
    unsafe extern "C" {
        /// libc++abi `cxa_demangle.cpp`; `<cxxabi.h>`: `abi::__cxa_demangle`.
        fn __cxa_demangle(
            mangled: *const c_char,
            buf: *mut c_char,
            n: *mut usize,
            status: *mut c_int,
        ) -> *mut c_char;
    }
    if plain.len() > MAX_NAME_BYTES || memchr::memchr(0, plain.as_bytes()).is_some() {
        return Err(Refusal::BadInput);
    }
    thread_local! {
        /// The NUL-terminated name, reused by every name of a thread.
        static NAME: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    NAME.with_borrow_mut(|name| {
        name.clear();
        name.extend_from_slice(plain.as_bytes());
        name.push(0);
        let mut status: c_int = 0;
        // SAFETY: `name` is NUL-terminated; with a null `buf` and `n`, `__cxa_demangle` returns
        // a NUL-terminated string it allocated with malloc (freed below), or null with a
        // nonzero status (0 success, -1 allocation failure, -2 not a valid name).
        let out = unsafe {
            __cxa_demangle(
                name.as_ptr().cast(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut status,
            )
        };
        if out.is_null() {
            return Err(match status {
                -1 => Refusal::NoMemory,
                _ => Refusal::NotMangled,
            });
        }
        // SAFETY: `out` is the NUL-terminated string above, read before it is freed.
        let bytes = unsafe { std::ffi::CStr::from_ptr(out) }.to_bytes();
        let text = if bytes.len() > limit {
            Err(Refusal::TooLong)
        } else {
            std::str::from_utf8(bytes)
                .map(str::to_string)
                .map_err(|_| Refusal::NotUtf8)
        };
        // SAFETY: allocated by `__cxa_demangle` with malloc; not used after this.
        unsafe { libc::free(out.cast()) };
        text
    })
}

#[cfg(all(test, weakscan_libcxxabi))]
mod tests {
    use super::*;

    #[test]
    fn prints_as_llvm_cxxfilt() {
        assert_eq!(
            print("_ZNK5boost16cpp_regex_traitsIcE7isctypeEcj", 1024).unwrap(),
            "boost::cpp_regex_traits<char>::isctype(char, unsigned int) const"
        );
        // The standard substitution abbreviated, nested closers without a space, lambdas quoted.
        assert_eq!(print("_ZNSs4sizeEv", 1024).unwrap(), "std::string::size()");
        assert_eq!(print("_ZN1AIN1BIiEEE1fEv", 1024).unwrap(), "A<B<int>>::f()");
        assert_eq!(
            print(
                "_ZZN4node14ThreadPoolWork12ScheduleWorkEvENUlP9uv_work_sE_8__invokeES2_",
                1024
            )
            .unwrap(),
            "node::ThreadPoolWork::ScheduleWork()::'lambda'(uv_work_s*)::__invoke(uv_work_s*)"
        );
        // Names cpp_demangle cannot parse never reach __cxa_demangle.
        assert_eq!(print("_Z", 64), Err(Refusal::Unbounded));
        assert_eq!(print("main", 64), Err(Refusal::Unbounded));
        assert_eq!(print_bounded("_Z", 64), Err(Refusal::NotMangled));
    }

    #[test]
    fn output_bound_refuses_the_printing() {
        assert_eq!(
            print("_ZNK5boost16cpp_regex_traitsIcE7isctypeEcj", 20),
            Err(Refusal::Unbounded)
        );
        assert_eq!(print("_Znwm", 0), Err(Refusal::Unbounded));
    }

    #[test]
    fn regression_exponential_name_never_reaches_cxa_demangle() {
        // __cxa_demangle left to finish would print 2^32 copies of the first level.
        let raw = super::super::tests::exponential_name(32);
        let name = &raw[1..];
        assert_eq!(print(name, 16 * name.len() + 256), Err(Refusal::Unbounded));
    }

    #[test]
    fn nul_and_oversized_names_are_refused() {
        assert_eq!(print_bounded("_Z1f\0v", 64), Err(Refusal::BadInput));
        let long = format!("_Z{}", "1a".repeat(MAX_NAME_BYTES));
        assert_eq!(print_bounded(&long, 64), Err(Refusal::BadInput));
    }

    #[test]
    fn deep_nesting_is_refused_before_cxa_demangle_recurses() {
        // cpp_demangle's recursion limit stops it; __cxa_demangle would recurse 100,000 deep.
        // On a thread with the demangling threads' stack, as `print` asks.
        let deep = format!("_Z1f{}i", "P".repeat(100_000));
        let refused = std::thread::Builder::new()
            .stack_size(crate::pool::STACK_BYTES)
            .spawn(move || print(&deep, 1 << 22))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(refused, Err(Refusal::Unbounded));
    }
}
