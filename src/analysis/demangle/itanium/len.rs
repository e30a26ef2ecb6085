//! An upper bound of the length LLVM's printer (`ItaniumDemangle.h`, each node's `printLeft` /
//! `printRight`) writes for a parsed name, and the depth its printing recurses to, computed once
//! per node (memoized: linear in the nodes and their edges), in saturating arithmetic.
//!
//! Everything LLVM expands is counted expanded: a substitution or template parameter prints the
//! node it names, and a pack expansion (`Dp`, `sp`: LLVM's `ParameterPackExpansion`) prints its
//! pattern once per element of the pack it expands, so it counts as many times the pattern
//! (with each pack counted whole) as the largest pack inside it has elements. Each node adds
//! at most the punctuation and keywords LLVM writes around its children (`(`, `, `, `::`,
//! ` const`, `operator`, `'lambda'` …).

use super::budget::{MAX_DEPTH, Reject, Steps};
use super::parse::{Arena, CONST, ExprKind, NONE, Node, OPERATORS, RESTRICT, STANDARD, VOLATILE};

/// Per-node results: (bound of printed bytes, largest pack reachable, print depth).
#[derive(Debug, Clone, Copy)]
struct Memo {
    size: u64,
    pack: u32,
    depth: u32,
}

/// Not computed yet.
const UNSET: u32 = 0;
/// Being computed (a cycle through a forward reference: LLVM prints nothing there).
const VISITING: u32 = u32::MAX;

/// The memo, reused per thread.
#[derive(Debug, Default)]
pub struct Lengths {
    memo: Vec<Memo>,
}

/// (Bound of the printed length of `root` in bytes, its print depth). Errors: [`Reject::TooDeep`],
/// [`Reject::TooMuchWork`].
pub fn printed_bound(
    arena: &Arena,
    input: &[u8],
    root: u32,
    lengths: &mut Lengths,
    steps: &mut Steps,
) -> Result<(u64, u32), Reject> {
    lengths.memo.clear();
    lengths.memo.resize(
        arena.nodes.len(),
        Memo {
            size: 0,
            pack: 0,
            depth: UNSET,
        },
    );
    let mut w = Walk {
        arena,
        input,
        memo: &mut lengths.memo,
        steps,
        depth: 0,
    };
    let m = w.visit(root)?;
    Ok((m.size, m.depth))
}

struct Walk<'a> {
    arena: &'a Arena,
    input: &'a [u8],
    memo: &'a mut Vec<Memo>,
    steps: &'a mut Steps,
    depth: u32,
}

/// Accumulates children.
#[derive(Default)]
struct Acc {
    size: u64,
    pack: u32,
    depth: u32,
}

impl Acc {
    fn add(&mut self, m: Memo) {
        self.size = self.size.saturating_add(m.size);
        self.pack = self.pack.max(m.pack);
        self.depth = self.depth.max(m.depth);
    }

    fn text(&mut self, n: u64) {
        self.size = self.size.saturating_add(n);
    }
}

