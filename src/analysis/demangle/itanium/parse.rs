//! The Itanium C++ ABI mangling grammar (section 5.1, "External Names"), read into an arena of
//! nodes addressed by `u32` indices.
//!
//! Which productions and vendor extensions are read, and where substitution candidates are
//! recorded, follows LLVM's demangler (`llvm/include/llvm/Demangle/ItaniumDemangle.h`,
//! `AbstractManglingParser`, the code of `__cxa_demangle` and Apple's `c++filt`), so a name is
//! read here exactly when LLVM reads it (the `demangle` fuzz target holds the two together).
//!
//! Bounded: every production consumes input or fails, each node costs a step ([`Steps`]), and
//! the recursion is at most [`MAX_DEPTH`] deep.

use super::budget::{MAX_DEPTH, Reject, Steps};

/// No node.
pub const NONE: u32 = u32::MAX;

/// A run of node indices in [`Arena::lists`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct List {
    pub start: u32,
    pub len: u32,
}

/// A run of bytes of the mangled name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

/// CV-qualifiers (5.1.5.3 `<CV-qualifiers>`): bit 0 const, 1 volatile, 2 restrict.
pub type Cv = u8;
pub const CONST: Cv = 1;
pub const VOLATILE: Cv = 2;
pub const RESTRICT: Cv = 4;

/// Ref-qualifier of a member function: 0 none, 1 `&`, 2 `&&`.
pub type RefQual = u8;

/// A special name (5.1.4 `<special-name>`), by the prefix c++filt prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    Vtable,
    Vtt,
    Typeinfo,
    TypeinfoName,
    NonVirtualThunk,
    VirtualThunk,
    CovariantThunk,
    TlsWrapper,
    TlsInit,
    Guard,
    RefTemporary,
    /// `TA <template-arg>`.
    ParamObject,
}

impl SpecialKind {
    /// The prefix c++filt (LLVM) prints; keys use it too.
    pub fn prefix(self) -> &'static str {
        match self {
            SpecialKind::Vtable => "vtable for ",
            SpecialKind::Vtt => "VTT for ",
            SpecialKind::Typeinfo => "typeinfo for ",
            SpecialKind::TypeinfoName => "typeinfo name for ",
            SpecialKind::NonVirtualThunk => "non-virtual thunk to ",
            SpecialKind::VirtualThunk => "virtual thunk to ",
            SpecialKind::CovariantThunk => "covariant return thunk to ",
            SpecialKind::TlsWrapper => "thread-local wrapper routine for ",
            SpecialKind::TlsInit => "thread-local initialization routine for ",
            SpecialKind::Guard => "guard variable for ",
            SpecialKind::RefTemporary => "reference temporary for ",
            SpecialKind::ParamObject => "template parameter object for ",
        }
    }
}

/// Kinds of expression node (5.1.6 `<expression>`); what LLVM prints around them is bounded in
/// `len.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprKind {
    /// An operator with its operands (`op` indexes [`OPERATORS`]).
    Op(u8),
    /// `cv <type> <expr>` / `cv <type> _ <expr>* E`.
    Cast,
    /// `tl`/`il` braced initializer list (type in `a`).
    InitList,
    /// `di`/`dx`/`dX` designated initializers.
    Braced,
    /// `sZ`, `sP`: sizeof...
    SizeofPack,
    /// `f[lLrR]`: a fold expression (operator in `c`).
    Fold,
    /// `tw`, `tr`.
    Throw,
    /// `nx`: noexcept (expr).
    Noexcept,
    /// `u <source-name> <template-arg>* E`: vendor extended expression.
    Vendor,
    /// `sr …`, a possibly qualified unresolved name.
    Unresolved,
    /// `dn <name>`: destructor name.
    DtorName,
    /// `gs` prefix.
    Global,
}

