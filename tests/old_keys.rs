//! The group keys as weakscan gave them before it read names itself: from cpp_demangle's
//! structure (the nodes it reports while it prints, [`DemangleWrite`]), and the special names it
//! prints unlike c++filt read through the name that holds their structure. Kept here, in the
//! tests only, as the reference the name engine's keys are held to on every name of the corpus
//! (`names::keys_of_the_name_engine_are_the_old_keys_on_every_name`): baselines and `--group`
//! patterns written with these keys keep working.

/// cpp_demangle's recursion limits, as weakscan set them.
const RECURSION_LIMIT: u32 = 2048;
use cpp_demangle::{
    BorrowedSymbol, DemangleNodeType, DemangleOptions, DemangleWrite, ParseOptions,
};
use std::fmt;

use weakscan::analysis::demangle::KeyParts;

/// cpp_demangle's printed form (when `keep_text`, else empty) and keys of `plain`, or `None` if
/// it cannot parse or print it within `limit` bytes.
///
/// Special names whose form cpp_demangle prints otherwise than c++filt (`{vtable(X)}`, `{vtt(X)}`,
/// `{virtual override thunk(…)}`) or cannot parse (`_ZTA`, template parameter objects) are read
/// through the name that holds their structure — the class's typeinfo, the thunk's target — and
/// given c++filt's prefix (see [`special`]).
pub(crate) fn structure(plain: &str, limit: usize, keep_text: bool) -> Option<(String, KeyParts)> {
    let Some(sp) = special(plain) else {
        return structure_of(plain, limit, keep_text, false);
    };
    let (text, (pattern, name_start, template_end, ends)) =
        structure_of(&sp.parse, limit, keep_text, sp.tail)?;
    let rest = pattern.strip_prefix(sp.drop)?;
    let text = match text.strip_prefix(sp.drop) {
        Some(t) if keep_text => format!("{}{t}", sp.prefix),
        _ => text,
    };
    // Offsets move by the difference of the prefixes; the name proper starts after the new one.
    let shift = |x: u32| -> Option<u32> {
        (x as usize)
            .checked_sub(sp.drop.len())?
            .checked_add(sp.prefix.len())
            .and_then(|v| u32::try_from(v).ok())
    };
    let ends = ends
        .iter()
        .map(|&e| shift(e))
        .collect::<Option<Box<[u32]>>>()?;
    let pattern = format!("{}{rest}", sp.prefix);
    Some((
        text,
        (pattern, shift(name_start)?, shift(template_end)?, ends),
    ))
}

/// A special name read through another one: c++filt's prefix for it, the name cpp_demangle
/// parses instead, the prefix that name prints with (replaced by `prefix`), and whether bytes
/// may follow it (the initializer of a template parameter object).
struct Special {
    prefix: &'static str,
    parse: String,
    drop: &'static str,
    tail: bool,
}

