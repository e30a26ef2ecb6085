//! The printed form of a C++ name, exactly as Apple's `c++filt` (llvm-cxxfilt) prints it.
//!
//! Names are printed by the C++ runtime's `__cxa_demangle` (libc++abi, `cxa_demangle.cpp`: LLVM's
//! Itanium demangler, `llvm/Demangle/ItaniumDemangle.h`), the code llvm-cxxfilt, lldb and crash
//! logs run: the system library on macOS, libc++abi linked statically elsewhere (`build.rs`).
//!
//! `__cxa_demangle` has no bound of its own: a name that back-references itself prints an
//! output exponential in its length, a pack expansion prints once per element, and its parser
//! and printer recurse once per nesting level. So it is only ever given a name that weakscan's
//! own reader ([`super::itanium::read`]) accepted: well-formed, nested at most
//! [`super::itanium::budget::MAX_DEPTH`] deep, and printing (as LLVM prints it) at most the
//! bound it computed, which is at most the caller's. Its output buffer is sized to that bound,
//! and its output checked against it again.
//!
//! Without libc++abi, [`printer`] is [`Printer::CppDemangle`] and names are printed by
//! cpp_demangle, behind the same reader, within the same bound (docs/names.md lists the kinds
//! of names it prints otherwise).

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

/// Longest name (without the Mach-O `_`) given to a demangler, in bytes; a longer one is kept
/// raw, with raw keys, and counted as a failure.
pub const MAX_NAME_BYTES: usize = super::itanium::budget::MAX_NAME_BYTES;

/// Why no printed form was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// weakscan's reader did not accept the name (malformed, or past a bound), so no printer was
    /// given it.
    Rejected(super::itanium::Reject),
    /// Not a name `__cxa_demangle` demangles (c++filt prints it unchanged).
    NotMangled,
    /// The printed form is longer than the bound.
    TooLong,
    /// The name holds a NUL byte.
    BadInput,
    /// The printed bytes are not UTF-8.
    NotUtf8,
    /// `__cxa_demangle` could not allocate its memory.
    NoMemory,
    /// This build has no libc++abi ([`printer`] is [`Printer::CppDemangle`]).
    Unavailable,
}

/// Prints `plain` (a mangled name without the Mach-O `_`) as c++filt on macOS does, in at most
/// `limit` bytes: first reads it ([`super::itanium::read`]: bounds its printing and nesting),
/// then calls `__cxa_demangle`. Thread-safe; any thread may call it (the reader accepts no name
/// whose printing recurses past [`super::itanium::budget::MAX_DEPTH`] levels).
///
/// Errors: [`Refusal`]. Never panics.
pub fn print(plain: &str, limit: usize) -> Result<String, Refusal> {
    let reading = super::itanium::read(plain, limit).map_err(Refusal::Rejected)?;
    print_bounded(plain, bound_of(reading.printed_bound))
}

/// `__cxa_demangle`'s printing of `plain` without the reader in front, for names of at most 64
/// bytes only (whose printing is small whatever they hold): `None` past that, or when it does
/// not print the name. Only for the fuzz target that holds the reader to `__cxa_demangle`; not a
/// stable API.
#[doc(hidden)]
pub fn llvm_reads_short(plain: &str) -> Option<String> {
    if plain.len() > 64 {
        return None;
    }
    print_bounded(plain, 1 << 20).ok()
}

/// A printed-length bound as a buffer size.
pub(super) fn bound_of(bound: u64) -> usize {
    usize::try_from(bound).unwrap_or(usize::MAX)
}

/// [`print()`] with cpp_demangle, for a name the reader accepted with printed bound `bound`:
/// cpp_demangle's own printing of it stops past `bound` bytes. The special names it prints in
/// its own `{vtable(…)}` form or cannot parse (vtables, VTTs, thunks, template parameter objects)
/// are printed through the name that holds their structure (the class's typeinfo, the thunk's
/// target) with c++filt's prefix.
///
/// Errors: [`Refusal::Rejected`] when cpp_demangle cannot read it, [`Refusal::TooLong`] when it
/// cannot print it within the bound.
pub fn print_cpp_demangle(plain: &str, bound: usize) -> Result<String, Refusal> {
    let Some(sp) = cpp_special(plain) else {
        return cpp_print(plain, bound, false);
    };
    let text = cpp_print(&sp.parse, bound, sp.tail)?;
    let rest = text
        .strip_prefix(sp.drop)
        .ok_or(Refusal::Rejected(super::itanium::Reject::Malformed))?;
    let text = format!("{}{rest}", sp.prefix);
    if text.len() > bound {
        return Err(Refusal::TooLong);
    }
    Ok(text)
}

