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
    if plain.len() > MAX_NAME_BYTES || memchr::memchr(0, plain.as_bytes()).is_some() {
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

/// Grouping keys from libiberty's parse ([`print_with_keys`]): the pattern, where the name
/// proper starts in it, where its template ends (`None`: no `<…>` in the name proper), and for
/// each `::` separator of the name proper its offset and whether the component before it has a
/// template-argument or parameter list (so cannot be a namespace). Offsets are byte offsets in
/// the pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeKeys {
    /// See the type docs.
    pub pattern: String,
    /// See the type docs.
    pub name_start: u32,
    /// See the type docs.
    pub template_end: Option<u32>,
    /// `(offset of "::", component before it is an entity)`.
    pub separators: Vec<(u32, bool)>,
}

/// Most `::` separators `keys.c` records (`WEAKSCAN_MAX_SEPARATORS`).
#[cfg(weakscan_libiberty)]
const MAX_SEPARATORS: usize = 64;

/// `struct weakscan_keys` of `keys.c`.
#[cfg(weakscan_libiberty)]
#[repr(C)]
struct RawKeys {
    buf: *mut std::ffi::c_char,
    len: usize,
    cap: usize,
    name_start: std::ffi::c_long,
    template_end: std::ffi::c_long,
    separators: usize,
    ends: [std::ffi::c_uint; MAX_SEPARATORS],
    entity: [std::ffi::c_uchar; MAX_SEPARATORS],
}

/// [`TreeKeys`] as [`with_keys`] lends them: slices of the printing thread's buffers.
#[derive(Debug, Clone, Copy)]
pub struct TreeKeysRef<'b> {
    /// See [`TreeKeys`].
    pub pattern: &'b str,
    /// See [`TreeKeys`].
    pub name_start: u32,
    /// See [`TreeKeys`].
    pub template_end: Option<u32>,
    /// The offset of each `::` in the pattern.
    ends: &'b [u32],
    /// Whether the component before each `::` is an entity (nonzero).
    entity: &'b [u8],
}

impl TreeKeysRef<'_> {
    /// `(offset of "::", component before it is an entity)`, as [`TreeKeys::separators`].
    pub fn separators(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        self.ends
            .iter()
            .zip(self.entity)
            .map(|(&at, &e)| (at, e != 0))
    }

    /// An owned copy.
    pub fn to_keys(&self) -> TreeKeys {
        TreeKeys {
            pattern: self.pattern.to_string(),
            name_start: self.name_start,
            template_end: self.template_end,
            separators: self.separators().collect(),
        }
    }
}

/// [`with_keys`] with the text and the keys copied out.
///
/// Errors: [`Refusal`], as [`print()`]. Never panics; thread-safe.
pub fn print_with_keys(plain: &str, limit: usize) -> Result<(String, Option<TreeKeys>), Refusal> {
    with_keys(plain, limit, |text, keys| {
        (text.to_string(), keys.map(|k| k.to_keys()))
    })
}

