//! How the columns of a table share a width: which are shown, in how many parts, how wide each
//! is. Pure arithmetic on display columns; [`super::grid`] measures the cells and draws.
//!
//! * Figures and short words ([`Fit::Whole`]) keep their width; names and other text share
//!   the rest, each keeping a readable width ([`NAME_WIDTH`], [`TEXT_WIDTH`]) while another
//!   column has less than its own.
//! * The example column goes first: it is shown only when every other column has its full
//!   width and [`EXAMPLE_WIDTH`] columns are left for it, and it is one line. Details
//!   ([`Fit::Extra`]) go the same way.
//! * When the columns cannot all keep a readable width, the table is drawn in parts, each
//!   repeating its leading columns (up to the first name), the others in their order — or,
//!   when names and text still have [`NAME_WIDTH`] and [`TEXT_WIDTH`], as one tighter table,
//!   their longest identifiers cut in the middle: [`layouts`] gives both and the caller keeps
//!   the shorter ([`super::grid`]).

/// How a column takes part in fitting a table to a width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// What the table is about (a group key, an image, a row label): wraps at its break points,
    /// keeps [`NAME_WIDTH`] when it can; the leading columns up to it are repeated in each part.
    Name,
    /// Other text (`from`, paths, lists of images): wraps, keeps [`TEXT_WIDTH`] when it can.
    Text,
    /// Figures and short words: as wide as their widest value (their header one word a line).
    Whole,
    /// An example member: one line, cut in the middle; the first column to go.
    Example,
    /// A detail (how an image was found): wraps like text, but goes as the example does.
    Extra,
}

impl Fit {
    /// Whether the column is shown only when every other one has its full width.
    fn optional(self) -> bool {
        matches!(self, Fit::Example | Fit::Extra)
    }
}

/// Width a name column keeps while others have less than theirs, when its content is as wide.
pub(crate) const NAME_WIDTH: usize = 24;
/// Width another text column keeps while others have less than theirs.
pub(crate) const TEXT_WIDTH: usize = 20;
/// Up to this width, a name or text column also keeps its longest unbreakable piece whole
/// (`StaticCallInterfaceDescriptor`, `libv8_base_without_compiler.a`: 29).
pub(crate) const PIECE_WIDTH: usize = 32;
/// Width below which the example column is left out.
pub(crate) const EXAMPLE_WIDTH: usize = 24;

/// What a column needs, in display columns of content (padding and borders apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Need {
    pub fit: Fit,
    /// Below this nothing in it reads: given first.
    pub floor: usize,
    /// The least a tight table gives it: [`NAME_WIDTH`], [`TEXT_WIDTH`], a figure's `ok`.
    pub tight: usize,
    /// A readable width, its longest piece whole: given before any column gets more.
    pub ok: usize,
    /// The width of its content (its header's longest word included): never exceeded.
    pub natural: usize,
}

impl Need {
    /// The needs of a column whose widest content is `natural` columns and whose widest
    /// unbreakable piece (an identifier, a figure, a header word) is `piece` columns.
    pub(crate) fn new(fit: Fit, natural: usize, piece: usize) -> Need {
        let natural = natural.max(1);
        let (floor, tight, ok) = match fit {
            Fit::Name => (8, NAME_WIDTH, piece.clamp(NAME_WIDTH, PIECE_WIDTH)),
            Fit::Text => (6, TEXT_WIDTH, piece.clamp(TEXT_WIDTH, PIECE_WIDTH)),
            Fit::Whole => (6, piece, piece),
            Fit::Example | Fit::Extra => (EXAMPLE_WIDTH, EXAMPLE_WIDTH, EXAMPLE_WIDTH),
        };
        Need {
            fit,
            floor: floor.min(natural),
            tight: tight.min(natural),
            ok: ok.min(natural),
            natural,
        }
    }
}

/// One table of a fitted layout: the columns it shows (indices into the needs) and the content
/// width of each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    pub columns: Vec<usize>,
    pub widths: Vec<usize>,
}

/// Display columns a table of `n` columns spends on borders and padding
/// (`│ a ┆ b │`: one on each side of each column, one between and one at each end).
pub(crate) fn chrome(n: usize) -> usize {
    3 * n + 1
}

