//! Group keys from the parsed name: `(pattern, name_start, template_end, namespace ends)`
//! ([`KeyParts`]), the same on every name as weakscan has always given them (docs/names.md).
//!
//! The keys are defined over a writing of the name in the order and pieces the key rules read
//! ([`Sink`]): the text of each component of the name, `::` between them inside the qualified
//! name, each template-argument list as `<…>` (its content never read), each parameter list
//! as `(…)`, a special name's prefix, and a function template's return type followed by a
//! space, which drops everything before it. [`Emitter`] writes a parsed name so; the spelling
//! of closure and unnamed types (`{lambda(…)#1}`, `{unnamed type#1}`) and of the
//! `TLS …`/`reference temporary …` prefixes is the one keys have always used, not LLVM's.
//!
//! One rule is inherited as it is: a closure type whose parameter is itself a qualified class
//! name (`{lambda(v8::Local<v8::Context>)#1}`) takes the parameter list of the function whose
//! name it is in, so the function's key ends without `(…)`
//! (`regression_lambda_invoke_members_grouped_differently_by_build`).

use super::parse::{
    Arena, CONST, List, NONE, Node, OPERATORS, RESTRICT, STANDARD, SpecialKind, VOLATILE,
};
use crate::analysis::demangle::KeyParts;

/// What a frame of the writing is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// A qualified name: `::` inside it separates components.
    NestedName,
    /// One component's text.
    Component,
    /// A template-argument list (its text is never read).
    TemplateArgs,
    /// A template parameter's argument.
    Param,
}

/// Builds the keys from the writing (see the module docs). Reused per thread.
#[derive(Debug, Default)]
pub struct Sink {
    stack: Vec<Frame>,
    template_args: usize,
    params: usize,
    params_seen: bool,
    pattern: String,
    name_start: usize,
    template_end: Option<usize>,
    closing_template_args: bool,
    component_is_entity: bool,
    component_namespace: Vec<bool>,
    separators: Vec<usize>,
    after_operator: bool,
    conversion: bool,
}

impl Sink {
    fn reset(&mut self, capacity: usize) {
        self.stack.clear();
        self.template_args = 0;
        self.params = 0;
        self.params_seen = false;
        self.pattern = String::with_capacity(capacity);
        self.name_start = 0;
        self.template_end = None;
        self.closing_template_args = false;
        self.component_is_entity = false;
        self.component_namespace.clear();
        self.separators.clear();
        self.after_operator = false;
        self.conversion = false;
    }

    fn in_name_structure(&self) -> bool {
        self.stack.iter().all(|t| *t == Frame::NestedName)
    }

    fn push(&mut self, t: Frame) {
        if t == Frame::TemplateArgs {
            if self.template_args == 0 && self.params == 0 {
                self.pattern.push('…');
                self.component_is_entity = true;
            }
            self.template_args += 1;
        }
        self.stack.push(t);
    }

    fn pop(&mut self) {
        if self.stack.pop() == Some(Frame::TemplateArgs) {
            self.template_args -= 1;
            self.closing_template_args = self.template_args == 0 && self.params == 0;
        }
    }

    /// The keys (`None` past 4 GiB, which no bounded name reaches).
    fn finish(&mut self) -> Option<KeyParts> {
        let off = |x: usize| u32::try_from(x).ok();
        let pattern = std::mem::take(&mut self.pattern);
        let template_end = self.template_end.unwrap_or(pattern.len());
        let namespace_components = self.component_namespace.iter().take_while(|&&n| n).count();
        let ends = self.separators[..namespace_components]
            .iter()
            .map(|&sep| off(sep))
            .collect::<Option<Box<[u32]>>>()?;
        let (name_start, template_end) = (off(self.name_start)?, off(template_end)?);
        Some((pattern, name_start, template_end, ends))
    }