/// Without libiberty: always [`Refusal::Unavailable`].
#[cfg(not(weakscan_libiberty))]
pub fn with_keys<R>(
    _plain: &str,
    _limit: usize,
    _f: impl FnOnce(&str, Option<TreeKeysRef<'_>>) -> R,
) -> Result<R, Refusal> {
    Err(Refusal::Unavailable)
}

/// [`print()`], and the grouping keys from the same parse (`keys.c`: libiberty's component tree,
/// `cplus_demangle_v3_components`), or `None` for the keys when the name uses a node kind the
/// walk does not read (the caller then takes them from cpp_demangle) or is a legacy Rust name.
/// The pattern is bounded by `limit` bytes too. Both are lent to `f` from this thread's buffers,
/// so a caller that builds one value of them copies each byte once (a Node.js build: 10k names,
/// each printed ~300 bytes).
///
/// Errors: [`Refusal`], as [`print()`]. Never panics; thread-safe.
#[cfg(weakscan_libiberty)]
pub fn with_keys<R>(
    plain: &str,
    limit: usize,
    f: impl FnOnce(&str, Option<TreeKeysRef<'_>>) -> R,
) -> Result<R, Refusal> {
    use std::ffi::{c_char, c_int, c_long};
    unsafe extern "C" {
        fn weakscan_cxxfilt_keys(
            name: *const c_char,
            buf: *mut c_char,
            cap: usize,
            keys: *mut RawKeys,
            have_keys: *mut c_int,
        ) -> c_long;
    }
    // memchr's vector search: std's `contains` took ~210 instructions a name (callgrind).
    if plain.len() > MAX_NAME_BYTES || memchr::memchr(0, plain.as_bytes()).is_some() {
        return Err(Refusal::BadInput);
    }
    if maybe_legacy_rust(plain) {
        return print(plain, limit).map(|text| f(&text, None));
    }
    thread_local! {
        /// The NUL-terminated name, the printed form's and the pattern's room, reused by every
        /// name of a thread.
        static BUFFERS: std::cell::RefCell<(Vec<u8>, Vec<u8>, Vec<u8>)> = const {
            std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new()))
        };
    }
    BUFFERS.with_borrow_mut(|(name, out, pattern)| {
        name.clear();
        name.extend_from_slice(plain.as_bytes());
        name.push(0);
        out.clear();
        out.reserve(limit);
        pattern.clear();
        pattern.reserve(limit);
        let mut raw = RawKeys {
            buf: pattern.as_mut_ptr().cast(),
            len: 0,
            cap: limit,
            name_start: 0,
            template_end: -1,
            separators: 0,
            ends: [0; MAX_SEPARATORS],
            entity: [0; MAX_SEPARATORS],
        };
        let mut have: c_int = 0;
        // SAFETY: `name` is NUL-terminated; `out` and `pattern` have room for `limit` bytes,
        // and weakscan_cxxfilt_keys writes at most that many into each and says how many.
        let n = unsafe {
            weakscan_cxxfilt_keys(
                name.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                limit,
                &mut raw,
                &mut have,
            )
        };
        let text = match n {
            -1 => return Err(Refusal::NotMangled),
            n if n >= 0 && (n as usize) <= limit => {
                // SAFETY: the first `n` bytes were written (see above).
                unsafe { out.set_len(n as usize) };
                std::str::from_utf8(out).map_err(|_| Refusal::NotUtf8)?
            }
            _ => return Err(Refusal::TooLong),
        };
        if have == 0 || raw.len > limit || raw.separators > MAX_SEPARATORS {
            return Ok(f(text, None));
        }
        // SAFETY: `raw.len` bytes of `pattern` were written (checked against its room above).
        unsafe { pattern.set_len(raw.len) };
        let off = |x: c_long| u32::try_from(x).ok();
        let keys = (|| {
            Some(TreeKeysRef {
                pattern: std::str::from_utf8(pattern).ok()?,
                name_start: off(raw.name_start)?,
                template_end: match raw.template_end {
                    -1 => None,
                    e => Some(off(e)?),
                },
                ends: &raw.ends[..raw.separators],
                entity: &raw.entity[..raw.separators],
            })
        })();
        Ok(f(text, keys))
    })
}