/// One node of a parsed name. Child fields are node indices ([`NONE`] when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    /// A `<source-name>`'s identifier.
    Source(Span),
    /// `_GLOBAL__N…`: `(anonymous namespace)`.
    AnonNamespace,
    /// Fixed text: a builtin type, `std`, `string literal`, `auto`, `this` …
    Text(&'static str),
    /// `prefix::name` (5.1.5 `<nested-name>`); `friend`: a member-like friend (`F` before the
    /// name), which LLVM prints `prefix::friend name` (`MemberLikeFriendName`).
    Nested {
        prefix: u32,
        name: u32,
        friend: bool,
    },
    /// `St <unqualified-name>`: `std::name` (5.1.5 `<unscoped-name>`).
    UnscopedStd(u32),
    /// `name<args>`; `args` is a [`Node::Args`].
    Template { name: u32, args: u32 },
    /// A `<template-args>` list (5.1.5.5).
    Args(List),
    /// `J … E`: an argument pack (printed as its elements, by expansions one at a time).
    Pack(List),
    /// A constructor (`dtor` false) or destructor of the class `class` (5.1.5.4).
    CtorDtor { class: u32, dtor: bool },
    /// An operator name (`op` indexes [`OPERATORS`]).
    Operator(u8),
    /// `cv <type>`: a conversion operator.
    Conversion(u32),
    /// `li <source-name>`.
    LiteralOperator(u32),
    /// `Ul <lambda-sig> E [<number>] _` (5.1.8 closure types); `number` is the digits.
    Closure {
        params: List,
        tparams: List,
        number: Span,
    },
    /// `Ut [<number>] _` (5.1.8 unnamed types).
    Unnamed(Span),
    /// `Ub`: a block literal.
    Block,
    /// `DC <source-name>+ E`: a structured binding.
    Binding(List),
    /// `name B <source-name>` (5.1.5.2 ABI tags).
    AbiTag { name: u32, tag: Span },
    /// `Z <encoding> E <entity>` (5.1.5.7 local names); `entity` [`NONE`] for a string literal.
    Local { encoding: u32, entity: u32 },
    /// A function's encoding (5.1.2 `<encoding> ::= <name> <bare-function-type>`).
    Function {
        name: u32,
        ret: u32,
        params: List,
        cv: Cv,
        refq: RefQual,
        /// `Ua9enable_ifI … E` attributes and a `Q` requires-clause, each or [`NONE`].
        attrs: u32,
        requires: u32,
    },
    /// A special name.
    Special { kind: SpecialKind, child: u32 },
    /// `TC <type> <number> _ <type>`: construction vtable for `of` in `in_`.
    CtorVtable { of: u32, in_: u32 },
    /// A clone suffix `.…` after an encoding.
    DotSuffix { encoding: u32, suffix: Span },
    /// `<CV-qualifiers> <type>`.
    Qualified { child: u32, cv: Cv },
    /// `U <source-name> [<template-args>] <type>`.
    VendorQualified { child: u32, name: Span, args: u32 },
    /// `P <type>`.
    Pointer(u32),
    /// `R <type>` / `O <type>`.
    Reference { child: u32, rvalue: bool },
    /// `F … E` (5.1.5.3 function types), `spec` an exception spec or [`NONE`].
    FunctionType {
        ret: u32,
        params: List,
        cv: Cv,
        refq: RefQual,
        spec: u32,
    },
    /// `A <dimension> _ <type>`; `dim` a node or [`NONE`].
    Array { child: u32, dim: u32 },
    /// `M <class> <member>`.
    PointerToMember { class: u32, member: u32 },
    /// `T_`, `T<n>_`: resolved to the argument it names (`NONE` until a forward reference is
    /// resolved).
    TemplateParam { target: u32 },
    /// `Dp <type>`, `sp <expression>`.
    PackExpansion(u32),
    /// A type followed by fixed text (` complex`, ` imaginary`, a constrained ` auto`).
    Postfix { child: u32, text: &'static str },
    /// `Ts`/`Tu`/`Te` elaborated type.
    Elaborated { keyword: &'static str, child: u32 },
    /// `Dv …` vector type; `dim` a node or [`NONE`].
    Vector { child: u32, dim: u32 },
    /// `DB`/`DU` `_BitInt`.
    BitInt(u32),
    /// `u <source-name> [I <type> E]`.
    Transformed { name: Span, child: u32 },
    /// `Dt`/`DT`: decltype(expr).
    Decltype(u32),
    /// A standard substitution (5.1.5.10 `Sa`, `Sb`, `Ss`, `Si`, `So`, `Sd`): index into
    /// [`STANDARD`].
    StdSub(u8),
    /// An integer or enum literal: type text (or a type node in `ty`), digits.
    Literal {
        ty: u32,
        text: &'static str,
        digits: Span,
    },
    /// A literal of fixed form (`true`, `nullptr`, a float, a string literal of type `ty`).
    FixedLiteral { ty: u32, bytes: u32 },
    /// `fp …`: a function parameter (digits).
    FunctionParam(Span),
    /// An expression of `kind` with operands `a`, `b`, `c` and a list.
    Expr {
        kind: ExprKind,
        a: u32,
        b: u32,
        c: u32,
        list: List,
    },
    /// Template parameter declarations of a lambda (`Ty`, `Tn <type>`, …): printed as `typename
    /// $T` and the like.
    ParamDecl { child: u32 },
}

/// The operators (5.1.5 `<operator-name>`), LLVM's table (`AbstractManglingParser::Ops`):
/// encoding, how it takes operands, and the text LLVM prints for the name.
pub const OPERATORS: &[(&str, OpKind, &str)] = &[
    ("aN", OpKind::Binary, "operator&="),
    ("aS", OpKind::Binary, "operator="),
    ("aa", OpKind::Binary, "operator&&"),
    ("ad", OpKind::Prefix, "operator&"),
    ("an", OpKind::Binary, "operator&"),
    ("at", OpKind::OfType, "alignof "),
    ("aw", OpKind::NameOnly, "operator co_await"),
    ("az", OpKind::OfExpr, "alignof "),
    ("cc", OpKind::NamedCast, "const_cast"),
    ("cl", OpKind::Call, "operator()"),
    ("cm", OpKind::Binary, "operator,"),
    ("co", OpKind::Prefix, "operator~"),
    ("cp", OpKind::Call, "operator()"),
    ("cv", OpKind::CCast, "operator"),
    ("dV", OpKind::Binary, "operator/="),
    ("da", OpKind::Del, "operator delete[]"),
    ("dc", OpKind::NamedCast, "dynamic_cast"),
    ("de", OpKind::Prefix, "operator*"),
    ("dl", OpKind::Del, "operator delete"),
    ("ds", OpKind::MemberUnnamed, "operator.*"),
    ("dt", OpKind::MemberUnnamed, "operator."),
    ("dv", OpKind::Binary, "operator/"),
    ("eO", OpKind::Binary, "operator^="),
    ("eo", OpKind::Binary, "operator^"),
    ("eq", OpKind::Binary, "operator=="),
    ("ge", OpKind::Binary, "operator>="),
    ("gt", OpKind::Binary, "operator>"),
    ("ix", OpKind::Array, "operator[]"),
    ("lS", OpKind::Binary, "operator<<="),
    ("le", OpKind::Binary, "operator<="),
    ("ls", OpKind::Binary, "operator<<"),
    ("lt", OpKind::Binary, "operator<"),
    ("mI", OpKind::Binary, "operator-="),
    ("mL", OpKind::Binary, "operator*="),
    ("mi", OpKind::Binary, "operator-"),
    ("ml", OpKind::Binary, "operator*"),
    ("mm", OpKind::Postfix, "operator--"),
    ("na", OpKind::New, "operator new[]"),
    ("ne", OpKind::Binary, "operator!="),
    ("ng", OpKind::Prefix, "operator-"),
    ("nt", OpKind::Prefix, "operator!"),
    ("nw", OpKind::New, "operator new"),
    ("oR", OpKind::Binary, "operator|="),
    ("oo", OpKind::Binary, "operator||"),
    ("or", OpKind::Binary, "operator|"),
    ("pL", OpKind::Binary, "operator+="),
    ("pl", OpKind::Binary, "operator+"),
    ("pm", OpKind::Member, "operator->*"),
    ("pp", OpKind::Postfix, "operator++"),
    ("ps", OpKind::Prefix, "operator+"),
    ("pt", OpKind::Member, "operator->"),
    ("qu", OpKind::Conditional, "operator?"),
    ("rM", OpKind::Binary, "operator%="),
    ("rS", OpKind::Binary, "operator>>="),
    ("rc", OpKind::NamedCast, "reinterpret_cast"),
    ("rm", OpKind::Binary, "operator%"),
    ("rs", OpKind::Binary, "operator>>"),
    ("sc", OpKind::NamedCast, "static_cast"),
    ("ss", OpKind::Binary, "operator<=>"),
    ("st", OpKind::OfType, "sizeof "),
    ("sz", OpKind::OfExpr, "sizeof "),
    ("te", OpKind::OfExpr, "typeid "),
    ("ti", OpKind::OfType, "typeid "),
];

/// How an operator takes its operands in an expression (LLVM's `OperatorInfo::OIKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Prefix,
    Postfix,
    Binary,
    Array,
    /// `.`/`.*`: not nameable as an operator name.
    MemberUnnamed,
    /// `->`/`->*`.
    Member,
    New,
    Del,
    Call,
    CCast,
    Conditional,
    NameOnly,
    NamedCast,
    OfType,
    OfExpr,
}

/// The standard substitutions (5.1.5.10): code, LLVM's text as a prefix, its text expanded
/// (what a constructor of it prints as its class).
pub const STANDARD: &[(u8, &str, &str)] = &[
    (b'a', "std::allocator", "std::allocator"),
    (b'b', "std::basic_string", "std::basic_string"),
    (
        b's',
        "std::string",
        "std::basic_string<char, std::char_traits<char>, std::allocator<char>>",
    ),
    (
        b'i',
        "std::istream",
        "std::basic_istream<char, std::char_traits<char>>",
    ),
    (
        b'o',
        "std::ostream",
        "std::basic_ostream<char, std::char_traits<char>>",
    ),
    (
        b'd',
        "std::iostream",
        "std::basic_iostream<char, std::char_traits<char>>",
    ),
];

/// What the name being read says about its encoding (LLVM's `NameState`).
#[derive(Debug, Clone, Copy, Default)]
struct NameState {
    cv: Cv,
    refq: RefQual,
    ends_with_template_args: bool,
    ctor_dtor_conversion: bool,
    /// Index of the first forward template reference made while this name was read.
    forward_refs_from: usize,
}

/// The parser's memory, reused for every name a thread reads.
#[derive(Debug, Default)]
pub struct Arena {
    pub nodes: Vec<Node>,
    pub lists: Vec<u32>,
    /// Children of lists being built (moved to `lists` when complete).
    scratch: Vec<u32>,
    /// Substitution candidates (5.1.5.10), in order.
    subs: Vec<u32>,
    /// The template arguments `T_` names (LLVM's outer template parameters).
    params: Vec<u32>,
    /// Forward template references (`T_` in a conversion operator's type) to resolve.
    forward: Vec<u32>,
}

impl Arena {
    /// The nodes of list `l`.
    pub fn list(&self, l: List) -> &[u32] {
        &self.lists[l.start as usize..(l.start + l.len) as usize]
    }
}

/// A parse of one name over an [`Arena`].
pub struct Parser<'a> {
    input: &'a [u8],
    pos: usize,
    pub arena: &'a mut Arena,
    steps: &'a mut Steps,
    depth: u32,
    /// Forward template references are permitted (inside a conversion operator's type).
    permit_forward: bool,
    /// `T_` followed by `I` reads template args (not inside a conversion's type).
    try_template_args: bool,
    /// Reading a lambda's parameters: an unresolved `T_` is `auto`.
    lambda_params: bool,
}

type R<T> = Result<T, Reject>;

/// Malformed.
const BAD: Reject = Reject::Malformed;

impl<'a> Parser<'a> {
    /// A parser of `input` (a mangled name without the Mach-O `_`) into `arena` (cleared).
    pub fn new(input: &'a [u8], arena: &'a mut Arena, steps: &'a mut Steps) -> Self {
        arena.nodes.clear();
        arena.lists.clear();
        arena.scratch.clear();
        arena.subs.clear();
        arena.params.clear();
        arena.forward.clear();
        Parser {
            input,
            pos: 0,
            arena,
            steps,
            depth: 0,
            permit_forward: false,
            try_template_args: true,
            lambda_params: false,
        }
    }

    fn look(&self) -> u8 {
        self.input.get(self.pos).copied().unwrap_or(0)
    }

    fn look_at(&self, n: usize) -> u8 {
        self.input.get(self.pos + n).copied().unwrap_or(0)
    }

    fn left(&self) -> usize {
        self.input.len() - self.pos
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.look() == b && self.pos < self.input.len() {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_str(&mut self, s: &[u8]) -> bool {
        if self.input[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, b: u8) -> R<()> {
        if self.eat(b) { Ok(()) } else { Err(BAD) }
    }

    fn node(&mut self, n: Node) -> R<u32> {
        self.steps.take(1)?;
        let i = u32::try_from(self.arena.nodes.len()).map_err(|_| Reject::TooMuchWork)?;
        self.arena.nodes.push(n);
        Ok(i)
    }

    /// Enters one level of nesting.
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Reject::TooDeep);
        }
        self.steps.take(1)
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Starts a list: the mark to pass to [`Parser::end_list`].
    fn mark(&self) -> usize {
        self.arena.scratch.len()
    }

    fn push_item(&mut self, n: u32) {
        self.arena.scratch.push(n);
    }

    fn end_list(&mut self, mark: usize) -> List {
        let start = self.arena.lists.len() as u32;
        let len = (self.arena.scratch.len() - mark) as u32;
        self.arena
            .lists
            .extend_from_slice(&self.arena.scratch[mark..]);
        self.arena.scratch.truncate(mark);
        List { start, len }
    }

    /// `<number> ::= [n] <non-negative decimal integer>`: the digits' span (with the `n`).
    fn number(&mut self, negative: bool) -> Span {
        let start = self.pos;
        if negative {
            self.eat(b'n');
        }
        if !self.look().is_ascii_digit() {
            self.pos = start;
            return Span {
                start: start as u32,
                len: 0,
            };
        }
        while self.look().is_ascii_digit() {
            self.pos += 1;
        }
        Span {
            start: start as u32,
            len: (self.pos - start) as u32,
        }
    }

    /// A positive decimal integer (its value, saturating), as LLVM's `parsePositiveInteger`.
    fn positive(&mut self) -> R<usize> {
        if !self.look().is_ascii_digit() {
            return Err(BAD);
        }
        let mut v: usize = 0;
        while self.look().is_ascii_digit() {
            v = v
                .saturating_mul(10)
                .saturating_add((self.look() - b'0') as usize);
            self.pos += 1;
        }
        Ok(v)
    }

    /// `<seq-id>`: base 36, upper-case letters.
    fn seq_id(&mut self) -> R<usize> {
        let b = self.look();
        if !(b.is_ascii_digit() || b.is_ascii_uppercase()) {
            return Err(BAD);
        }
        let mut v: usize = 0;
        loop {
            let b = self.look();
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'A'..=b'Z' => b - b'A' + 10,
                _ => break,
            };
            v = v.saturating_mul(36).saturating_add(d as usize);
            self.pos += 1;
        }
        Ok(v)
    }