/// The layouts that fit the columns of `needs` into `width` display columns, each a list of
/// parts: one table when every column keeps its readable width; else the table in parts and,
/// when one table still gives names and text their tight width, that table too.
pub(crate) fn layouts(needs: &[Need], width: usize) -> Vec<Vec<Part>> {
    let sum = |cols: &[usize], f: fn(&Need) -> usize| -> usize {
        cols.iter().map(|&c| f(&needs[c])).sum::<usize>() + chrome(cols.len())
    };
    let all: Vec<usize> = (0..needs.len()).collect();
    let others: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&c| !needs[c].fit.optional())
        .collect();
    let optional = all.len() - others.len();
    let shown = if sum(&others, |n| n.natural) + optional * (EXAMPLE_WIDTH + 3) <= width {
        all
    } else {
        others
    };
    if shown.is_empty() {
        return vec![Vec::new()];
    }
    if sum(&shown, |n| n.ok) <= width {
        return vec![vec![part(needs, shown, width)]];
    }
    let mut out = vec![parts(needs, &shown, width)];
    if sum(&shown, |n| n.tight) <= width {
        out.push(vec![part(needs, shown, width)]);
    }
    out
}

/// The table in parts: the leading columns through the first name in each, then as many more
/// as keep their readable width.
fn parts(needs: &[Need], shown: &[usize], width: usize) -> Vec<Part> {
    let sum = |cols: &[usize]| -> usize {
        cols.iter().map(|&c| needs[c].ok).sum::<usize>() + chrome(cols.len())
    };
    let lead = shown
        .iter()
        .position(|&c| needs[c].fit == Fit::Name)
        .map_or(1, |i| i + 1);
    let mut parts = Vec::new();
    let mut cols: Vec<usize> = shown[..lead].to_vec();
    for &c in &shown[lead..] {
        let mut with = cols.clone();
        with.push(c);
        if cols.len() > lead && sum(&with) > width {
            let full = std::mem::replace(&mut cols, shown[..lead].to_vec());
            parts.push(part(needs, full, width));
            cols.push(c);
        } else {
            cols = with;
        }
    }
    parts.push(part(needs, cols, width));
    parts
}

/// How a step of [`part`] raises the columns it takes toward its target.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Raise {
    /// Alike, each column short of the target.
    Alike,
    /// The column that needs least first, while it can be made whole ([`complete`]).
    Whole,
}

/// Which columns a step of [`part`] takes, and its target for each.
type Step = (fn(&Need) -> bool, fn(&Need) -> usize, Raise);

/// The widths of `columns` sharing `width` less their borders, in steps: every column toward
/// its floor, its tight width, its readable width, alike; then names and text made whole where
/// the room allows (a wrapped cell costs a line a row), then figures (a header broken at a
/// hyphen costs one line); what is left shared by names and text, then figures; the example or
/// detail last.
fn part(needs: &[Need], columns: Vec<usize>, width: usize) -> Part {
    use Raise::{Alike, Whole};
    let mut budget = width.saturating_sub(chrome(columns.len()));
    let mut widths = vec![0; columns.len()];
    let text = |n: &Need| matches!(n.fit, Fit::Name | Fit::Text);
    let steps: [Step; 9] = [
        (|n| !n.fit.optional(), |n| n.floor, Alike),
        (|n| !n.fit.optional(), |n| n.tight, Alike),
        (|n| !n.fit.optional(), |n| n.ok, Alike),
        (text, |n| n.natural, Whole),
        (|n| n.fit == Fit::Whole, |n| n.natural, Whole),
        (text, |n| n.natural, Alike),
        (|n| n.fit == Fit::Whole, |n| n.natural, Alike),
        (|n| n.fit.optional(), |n| n.natural, Whole),
        (|n| n.fit.optional(), |n| n.natural, Alike),
    ];
    for (takes, target, raise) in steps {
        let targets: Vec<usize> = columns
            .iter()
            .map(|&c| {
                let n = &needs[c];
                if takes(n) { target(n) } else { 0 }
            })
            .collect();
        match raise {
            Alike => share(&mut widths, &targets, &mut budget),
            Whole => complete(&mut widths, &targets, &mut budget),
        }
    }
    for w in &mut widths {
        *w = (*w).max(1);
    }
    Part { columns, widths }
}