/// `cxxfilt.c`'s `weakscan_maybe_legacy_rust`: the name can be a legacy Rust name, which
/// [`print()`] gives to `rust_demangle` first.
#[cfg(weakscan_libiberty)]
fn maybe_legacy_rust(plain: &str) -> bool {
    plain.starts_with("_ZN") && plain[3..].contains("17h")
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

    /// `print_with_keys` on `plain`: the printed form, and the keys as
    /// `(pattern, name start, template end, separators)`.
    type Parts = (String, u32, Option<u32>, Vec<(u32, bool)>);

    fn keys(plain: &str) -> (String, Option<Parts>) {
        let (text, keys) = print_with_keys(plain, 16 * plain.len() + 256).unwrap();
        assert_eq!(text, print(plain, 16 * plain.len() + 256).unwrap());
        let keys = keys.map(|k| (k.pattern, k.name_start, k.template_end, k.separators));
        (text, keys)
    }

    #[test]
    fn keys_from_libiberty_components() {
        let k = |pattern: &str, start, end, seps: &[(u32, bool)]| {
            Some((pattern.to_string(), start, end, seps.to_vec()))
        };
        // Template arguments and parameters elided; the qualifier after the parameter list kept.
        assert_eq!(
            keys("_ZNK5boost16cpp_regex_traitsIcE7isctypeEcj").1,
            k(
                "boost::cpp_regex_traits<…>::isctype(…) const",
                0,
                Some(28),
                &[(5, false), (28, true)]
            )
        );
        // A function template's return type is not part of the pattern.
        assert_eq!(keys("_Z3maxIiET_S0_S0_").1, k("max<…>(…)", 0, Some(8), &[]));
        // Special names: the prefix kept, the name proper after it.
        assert_eq!(
            keys("_ZTVN2v88internal12DeserializerINS0_7IsolateEEE").1,
            k(
                "vtable for v8::internal::Deserializer<…>",
                11,
                Some(42),
                &[(13, false), (23, false)]
            )
        );
        assert_eq!(
            keys("_ZThn8_N6v8impl9ReferenceD1Ev").1,
            k(
                "non-virtual thunk to v8impl::Reference::~Reference(…)",
                21,
                None,
                &[(27, false), (38, false)]
            )
        );
        assert_eq!(
            keys("_ZGVZN4node6Malloc4argsEvE1x").1,
            k(
                "guard variable for node::Malloc::args(…)::x",
                19,
                None,
                &[(23, false), (31, false), (42, true)]
            )
        );
        // A lambda's call operator in a local name: its `const` sits on the local name.
        assert_eq!(
            keys("_ZZZN4node14ThreadPoolWork12ScheduleWorkEvENKUlP9uv_work_sE_clES2_E27trace_event_unique_atomic43").1,
            k(
                "node::ThreadPoolWork::ScheduleWork(…)::{lambda(…)#1}::operator()(…) const::trace_event_unique_atomic43",
                0,
                None,
                &[(4, false), (20, false), (39, true), (56, true), (79, true)]
            )
        );
        assert_eq!(
            keys("_ZNKR1A1fEv").1,
            k("A::f(…) const &", 0, None, &[(1, false)])
        );
        assert_eq!(
            keys("_ZSt7nothrow").1,
            k("std::nothrow", 0, None, &[(3, false)])
        );
    }

    #[test]
    fn keys_left_to_cpp_demangle_where_the_walk_gives_up() {
        // A conversion operator's type, `operator<` with template arguments, a legacy Rust name:
        // printed, no keys.
        assert_eq!(keys("_ZN2ns1AcvNSt3__16vectorIiEEEv").1, None);
        assert_eq!(keys("_ZltIiEbRKT_S2_").1, None);
        assert_eq!(
            keys("_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE").1,
            None
        );
        // A name with an `sr` unresolved name (any name holding the bytes `sr`): libiberty's
        // component parse of it is not d_demangle_callback's (keys.c), so no keys from it.
        // (Node.js 22.11.0's `v8::base::PrintCheckOperand<void const*>`.)
        let (text, keys) = keys(concat!(
            "_ZN2v84base17PrintCheckOperandIPKvEENSt3__19enable_ifIXaaaantsr3std11is_functionINS4_",
            "14remove_pointerIT_E4typeEEE5valuentsr3std7is_enumIS7_EE5valuesr19has_output_operator",
            "IS7_NS0_18CheckMessageStreamEEE5valueENS4_12basic_stringIcNS4_11char_traitsIcEENS4_9",
            "allocatorIcEEEEE4typeES7_"
        ));
        assert!(
            text.contains("v8::base::PrintCheckOperand<void const*>"),
            "{text}"
        );
        assert_eq!(keys, None);
    }

    #[test]
    fn regression_names_past_half_the_recursion_limit_are_not_demangled_as_cxxfilt() {
        // d_demangle_callback (c++filt) refuses a name of more than DEMANGLE_RECURSION_LIMIT / 2
        // = 1024 bytes; cplus_demangle_v3_components did not, so a 1025-byte name was printed
        // demangled where c++filt prints it raw (review finding).
        let at_limit = format!("_Z1f{}", "i".repeat(1020));
        let past = format!("_Z1f{}", "i".repeat(1021));
        assert_eq!(at_limit.len(), 1024);
        assert!(print_with_keys(&at_limit, 1 << 16).unwrap().1.is_some());
        assert_eq!(print(&past, 1 << 16), Err(Refusal::NotMangled));
        assert_eq!(print_with_keys(&past, 1 << 16), Err(Refusal::NotMangled));
        // Deep chains past it never reach the component parser, whose recursion follows them.
        let deep = format!("_Z1f{}i", "P".repeat(100_000));
        assert_eq!(print_with_keys(&deep, 1 << 20), Err(Refusal::NotMangled));
    }

    #[test]
    fn nul_and_oversized_names_are_refused() {
        assert_eq!(print("_Z1f\0v", 64), Err(Refusal::BadInput));
        let long = format!("_Z{}", "1a".repeat(MAX_NAME_BYTES));
        assert_eq!(print(&long, 64), Err(Refusal::BadInput));
    }
}