/// cpp_demangle's printing of `plain` (followed by other bytes if `tail`) within `bound` bytes.
fn cpp_print(plain: &str, bound: usize, tail: bool) -> Result<String, Refusal> {
    use cpp_demangle::{BorrowedSymbol, DemangleOptions, ParseOptions};
    let depth = super::itanium::budget::MAX_DEPTH * 4;
    let parse = ParseOptions::default().recursion_limit(depth);
    let unread = |_| Refusal::Rejected(super::itanium::Reject::Malformed);
    let sym = if tail {
        BorrowedSymbol::with_tail_and_options(plain.as_bytes(), &parse)
            .map_err(unread)?
            .0
    } else {
        BorrowedSymbol::new_with_options(plain.as_bytes(), &parse).map_err(unread)?
    };
    let mut out = Bounded {
        text: String::with_capacity(bound.min(plain.len() * 4 + 64)),
        limit: bound,
    };
    let print = DemangleOptions::new().recursion_limit(depth);
    sym.structured_demangle(&mut out, &print)
        .map_err(|_| Refusal::TooLong)?;
    Ok(out.text)
}

/// A special name cpp_demangle prints through another: c++filt's prefix, the name printed
/// instead, the prefix that one prints with (replaced), and whether bytes may follow it.
struct CppSpecial {
    prefix: &'static str,
    parse: String,
    drop: &'static str,
    tail: bool,
}

/// The [`CppSpecial`] reading of `plain` (Itanium C++ ABI 5.1.4 `<special-name>`): `TV`, `TT`
/// (as the typeinfo `TI` of their type), `TA` (as the typeinfo of its initializer's type),
/// `Th`/`Tv`/`Tc` thunks (as their target, after the call offsets).
fn cpp_special(plain: &str) -> Option<CppSpecial> {
    let rest = plain.strip_prefix("_ZT")?;
    let typeinfo = |prefix: &'static str, ty: &str, tail: bool| CppSpecial {
        prefix,
        parse: format!("_ZTI{ty}"),
        drop: "typeinfo for ",
        tail,
    };
    let thunk = |prefix: &'static str, encoding: &str| CppSpecial {
        prefix,
        parse: format!("_Z{encoding}"),
        drop: "",
        tail: false,
    };
    // <call-offset> ::= h <nv-offset> _ | v <v-offset> _ ; a <v-offset> is two numbers.
    fn call_offset(s: &str) -> Option<&str> {
        let (kind, rest) = (s.as_bytes().first()?, s.get(1..)?);
        let numbers = match kind {
            b'h' => 1,
            b'v' => 2,
            _ => return None,
        };
        let mut rest = rest;
        for _ in 0..numbers {
            let n = rest.strip_prefix('n').unwrap_or(rest);
            let digits = n.bytes().take_while(u8::is_ascii_digit).count();
            rest = n[digits..].strip_prefix('_')?;
            if digits == 0 {
                return None;
            }
        }
        Some(rest)
    }
    match rest.as_bytes().first()? {
        b'V' => Some(typeinfo("vtable for ", &rest[1..], false)),
        b'T' => Some(typeinfo("VTT for ", &rest[1..], false)),
        b'A' => Some(typeinfo(
            "template parameter object for ",
            rest.strip_prefix("AXtl")?,
            true,
        )),
        b'h' => Some(thunk("non-virtual thunk to ", call_offset(rest)?)),
        b'v' => Some(thunk("virtual thunk to ", call_offset(rest)?)),
        b'c' => Some(thunk(
            "covariant return thunk to ",
            call_offset(call_offset(&rest[1..])?)?,
        )),
        _ => None,
    }
}

/// A writer that refuses to grow past `limit` bytes.
struct Bounded {
    text: String,
    limit: usize,
}