    /// `<source-name> ::= <positive length number> <identifier>`: its span.
    fn bare_source_name(&mut self) -> R<Span> {
        let n = self.positive()?;
        if n == 0 || n > self.left() {
            return Err(BAD);
        }
        let start = self.pos;
        self.pos += n;
        Ok(Span {
            start: start as u32,
            len: n as u32,
        })
    }

    fn source_name(&mut self) -> R<u32> {
        let s = self.bare_source_name()?;
        let bytes = &self.input[s.start as usize..(s.start + s.len) as usize];
        if bytes.starts_with(b"_GLOBAL__N") {
            self.node(Node::AnonNamespace)
        } else {
            self.node(Node::Source(s))
        }
    }

    /// The whole mangled name: `_Z <encoding> [.<suffix>]` (5.1.2 `<mangled-name>`), as LLVM's
    /// `parse()`; the root node.
    pub fn mangled_name(&mut self) -> R<u32> {
        if !(self.eat_str(b"_Z") || self.eat_str(b"__Z")) {
            return Err(BAD);
        }
        let mut enc = self.encoding()?;
        if self.look() == b'.' && self.pos < self.input.len() {
            let suffix = Span {
                start: self.pos as u32,
                len: (self.input.len() - self.pos) as u32,
            };
            self.pos = self.input.len();
            enc = self.node(Node::DotSuffix {
                encoding: enc,
                suffix,
            })?;
        }
        if self.left() != 0 {
            return Err(BAD);
        }
        Ok(enc)
    }

    fn end_of_encoding(&self) -> bool {
        self.left() == 0 || matches!(self.look(), b'E' | b'.' | b'_')
    }

    /// `<encoding>` (5.1.2).
    fn encoding(&mut self) -> R<u32> {
        self.enter()?;
        let saved = self.save_params();
        self.arena.params.clear();
        let r = self.encoding_inner();
        self.restore_params(saved);
        self.leave();
        r
    }

    fn encoding_inner(&mut self) -> R<u32> {
        if matches!(self.look(), b'G' | b'T') {
            return self.special_name();
        }
        let mut state = NameState {
            forward_refs_from: self.arena.forward.len(),
            ..NameState::default()
        };
        let name = self.name(Some(&mut state))?;
        self.resolve_forward(&state)?;
        if self.end_of_encoding() {
            return Ok(name);
        }
        let mut attrs = NONE;
        if self.eat_str(b"Ua9enable_ifI") {
            let mark = self.mark();
            while !self.eat(b'E') {
                let a = self.template_arg()?;
                self.push_item(a);
            }
            let l = self.end_list(mark);
            attrs = self.node(Node::Args(l))?;
        }
        let mut ret = NONE;
        if !state.ctor_dtor_conversion && state.ends_with_template_args {
            ret = self.ty()?;
        }
        let mark = self.mark();
        if !self.eat(b'v') {
            loop {
                let t = self.ty()?;
                self.push_item(t);
                if self.end_of_encoding() || self.look() == b'Q' {
                    break;
                }
            }
        }
        let params = self.end_list(mark);
        let mut requires = NONE;
        if self.eat(b'Q') {
            requires = self.expr()?;
        }
        self.node(Node::Function {
            name,
            ret,
            params,
            cv: state.cv,
            refq: state.refq,
            attrs,
            requires,
        })
    }

    /// Resolves the forward template references made while reading a name (LLVM's
    /// `resolveForwardTemplateRefs`).
    fn resolve_forward(&mut self, state: &NameState) -> R<()> {
        for k in state.forward_refs_from..self.arena.forward.len() {
            let node = self.arena.forward[k] as usize;
            let Node::TemplateParam { target } = self.arena.nodes[node] else {
                return Err(BAD);
            };
            let index = target as usize;
            let Some(&arg) = self.arena.params.get(index) else {
                return Err(BAD);
            };
            self.arena.nodes[node] = Node::TemplateParam { target: arg };
        }
        self.arena.forward.truncate(state.forward_refs_from);
        Ok(())
    }

    /// `<special-name>` (5.1.4), as LLVM's `parseSpecialName`.
    fn special_name(&mut self) -> R<u32> {
        let (a, b) = (self.look(), self.look_at(1));
        let special = |p: &mut Self, kind, child| p.node(Node::Special { kind, child });
        match (a, b) {
            (b'T', b'A') => {
                self.pos += 2;
                let arg = self.template_arg()?;
                special(self, SpecialKind::ParamObject, arg)
            }
            (b'T', b'V' | b'T' | b'I' | b'S') => {
                self.pos += 2;
                let t = self.ty()?;
                let kind = match b {
                    b'V' => SpecialKind::Vtable,
                    b'T' => SpecialKind::Vtt,
                    b'I' => SpecialKind::Typeinfo,
                    _ => SpecialKind::TypeinfoName,
                };
                special(self, kind, t)
            }
            (b'T', b'c') => {
                self.pos += 2;
                self.call_offset()?;
                self.call_offset()?;
                let e = self.encoding()?;
                special(self, SpecialKind::CovariantThunk, e)
            }
            (b'T', b'C') => {
                self.pos += 2;
                let first = self.ty()?;
                if self.number(true).len == 0 {
                    return Err(BAD);
                }
                self.expect(b'_')?;
                let second = self.ty()?;
                self.node(Node::CtorVtable {
                    of: second,
                    in_: first,
                })
            }
            (b'T', b'W' | b'H') => {
                self.pos += 2;
                let n = self.name(None)?;
                let kind = if b == b'W' {
                    SpecialKind::TlsWrapper
                } else {
                    SpecialKind::TlsInit
                };
                special(self, kind, n)
            }
            (b'T', _) => {
                self.pos += 1;
                let virt = self.look() == b'v';
                self.call_offset()?;
                let e = self.encoding()?;
                let kind = if virt {
                    SpecialKind::VirtualThunk
                } else {
                    SpecialKind::NonVirtualThunk
                };
                special(self, kind, e)
            }
            (b'G', b'V') => {
                self.pos += 2;
                let n = self.name(None)?;
                special(self, SpecialKind::Guard, n)
            }
            (b'G', b'R') => {
                self.pos += 2;
                let n = self.name(None)?;
                let parsed = self.seq_id().is_ok();
                if !self.eat(b'_') && parsed {
                    return Err(BAD);
                }
                special(self, SpecialKind::RefTemporary, n)
            }
            _ => Err(BAD),
        }
    }

    /// `<call-offset> ::= h <nv-offset> _ | v <v-offset> _` (5.1.4.2).
    fn call_offset(&mut self) -> R<()> {
        let numbers = if self.eat(b'h') {
            1
        } else if self.eat(b'v') {
            2
        } else {
            return Err(BAD);
        };
        for _ in 0..numbers {
            if self.number(true).len == 0 {
                return Err(BAD);
            }
            self.expect(b'_')?;
        }
        Ok(())
    }

    /// `<name>` (5.1.5), as LLVM's `parseName`.
    fn name(&mut self, state: Option<&mut NameState>) -> R<u32> {
        self.enter()?;
        let r = self.name_inner(state);
        self.leave();
        r
    }

    fn name_inner(&mut self, mut state: Option<&mut NameState>) -> R<u32> {
        match self.look() {
            b'N' => return self.nested_name(state),
            b'Z' => return self.local_name(state),
            _ => {}
        }
        let (mut result, is_sub) = self.unscoped_name(state.as_deref_mut(), true)?;
        if self.look() == b'I' {
            if !is_sub {
                self.arena.subs.push(result);
            }
            let tagged = state.is_some();
            let args = self.template_args(tagged)?;
            if let Some(s) = state {
                s.ends_with_template_args = true;
            }
            result = self.node(Node::Template { name: result, args })?;
        } else if is_sub {
            return Err(BAD);
        }
        Ok(result)
    }