/// The [`Special`] reading of `plain`, for the special names of the Itanium ABI (5.1.4.1
/// `<special-name>`) that cpp_demangle prints unlike c++filt or cannot parse: `TV` vtable, `TT`
/// VTT, `TA` template parameter object (as `TI` typeinfo of its type), `Th`/`Tv`/`Tc` thunks (as
/// their target encoding, after the call offsets).
fn special(plain: &str) -> Option<Special> {
    let rest = plain.strip_prefix("_ZT")?;
    let typeinfo = |prefix: &'static str, ty: &str, tail: bool| Special {
        prefix,
        parse: format!("_ZTI{ty}"),
        drop: "typeinfo for ",
        tail,
    };
    let thunk = |prefix: &'static str, encoding: &str| Special {
        prefix,
        parse: format!("_Z{encoding}"),
        drop: "",
        tail: false,
    };
    // <call-offset> ::= h <nv-offset> _ | v <v-offset> _ ; a <v-offset> is two numbers.
    fn call_offset(s: &str) -> Option<&str> {
        // `get`: the byte after the kind may start a multi-byte character (printer fuzz
        // finding: `_ZTc` followed by U+FFFD panicked slicing inside it).
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

/// [`structure`] of a name cpp_demangle reads as it is (followed by other bytes if `tail`).
fn structure_of(
    plain: &str,
    limit: usize,
    keep_text: bool,
    tail: bool,
) -> Option<(String, KeyParts)> {
    let parse = ParseOptions::default().recursion_limit(RECURSION_LIMIT);
    let sym = if tail {
        BorrowedSymbol::with_tail_and_options(plain.as_bytes(), &parse)
            .ok()?
            .0
    } else {
        BorrowedSymbol::new_with_options(plain.as_bytes(), &parse).ok()?
    };
    let print = DemangleOptions::new().recursion_limit(RECURSION_LIMIT);
    let mut keys = KeySink {
        full: String::with_capacity(if keep_text { plain.len() * 2 } else { 0 }),
        keep_text,
        pattern: String::with_capacity(plain.len()),
        limit,
        ..KeySink::default()
    };
    sym.structured_demangle(&mut keys, &print).ok()?;
    let text = std::mem::take(&mut keys.full);
    Some((text, keys.finish()?))
}

/// Builds the grouping keys from cpp_demangle's structured output.
#[derive(Default)]
struct KeySink {
    /// Everything written (when `keep_text`): cpp_demangle's printed form.
    full: String,
    /// Keep the printed form (else only its length is counted).
    keep_text: bool,
    /// Bytes written.
    written: usize,
    /// Most bytes `full` may hold before printing is abandoned.
    limit: usize,
    /// Open nodes.
    stack: Vec<DemangleNodeType>,
    /// Open `TemplateArgs` nodes (text inside is dropped).
    template_args: usize,
    /// Paren depth inside a collapsed parameter list.
    params: usize,
    /// A parameter list has been collapsed (what follows is no return type).
    params_seen: bool,
    /// Pattern text.
    pattern: String,
    /// Byte offset in `pattern` where the name proper starts (after a special-name prefix).
    name_start: usize,
    /// `pattern[name_start..end]` of the first template-argument list of the name.
    template_end: Option<usize>,
    /// The outermost `TemplateArgs` node just closed; its `>` comes next.
    closing_template_args: bool,
    /// The component being written has template arguments or a parameter list.
    component_is_entity: bool,
    /// For each finished component: it can be a namespace.
    component_namespace: Vec<bool>,
    /// Offsets in `pattern` of the `::` separating the name's components.
    separators: Vec<usize>,
    /// The last write was `operator` inside the name.
    after_operator: bool,
    /// Inside a conversion operator's type (`operator std::vector<int>`): its template
    /// arguments are not the name's.
    conversion: bool,
}

impl KeySink {
    fn in_name_structure(&self) -> bool {
        self.stack.iter().all(|t| {
            matches!(
                t,
                DemangleNodeType::NestedName
                    | DemangleNodeType::Prefix
                    | DemangleNodeType::TemplatePrefix
            )
        })
    }

    /// The pattern, where its name proper starts, where its template ends, and where each
    /// leading namespace component ends (`None` past 4 GiB, which the print limit forbids).
    fn finish(self) -> Option<KeyParts> {
        let off = |x: usize| u32::try_from(x).ok();
        let template_end = self.template_end.unwrap_or(self.pattern.len());
        let namespace_components = self.component_namespace.iter().take_while(|&&n| n).count();
        let ends = self.separators[..namespace_components]
            .iter()
            .map(|&sep| off(sep))
            .collect::<Option<Box<[u32]>>>()?;
        let (name_start, template_end) = (off(self.name_start)?, off(template_end)?);
        Some((self.pattern, name_start, template_end, ends))
    }
}

impl DemangleWrite for KeySink {
    fn push_demangle_node(&mut self, t: DemangleNodeType) {
        if t == DemangleNodeType::TemplateArgs {
            // cpp_demangle writes `<` before and `>` after the node: keep those, drop the inside.
            if self.template_args == 0 && self.params == 0 {
                self.pattern.push('…');
                self.component_is_entity = true;
            }
            self.template_args += 1;
        }
        self.stack.push(t);
    }

    fn pop_demangle_node(&mut self) {
        if self.stack.pop() == Some(DemangleNodeType::TemplateArgs) {
            self.template_args -= 1;
            self.closing_template_args = self.template_args == 0 && self.params == 0;
        }
    }

    fn write_string(&mut self, s: &str) -> fmt::Result {
        if self.written + s.len() > self.limit {
            return Err(fmt::Error);
        }
        self.written += s.len();
        if self.keep_text {
            self.full.push_str(s);
        }
        self.keys(s);
        Ok(())
    }
}

impl KeySink {
    fn keys(&mut self, s: &str) {
        if self.template_args > 0 {
            return;
        }
        let after_operator = std::mem::take(&mut self.after_operator);
        if std::mem::take(&mut self.closing_template_args) && s == ">" {
            self.pattern.push('>');
            if self.template_end.is_none() && !self.conversion {
                self.template_end = Some(self.pattern.len());
            }
            return;
        }
        if self.params > 0 {
            // Parentheses are ASCII, so each one found is a character boundary.
            for i in memchr::memchr2_iter(b'(', b')', s.as_bytes()) {
                match s.as_bytes()[i] {
                    b'(' => self.params += 1,
                    _ => self.params -= 1,
                }
                if self.params == 0 {
                    // Whatever follows the closing paren (e.g. " const") is kept.
                    let rest = &s[i + 1..];
                    if !rest.is_empty() {
                        self.keys(rest);
                    }
                    return;
                }
            }
            return;
        }
        if let Some(rest) = s.strip_prefix("{lambda(") {
            // A closure type: its parameter list is collapsed like a function's, the `)#N}` after
            // it kept.
            self.pattern.push_str("{lambda(…)");
            self.params = 1;
            self.component_is_entity = true;
            if !rest.is_empty() {
                return self.keys(rest);
            }
            return;
        }
        if after_operator && s == " " && !self.stack.is_empty() {
            // `operator` then a space inside the name: a conversion operator, whose type follows.
            self.conversion = true;
        }
        if s == "operator" && !self.stack.is_empty() {
            self.after_operator = true;
        }
        if self.stack.is_empty() && s.starts_with('(') {
            self.conversion = false;
            // A parameter list of the name (outside every node).
            self.pattern.push_str("(…)");
            self.params = 1;
            self.params_seen = true;
            self.component_is_entity = true;
            let rest = &s[1..];
            if !rest.is_empty() {
                return self.keys(rest);
            }
            return;
        }
        if self.stack.is_empty() && s == " " && !self.params_seen {
            // cpp_demangle's ensure_space after a function template's return type: what came
            // before is the return type, which is not part of the pattern.
            self.pattern.truncate(self.name_start);
            self.template_end = None;
            self.separators.clear();
            self.component_namespace.clear();
            self.component_is_entity = false;
            return;
        }
        if self.stack.is_empty()
            && s.ends_with(' ')
            && self.separators.is_empty()
            && self.template_end.is_none()
        {
            // A special-name prefix such as "guard variable for ": kept in the pattern, but the
            // name proper starts after it.
            self.pattern.push_str(s);
            self.name_start = self.pattern.len();
            return;
        }
        if s == "std::"
            && self.stack.is_empty()
            && self.pattern.len() == self.name_start
            && self.separators.is_empty()
        {
            // An unscoped `std::` name (`St`, Itanium C++ ABI 5.1.5 `<unscoped-name>`), which
            // cpp_demangle writes outside every node: `std` is its first component, a namespace,
            // as in `std::nothrow` and `typeinfo for std::length_error`.
            self.pattern.push_str("std");
            self.separators.push(self.pattern.len());
            self.component_namespace.push(true);
            self.pattern.push_str("::");
            return;
        }
        if s == "::" && self.in_name_structure() {
            self.conversion = false;
            self.separators.push(self.pattern.len());
            self.component_namespace
                .push(!std::mem::take(&mut self.component_is_entity));
        }
        self.pattern.push_str(s);
    }
}