impl cpp_demangle::DemangleWrite for Bounded {
    fn write_string(&mut self, s: &str) -> std::fmt::Result {
        if self.text.len() + s.len() > self.limit {
            return Err(std::fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

/// Whether this build links libc++abi's `__cxa_demangle` ([`print_bounded`] prints).
pub(super) const LINKED: bool = cfg!(weakscan_libcxxabi);

/// [`print()`] of a name the reader accepted, whose printing it bounded by `bound` bytes.
#[cfg(not(weakscan_libcxxabi))]
pub(super) fn print_bounded(_plain: &str, _bound: usize) -> Result<String, Refusal> {
    Err(Refusal::Unavailable)
}

/// [`print()`] of a name the reader accepted, whose printing it bounded by `bound` bytes: the
/// output buffer is allocated with that size (plus the NUL), and the output checked against it.
#[cfg(weakscan_libcxxabi)]
pub(super) fn print_bounded(plain: &str, bound: usize) -> Result<String, Refusal> {
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
    if memchr::memchr(0, plain.as_bytes()).is_some() {
        return Err(Refusal::BadInput);
    }
    /// The largest output buffer kept for the next name.
    const KEPT_BUFFER_BYTES: usize = 64 << 10;
    /// The output buffer `__cxa_demangle` writes into: malloc'd, `len` bytes, reused by every
    /// name of a thread (grown when a name's bound is larger; freed with the thread).
    struct Out {
        buf: *mut c_char,
        len: usize,
    }
    impl Drop for Out {
        fn drop(&mut self) {
            // SAFETY: `buf` is null or malloc'd, and owned here.
            unsafe { libc::free(self.buf.cast()) };
        }
    }
    thread_local! {
        /// The NUL-terminated name, reused by every name of a thread.
        static NAME: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        static OUT: std::cell::RefCell<Out> =
            const { std::cell::RefCell::new(Out { buf: std::ptr::null_mut(), len: 0 }) };
    }
    let need = bound.saturating_add(1).max(1);
    NAME.with_borrow_mut(|name| {
        OUT.with_borrow_mut(|o| {
            name.clear();
            name.extend_from_slice(plain.as_bytes());
            name.push(0);
            if o.len < need {
                // SAFETY: `o.buf` is null or malloc'd and ours; replaced by a new malloc of
                // `need` bytes (null when it cannot: then __cxa_demangle allocates).
                unsafe { libc::free(o.buf.cast()) };
                o.buf = unsafe { libc::malloc(need) }.cast::<c_char>();
                o.len = if o.buf.is_null() { 0 } else { need };
            }
            let mut n = o.len;
            let mut status: c_int = 0;
            // SAFETY: `name` is NUL-terminated; `o.buf` is null or a malloc'd buffer of `n`
            // bytes, which `__cxa_demangle` writes into (or reallocs, updating `n`); it
            // returns that buffer or its realloc'd successor holding a NUL-terminated string,
            // or null with a nonzero status (0 success, -1 allocation failure, -2 not a valid
            // name), `o.buf` then unchanged and still ours.
            let out = unsafe { __cxa_demangle(name.as_ptr().cast(), o.buf, &mut n, &mut status) };
            if out.is_null() {
                return Err(match status {
                    -1 => Refusal::NoMemory,
                    _ => Refusal::NotMangled,
                });
            }
            // Kept for the next name: the buffer, or what it was realloc'd to (at least `n`
            // bytes: `n` is now the output's length with its NUL, not the capacity).
            if out != o.buf {
                o.buf = out;
                o.len = n;
            }
            // SAFETY: `out` is the NUL-terminated string above, owned by `o`.
            let bytes = unsafe { std::ffi::CStr::from_ptr(out) }.to_bytes();
            let text = if bytes.len() > bound {
                Err(Refusal::TooLong)
            } else {
                std::str::from_utf8(bytes)
                    .map(str::to_string)
                    .map_err(|_| Refusal::NotUtf8)
            };
            if o.len > KEPT_BUFFER_BYTES {
                // A long name's buffer is not kept for the short ones after it (the old
                // `Out` frees it as it is dropped).
                *o = Out {
                    buf: std::ptr::null_mut(),
                    len: 0,
                };
            }
            text
        })
    })
}

#[cfg(all(test, weakscan_libcxxabi))]
mod tests {
    use super::*;
    use crate::analysis::demangle::itanium::Reject;

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
        // Names the reader does not accept never reach __cxa_demangle.
        assert_eq!(print("_Z", 64), Err(Refusal::Rejected(Reject::Malformed)));
        assert_eq!(print("main", 64), Err(Refusal::Rejected(Reject::Malformed)));
        assert_eq!(print_bounded("_Z", 64), Err(Refusal::NotMangled));
    }

    #[test]
    fn output_bound_refuses_the_printing() {
        assert!(matches!(
            print("_ZNK5boost16cpp_regex_traitsIcE7isctypeEcj", 20),
            Err(Refusal::Rejected(Reject::TooLong(_)))
        ));
        assert!(matches!(
            print("_Znwm", 0),
            Err(Refusal::Rejected(Reject::TooLong(_)))
        ));
    }

    #[test]
    fn regression_exponential_name_never_reaches_cxa_demangle() {
        // __cxa_demangle left to finish would print 2^32 copies of the first level.
        let raw = super::super::tests::exponential_name(32);
        let name = &raw[1..];
        assert!(matches!(
            print(name, 16 * name.len() + 256),
            Err(Refusal::Rejected(Reject::TooLong(_)))
        ));
    }

    #[test]
    fn nul_and_oversized_names_are_refused() {
        assert_eq!(print_bounded("_Z1f\0v", 64), Err(Refusal::BadInput));
        assert_eq!(print("_Z1f\0v", 64), Err(Refusal::Rejected(Reject::TooBig)));
        let long = format!("_Z{}", "1a".repeat(MAX_NAME_BYTES));
        assert_eq!(print(&long, 64), Err(Refusal::Rejected(Reject::TooBig)));
    }

    #[test]
    fn deep_nesting_is_refused_before_cxa_demangle_recurses() {
        // The reader's depth bound stops it; __cxa_demangle would recurse 100,000 deep. On
        // this test thread's ordinary stack: the reader's own recursion is bounded.
        let deep = format!("_Z1f{}i", "P".repeat(100_000));
        assert_eq!(
            print(&deep, 1 << 22),
            Err(Refusal::Rejected(Reject::TooDeep))
        );
    }
}