    fn write(&mut self, s: &str) {
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
            for (i, b) in s.bytes().enumerate() {
                match b {
                    b'(' => self.params += 1,
                    b')' => self.params -= 1,
                    _ => continue,
                }
                if self.params == 0 {
                    let rest = &s[i + 1..];
                    if !rest.is_empty() {
                        self.write(rest);
                    }
                    return;
                }
            }
            return;
        }
        if let Some(rest) = s.strip_prefix("{lambda(") {
            self.pattern.push_str("{lambda(…)");
            self.params = 1;
            self.component_is_entity = true;
            if !rest.is_empty() {
                self.write(rest);
            }
            return;
        }
        let empty = self.stack.is_empty();
        if after_operator && s == " " && !empty {
            self.conversion = true;
        }
        if s == "operator" && !empty {
            self.after_operator = true;
        }
        if empty && s.starts_with('(') {
            self.conversion = false;
            self.pattern.push_str("(…)");
            self.params = 1;
            self.params_seen = true;
            self.component_is_entity = true;
            let rest = &s[1..];
            if !rest.is_empty() {
                self.write(rest);
            }
            return;
        }
        if empty && s == " " && !self.params_seen {
            // After a function template's return type.
            self.pattern.truncate(self.name_start);
            self.template_end = None;
            self.separators.clear();
            self.component_namespace.clear();
            self.component_is_entity = false;
            return;
        }
        if empty && s.ends_with(' ') && self.separators.is_empty() && self.template_end.is_none() {
            // A special name's prefix: the name proper starts after it.
            self.pattern.push_str(s);
            self.name_start = self.pattern.len();
            return;
        }
        if s == "std::"
            && empty
            && self.pattern.len() == self.name_start
            && self.separators.is_empty()
        {
            // An unscoped `std::` name (5.1.5 `<unscoped-name>`): `std` is its first
            // component, a namespace.
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

/// Writes a parsed name into a [`Sink`].
pub struct Emitter<'a> {
    arena: &'a Arena,
    input: &'a [u8],
    sink: &'a mut Sink,
    /// The function whose parameter list has not been written yet.
    pending: u32,
    /// Template parameters being followed to their arguments (a forward reference can name
    /// itself: LLVM prints nothing there, and neither is anything written here).
    following: u32,
}

/// Most template parameters followed inside one another.
const MAX_FOLLOWING: u32 = 64;

/// The keys of the parsed name `root` of `input`.
pub fn keys(arena: &Arena, input: &[u8], root: u32, sink: &mut Sink) -> Option<KeyParts> {
    sink.reset(input.len() + 16);
    let mut e = Emitter {
        arena,
        input,
        sink,
        pending: NONE,
        following: 0,
    };
    e.encoding(root);
    e.sink.finish()
}

impl Emitter<'_> {
    fn node(&self, n: u32) -> Node {
        self.arena.nodes[n as usize]
    }

    fn span(&self, s: super::parse::Span) -> &str {
        let b = &self.input[s.start as usize..(s.start + s.len) as usize];
        std::str::from_utf8(b).unwrap_or("?")
    }

    fn w(&mut self, s: &str) {
        self.sink.write(s);
    }

    /// An `<encoding>`: its own parameter list pending while its name is written.
    fn encoding(&mut self, n: u32) {
        let saved = std::mem::replace(&mut self.pending, NONE);
        match self.node(n) {
            Node::Function {
                name,
                ret,
                cv,
                refq,
                ..
            } => {
                if ret != NONE {
                    self.w(" ");
                }
                self.pending = n;
                self.name(name);
                if self.pending == n {
                    self.pending = NONE;
                    self.params(n);
                }
                self.qualifiers(cv, refq);
            }
            Node::Special { kind, child } => self.special(kind, child),
            Node::CtorVtable { of, in_ } => {
                self.w("construction vtable for ");
                self.ty(in_);
                self.w("-in-");
                self.ty(of);
            }
            Node::DotSuffix { encoding, suffix } => {
                self.encoding(encoding);
                let s = format!(" [clone {}]", self.span(suffix));
                self.w(&s);
            }
            _ => self.name(n),
        }
        self.pending = saved;
    }

    fn special(&mut self, kind: SpecialKind, child: u32) {
        match kind {
            SpecialKind::Vtable
            | SpecialKind::Vtt
            | SpecialKind::Typeinfo
            | SpecialKind::TypeinfoName => {
                self.w(kind.prefix());
                self.ty(child);
            }
            SpecialKind::NonVirtualThunk
            | SpecialKind::VirtualThunk
            | SpecialKind::CovariantThunk => {
                self.w(kind.prefix());
                self.encoding(child);
            }
            SpecialKind::ParamObject => {
                self.w(kind.prefix());
                if let Node::Expr { a, .. } = self.node(child) {
                    self.ty(a);
                }
            }
            SpecialKind::TlsWrapper => {
                self.w("TLS wrapper function for ");
                self.name(child);
            }
            SpecialKind::TlsInit => {
                self.w("TLS init function for ");
                self.name(child);
            }
            SpecialKind::Guard => {
                self.w(kind.prefix());
                self.name(child);
            }
            SpecialKind::RefTemporary => {
                self.w("reference temporary #0 for ");
                self.name(child);
            }
        }
    }