    /// `Z <encoding> E <entity> [<discriminator>]` (5.1.5.7).
    fn local_name(&mut self, state: Option<&mut NameState>) -> R<u32> {
        self.expect(b'Z')?;
        let encoding = self.encoding()?;
        self.expect(b'E')?;
        if self.eat(b's') {
            self.discriminator();
            return self.node(Node::Local {
                encoding,
                entity: NONE,
            });
        }
        let saved = self.save_params();
        self.arena.params.clear();
        let r = self.local_entity(state);
        self.restore_params(saved);
        let entity = r?;
        self.node(Node::Local { encoding, entity })
    }

    fn local_entity(&mut self, state: Option<&mut NameState>) -> R<u32> {
        if self.eat(b'd') {
            self.number(true);
            self.expect(b'_')?;
            return self.name(state);
        }
        let e = self.name(state)?;
        self.discriminator();
        Ok(e)
    }

    /// Sets the template parameters aside (on the scratch stack, below any list begun later),
    /// as LLVM's `SaveTemplateParams`: (where they start, how many).
    fn save_params(&mut self) -> (usize, usize) {
        let at = self.arena.scratch.len();
        let n = self.arena.params.len();
        self.arena.scratch.extend_from_slice(&self.arena.params);
        (at, n)
    }

    /// Puts back what [`Parser::save_params`] set aside.
    fn restore_params(&mut self, (at, n): (usize, usize)) {
        self.arena.params.clear();
        self.arena
            .params
            .extend_from_slice(&self.arena.scratch[at..at + n]);
        self.arena.scratch.truncate(at);
    }

    /// `<discriminator> ::= _ <digit> | __ <number> _` (5.1.5.7), as LLVM's
    /// `parse_discriminator` (nothing consumed when it does not match).
    fn discriminator(&mut self) {
        let start = self.pos;
        if !self.eat(b'_') {
            return;
        }
        if self.eat(b'_') {
            let n = self.number(false);
            if n.len == 0 || !self.eat(b'_') {
                self.pos = start;
            }
            return;
        }
        if self.look().is_ascii_digit() {
            self.pos += 1;
        } else {
            self.pos = start;
        }
    }

    /// `<unscoped-name>`, or a substitution in its place: (node, was a substitution).
    fn unscoped_name(&mut self, state: Option<&mut NameState>, allow_sub: bool) -> R<(u32, bool)> {
        let std = self.eat_str(b"St");
        if self.look() == b'S' {
            let s = self.substitution()?;
            if allow_sub && !std {
                return Ok((s, true));
            }
            return Err(BAD);
        }
        // After `St`, LLVM reads the name in the scope `std` (`parseUnscopedName`): a
        // constructor or destructor of it (`std::std()`) or a member-like friend
        // (`std::friend f`) is read there too.
        let ctor_dtor_or_friend = match self.look() {
            b'C' | b'F' => true,
            b'D' => self.look_at(1) != b'C',
            _ => false,
        };
        if std && ctor_dtor_or_friend {
            let scope = self.node(Node::Text("std"))?;
            return Ok((self.unqualified_name(state, scope)?, false));
        }
        let n = self.unqualified_name(state, NONE)?;
        if std {
            return Ok((self.node(Node::UnscopedStd(n))?, false));
        }
        Ok((n, false))
    }

    /// `<unqualified-name>` in `scope` (or none), as LLVM's `parseUnqualifiedName`.
    fn unqualified_name(&mut self, mut state: Option<&mut NameState>, scope: u32) -> R<u32> {
        if self.look() == b'W' {
            return Err(Reject::Unsupported);
        }
        let friend = scope != NONE && self.eat(b'F');
        self.eat(b'L');
        let b = self.look();
        let mut result = if (b'1'..=b'9').contains(&b) {
            self.source_name()?
        } else if b == b'U' {
            self.unnamed_type_name(state.is_some())?
        } else if self.eat_str(b"DC") {
            let mark = self.mark();
            loop {
                let n = self.source_name()?;
                self.push_item(n);
                if self.eat(b'E') {
                    break;
                }
            }
            let l = self.end_list(mark);
            self.node(Node::Binding(l))?
        } else if b == b'C' || b == b'D' {
            if scope == NONE {
                return Err(BAD);
            }
            self.ctor_dtor_name(scope, state.as_deref_mut())?
        } else {
            self.operator_name(state)?
        };
        result = self.abi_tags(result)?;
        if scope != NONE {
            result = self.node(Node::Nested {
                prefix: scope,
                name: result,
                friend,
            })?;
        }
        Ok(result)
    }

    fn abi_tags(&mut self, mut n: u32) -> R<u32> {
        while self.eat(b'B') {
            let tag = self.bare_source_name()?;
            n = self.node(Node::AbiTag { name: n, tag })?;
        }
        Ok(n)
    }

    /// `<ctor-dtor-name>` (5.1.5.4) of the class `scope`.
    fn ctor_dtor_name(&mut self, scope: u32, state: Option<&mut NameState>) -> R<u32> {
        if self.eat(b'C') {
            let inherited = self.eat(b'I');
            if !matches!(self.look(), b'1'..=b'5') {
                return Err(BAD);
            }
            self.pos += 1;
            let mut state = state;
            if let Some(s) = state.as_deref_mut() {
                s.ctor_dtor_conversion = true;
            }
            if inherited {
                self.name(state)?;
            }
            return self.node(Node::CtorDtor {
                class: scope,
                dtor: false,
            });
        }
        if self.look() == b'D' && matches!(self.look_at(1), b'0' | b'1' | b'2' | b'4' | b'5') {
            self.pos += 2;
            if let Some(s) = state {
                s.ctor_dtor_conversion = true;
            }
            return self.node(Node::CtorDtor {
                class: scope,
                dtor: true,
            });
        }
        Err(BAD)
    }

    /// The operator at the cursor, if any (consumed).
    fn operator_encoding(&mut self) -> Option<u8> {
        if self.left() < 2 {
            return None;
        }
        let code = &self.input[self.pos..self.pos + 2];
        let i = OPERATORS
            .binary_search_by(|(c, ..)| c.as_bytes().cmp(code))
            .ok()?;
        self.pos += 2;
        Some(i as u8)
    }

    /// `<operator-name>` (5.1.5), as LLVM's `parseOperatorName`.
    fn operator_name(&mut self, state: Option<&mut NameState>) -> R<u32> {
        if let Some(op) = self.operator_encoding() {
            let kind = OPERATORS[op as usize].1;
            if kind == OpKind::CCast {
                let (saved_try, saved_permit) = (self.try_template_args, self.permit_forward);
                self.try_template_args = false;
                self.permit_forward = saved_permit || state.is_some();
                let t = self.ty();
                self.try_template_args = saved_try;
                self.permit_forward = saved_permit;
                let t = t?;
                if let Some(s) = state {
                    s.ctor_dtor_conversion = true;
                }
                return self.node(Node::Conversion(t));
            }
            if matches!(
                kind,
                OpKind::NameOnly
                    | OpKind::NamedCast
                    | OpKind::OfType
                    | OpKind::OfExpr
                    | OpKind::MemberUnnamed
            ) && !(kind == OpKind::NameOnly)
            {
                return Err(BAD);
            }
            return self.node(Node::Operator(op));
        }
        if self.eat_str(b"li") {
            let n = self.source_name()?;
            return self.node(Node::LiteralOperator(n));
        }
        if self.eat(b'v') {
            if self.look().is_ascii_digit() {
                self.pos += 1;
                let n = self.source_name()?;
                return self.node(Node::Conversion(n));
            }
            return Err(BAD);
        }
        Err(BAD)
    }

    /// `<unnamed-type-name>` (5.1.8): `Ut`, `Ul` (closures), `Ub`.
    fn unnamed_type_name(&mut self, has_state: bool) -> R<u32> {
        if has_state {
            self.arena.params.clear();
        }
        if self.eat_str(b"Ut") {
            let n = self.number(false);
            self.expect(b'_')?;
            return self.node(Node::Unnamed(n));
        }
        if self.eat_str(b"Ul") {
            let saved_lambda = self.lambda_params;
            self.lambda_params = true;
            let r = self.closure();
            self.lambda_params = saved_lambda;
            return r;
        }
        if self.eat_str(b"Ub") {
            self.number(false);
            self.expect(b'_')?;
            return self.node(Node::Block);
        }
        Err(BAD)
    }

    fn closure(&mut self) -> R<u32> {
        let mark = self.mark();
        while self.is_template_param_decl() {
            let d = self.template_param_decl()?;
            self.push_item(d);
        }
        let tparams = self.end_list(mark);
        if self.eat(b'Q') {
            self.expr()?;
        }
        let mark = self.mark();
        if !self.eat(b'v') {
            loop {
                let t = self.ty()?;
                self.push_item(t);
                if matches!(self.look(), b'E' | b'Q') {
                    break;
                }
            }
        }
        let params = self.end_list(mark);
        if self.eat(b'Q') {
            self.expr()?;
        }
        self.expect(b'E')?;
        let number = self.number(false);
        self.expect(b'_')?;
        self.node(Node::Closure {
            params,
            tparams,
            number,
        })
    }

    /// `Ty`, `Tk`, `Tn`, `Tt`, `Tp` (5.1.8 `<template-param-decl>`).
    fn is_template_param_decl(&self) -> bool {
        self.look() == b'T' && matches!(self.look_at(1), b'y' | b'n' | b't' | b'p' | b'k')
    }

