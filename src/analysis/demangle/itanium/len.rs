//! An upper bound of the length LLVM's printer (`ItaniumDemangle.h`, each node's `printLeft` /
//! `printRight`) writes for a parsed name, and the depth its printing recurses to, computed once
//! per node (memoized: linear in the nodes and their edges), in saturating arithmetic.
//!
//! Each node's figures depend only on its children's, and the parser creates a node after its
//! children, so one pass over the nodes in the order they were created gives every node's
//! figures ([`bound_of`]) without recursion. Only a name holding a forward template reference
//! (a `T_` in a conversion operator's type, resolved to a node created after it) needs the
//! memoized walk from its root ([`printed_bound`]).

use super::budget::{MAX_DEPTH, Reject, Steps};
use super::parse::{Arena, CONST, ExprKind, NONE, Node, OPERATORS, RESTRICT, STANDARD, VOLATILE};

/// Per-node results: (bound of printed bytes, largest pack reachable, print depth).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Memo {
    size: u64,
    pack: u32,
    depth: u32,
}

/// Not computed yet.
const UNSET: u32 = 0;
/// Being computed (a cycle through a forward reference: LLVM prints nothing there).
const VISITING: u32 = u32::MAX;

const ZERO: Memo = Memo {
    size: 0,
    pack: 0,
    depth: 0,
};

/// The figures of node `n` from `memo`, the figures of the nodes created before it; `None` when
/// it has a child created after it (a forward template reference) or one whose figures are not
/// known.
fn eager(arena: &Arena, memo: &[Option<Memo>], n: u32) -> Option<Memo> {
    let mut known = true;
    let mut visit = |c: u32| -> Result<Memo, Reject> {
        if c == NONE {
            return Ok(ZERO);
        }
        match memo.get(c as usize) {
            Some(Some(m)) => Ok(*m),
            _ => {
                known = false;
                Ok(ZERO)
            }
        }
    };
    let m = compute(arena, n, &mut visit).ok()?;
    known.then_some(Memo {
        depth: m.depth.saturating_add(1),
        ..m
    })
}

/// [`printed_bound`], from one pass over the nodes in creation order when every node reachable
/// from `root` was created after its children (no forward template reference), else by the
/// walk. The same answer either way: each node's figures are a function of its children's, and
/// the walk rejects a name as too deep exactly when its root's depth is past [`MAX_DEPTH`]
/// (no path it recurses along is deeper). The pass takes no step: its work is one visit of
/// each node and list entry the parse created (and paid for).
pub fn bound_of(
    arena: &Arena,
    root: u32,
    lengths: &mut Lengths,
    steps: &mut Steps,
) -> Result<(u64, u32), Reject> {
    let eager_memo = &mut lengths.eager;
    eager_memo.clear();
    for n in 0..=root.min(arena.nodes.len().saturating_sub(1) as u32) {
        let m = eager(arena, eager_memo, n);
        eager_memo.push(m);
    }
    match eager_memo.get(root as usize).copied().flatten() {
        Some(m) => {
            let r = if m.depth > MAX_DEPTH {
                Err(Reject::TooDeep)
            } else {
                Ok((m.size, m.depth))
            };
            #[cfg(debug_assertions)]
            {
                let mut unbounded = Steps::unbounded();
                let walked = printed_bound(arena, root, lengths, &mut unbounded);
                debug_assert_eq!(
                    walked, r,
                    "the pass and the walk bound the name differently"
                );
            }
            r
        }
        None => printed_bound(arena, root, lengths, steps),
    }
}

/// The memo, reused per thread.
#[derive(Debug, Default)]
pub struct Lengths {
    memo: Vec<Memo>,
    /// The pass's figures, per node (`None`: not known without the walk).
    eager: Vec<Option<Memo>>,
}

/// (Bound of the printed length of `root` in bytes, its print depth), by a memoized walk from
/// `root`. Errors: [`Reject::TooDeep`], [`Reject::TooMuchWork`].
pub fn printed_bound(
    arena: &Arena,
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
        memo: &mut lengths.memo,
        steps,
        depth: 0,
    };
    let m = w.visit(root)?;
    Ok((m.size, m.depth))
}