    /// The parameter list of function `f`: only its parentheses are read.
    fn params(&mut self, _f: u32) {
        self.w("(");
        self.w(")");
    }

    fn qualifiers(&mut self, cv: u8, refq: u8) {
        for (bit, word) in [
            (CONST, "const"),
            (VOLATILE, "volatile"),
            (RESTRICT, "restrict"),
        ] {
            if cv & bit != 0 {
                self.w(" ");
                self.w(word);
            }
        }
        match refq {
            1 => {
                self.w(" ");
                self.w("&");
            }
            2 => {
                self.w(" ");
                self.w("&&");
            }
            _ => {}
        }
    }

    /// Is `n` a name written as a qualified name (`N … E`)?
    fn is_nested(&self, n: u32) -> bool {
        match self.node(n) {
            Node::Nested { .. } => true,
            Node::Template { name, .. } => matches!(self.node(name), Node::Nested { .. }),
            _ => false,
        }
    }

    /// A `<name>`.
    fn name(&mut self, n: u32) {
        match self.node(n) {
            Node::Local { encoding, entity } => {
                self.encoding(encoding);
                if entity == NONE {
                    self.w("::string literal");
                } else {
                    self.w("::");
                    self.name(entity);
                }
            }
            _ if self.is_nested(n) => {
                self.sink.push(Frame::NestedName);
                self.chain(n);
                self.sink.pop();
            }
            Node::Template { name, args } => {
                self.name(name);
                self.space_after_less(name);
                self.args(args);
            }
            Node::UnscopedStd(inner) => {
                self.w("std::");
                self.component(inner);
            }
            _ => self.component(n),
        }
    }

    /// A space between an operator ending in `<` and its template arguments (`operator<< <…>`).
    fn space_after_less(&mut self, name: u32) {
        let last = match self.node(name) {
            Node::Nested { name, .. } => self.node(name),
            other => other,
        };
        if let Node::Operator(op) = last
            && OPERATORS[op as usize].2.ends_with('<')
        {
            self.w(" ");
        }
    }

    fn args(&mut self, _args: u32) {
        self.w("<");
        self.sink.push(Frame::TemplateArgs);
        self.sink.pop();
        self.w(">");
    }

    /// The components of a qualified name, `::` between them.
    fn chain(&mut self, n: u32) {
        match self.node(n) {
            Node::Nested { prefix, name, .. } => {
                self.chain(prefix);
                self.w("::");
                self.component(name);
            }
            Node::Template { name, args } => {
                self.chain(name);
                self.space_after_less(name);
                self.args(args);
            }
            Node::UnscopedStd(inner) => {
                self.w("std");
                self.w("::");
                self.component(inner);
            }
            _ => self.component(n),
        }
    }

    /// One component's text.
    fn component(&mut self, n: u32) {
        self.sink.push(Frame::Component);
        self.component_text(n);
        self.sink.pop();
    }

