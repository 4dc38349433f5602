//! The pivots of one strip of the forward pass, found by building a basis of the strip's row
//! space one row at a time (the pivot search of M4RI, with tables of eight pivot rows).
//!
//! Rows are examined in order; each is reduced by the basis found so far and, if something is
//! left, joins it. The basis is kept in echelon form across groups of eight columns and reduced
//! within each group, so a row is reduced by one table lookup per group (a Four-Russians table
//! over the group's members, indexed by the row's byte in that group: Bard's M4RI, Albrecht,
//! Bard and Pernet, arXiv:1111.6549, Section 2). Every basis vector carries a *tag*: which of
//! the original pivot rows it is the sum of. After the last row, the basis is reduced to the
//! reduced echelon form `E_S` of the strip, and the tags form the matrix `M` with
//! `E_S = M T_S`, where `T_S` is the strip of the pivot rows `T`; the caller then obtains the
//! full reduced pivot rows as `E = M T` with one product.
//!
//! Examining stops once the basis spans every column of the strip; otherwise all rows are
//! examined. Rows are only read: the update of the other rows is left to the caller's product.

/// A basis vector: four words of strip (256 columns) and four words of tag (256 pivot rows).
type Vector = [u64; 8];

/// Columns per group (one table per group).
const GROUP: usize = 8;

#[derive(Clone)]
struct Group {
    /// Basis indices of the members, in increasing order of their leading column.
    members: Vec<u16>,
    /// The members' leading columns, as bits of the group's byte.
    mask: u8,
    /// Compressed table index of each byte: its bits at `mask`, packed.
    map: [u8; 256],
    /// `table[c]`: the sum of the members selected by the bits of `c`.
    table: Vec<Vector>,
    /// Whether `table` is out of date.
    dirty: bool,
}

impl Group {
    fn new() -> Self {
        Group {
            members: Vec::new(),
            mask: 0,
            map: [0; 256],
            table: vec![[0; 8]],
            dirty: false,
        }
    }

    fn rebuild(&mut self, vecs: &[Vector]) {
        let k = self.members.len();
        self.table.clear();
        self.table.push([0; 8]);
        for c in 1..(1usize << k) {
            let prev = self.table[c & (c - 1)];
            let m = &vecs[self.members[c.trailing_zeros() as usize] as usize];
            self.table.push(xor(prev, m));
        }
        self.dirty = false;
    }

    /// Adds bit `p` to `mask` and updates `map`: the compressed index gains the byte's bit `p`
    /// at position `q`, the number of mask bits below `p`.
    fn add_bit(&mut self, p: usize) {
        let q = (self.mask & ((1u8 << p) - 1)).count_ones();
        let low = ((1u16 << q) - 1) as u8;
        for (b, c) in self.map.iter_mut().enumerate() {
            let bit = ((b >> p) & 1) as u8;
            *c = (*c & low) | (bit << q) | ((*c & !low) << 1);
        }
        self.mask |= 1u8 << p;
    }
}

#[inline(always)]
fn xor(mut a: Vector, b: &Vector) -> Vector {
    for k in 0..8 {
        a[k] ^= b[k];
    }
    a
}

#[inline(always)]
fn byte_of(v: &Vector, g: usize) -> usize {
    ((v[g / 8] >> (8 * (g % 8))) & 0xff) as usize
}

/// The pivots of a strip (see the module documentation).
pub(crate) struct StripPivots {
    /// Pivot columns relative to the strip, increasing.
    pub cols: Vec<usize>,
    /// The original pivot rows, in the order they joined the basis (tag bit `j` is row
    /// `rows[j]`).
    pub rows: Vec<usize>,
    /// `tags[k]`: the combination of `rows` that gives the reduced pivot row of `cols[k]`
    /// (four words, bit `j` for `rows[j]`).
    pub tags: Vec<[u64; 4]>,
}

/// Finds the pivots of the strip of `width <= 256` columns whose rows are yielded by `strip`
/// (`strip(i)` is the strip of the `i`-th candidate row, four words, bits past `width` clear),
/// for candidates `0..nrows`.
pub(crate) fn strip_pivots(
    nrows: usize,
    width: usize,
    mut strip: impl FnMut(usize) -> [u64; 4],
) -> StripPivots {
    debug_assert!(width <= 256);
    let ngroups = width.div_ceil(GROUP);
    let mut groups = vec![Group::new(); ngroups];
    let mut active: Vec<usize> = Vec::new(); // groups with members, increasing
    let mut vecs: Vec<Vector> = Vec::new();
    let mut leads: Vec<usize> = Vec::new();
    let mut rows: Vec<usize> = Vec::new();
    for i in 0..nrows {
        if vecs.len() == width {
            break;
        }
        let s = strip(i);
        let mut v: Vector = [s[0], s[1], s[2], s[3], 0, 0, 0, 0];
        for &g in &active {
            let grp = &mut groups[g];
            let c = grp.map[byte_of(&v, g)];
            if c != 0 {
                if grp.dirty {
                    grp.rebuild(&vecs);
                }
                v = xor(v, &grp.table[c as usize]);
            }
        }
        let Some(lead) = (0..4)
            .find(|&w| v[w] != 0)
            .map(|w| w * 64 + v[w].trailing_zeros() as usize)
        else {
            continue;
        };
        let j = vecs.len();
        v[4 + j / 64] |= 1u64 << (j % 64);
        let g = lead / GROUP;
        let bit = 1u64 << (lead % 64);
        let grp = &mut groups[g];
        for &m in &grp.members {
            let m = m as usize;
            if vecs[m][lead / 64] & bit != 0 {
                vecs[m] = xor(vecs[m], &v);
            }
        }
        let pos = grp.members.partition_point(|&m| leads[m as usize] < lead);
        grp.members.insert(pos, j as u16);
        grp.add_bit(lead % GROUP);
        grp.dirty = true;
        if let Err(p) = active.binary_search(&g) {
            active.insert(p, g);
        }
        vecs.push(v);
        leads.push(lead);
        rows.push(i);
    }
    // Reduce across groups, last group first: afterwards every vector is zero at the other
    // vectors' leading columns.
    for (ai, &g) in active.iter().enumerate().rev() {
        let (before, rest) = groups.split_at_mut(g);
        let grp = &mut rest[0];
        grp.rebuild(&vecs);
        for &h in &active[..ai] {
            for &m in &before[h].members {
                let m = m as usize;
                let c = grp.map[byte_of(&vecs[m], g)];
                if c != 0 {
                    vecs[m] = xor(vecs[m], &grp.table[c as usize]);
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..vecs.len()).collect();
    order.sort_unstable_by_key(|&j| leads[j]);
    StripPivots {
        cols: order.iter().map(|&j| leads[j]).collect(),
        rows,
        tags: order
            .iter()
            .map(|&j| [vecs[j][4], vecs[j][5], vecs[j][6], vecs[j][7]])
            .collect(),
    }
}