    /// `<template-param-decl>`, as LLVM's `parseTemplateParamDecl`: anything but `Ty`, `Tk`,
    /// `Tn`, `Tt` or `Tp` is malformed, inside `Tt … E` and after `Tp` too.
    fn template_param_decl(&mut self) -> R<u32> {
        if !self.is_template_param_decl() {
            return Err(BAD);
        }
        self.enter()?;
        let r = self.template_param_decl_inner();
        self.leave();
        r
    }

    fn template_param_decl_inner(&mut self) -> R<u32> {
        self.pos += 1;
        let b = self.look();
        self.pos += 1;
        match b {
            b'y' => self.node(Node::ParamDecl { child: NONE }),
            b'k' => {
                let n = self.name(None)?;
                self.node(Node::ParamDecl { child: n })
            }
            b'n' => {
                let t = self.ty()?;
                self.node(Node::ParamDecl { child: t })
            }
            b't' => {
                let mark = self.mark();
                while !self.eat(b'E') {
                    let d = self.template_param_decl()?;
                    self.push_item(d);
                }
                let l = self.end_list(mark);
                let a = self.node(Node::Args(l))?;
                self.node(Node::ParamDecl { child: a })
            }
            _ => {
                let d = self.template_param_decl()?;
                self.node(Node::ParamDecl { child: d })
            }
        }
    }

    /// `<nested-name>` (5.1.5), as LLVM's `parseNestedName`.
    fn nested_name(&mut self, mut state: Option<&mut NameState>) -> R<u32> {
        self.expect(b'N')?;
        if self.eat(b'H') {
            // An explicit object parameter.
        } else {
            let cv = self.cv_qualifiers();
            let refq = if self.eat(b'O') {
                2
            } else if self.eat(b'R') {
                1
            } else {
                0
            };
            if let Some(s) = state.as_deref_mut() {
                s.cv = cv;
                s.refq = refq;
            }
        }
        let mut so_far = NONE;
        let mut so_far_is_template = false;
        while !self.eat(b'E') {
            if self.left() == 0 {
                return Err(BAD);
            }
            self.steps.take(1)?;
            if let Some(s) = state.as_deref_mut() {
                s.ends_with_template_args = false;
            }
            let b = self.look();
            if b == b'T' {
                if so_far != NONE {
                    return Err(BAD);
                }
                so_far = self.template_param()?;
                so_far_is_template = false;
            } else if b == b'I' {
                if so_far == NONE {
                    return Err(BAD);
                }
                let args = self.template_args(state.is_some())?;
                if so_far_is_template {
                    return Err(BAD);
                }
                if let Some(s) = state.as_deref_mut() {
                    s.ends_with_template_args = true;
                }
                so_far = self.node(Node::Template { name: so_far, args })?;
                so_far_is_template = true;
            } else if b == b'D' && matches!(self.look_at(1), b't' | b'T') {
                if so_far != NONE {
                    return Err(BAD);
                }
                so_far = self.decltype()?;
                so_far_is_template = false;
            } else {
                if b == b'S' {
                    let s = if self.look_at(1) == b't' {
                        self.pos += 2;
                        self.node(Node::Text("std"))?
                    } else {
                        self.substitution()?
                    };
                    if so_far != NONE {
                        return Err(BAD);
                    }
                    so_far = s;
                    so_far_is_template =
                        matches!(self.arena.nodes[s as usize], Node::Template { .. });
                    continue;
                }
                so_far = self.unqualified_name(state.as_deref_mut(), so_far)?;
                so_far_is_template = false;
            }
            self.arena.subs.push(so_far);
            self.eat(b'M');
        }
        if so_far == NONE || self.arena.subs.is_empty() {
            return Err(BAD);
        }
        self.arena.subs.pop();
        Ok(so_far)
    }

    fn cv_qualifiers(&mut self) -> Cv {
        let mut cv = 0;
        if self.eat(b'r') {
            cv |= RESTRICT;
        }
        if self.eat(b'V') {
            cv |= VOLATILE;
        }
        if self.eat(b'K') {
            cv |= CONST;
        }
        cv
    }

    /// `<substitution>` (5.1.5.10).
    fn substitution(&mut self) -> R<u32> {
        self.expect(b'S')?;
        let b = self.look();
        if b.is_ascii_lowercase() {
            let i = STANDARD.iter().position(|s| s.0 == b).ok_or(BAD)?;
            self.pos += 1;
            let sub = self.node(Node::StdSub(i as u8))?;
            let tagged = self.abi_tags(sub)?;
            if tagged != sub {
                self.arena.subs.push(tagged);
            }
            return Ok(tagged);
        }
        if self.eat(b'_') {
            return self.arena.subs.first().copied().ok_or(BAD);
        }
        let i = self.seq_id()?.saturating_add(1);
        self.expect(b'_')?;
        self.arena.subs.get(i).copied().ok_or(BAD)
    }

    /// `<template-param>` (5.1.5.8), as LLVM's `parseTemplateParam`.
    fn template_param(&mut self) -> R<u32> {
        self.expect(b'T')?;
        let mut level = 0;
        if self.eat(b'L') {
            level = self.positive()?.saturating_add(1);
            self.expect(b'_')?;
        }
        let mut index = 0;
        if !self.eat(b'_') {
            index = self.positive()?.saturating_add(1);
            self.expect(b'_')?;
        }
        if self.permit_forward && level == 0 {
            let n = self.node(Node::TemplateParam {
                target: u32::try_from(index).unwrap_or(u32::MAX - 1),
            })?;
            self.arena.forward.push(n);
            return Ok(n);
        }
        if level == 0
            && let Some(&arg) = self.arena.params.get(index)
        {
            return self.node(Node::TemplateParam { target: arg });
        }
        if self.lambda_params {
            return self.node(Node::Text("auto"));
        }
        Err(BAD)
    }

    /// `<template-args>` (5.1.5.5); `tagged`: they are the name's own (`T_` refers to them).
    fn template_args(&mut self, tagged: bool) -> R<u32> {
        self.enter()?;
        let r = self.template_args_inner(tagged);
        self.leave();
        r
    }

    fn template_args_inner(&mut self, tagged: bool) -> R<u32> {
        self.expect(b'I')?;
        if tagged {
            self.arena.params.clear();
        }
        let mark = self.mark();
        while !self.eat(b'E') {
            if self.left() == 0 {
                return Err(BAD);
            }
            let a = self.template_arg()?;
            self.push_item(a);
            if tagged {
                self.arena.params.push(a);
            }
            if self.eat(b'Q') {
                self.expr()?;
                self.expect(b'E')?;
                break;
            }
        }
        let l = self.end_list(mark);
        self.node(Node::Args(l))
    }

    /// `<template-arg>` (5.1.5.5).
    fn template_arg(&mut self) -> R<u32> {
        self.enter()?;
        let r = self.template_arg_inner();
        self.leave();
        r
    }