/// Raises `widths` to `targets` out of `budget`, the column that needs least first, while the
/// budget makes it whole (a whole column saves a line a row; two half-grown ones may save
/// none).
fn complete(widths: &mut [usize], targets: &[usize], budget: &mut usize) {
    let mut open: Vec<usize> = (0..widths.len())
        .filter(|&i| widths[i] < targets[i])
        .collect();
    open.sort_by_key(|&i| targets[i] - widths[i]);
    for i in open {
        let need = targets[i] - widths[i];
        if need > *budget {
            return;
        }
        widths[i] += need;
        *budget -= need;
    }
}

/// Raises `widths` toward `targets` out of `budget`, alike for every column still short.
fn share(widths: &mut [usize], targets: &[usize], budget: &mut usize) {
    loop {
        let open: Vec<usize> = (0..widths.len())
            .filter(|&i| widths[i] < targets[i])
            .collect();
        if open.is_empty() || *budget == 0 {
            return;
        }
        let each = *budget / open.len();
        if each == 0 {
            for &i in open.iter().take(*budget) {
                widths[i] += 1;
            }
            *budget = 0;
            return;
        }
        for i in open {
            let add = each.min(targets[i] - widths[i]);
            widths[i] += add;
            *budget -= add;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs() -> Vec<Need> {
        // A scan of groups: key, four figures, from, example.
        vec![
            Need::new(Fit::Name, 47, 29),
            Need::new(Fit::Whole, 10, 7),
            Need::new(Fit::Whole, 7, 7),
            Need::new(Fit::Whole, 5, 5),
            Need::new(Fit::Whole, 8, 7),
            Need::new(Fit::Text, 62, 29),
            Need::new(Fit::Example, 90, 20),
        ]
    }

    fn width_of(p: &Part) -> usize {
        p.widths.iter().sum::<usize>() + chrome(p.widths.len())
    }

    /// The first layout of `needs` at `width`.
    fn layout(needs: &[Need], width: usize) -> Vec<Part> {
        layouts(needs, width).remove(0)
    }

    #[test]
    fn wide_enough_everything_is_whole_and_the_example_takes_the_rest() {
        assert_eq!(layouts(&needs(), 200).len(), 1);
        let parts = layout(&needs(), 200);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].columns, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(parts[0].widths, [47, 10, 7, 5, 8, 62, 39]);
        assert_eq!(width_of(&parts[0]), 200);
    }

    #[test]
    fn the_example_goes_first_then_names_and_text_share() {
        let parts = layout(&needs(), 120);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].columns, [0, 1, 2, 3, 4, 5]);
        // 120 - 19 (borders) - 26 (figures at their readable width) = 75 for the key and
        // from: neither can be whole; the figures can (4 more), the rest is shared.
        assert_eq!(parts[0].widths, [36, 10, 7, 5, 8, 35]);
    }

    #[test]
    fn too_narrow_for_readable_names_the_table_comes_in_parts() {
        // 80: no tight table either (24 + 20 + 30 + 19 > 80).
        let options = layouts(&needs(), 80);
        assert_eq!(options.len(), 1);
        let parts = &options[0];
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert_eq!(parts[0].columns, [0, 1, 2, 3, 4]);
        assert_eq!(parts[1].columns, [0, 5]);
        for p in parts {
            assert!(width_of(p) <= 80, "{p:?}");
        }
    }

    #[test]
    fn a_tight_table_is_offered_when_names_keep_their_tight_width() {
        // 100: parts, or one table: the key keeps its longest piece (29), from has the rest.
        let options = layouts(&needs(), 100);
        assert_eq!(options.len(), 2);
        assert_eq!(options[0].len(), 2);
        assert_eq!(options[1].len(), 1);
        assert_eq!(options[1][0].widths, [29, 7, 7, 5, 7, 26]);
    }

    #[test]
    fn every_width_from_forty_fits() {
        for width in 40..=240 {
            for p in layouts(&needs(), width).into_iter().flatten() {
                assert!(width_of(&p) <= width, "{width}: {p:?}");
                assert!(p.widths.iter().all(|&w| w >= 1));
            }
        }
    }

    #[test]
    fn a_column_that_can_be_made_whole_is_first() {
        let mut w = vec![20, 32];
        let mut budget = 5;
        complete(&mut w, &[23, 46], &mut budget);
        assert_eq!((w, budget), (vec![23, 32], 2));
    }

    #[test]
    fn sharing_is_even_and_stops_at_each_target() {
        let mut w = vec![0, 0, 0];
        let mut budget = 10;
        share(&mut w, &[2, 10, 10], &mut budget);
        assert_eq!((w, budget), (vec![2, 4, 4], 0));
    }
}