    fn component_text(&mut self, n: u32) {
        match self.node(n) {
            Node::Source(s) => {
                let input = self.input;
                let b = &input[s.start as usize..(s.start + s.len) as usize];
                self.w(std::str::from_utf8(b).unwrap_or("?"));
            }
            Node::AnonNamespace => self.w("(anonymous namespace)"),
            Node::Text(t) => self.w(t),
            Node::StdSub(i) => self.w(STANDARD[i as usize].1),
            Node::CtorDtor { class, dtor } => {
                if dtor {
                    self.w("~");
                }
                self.base_name(class);
            }
            Node::Operator(op) => {
                let text = OPERATORS[op as usize].2["operator".len()..].trim_start();
                self.w("operator");
                if text.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    self.w(" ");
                }
                self.w(text);
            }
            Node::Conversion(t) => {
                self.w("operator");
                self.w(" ");
                let saved = std::mem::replace(&mut self.pending, NONE);
                self.ty(t);
                self.pending = saved;
            }
            Node::LiteralOperator(s) => {
                self.w("operator\"\" ");
                self.component_text(s);
            }
            Node::Closure { params, number, .. } => {
                self.w("{lambda(");
                self.closure_params(params);
                let n = self.discriminator(number);
                let s = format!(")#{n}}}");
                self.w(&s);
            }
            Node::Unnamed(number) => {
                let n = self.discriminator(number);
                let s = format!("{{unnamed type#{n}}}");
                self.w(&s);
            }
            Node::Block => self.w("'block-literal'"),
            Node::Binding(l) => {
                self.w("[");
                for (k, &c) in self.arena.list(l).iter().enumerate() {
                    if k > 0 {
                        self.w(", ");
                    }
                    self.component_text(c);
                }
                self.w("]");
            }
            Node::AbiTag { name, tag } => {
                self.component_text(name);
                let s = format!("[abi:{}]", self.span(tag));
                self.w(&s);
            }
            Node::TemplateParam { target } => self.param(target),
            Node::Nested { .. } | Node::Template { .. } | Node::UnscopedStd(_) => self.name(n),
            _ => self.ty(n),
        }
    }

    /// The number a closure or unnamed type is written with: its discriminator plus 2, or 1.
    fn discriminator(&self, number: super::parse::Span) -> u64 {
        if number.len == 0 {
            return 1;
        }
        self.span(number)
            .parse::<u64>()
            .map_or(u64::MAX, |n| n.saturating_add(2))
    }

    /// A closure's parameters: only the parentheses are read, and a parameter that is a
    /// qualified class name takes the pending function's parameter list (module docs).
    fn closure_params(&mut self, l: List) {
        for &p in self.arena.list(l) {
            if self.pending != NONE && self.is_nested(p) {
                self.pending = NONE;
                self.w("(");
                self.w(")");
            }
        }
    }

    /// The name a constructor or destructor of `class` is written with.
    fn base_name(&mut self, class: u32) {
        match self.node(class) {
            Node::Nested { name, .. } => self.base_name(name),
            Node::Template { name, .. } => self.base_name(name),
            Node::UnscopedStd(inner) => self.base_name(inner),
            Node::AbiTag { name, .. } => self.base_name(name),
            Node::TemplateParam { target } if target != NONE && self.following < MAX_FOLLOWING => {
                self.following += 1;
                self.base_name(target);
                self.following -= 1;
            }
            Node::StdSub(i) => {
                let t = STANDARD[i as usize].1;
                self.w(&t["std::".len()..]);
            }
            _ => self.component_text(class),
        }
    }

    /// A template parameter: the argument it names.
    fn param(&mut self, target: u32) {
        self.sink.push(Frame::Param);
        if target != NONE && self.following < MAX_FOLLOWING {
            self.following += 1;
            self.ty(target);
            self.following -= 1;
        }
        self.sink.pop();
    }

    /// A type, as the keys write it.
    fn ty(&mut self, n: u32) {
        if n == NONE {
            return;
        }
        match self.node(n) {
            Node::Text(t) => self.w(t),
            Node::Qualified { child, cv } => {
                self.ty(child);
                self.qualifiers(cv, 0);
            }
            Node::Pointer(c) => {
                self.ty(c);
                self.w("*");
            }
            Node::Reference { child, rvalue } => {
                self.ty(child);
                self.w(if rvalue { "&&" } else { "&" });
            }
            Node::FunctionType { ret, .. } => {
                self.ty(ret);
                self.w(" ");
                self.w("(");
                self.w(")");
            }
            Node::Array { child, .. } => {
                self.ty(child);
                self.w(" ");
                self.w("[");
                self.w("]");
            }
            Node::TemplateParam { target } => self.param(target),
            Node::Elaborated { child, .. } => self.ty(child),
            Node::Nested { .. }
            | Node::Template { .. }
            | Node::UnscopedStd(_)
            | Node::Local { .. } => self.name(n),
            Node::Source(_)
            | Node::AnonNamespace
            | Node::StdSub(_)
            | Node::AbiTag { .. }
            | Node::Closure { .. }
            | Node::Unnamed(_)
            | Node::CtorDtor { .. }
            | Node::Operator(_)
            | Node::Conversion(_) => self.component(n),
            Node::Function { .. } | Node::Special { .. } | Node::DotSuffix { .. } => {
                self.encoding(n)
            }
            _ => self.w("?"),
        }
    }
}