impl Walk<'_> {
    fn visit(&mut self, n: u32) -> Result<Memo, Reject> {
        if n == NONE {
            return Ok(Memo {
                size: 0,
                pack: 0,
                depth: 0,
            });
        }
        let i = n as usize;
        let m = self.memo[i];
        if m.depth == VISITING {
            return Ok(Memo {
                size: 0,
                pack: 0,
                depth: 0,
            });
        }
        if m.depth != UNSET {
            return Ok(m);
        }
        self.steps.take(1)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Reject::TooDeep);
        }
        self.memo[i].depth = VISITING;
        let r = self.compute(n);
        self.depth -= 1;
        let mut m = r?;
        m.depth = m.depth.saturating_add(1);
        if m.depth > MAX_DEPTH {
            return Err(Reject::TooDeep);
        }
        self.memo[i] = m;
        Ok(m)
    }

    fn list(&mut self, acc: &mut Acc, l: super::parse::List) -> Result<(), Reject> {
        for k in 0..l.len {
            let c = self.arena.lists[(l.start + k) as usize];
            let m = self.visit(c)?;
            acc.add(m);
            acc.text(2);
        }
        Ok(())
    }

    fn child(&mut self, acc: &mut Acc, c: u32) -> Result<(), Reject> {
        let m = self.visit(c)?;
        acc.add(m);
        Ok(())
    }

    fn compute(&mut self, n: u32) -> Result<Memo, Reject> {
        let mut a = Acc::default();
        let cv_len = |cv: u8| {
            (if cv & CONST != 0 { 6 } else { 0 })
                + (if cv & VOLATILE != 0 { 9 } else { 0 })
                + (if cv & RESTRICT != 0 { 9 } else { 0 })
        };
        match self.arena.nodes[n as usize] {
            Node::Source(s) => a.text(s.len as u64),
            Node::AnonNamespace => a.text(21),
            Node::Text(t) => a.text(t.len() as u64),
            Node::Nested { prefix, name } => {
                self.child(&mut a, prefix)?;
                self.child(&mut a, name)?;
                a.text(2);
            }
            Node::UnscopedStd(name) => {
                self.child(&mut a, name)?;
                a.text(5);
            }
            Node::Template { name, args } => {
                self.child(&mut a, name)?;
                self.child(&mut a, args)?;
            }
            Node::Args(l) => {
                self.list(&mut a, l)?;
                a.text(3);
            }
            Node::Pack(l) => {
                self.list(&mut a, l)?;
                a.pack = a.pack.max(l.len);
            }
            Node::CtorDtor { class, .. } => {
                // The class's base name, at most the class as printed.
                self.child(&mut a, class)?;
                a.text(1);
            }
            Node::Operator(op) => a.text(OPERATORS[op as usize].2.len() as u64),
            Node::Conversion(t) => {
                self.child(&mut a, t)?;
                a.text(9);
            }
            Node::LiteralOperator(s) => {
                self.child(&mut a, s)?;
                a.text(11);
            }
            Node::Closure {
                params,
                tparams,
                number,
            } => {
                self.list(&mut a, tparams)?;
                self.list(&mut a, params)?;
                a.text(16 + number.len as u64 + 2);
            }
            Node::Unnamed(num) => a.text(10 + num.len as u64 + 2),
            Node::Block => a.text(15),
            Node::Binding(l) => {
                self.list(&mut a, l)?;
                a.text(2);
            }
            Node::AbiTag { name, tag } => {
                self.child(&mut a, name)?;
                a.text(6 + tag.len as u64);
            }
            Node::Local { encoding, entity } => {
                self.child(&mut a, encoding)?;
                self.child(&mut a, entity)?;
                a.text(2 + 14);
            }
            Node::Function {
                name,
                ret,
                params,
                cv,
                refq,
                attrs,
                requires,
            } => {
                self.child(&mut a, ret)?;
                self.child(&mut a, name)?;
                self.list(&mut a, params)?;
                self.child(&mut a, attrs)?;
                self.child(&mut a, requires)?;
                a.text(1 + 2 + cv_len(cv) + u64::from(refq) + 1 + 24);
            }
            Node::Special { kind, child } => {
                self.child(&mut a, child)?;
                a.text(kind.prefix().len() as u64);
            }
            Node::CtorVtable { of, in_ } => {
                self.child(&mut a, of)?;
                self.child(&mut a, in_)?;
                a.text(28);
            }
            Node::DotSuffix { encoding, suffix } => {
                self.child(&mut a, encoding)?;
                a.text(3 + suffix.len as u64);
            }
            Node::Qualified { child, cv } => {
                self.child(&mut a, child)?;
                a.text(cv_len(cv));
            }
            Node::VendorQualified { child, name, args } => {
                self.child(&mut a, child)?;
                self.child(&mut a, args)?;
                a.text(1 + name.len as u64);
            }
            Node::Pointer(c) => {
                self.child(&mut a, c)?;
                a.text(4);
            }
            Node::Reference { child, .. } => {
                self.child(&mut a, child)?;
                a.text(5);
            }
            Node::FunctionType {
                ret,
                params,
                cv,
                refq,
                spec,
            } => {
                self.child(&mut a, ret)?;
                self.list(&mut a, params)?;
                self.child(&mut a, spec)?;
                a.text(1 + 2 + 3 + cv_len(cv) + u64::from(refq) + 1 + 12);
            }
            Node::Array { child, dim } => {
                self.child(&mut a, child)?;
                self.child(&mut a, dim)?;
                a.text(5);
            }
            Node::PointerToMember { class, member } => {
                self.child(&mut a, class)?;
                self.child(&mut a, member)?;
                a.text(6);
            }
            Node::TemplateParam { target } => {
                if target != NONE && (target as usize) < self.arena.nodes.len() {
                    let m = self.visit(target)?;
                    a.add(m);
                    if let Node::Pack(l) = self.arena.nodes[target as usize] {
                        a.pack = a.pack.max(l.len);
                    }
                }
            }
            Node::PackExpansion(c) => {
                let m = self.visit(c)?;
                let count = u64::from(m.pack.max(1));
                a.size = count.saturating_mul(m.size.saturating_add(2));
                a.text(3);
                a.pack = m.pack;
                a.depth = m.depth;
            }
            Node::Postfix { child, text } => {
                self.child(&mut a, child)?;
                a.text(text.len() as u64);
            }
            Node::Elaborated { keyword, child } => {
                self.child(&mut a, child)?;
                a.text(keyword.len() as u64 + 1);
            }
            Node::Vector { child, dim } => {
                self.child(&mut a, child)?;
                self.child(&mut a, dim)?;
                a.text(20);
            }
            Node::BitInt(c) => {
                self.child(&mut a, c)?;
                a.text(18);
            }
            Node::Transformed { name, child } => {
                self.child(&mut a, child)?;
                a.text(name.len as u64 + 2);
            }
            Node::Decltype(e) => {
                self.child(&mut a, e)?;
                a.text(10);
            }
            Node::StdSub(i) => a.text(STANDARD[i as usize].2.len() as u64),
            Node::Literal { ty, text, digits } => {
                self.child(&mut a, ty)?;
                a.text(text.len() as u64 + digits.len as u64 + 3);
            }
            Node::FixedLiteral { ty, bytes } => {
                self.child(&mut a, ty)?;
                a.text(u64::from(bytes) + 2);
            }
            Node::FunctionParam(d) => a.text(2 + d.len as u64 + 1),
            Node::Expr {
                kind,
                a: x,
                b: y,
                c: z,
                list,
            } => {
                self.child(&mut a, x)?;
                self.child(&mut a, y)?;
                if kind != ExprKind::Fold {
                    self.child(&mut a, z)?;
                }
                self.list(&mut a, list)?;
                let op = match kind {
                    ExprKind::Op(o) => OPERATORS[o as usize].2.len() as u64,
                    ExprKind::Fold => OPERATORS.get(z as usize).map_or(20, |op| op.2.len() as u64),
                    _ => 20,
                };
                // Parentheses around each operand and the whole, spaces, the operator (twice
                // in a fold), `...`, `sizeof...`, `noexcept`, `throw `, `{`, `}`, `.`, `= `.
                a.text(2 * op + 24);
            }
            Node::ParamDecl { child } => {
                self.child(&mut a, child)?;
                a.text(24);
            }
        }
        let _ = self.input;
        Ok(Memo {
            size: a.size,
            pack: a.pack,
            depth: a.depth,
        })
    }
}