struct Walk<'a> {
    arena: &'a Arena,
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
        let arena = self.arena;
        let r = compute(arena, n, &mut |c| self.visit(c));
        self.depth -= 1;
        let mut m = r?;
        m.depth = m.depth.saturating_add(1);
        if m.depth > MAX_DEPTH {
            return Err(Reject::TooDeep);
        }
        self.memo[i] = m;
        Ok(m)
    }
}

fn add_list<F: FnMut(u32) -> Result<Memo, Reject>>(
    arena: &Arena,
    visit: &mut F,
    acc: &mut Acc,
    l: super::parse::List,
) -> Result<(), Reject> {
    for k in 0..l.len {
        let c = arena.lists[(l.start + k) as usize];
        acc.add(visit(c)?);
        acc.text(2);
    }
    Ok(())
}

fn add_child<F: FnMut(u32) -> Result<Memo, Reject>>(
    visit: &mut F,
    acc: &mut Acc,
    c: u32,
) -> Result<(), Reject> {
    acc.add(visit(c)?);
    Ok(())
}

/// Node `n`'s figures (before its own level is added to the depth), its children's from
/// `visit`.
fn compute<F: FnMut(u32) -> Result<Memo, Reject>>(
    arena: &Arena,
    n: u32,
    visit: &mut F,
) -> Result<Memo, Reject> {
    let mut a = Acc::default();
    let cv_len = |cv: u8| {
        (if cv & CONST != 0 { 6 } else { 0 })
            + (if cv & VOLATILE != 0 { 9 } else { 0 })
            + (if cv & RESTRICT != 0 { 9 } else { 0 })
    };
    match arena.nodes[n as usize] {
        Node::Source(s) => a.text(s.len as u64),
        Node::AnonNamespace => a.text(21),
        Node::Text(t) => a.text(t.len() as u64),
        Node::Nested {
            prefix,
            name,
            friend,
        } => {
            add_child(visit, &mut a, prefix)?;
            add_child(visit, &mut a, name)?;
            // `::`, or `::friend `.
            a.text(if friend { 9 } else { 2 });
        }
        Node::UnscopedStd(name) => {
            add_child(visit, &mut a, name)?;
            a.text(5);
        }
        Node::Template { name, args } => {
            add_child(visit, &mut a, name)?;
            add_child(visit, &mut a, args)?;
        }
        Node::Args(l) => {
            add_list(arena, visit, &mut a, l)?;
            a.text(3);
        }
        Node::Pack(l) => {
            add_list(arena, visit, &mut a, l)?;
            a.pack = a.pack.max(l.len);
        }
        Node::CtorDtor { class, .. } => {
            // The class's base name, at most the class as printed.
            add_child(visit, &mut a, class)?;
            a.text(1);
        }
        Node::Operator(op) => a.text(OPERATORS[op as usize].2.len() as u64),
        Node::Conversion(t) => {
            add_child(visit, &mut a, t)?;
            a.text(9);
        }
        Node::LiteralOperator(s) => {
            add_child(visit, &mut a, s)?;
            a.text(11);
        }
        Node::Closure {
            params,
            tparams,
            number,
        } => {
            add_list(arena, visit, &mut a, tparams)?;
            add_list(arena, visit, &mut a, params)?;
            a.text(16 + number.len as u64 + 2);
        }
        Node::Unnamed(num) => a.text(10 + num.len as u64 + 2),
        Node::Block => a.text(15),
        Node::Binding(l) => {
            add_list(arena, visit, &mut a, l)?;
            a.text(2);
        }
        Node::AbiTag { name, tag } => {
            add_child(visit, &mut a, name)?;
            a.text(6 + tag.len as u64);
        }
        Node::Local { encoding, entity } => {
            add_child(visit, &mut a, encoding)?;
            add_child(visit, &mut a, entity)?;
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
            add_child(visit, &mut a, ret)?;
            add_child(visit, &mut a, name)?;
            add_list(arena, visit, &mut a, params)?;
            add_child(visit, &mut a, attrs)?;
            add_child(visit, &mut a, requires)?;
            a.text(1 + 2 + cv_len(cv) + u64::from(refq) + 1 + 24);
        }
        Node::Special { kind, child } => {
            add_child(visit, &mut a, child)?;
            a.text(kind.prefix().len() as u64);
        }
        Node::CtorVtable { of, in_ } => {
            add_child(visit, &mut a, of)?;
            add_child(visit, &mut a, in_)?;
            a.text(28);
        }
        Node::DotSuffix { encoding, suffix } => {
            add_child(visit, &mut a, encoding)?;
            a.text(3 + suffix.len as u64);
        }
        Node::Qualified { child, cv } => {
            add_child(visit, &mut a, child)?;
            a.text(cv_len(cv));
        }
        Node::VendorQualified { child, name, args } => {
            add_child(visit, &mut a, child)?;
            add_child(visit, &mut a, args)?;
            a.text(1 + name.len as u64);
        }
        Node::Pointer(c) => {
            add_child(visit, &mut a, c)?;
            a.text(4);
        }
        Node::Reference { child, .. } => {
            add_child(visit, &mut a, child)?;
            a.text(5);
        }
        Node::FunctionType {
            ret,
            params,
            cv,
            refq,
            spec,
        } => {
            add_child(visit, &mut a, ret)?;
            add_list(arena, visit, &mut a, params)?;
            add_child(visit, &mut a, spec)?;
            a.text(1 + 2 + 3 + cv_len(cv) + u64::from(refq) + 1 + 12);
        }
        Node::Array { child, dim } => {
            add_child(visit, &mut a, child)?;
            add_child(visit, &mut a, dim)?;
            a.text(5);
        }
        Node::PointerToMember { class, member } => {
            add_child(visit, &mut a, class)?;
            add_child(visit, &mut a, member)?;
            a.text(6);
        }
        Node::TemplateParam { target } => {
            if target != NONE && (target as usize) < arena.nodes.len() {
                let m = visit(target)?;
                a.add(m);
                if let Node::Pack(l) = arena.nodes[target as usize] {
                    a.pack = a.pack.max(l.len);
                }
            }
        }
        Node::PackExpansion(c) => {
            let m = visit(c)?;
            let count = u64::from(m.pack.max(1));
            a.size = count.saturating_mul(m.size.saturating_add(2));
            a.text(3);
            a.pack = m.pack;
            a.depth = m.depth;
        }
        Node::Postfix { child, text } => {
            add_child(visit, &mut a, child)?;
            a.text(text.len() as u64);
        }
        Node::Elaborated { keyword, child } => {
            add_child(visit, &mut a, child)?;
            a.text(keyword.len() as u64 + 1);
        }
        Node::Vector { child, dim } => {
            add_child(visit, &mut a, child)?;
            add_child(visit, &mut a, dim)?;
            a.text(20);
        }
        Node::BitInt(c) => {
            add_child(visit, &mut a, c)?;
            a.text(18);
        }
        Node::Transformed { name, child } => {
            add_child(visit, &mut a, child)?;
            a.text(name.len as u64 + 2);
        }
        Node::Decltype(e) => {
            add_child(visit, &mut a, e)?;
            a.text(10);
        }
        Node::StdSub(i) => a.text(STANDARD[i as usize].2.len() as u64),
        Node::Literal { ty, text, digits } => {
            add_child(visit, &mut a, ty)?;
            a.text(text.len() as u64 + digits.len as u64 + 3);
        }
        Node::FixedLiteral { ty, bytes } => {
            add_child(visit, &mut a, ty)?;
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
            add_child(visit, &mut a, x)?;
            add_child(visit, &mut a, y)?;
            if kind != ExprKind::Fold {
                add_child(visit, &mut a, z)?;
            }
            add_list(arena, visit, &mut a, list)?;
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
            add_child(visit, &mut a, child)?;
            a.text(24);
        }
    }
    Ok(Memo {
        size: a.size,
        pack: a.pack,
        depth: a.depth,
    })
}