    fn template_arg_inner(&mut self) -> R<u32> {
        match self.look() {
            b'X' => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(b'E')?;
                Ok(e)
            }
            b'J' => {
                self.pos += 1;
                let mark = self.mark();
                while !self.eat(b'E') {
                    if self.left() == 0 {
                        return Err(BAD);
                    }
                    let a = self.template_arg()?;
                    self.push_item(a);
                }
                let l = self.end_list(mark);
                self.node(Node::Pack(l))
            }
            b'L' => {
                if self.look_at(1) == b'Z' {
                    self.pos += 2;
                    let e = self.encoding()?;
                    self.expect(b'E')?;
                    return Ok(e);
                }
                self.expr_primary()
            }
            b'T' if self.is_template_param_decl() => {
                let d = self.template_param_decl()?;
                let a = self.template_arg()?;
                self.node(Node::Expr {
                    kind: ExprKind::Vendor,
                    a: d,
                    b: a,
                    c: NONE,
                    list: List::default(),
                })
            }
            _ => self.ty(),
        }
    }

    /// `<type>` (5.1.5.3), as LLVM's `parseType`; every type but a builtin and a lone
    /// substitution is a substitution candidate.
    fn ty(&mut self) -> R<u32> {
        self.enter()?;
        let r = self.ty_inner();
        self.leave();
        r
    }

    fn ty_inner(&mut self) -> R<u32> {
        let b = self.look();
        let result = match b {
            b'r' | b'V' | b'K' => {
                let mut after = 0;
                for q in [b'r', b'V', b'K'] {
                    if self.look_at(after) == q {
                        after += 1;
                    }
                }
                let (x, y) = (self.look_at(after), self.look_at(after + 1));
                if x == b'F' || (x == b'D' && matches!(y, b'o' | b'O' | b'w' | b'x')) {
                    self.function_type()?
                } else {
                    self.qualified_type()?
                }
            }
            b'U' => self.qualified_type()?,
            b'u' => {
                self.pos += 1;
                let name = self.bare_source_name()?;
                if self.eat(b'I') {
                    let t = self.ty()?;
                    self.expect(b'E')?;
                    self.node(Node::Transformed { name, child: t })?
                } else {
                    self.node(Node::Transformed { name, child: NONE })?
                }
            }
            b'D' => match self.builtin_d()? {
                Some(Ok(n)) => return Ok(n),
                Some(Err(n)) => n,
                None => return Err(BAD),
            },
            b'F' => self.function_type()?,
            b'A' => self.array_type()?,
            b'M' => {
                self.pos += 1;
                let class = self.ty()?;
                let member = self.ty()?;
                self.node(Node::PointerToMember { class, member })?
            }
            b'T' => {
                if matches!(self.look_at(1), b's' | b'u' | b'e') {
                    self.class_enum_type()?
                } else {
                    let mut r = self.template_param()?;
                    if self.try_template_args && self.look() == b'I' {
                        self.arena.subs.push(r);
                        let args = self.template_args(false)?;
                        r = self.node(Node::Template { name: r, args })?;
                    }
                    r
                }
            }
            b'P' => {
                self.pos += 1;
                let t = self.ty()?;
                self.node(Node::Pointer(t))?
            }
            b'R' | b'O' => {
                self.pos += 1;
                let t = self.ty()?;
                self.node(Node::Reference {
                    child: t,
                    rvalue: b == b'O',
                })?
            }
            b'C' | b'G' => {
                self.pos += 1;
                let t = self.ty()?;
                let text = if b == b'C' { " complex" } else { " imaginary" };
                self.node(Node::Postfix { child: t, text })?
            }
            b'S' if self.look_at(1) != b't' => {
                let (r, is_sub) = self.unscoped_name(None, true)?;
                if self.look() == b'I' && (!is_sub || self.try_template_args) {
                    if !is_sub {
                        self.arena.subs.push(r);
                    }
                    let args = self.template_args(false)?;
                    self.node(Node::Template { name: r, args })?
                } else if is_sub {
                    return Ok(r);
                } else {
                    r
                }
            }
            _ => {
                if let Some(text) = builtin(b) {
                    self.pos += 1;
                    return self.node(Node::Text(text));
                }
                self.class_enum_type()?
            }
        };
        self.arena.subs.push(result);
        Ok(result)
    }

    /// The `D…` types: `Some(Ok(n))` a builtin (no substitution candidate), `Some(Err(n))`
    /// another type, `None` none.
    fn builtin_d(&mut self) -> R<Option<Result<u32, u32>>> {
        let c = self.look_at(1);
        let fixed = match c {
            b'd' => Some("decimal64"),
            b'e' => Some("decimal128"),
            b'f' => Some("decimal32"),
            b'h' => Some("half"),
            b'i' => Some("char32_t"),
            b's' => Some("char16_t"),
            b'u' => Some("char8_t"),
            b'a' => Some("auto"),
            b'c' => Some("decltype(auto)"),
            b'n' => Some("std::nullptr_t"),
            _ => None,
        };
        if let Some(t) = fixed {
            self.pos += 2;
            return Ok(Some(Ok(self.node(Node::Text(t))?)));
        }
        match c {
            b'F' => {
                self.pos += 2;
                if self.eat_str(b"16b") {
                    return Ok(Some(Ok(self.node(Node::Text("std::bfloat16_t"))?)));
                }
                let n = self.number(false);
                self.expect(b'_')?;
                let dim = self.node(Node::Literal {
                    ty: NONE,
                    text: "_Float",
                    digits: n,
                })?;
                Ok(Some(Ok(dim)))
            }
            b'A' | b'R' => {
                let t = self.look_at(2);
                self.pos += 3;
                let text = fixed_point(c, t, false).ok_or(BAD)?;
                Ok(Some(Ok(self.node(Node::Text(text))?)))
            }
            b'S' => {
                self.pos += 2;
                if self.look() != b'D' {
                    return Err(BAD);
                }
                let (k, t) = (self.look_at(1), self.look_at(2));
                self.pos += 3;
                let text = fixed_point(k, t, true).ok_or(BAD)?;
                Ok(Some(Ok(self.node(Node::Text(text))?)))
            }
            b'B' | b'U' => {
                self.pos += 2;
                let size = if self.look().is_ascii_digit() {
                    let n = self.number(false);
                    self.node(Node::Literal {
                        ty: NONE,
                        text: "",
                        digits: n,
                    })?
                } else {
                    self.expr()?
                };
                self.expect(b'_')?;
                Ok(Some(Err(self.node(Node::BitInt(size))?)))
            }
            b'k' | b'K' => {
                self.pos += 2;
                let n = self.name(None)?;
                let text = if c == b'k' {
                    " auto"
                } else {
                    " decltype(auto)"
                };
                Ok(Some(Ok(self.node(Node::Postfix { child: n, text })?)))
            }
            b't' | b'T' => Ok(Some(Err(self.decltype()?))),
            b'v' => Ok(Some(Err(self.vector_type()?))),
            b'p' => {
                self.pos += 2;
                let t = self.ty()?;
                Ok(Some(Err(self.node(Node::PackExpansion(t))?)))
            }
            b'o' | b'O' | b'w' | b'x' => Ok(Some(Err(self.function_type()?))),
            _ => Ok(None),
        }
    }

    fn decltype(&mut self) -> R<u32> {
        self.expect(b'D')?;
        if !(self.eat(b't') || self.eat(b'T')) {
            return Err(BAD);
        }
        let e = self.expr()?;
        self.expect(b'E')?;
        self.node(Node::Decltype(e))
    }

    fn vector_type(&mut self) -> R<u32> {
        if !self.eat_str(b"Dv") {
            return Err(BAD);
        }
        if (b'1'..=b'9').contains(&self.look()) {
            let n = self.number(false);
            self.expect(b'_')?;
            let dim = self.node(Node::Literal {
                ty: NONE,
                text: "",
                digits: n,
            })?;
            if self.eat(b'p') {
                return self.node(Node::Vector { child: NONE, dim });
            }
            let t = self.ty()?;
            return self.node(Node::Vector { child: t, dim });
        }
        let mut dim = NONE;
        if !self.eat(b'_') {
            dim = self.expr()?;
            self.expect(b'_')?;
        }
        let t = self.ty()?;
        self.node(Node::Vector { child: t, dim })
    }

    fn qualified_type(&mut self) -> R<u32> {
        self.enter()?;
        let r = self.qualified_type_inner();
        self.leave();
        r
    }

    fn qualified_type_inner(&mut self) -> R<u32> {
        if self.eat(b'U') {
            let name = self.bare_source_name()?;
            let text = &self.input[name.start as usize..(name.start + name.len) as usize];
            if text.starts_with(b"objcproto") {
                return Err(Reject::Unsupported);
            }
            let mut args = NONE;
            if self.look() == b'I' {
                args = self.template_args(false)?;
            }
            let child = self.qualified_type()?;
            return self.node(Node::VendorQualified { child, name, args });
        }
        let cv = self.cv_qualifiers();
        let t = self.ty()?;
        if cv != 0 {
            return self.node(Node::Qualified { child: t, cv });
        }
        Ok(t)
    }

    /// `<function-type>` (5.1.5.3), as LLVM's `parseFunctionType`.
    fn function_type(&mut self) -> R<u32> {
        let cv = self.cv_qualifiers();
        let mut spec = NONE;
        if self.eat_str(b"Do") {
            spec = self.node(Node::Text("noexcept"))?;
        } else if self.eat_str(b"DO") {
            let e = self.expr()?;
            self.expect(b'E')?;
            spec = self.node(Node::Expr {
                kind: ExprKind::Noexcept,
                a: e,
                b: NONE,
                c: NONE,
                list: List::default(),
            })?;
        } else if self.eat_str(b"Dw") {
            let mark = self.mark();
            while !self.eat(b'E') {
                if self.left() == 0 {
                    return Err(BAD);
                }
                let t = self.ty()?;
                self.push_item(t);
            }
            let l = self.end_list(mark);
            spec = self.node(Node::Args(l))?;
        }
        self.eat_str(b"Dx");
        self.expect(b'F')?;
        self.eat(b'Y');
        let ret = self.ty()?;
        let mut refq = 0;
        let mark = self.mark();
        loop {
            if self.eat(b'E') {
                break;
            }
            if self.eat(b'v') {
                continue;
            }
            if self.eat_str(b"RE") {
                refq = 1;
                break;
            }
            if self.eat_str(b"OE") {
                refq = 2;
                break;
            }
            if self.left() == 0 {
                return Err(BAD);
            }
            let t = self.ty()?;
            self.push_item(t);
        }
        let params = self.end_list(mark);
        self.node(Node::FunctionType {
            ret,
            params,
            cv,
            refq,
            spec,
        })
    }

    fn array_type(&mut self) -> R<u32> {
        self.expect(b'A')?;
        let mut dim = NONE;
        if self.look().is_ascii_digit() {
            let n = self.number(false);
            self.expect(b'_')?;
            dim = self.node(Node::Literal {
                ty: NONE,
                text: "",
                digits: n,
            })?;
        } else if !self.eat(b'_') {
            dim = self.expr()?;
            self.expect(b'_')?;
        }
        let child = self.ty()?;
        self.node(Node::Array { child, dim })
    }

    fn class_enum_type(&mut self) -> R<u32> {
        let keyword = if self.eat_str(b"Ts") {
            "struct"
        } else if self.eat_str(b"Tu") {
            "union"
        } else if self.eat_str(b"Te") {
            "enum"
        } else {
            ""
        };
        let n = self.name(None)?;
        if keyword.is_empty() {
            return Ok(n);
        }
        self.node(Node::Elaborated { keyword, child: n })
    }

    fn expr_node(&mut self, kind: ExprKind, a: u32, b: u32, c: u32, list: List) -> R<u32> {
        self.node(Node::Expr {
            kind,
            a,
            b,
            c,
            list,
        })
    }

    /// `<expression>` (5.1.6), as LLVM's `parseExpr`.
    fn expr(&mut self) -> R<u32> {
        self.enter()?;
        let r = self.expr_inner();
        self.leave();
        r
    }

    /// Expressions up to `E` (consumed), as a list.
    fn exprs_until_e(&mut self, braced: bool) -> R<List> {
        let mark = self.mark();
        while !self.eat(b'E') {
            if self.left() == 0 {
                return Err(BAD);
            }
            let e = if braced {
                self.braced_expr()?
            } else {
                self.expr()?
            };
            self.push_item(e);
        }
        Ok(self.end_list(mark))
    }

    fn expr_inner(&mut self) -> R<u32> {
        let global = self.eat_str(b"gs");
        if let Some(op) = self.operator_encoding() {
            let o = ExprKind::Op(op);
            let none = List::default();
            return match OPERATORS[op as usize].1 {
                OpKind::Binary | OpKind::MemberUnnamed | OpKind::Member | OpKind::Array => {
                    let l = self.expr()?;
                    let r = self.expr()?;
                    self.expr_node(o, l, r, NONE, none)
                }
                OpKind::Prefix => {
                    let e = self.expr()?;
                    self.expr_node(o, e, NONE, NONE, none)
                }
                OpKind::Postfix => {
                    self.eat(b'_');
                    let e = self.expr()?;
                    self.expr_node(o, e, NONE, NONE, none)
                }
                OpKind::New => {
                    let mark = self.mark();
                    while !self.eat(b'_') {
                        if self.left() == 0 {
                            return Err(BAD);
                        }
                        let e = self.expr()?;
                        self.push_item(e);
                    }
                    let place = self.end_list(mark);
                    let placement = self.node(Node::Args(place))?;
                    let t = self.ty()?;
                    let inits = self.eat_str(b"pi");
                    let mark = self.mark();
                    while !self.eat(b'E') {
                        if !inits || self.left() == 0 {
                            return Err(BAD);
                        }
                        let e = self.expr()?;
                        self.push_item(e);
                    }
                    let l = self.end_list(mark);
                    self.expr_node(o, placement, t, NONE, l)
                }
                OpKind::Del => {
                    let e = self.expr()?;
                    self.expr_node(o, e, NONE, NONE, none)
                }
                OpKind::Call => {
                    let callee = self.expr()?;
                    let l = self.exprs_until_e(false)?;
                    self.expr_node(o, callee, NONE, NONE, l)
                }
                OpKind::CCast => {
                    let saved = self.try_template_args;
                    self.try_template_args = false;
                    let t = self.ty();
                    self.try_template_args = saved;
                    let t = t?;
                    let many = self.eat(b'_');
                    let mark = self.mark();
                    while !self.eat(b'E') {
                        if self.left() == 0 {
                            return Err(BAD);
                        }
                        let e = self.expr()?;
                        self.push_item(e);
                        if !many {
                            break;
                        }
                    }
                    let l = self.end_list(mark);
                    if !many && l.len != 1 {
                        return Err(BAD);
                    }
                    self.expr_node(ExprKind::Cast, t, NONE, NONE, l)
                }
                OpKind::Conditional => {
                    let a = self.expr()?;
                    let b = self.expr()?;
                    let c = self.expr()?;
                    self.expr_node(o, a, b, c, none)
                }
                OpKind::NamedCast => {
                    let t = self.ty()?;
                    let e = self.expr()?;
                    self.expr_node(o, t, e, NONE, none)
                }
                OpKind::OfType => {
                    let t = self.ty()?;
                    self.expr_node(o, t, NONE, NONE, none)
                }
                OpKind::OfExpr => {
                    let e = self.expr()?;
                    self.expr_node(o, e, NONE, NONE, none)
                }
                OpKind::NameOnly => Err(BAD),
            };
        }
        if self.left() < 2 {
            return Err(BAD);
        }
        let (a, b) = (self.look(), self.look_at(1));
        let none = List::default();
        match a {
            b'L' => return self.expr_primary(),
            b'T' => return self.template_param(),
            b'f' => {
                if b == b'p' || (b == b'L' && self.look_at(2).is_ascii_digit()) {
                    return self.function_param();
                }
                return self.fold_expr();
            }
            _ => {}
        }
        if self.eat_str(b"il") {
            let l = self.exprs_until_e(true)?;
            return self.expr_node(ExprKind::InitList, NONE, NONE, NONE, l);
        }
        if self.eat_str(b"mc") || self.eat_str(b"so") || (a == b'r' && matches!(b, b'q' | b'Q')) {
            return Err(Reject::Unsupported);
        }
        if self.eat_str(b"nx") {
            let e = self.expr()?;
            return self.expr_node(ExprKind::Noexcept, e, NONE, NONE, none);
        }
        if self.eat_str(b"sp") {
            let e = self.expr()?;
            return self.node(Node::PackExpansion(e));
        }
        if self.eat_str(b"sZ") {
            let e = if self.look() == b'T' {
                self.template_param()?
            } else {
                self.function_param()?
            };
            return self.expr_node(ExprKind::SizeofPack, e, NONE, NONE, none);
        }
        if self.eat_str(b"sP") {
            let mark = self.mark();
            while !self.eat(b'E') {
                if self.left() == 0 {
                    return Err(BAD);
                }
                let t = self.template_arg()?;
                self.push_item(t);
            }
            let l = self.end_list(mark);
            return self.expr_node(ExprKind::SizeofPack, NONE, NONE, NONE, l);
        }
        if self.eat_str(b"tl") {
            let t = self.ty()?;
            let l = self.exprs_until_e(true)?;
            return self.expr_node(ExprKind::InitList, t, NONE, NONE, l);
        }
        if self.eat_str(b"tr") {
            return self.expr_node(ExprKind::Throw, NONE, NONE, NONE, none);
        }
        if self.eat_str(b"tw") {
            let e = self.expr()?;
            return self.expr_node(ExprKind::Throw, e, NONE, NONE, none);
        }
        if self.eat(b'u') {
            let n = self.source_name()?;
            let is_uuid = matches!(self.arena.nodes[n as usize], Node::Source(s)
                if &self.input[s.start as usize..(s.start + s.len) as usize] == b"__uuidof");
            let mark = self.mark();
            if is_uuid && self.eat(b't') {
                let t = self.ty()?;
                self.push_item(t);
            } else if is_uuid && self.eat(b'z') {
                let e = self.expr()?;
                self.push_item(e);
            } else {
                while !self.eat(b'E') {
                    if self.left() == 0 {
                        return Err(BAD);
                    }
                    let t = self.template_arg()?;
                    self.push_item(t);
                }
            }
            let l = self.end_list(mark);
            return self.expr_node(ExprKind::Vendor, n, NONE, NONE, l);
        }
        let n = self.unresolved_name()?;
        if global {
            return self.expr_node(ExprKind::Global, n, NONE, NONE, none);
        }
        Ok(n)
    }

    fn function_param(&mut self) -> R<u32> {
        if self.eat_str(b"fpT") {
            return self.node(Node::Text("this"));
        }
        if self.eat_str(b"fp") {
            self.cv_qualifiers();
            let n = self.number(false);
            self.expect(b'_')?;
            return self.node(Node::FunctionParam(n));
        }
        if self.eat_str(b"fL") {
            if self.number(false).len == 0 {
                return Err(BAD);
            }
            self.expect(b'p')?;
            self.cv_qualifiers();
            let n = self.number(false);
            self.expect(b'_')?;
            return self.node(Node::FunctionParam(n));
        }
        Err(BAD)
    }

    fn fold_expr(&mut self) -> R<u32> {
        self.expect(b'f')?;
        let init = match self.look() {
            b'L' | b'R' => true,
            b'l' | b'r' => false,
            _ => return Err(BAD),
        };
        self.pos += 1;
        let op = self.operator_encoding().ok_or(BAD)?;
        let (_, kind, text) = OPERATORS[op as usize];
        if !(kind == OpKind::Binary
            || (matches!(kind, OpKind::Member | OpKind::MemberUnnamed) && text.ends_with('*')))
        {
            return Err(BAD);
        }
        let pack = self.expr()?;
        let init_e = if init { self.expr()? } else { NONE };
        self.expr_node(ExprKind::Fold, pack, init_e, op as u32, List::default())
    }

    /// `<braced-expression>` (5.1.6).
    fn braced_expr(&mut self) -> R<u32> {
        self.enter()?;
        let r = self.braced_expr_inner();
        self.leave();
        r
    }

    fn braced_expr_inner(&mut self) -> R<u32> {
        if self.look() == b'd' {
            let none = List::default();
            match self.look_at(1) {
                b'i' => {
                    self.pos += 2;
                    let f = self.source_name()?;
                    let i = self.braced_expr()?;
                    return self.expr_node(ExprKind::Braced, f, i, NONE, none);
                }
                b'x' => {
                    self.pos += 2;
                    let f = self.expr()?;
                    let i = self.braced_expr()?;
                    return self.expr_node(ExprKind::Braced, f, i, NONE, none);
                }
                b'X' => {
                    self.pos += 2;
                    let a = self.expr()?;
                    let b = self.expr()?;
                    let i = self.braced_expr()?;
                    return self.expr_node(ExprKind::Braced, a, b, i, none);
                }
                _ => {}
            }
        }
        self.expr()
    }

    /// `<expr-primary>` (5.1.6.1): literals and external names.
    fn expr_primary(&mut self) -> R<u32> {
        self.expect(b'L')?;
        let b = self.look();
        let int_ty = match b {
            b'w' => Some("wchar_t"),
            b'c' => Some("char"),
            b'a' => Some("signed char"),
            b'h' => Some("unsigned char"),
            b's' => Some("short"),
            b't' => Some("unsigned short"),
            b'i' => Some(""),
            b'j' => Some("u"),
            b'l' => Some("l"),
            b'm' => Some("ul"),
            b'x' => Some("ll"),
            b'y' => Some("ull"),
            b'n' => Some("__int128"),
            b'o' => Some("unsigned __int128"),
            _ => None,
        };
        if let Some(text) = int_ty {
            self.pos += 1;
            let digits = self.number(true);
            if digits.len == 0 {
                return Err(BAD);
            }
            self.expect(b'E')?;
            return self.node(Node::Literal {
                ty: NONE,
                text,
                digits,
            });
        }
        match b {
            b'b' => {
                if self.eat_str(b"b0E") || self.eat_str(b"b1E") {
                    return self.node(Node::FixedLiteral { ty: NONE, bytes: 5 });
                }
                Err(BAD)
            }
            b'f' | b'd' | b'e' => {
                self.pos += 1;
                let n = match b {
                    b'f' => 8,
                    b'd' => 16,
                    _ => 20,
                };
                if self.left() <= n {
                    return Err(BAD);
                }
                if !self.input[self.pos..self.pos + n]
                    .iter()
                    .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
                {
                    return Err(BAD);
                }
                self.pos += n;
                self.expect(b'E')?;
                self.node(Node::FixedLiteral {
                    ty: NONE,
                    bytes: 48,
                })
            }
            b'_' => {
                if self.eat_str(b"_Z") {
                    let e = self.encoding()?;
                    self.expect(b'E')?;
                    return Ok(e);
                }
                Err(BAD)
            }
            b'A' => {
                let t = self.ty()?;
                self.expect(b'E')?;
                self.node(Node::FixedLiteral { ty: t, bytes: 2 })
            }
            b'D' => {
                if self.eat_str(b"Dn") {
                    self.eat(b'0');
                    if self.eat(b'E') {
                        return self.node(Node::FixedLiteral { ty: NONE, bytes: 7 });
                    }
                }
                Err(BAD)
            }
            b'T' => Err(BAD),
            b'U' => {
                if self.look_at(1) != b'l' {
                    return Err(BAD);
                }
                let t = self.unnamed_type_name(false)?;
                self.expect(b'E')?;
                self.node(Node::FixedLiteral { ty: t, bytes: 0 })
            }
            _ => {
                let t = self.ty()?;
                let digits = self.number(true);
                if digits.len == 0 {
                    return Err(BAD);
                }
                self.expect(b'E')?;
                self.node(Node::Literal {
                    ty: t,
                    text: "",
                    digits,
                })
            }
        }
    }

    /// `<unresolved-name>` (5.1.6.2), as LLVM's `parseUnresolvedName`.
    fn unresolved_name(&mut self) -> R<u32> {
        let mark = self.mark();
        if self.eat_str(b"srN") {
            let mut t = self.unresolved_type()?;
            if self.look() == b'I' {
                let args = self.template_args(false)?;
                t = self.node(Node::Template { name: t, args })?;
            }
            self.push_item(t);
            while !self.eat(b'E') {
                if self.left() == 0 {
                    return Err(BAD);
                }
                let q = self.simple_id()?;
                self.push_item(q);
            }
            let base = self.base_unresolved_name()?;
            self.push_item(base);
            let l = self.end_list(mark);
            return self.expr_node(ExprKind::Unresolved, NONE, NONE, NONE, l);
        }
        if !self.eat_str(b"sr") {
            return self.base_unresolved_name();
        }
        if self.look().is_ascii_digit() {
            loop {
                let q = self.simple_id()?;
                self.push_item(q);
                if self.eat(b'E') {
                    break;
                }
                if self.left() == 0 {
                    return Err(BAD);
                }
            }
        } else {
            let mut t = self.unresolved_type()?;
            if self.look() == b'I' {
                let args = self.template_args(false)?;
                t = self.node(Node::Template { name: t, args })?;
            }
            self.push_item(t);
        }
        let base = self.base_unresolved_name()?;
        self.push_item(base);
        let l = self.end_list(mark);
        self.expr_node(ExprKind::Unresolved, NONE, NONE, NONE, l)
    }

    fn simple_id(&mut self) -> R<u32> {
        let n = self.source_name()?;
        if self.look() == b'I' {
            let args = self.template_args(false)?;
            return self.node(Node::Template { name: n, args });
        }
        Ok(n)
    }

    fn unresolved_type(&mut self) -> R<u32> {
        if self.look() == b'T' {
            let t = self.template_param()?;
            self.arena.subs.push(t);
            return Ok(t);
        }
        if self.look() == b'D' {
            let t = self.decltype()?;
            self.arena.subs.push(t);
            return Ok(t);
        }
        self.substitution()
    }

    fn base_unresolved_name(&mut self) -> R<u32> {
        self.enter()?;
        let r = self.base_unresolved_name_inner();
        self.leave();
        r
    }

    fn base_unresolved_name_inner(&mut self) -> R<u32> {
        if self.look().is_ascii_digit() {
            return self.simple_id();
        }
        if self.eat_str(b"dn") {
            let n = if self.look().is_ascii_digit() {
                self.simple_id()?
            } else {
                self.unresolved_type()?
            };
            return self.expr_node(ExprKind::DtorName, n, NONE, NONE, List::default());
        }
        self.eat_str(b"on");
        let op = self.operator_name(None)?;
        if self.look() == b'I' {
            let args = self.template_args(false)?;
            return self.node(Node::Template { name: op, args });
        }
        Ok(op)
    }
}

/// The one-letter builtin types (5.1.5.3 `<builtin-type>`), as LLVM prints them.
fn builtin(b: u8) -> Option<&'static str> {
    Some(match b {
        b'v' => "void",
        b'w' => "wchar_t",
        b'b' => "bool",
        b'c' => "char",
        b'a' => "signed char",
        b'h' => "unsigned char",
        b's' => "short",
        b't' => "unsigned short",
        b'i' => "int",
        b'j' => "unsigned int",
        b'l' => "long",
        b'm' => "unsigned long",
        b'x' => "long long",
        b'y' => "unsigned long long",
        b'n' => "__int128",
        b'o' => "unsigned __int128",
        b'f' => "float",
        b'd' => "double",
        b'e' => "long double",
        b'g' => "__float128",
        b'z' => "...",
        _ => return None,
    })
}

/// `DA`/`DR` (and `DS` saturated) fixed-point types, as LLVM prints them.
fn fixed_point(kind: u8, t: u8, sat: bool) -> Option<&'static str> {
    let accum = kind == b'A';
    if kind != b'A' && kind != b'R' {
        return None;
    }
    Some(match (sat, accum, t) {
        (false, true, b's') => "short _Accum",
        (false, true, b't') => "unsigned short _Accum",
        (false, true, b'i') => "_Accum",
        (false, true, b'j') => "unsigned _Accum",
        (false, true, b'l') => "long _Accum",
        (false, true, b'm') => "unsigned long _Accum",
        (false, false, b's') => "short _Fract",
        (false, false, b't') => "unsigned short _Fract",
        (false, false, b'i') => "_Fract",
        (false, false, b'j') => "unsigned _Fract",
        (false, false, b'l') => "long _Fract",
        (false, false, b'm') => "unsigned long _Fract",
        (true, true, b's') => "_Sat short _Accum",
        (true, true, b't') => "_Sat unsigned short _Accum",
        (true, true, b'i') => "_Sat _Accum",
        (true, true, b'j') => "_Sat unsigned _Accum",
        (true, true, b'l') => "_Sat long _Accum",
        (true, true, b'm') => "_Sat unsigned long _Accum",
        (true, false, b's') => "_Sat short _Fract",
        (true, false, b't') => "_Sat unsigned short _Fract",
        (true, false, b'i') => "_Sat _Fract",
        (true, false, b'j') => "_Sat unsigned _Fract",
        (true, false, b'l') => "_Sat long _Fract",
        (true, false, b'm') => "_Sat unsigned long _Fract",
        _ => return None,
    })
}
