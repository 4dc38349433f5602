//! Exact geometric predicates on double-precision inputs.
//!
//! Every double is a dyadic rational `m 2^e`, so signs of polynomial expressions in doubles
//! (orientation determinants, dot products) have exact answers. Each predicate first evaluates
//! in floating point with a forward error bound (a *static filter*, as in Shewchuk, "Adaptive
//! precision floating-point arithmetic and fast robust geometric predicates", DCG 18, 1997) and
//! returns the sign of the rounded value when its magnitude exceeds the bound; otherwise (near
//! zero, or inputs outside the range where the bound is valid) it recomputes the expression
//! exactly with big integers. The answers are therefore exact for all finite inputs, and cost a
//! few floating-point operations in the common case.
//!
//! The bounds use the standard model `fl(a op b) = (a op b)(1 + δ)`, `|δ| <= u = 2^-53`, which
//! holds when no intermediate result underflows or overflows; the filters only run when every
//! non-zero input lies in a range that rules both out, and fall back to exact arithmetic
//! otherwise.

use num_bigint::{BigInt, Sign};

use crate::grid::{big_to_f64, decompose, pow2};

/// Unit roundoff `2^-53`.
const U: f64 = f64::EPSILON / 2.0;

/// `true` if `v` is zero or has magnitude in `[2^-lim, 2^lim]`.
#[inline]
fn in_range(v: f64, lim: i32) -> bool {
    let a = v.abs();
    a == 0.0 || (a >= pow2(-lim) && a <= pow2(lim))
}

#[inline]
fn sign_of(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// An exact dyadic rational `m 2^e`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dyadic {
    m: BigInt,
    e: i32,
}

impl Dyadic {
    /// The exact value of a finite double.
    pub fn from_f64(x: f64) -> Self {
        let (m, e) = decompose(x.abs());
        let m = BigInt::from(m);
        Dyadic {
            m: if x < 0.0 { -m } else { m },
            e,
        }
    }

    /// Zero.
    pub fn zero() -> Self {
        Dyadic {
            m: BigInt::from(0),
            e: 0,
        }
    }

    fn aligned(&self, o: &Self) -> (BigInt, BigInt, i32) {
        let e = self.e.min(o.e);
        (
            &self.m << (self.e - e) as usize,
            &o.m << (o.e - e) as usize,
            e,
        )
    }

    /// `self + o`.
    pub fn add(&self, o: &Self) -> Self {
        if o.m.sign() == Sign::NoSign {
            return self.clone();
        }
        if self.m.sign() == Sign::NoSign {
            return o.clone();
        }
        let (a, b, e) = self.aligned(o);
        Dyadic { m: a + b, e }
    }

    /// `self - o`.
    pub fn sub(&self, o: &Self) -> Self {
        self.add(&o.neg())
    }

    /// `-self`.
    pub fn neg(&self) -> Self {
        Dyadic {
            m: -&self.m,
            e: self.e,
        }
    }

    /// `self / 2`.
    pub fn half(&self) -> Self {
        Dyadic {
            m: self.m.clone(),
            e: self.e - 1,
        }
    }

    /// `self * o`.
    pub fn mul(&self, o: &Self) -> Self {
        Dyadic {
            m: &self.m * &o.m,
            e: self.e + o.e,
        }
    }

    /// Sign: -1, 0 or 1.
    pub fn sign(&self) -> i8 {
        match self.m.sign() {
            Sign::Minus => -1,
            Sign::NoSign => 0,
            Sign::Plus => 1,
        }
    }

    /// The nearest double (ties to even).
    pub fn to_f64(&self) -> f64 {
        big_to_f64(&self.m, self.e)
    }
}

/// Smallest positive subnormal: the absolute error bound of a rounded product that underflows.
const ETA: f64 = f64::from_bits(1);

/// Sign of the cross product `(b - a) x (d - c)` of two differences of points of the plane.
#[inline]
pub fn cross_diff(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> i8 {
    let (x1, y1) = (b[0] - a[0], b[1] - a[1]);
    let (x2, y2) = (d[0] - c[0], d[1] - c[1]);
    let p = x1 * y2;
    let q = y1 * x2;
    let det = p - q;
    // Differences (exact when they underflow) and products each add a relative error u, an
    // underflowing product an absolute error below ETA, the subtraction a relative u: the
    // bound below covers all of them with room to spare. Overflow gives a non-finite value.
    let mag = p.abs() + q.abs();
    if det.is_finite() && mag.is_finite() {
        if det.abs() > 6.0 * U * mag + 4.0 * ETA {
            return sign_of(det);
        }
        if x1 == 0.0 && y1 == 0.0 || x2 == 0.0 && y2 == 0.0 {
            return 0;
        }
    }
    let dy = |u: f64, v: f64| Dyadic::from_f64(u).sub(&Dyadic::from_f64(v));
    let (x1, y1) = (dy(b[0], a[0]), dy(b[1], a[1]));
    let (x2, y2) = (dy(d[0], c[0]), dy(d[1], c[1]));
    x1.mul(&y2).sub(&y1.mul(&x2)).sign()
}

fn floor_div(a: &BigInt, b: &BigInt) -> BigInt {
    let q = a / b;
    if (&q * b) != *a && ((a.sign() == Sign::Minus) != (b.sign() == Sign::Minus)) {
        q - 1
    } else {
        q
    }
}

/// The simplest fraction `p/q` (`q > 0`) with `a/b < p/q < c/d` (for `b, d > 0` and
/// `a/b < c/d`), by continued fractions.
fn simplest_between(a: &BigInt, b: &BigInt, c: &BigInt, d: &BigInt) -> (BigInt, BigInt) {
    let one = BigInt::from(1);
    let fl = floor_div(a, b);
    let f1 = &fl + &one;
    if &f1 * d < *c {
        return (f1, one);
    }
    let a2 = a - &fl * b;
    let c2 = c - &fl * d;
    if a2.sign() == Sign::NoSign {
        let k = floor_div(d, &c2) + &one;
        return (&fl * &k + one, k);
    }
    let (yp, yq) = simplest_between(d, &c2, b, &a2);
    (&fl * &yp + yq, yp)
}

/// The smallest integer `>= v` that is a double (at most 53 significant bits), for `v > 0`.
fn up_to_double(v: &BigInt) -> BigInt {
    let bits = v.bits();
    if bits <= 53 {
        return v.clone();
    }
    let s = bits - 53;
    let t = ((v - 1) >> s) + 1;
    t << s
}

/// A fraction `p/q` with `a/b < p/q < c/d` (for `b, d > 0`) whose terms are both doubles: the
/// simplest one when it qualifies, otherwise the first found among nearby denominators with 53
/// significant bits (each with the smallest double numerator above `a/b`).
fn double_fraction_between(a: &BigInt, b: &BigInt, c: &BigInt, d: &BigInt) -> Option<(f64, f64)> {
    let (_, q0) = simplest_between(a, b, c, d);
    let s = q0.bits().saturating_sub(53);
    let t0: BigInt = ((&q0 - 1) >> s) + 1;
    for step in 0..1024u32 {
        let q = (&t0 + step) << s;
        let p_int: BigInt = floor_div(&(a * &q), b) + 1;
        let p = if p_int.sign() == Sign::Plus {
            up_to_double(&p_int)
        } else {
            // Negative: the integer closest to zero is already >= p_int; p_int itself has fewer
            // bits than any larger double candidate only if representable.
            let m = -&p_int;
            let bits = m.bits();
            if bits <= 53 {
                p_int
            } else {
                -((&m >> (bits - 53)) << (bits - 53))
            }
        };
        if &p * d < c * &q && q.bits() <= 1024 && p.bits() <= 1024 {
            return Some((big_to_f64(&p, 0), big_to_f64(&q, 0)));
        }
    }
    None
}

/// A double-precision direction strictly inside the angle swept from `d1 = e1[1] - e1[0]` to
/// `d2 = e2[1] - e2[0]` (counter-clockwise, less than a half-turn), when both lie in one open
/// half-plane `x > 0`, `x < 0`, `y > 0` or `y < 0`: the simplest rational slope (or cotangent)
/// between theirs. Meant for nearly parallel directions, where rounding a bisector fails. The
/// caller verifies the result.
pub fn direction_between(e1: [[f64; 2]; 2], e2: [[f64; 2]; 2]) -> Option<[f64; 2]> {
    let pts: Vec<&[f64]> = vec![&e1[0], &e1[1], &e2[0], &e2[1]];
    let ints = integer_coords(&pts, &[0, 1]);
    let d = |k: usize, c: usize| &ints[2 * k + 1][c] - &ints[2 * k][c];
    let (x1, y1, x2, y2) = (d(0, 0), d(0, 1), d(1, 0), d(1, 1));
    let pos = |v: &BigInt| v.sign() == Sign::Plus;
    let neg = |v: &BigInt| v.sign() == Sign::Minus;
    // Slopes increase with the angle on x > 0 and x < 0; cotangents decrease on y > 0, y < 0.
    let (pq, sign, swap) = if pos(&x1) && pos(&x2) {
        (double_fraction_between(&y1, &x1, &y2, &x2), 1.0, false)
    } else if neg(&x1) && neg(&x2) {
        (
            double_fraction_between(&-&y1, &-&x1, &-&y2, &-&x2),
            -1.0,
            false,
        )
    } else if pos(&y1) && pos(&y2) {
        (double_fraction_between(&x2, &y2, &x1, &y1), 1.0, true)
    } else if neg(&y1) && neg(&y2) {
        (
            double_fraction_between(&-&x2, &-&y2, &-&x1, &-&y1),
            -1.0,
            true,
        )
    } else {
        return None;
    };
    let (p, q) = pq?;
    Some(if swap {
        [sign * p, sign * q]
    } else {
        [sign * q, sign * p]
    })
}

/// Sign of `w . x + b`.
#[inline]
pub fn affine_sign(w: &[f64], x: &[f64], b: f64) -> i8 {
    debug_assert_eq!(w.len(), x.len());
    let mut s = b;
    let mut a = b.abs();
    for (wi, xi) in w.iter().zip(x) {
        let p = wi * xi;
        s += p;
        a += p.abs();
    }
    // k products and k additions: a relative error of at most (2k + 2)u of the sum of
    // magnitudes, plus ETA per underflowing product; overflow gives a non-finite value.
    let k = w.len() as f64;
    if s.is_finite() && a.is_finite() && s.abs() > (2.0 * k + 4.0) * U * a + (k + 1.0) * ETA {
        return sign_of(s);
    }
    affine_exact(w, x, b).sign()
}

/// `w . x + b`, exactly.
pub fn affine_exact(w: &[f64], x: &[f64], b: f64) -> Dyadic {
    w.iter()
        .zip(x)
        .fold(Dyadic::from_f64(b), |acc, (&wi, &xi)| {
            if wi == 0.0 || xi == 0.0 {
                acc
            } else {
                acc.add(&Dyadic::from_f64(wi).mul(&Dyadic::from_f64(xi)))
            }
        })
}

/// Sign of the orientation determinant `det[p_1 - p_0, ..., p_k - p_0]` of `k + 1` points of
/// `R^k`, each read through the coordinate indices `coords` (`k` of them).
pub fn orient(pts: &[&[f64]], coords: &[usize]) -> i8 {
    let k = coords.len();
    debug_assert_eq!(pts.len(), k + 1);
    let p0 = pts[0];
    match k {
        0 => 1,
        1 => sign_of_cmp(pts[1][coords[0]], p0[coords[0]]),
        2 => cross_diff(
            [p0[coords[0]], p0[coords[1]]],
            [pts[1][coords[0]], pts[1][coords[1]]],
            [p0[coords[0]], p0[coords[1]]],
            [pts[2][coords[0]], pts[2][coords[1]]],
        ),
        3 => {
            let a: Vec<[f64; 3]> = (1..4)
                .map(|i| {
                    [
                        pts[i][coords[0]] - p0[coords[0]],
                        pts[i][coords[1]] - p0[coords[1]],
                        pts[i][coords[2]] - p0[coords[2]],
                    ]
                })
                .collect();
            if a.iter().flatten().all(|&v| in_range(v, 300)) {
                let m1 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
                let m2 = a[1][0] * a[2][2] - a[1][2] * a[2][0];
                let m3 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
                let det = a[0][0] * m1 - a[0][1] * m2 + a[0][2] * m3;
                let n1 = (a[1][1] * a[2][2]).abs() + (a[1][2] * a[2][1]).abs();
                let n2 = (a[1][0] * a[2][2]).abs() + (a[1][2] * a[2][0]).abs();
                let n3 = (a[1][0] * a[2][1]).abs() + (a[1][1] * a[2][0]).abs();
                let perm = a[0][0].abs() * n1 + a[0][1].abs() * n2 + a[0][2].abs() * n3;
                if det.abs() > 12.0 * U * perm || perm == 0.0 {
                    return sign_of(det);
                }
            }
            orient_exact(pts, coords)
        }
        _ => orient_exact(pts, coords),
    }
}

fn sign_of_cmp(a: f64, b: f64) -> i8 {
    match a.partial_cmp(&b) {
        Some(std::cmp::Ordering::Greater) => 1,
        Some(std::cmp::Ordering::Less) => -1,
        _ => 0,
    }
}

/// The points' coordinates (through `coords`) as integers over one common power-of-two scale.
fn integer_coords(pts: &[&[f64]], coords: &[usize]) -> Vec<Vec<BigInt>> {
    let e0 = pts
        .iter()
        .flat_map(|p| coords.iter().map(move |&c| p[c]))
        .filter(|v| *v != 0.0)
        .map(|v| decompose(v.abs()).1)
        .min()
        .unwrap_or(0);
    pts.iter()
        .map(|p| {
            coords
                .iter()
                .map(|&c| {
                    let v = p[c];
                    let (m, e) = decompose(v.abs());
                    let big = BigInt::from(m) << (e - e0).max(0) as usize;
                    if v < 0.0 { -big } else { big }
                })
                .collect()
        })
        .collect()
}

fn orient_exact(pts: &[&[f64]], coords: &[usize]) -> i8 {
    let ints = integer_coords(pts, coords);
    let rows: Vec<Vec<BigInt>> = ints[1..]
        .iter()
        .map(|r| r.iter().zip(&ints[0]).map(|(a, b)| a - b).collect())
        .collect();
    det_sign(rows)
}

/// Sign of the determinant of a square integer matrix (fraction-free Bareiss elimination).
pub fn det_sign(mut a: Vec<Vec<BigInt>>) -> i8 {
    let k = a.len();
    let mut sign = 1i8;
    let mut prev = BigInt::from(1);
    for c in 0..k {
        let Some(p) = (c..k).find(|&r| a[r][c].sign() != Sign::NoSign) else {
            return 0;
        };
        if p != c {
            a.swap(p, c);
            sign = -sign;
        }
        for r in c + 1..k {
            for j in c + 1..k {
                let v = (&a[r][j] * &a[c][c] - &a[r][c] * &a[c][j]) / &prev;
                a[r][j] = v;
            }
        }
        prev = a[c][c].clone();
    }
    let s = match a[k - 1][k - 1].sign() {
        Sign::Minus => -1,
        Sign::NoSign => 0,
        Sign::Plus => 1,
    };
    if k == 0 { 1 } else { s * sign }
}

/// Incremental exact row reduction of difference vectors `p - p_0`: affine rank, pivot
/// coordinates, and greedy affine bases.
pub struct AffineBasis<'a> {
    origin: &'a [f64],
    coords: Vec<usize>,
    /// Reduced rows with their pivot positions (indices into `coords`).
    rows: Vec<(usize, Vec<BigInt>)>,
    e0: i32,
}

impl<'a> AffineBasis<'a> {
    /// A basis anchored at `origin`, over the coordinates `coords`, for points whose non-zero
    /// coordinates all have binary exponent at least `e0` (see [`min_exponent`]).
    pub fn new(origin: &'a [f64], coords: Vec<usize>, e0: i32) -> Self {
        AffineBasis {
            origin,
            coords,
            rows: Vec::new(),
            e0,
        }
    }

    fn int(&self, v: f64) -> BigInt {
        let (m, e) = decompose(v.abs());
        let big = BigInt::from(m) << (e - self.e0).max(0) as usize;
        if v < 0.0 { -big } else { big }
    }

    /// Adds `p`; `true` if it raised the affine rank.
    pub fn insert(&mut self, p: &[f64]) -> bool {
        let mut v: Vec<BigInt> = self
            .coords
            .iter()
            .map(|&c| self.int(p[c]) - self.int(self.origin[c]))
            .collect();
        for (pc, row) in &self.rows {
            if v[*pc].sign() != Sign::NoSign {
                let f = v[*pc].clone();
                let g = &row[*pc];
                for (vj, rj) in v.iter_mut().zip(row) {
                    *vj = &*vj * g - &f * rj;
                }
            }
        }
        match v.iter().position(|x| x.sign() != Sign::NoSign) {
            Some(pc) => {
                self.rows.push((pc, v));
                true
            }
            None => false,
        }
    }

    /// Current affine rank.
    pub fn rank(&self) -> usize {
        self.rows.len()
    }

    /// Coordinates (from `coords`) onto which the projection of the affine hull is injective.
    pub fn pivot_coords(&self) -> Vec<usize> {
        let mut pc: Vec<usize> = self.rows.iter().map(|(p, _)| self.coords[*p]).collect();
        pc.sort_unstable();
        pc
    }
}

/// The smallest binary exponent of the non-zero values (0 if there is none).
pub fn min_exponent(values: impl Iterator<Item = f64>) -> i32 {
    values
        .filter(|v| *v != 0.0)
        .map(|v| decompose(v.abs()).1)
        .min()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_is_exact_near_zero() {
        // Collinear points whose coordinate differences are not representable.
        let a = [0.1, 0.2];
        let b = [0.3, 0.6];
        let c = [0.1 + 0.1, 0.2 + 0.2];
        let exact = {
            let d = |u: f64, v: f64| Dyadic::from_f64(u).sub(&Dyadic::from_f64(v));
            d(b[0], a[0])
                .mul(&d(c[1], a[1]))
                .sub(&d(b[1], a[1]).mul(&d(c[0], a[0])))
                .sign()
        };
        assert_eq!(cross_diff(a, b, a, c), exact);
        // Exactly collinear integer points.
        assert_eq!(
            cross_diff([0.0, 0.0], [3.0, 3.0], [1.0, 1.0], [7.0, 7.0]),
            0
        );
        assert_eq!(
            cross_diff([0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 1.0]),
            1
        );
        // Tiny and huge magnitudes go through the exact path.
        let t = f64::from_bits(1);
        assert_eq!(cross_diff([0.0, 0.0], [t, 0.0], [0.0, 0.0], [0.0, t]), 1);
        let h = f64::MAX;
        assert_eq!(cross_diff([-h, 0.0], [h, 0.0], [0.0, -h], [0.0, h]), 1);
    }

    #[test]
    fn directions_between_nearly_parallel() {
        let o = [0.0, 0.0];
        for (d1, d2) in [
            ([0.1, 0.3], [0.5, 1.5]),
            ([1.0, 0.0], [1.0, 1e-300]),
            ([-1.0, 3.0], [-1.0 - 1e-15, 3.0]),
        ] {
            let v = direction_between([o, d1], [o, d2]).unwrap();
            assert!(
                cross_diff(o, d1, o, v) > 0 && cross_diff(o, v, o, d2) > 0,
                "{d1:?} {d2:?} {v:?}"
            );
        }
    }

    #[test]
    fn affine_sign_exact() {
        assert_eq!(
            affine_sign(&[1.0, 1.0], &[0.1, 0.2], -0.30000000000000004),
            { affine_exact(&[1.0, 1.0], &[0.1, 0.2], -0.30000000000000004).sign() }
        );
        assert_eq!(affine_sign(&[1.0, -1.0], &[3.0, 3.0], 0.0), 0);
        assert_eq!(affine_sign(&[1e300, 1e300], &[1e300, -1e300], 1.0), 1);
        assert_eq!(affine_sign(&[0.0], &[5.0], 0.0), 0);
    }

    #[test]
    fn orientation_in_3d_and_rank() {
        let p: [[f64; 3]; 4] = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let r: Vec<&[f64]> = p.iter().map(|x| &x[..]).collect();
        assert_eq!(orient(&r, &[0, 1, 2]), 1);
        assert_eq!(orient(&r, &[1, 0, 2]), -1);
        let q: [[f64; 3]; 4] = [
            [0.0, 0.0, 0.0],
            [0.1, 0.2, 0.3],
            [0.2, 0.4, 0.6],
            [1.0, 0.0, 0.0],
        ];
        let r: Vec<&[f64]> = q.iter().map(|x| &x[..]).collect();
        let e0 = min_exponent(q.iter().flatten().copied());
        let mut b = AffineBasis::new(r[0], vec![0, 1, 2], e0);
        let ins: Vec<bool> = r[1..].iter().map(|p| b.insert(p)).collect();
        // Doubling is exact in binary: the second point lies on the line of the first.
        assert_eq!(ins, vec![true, false, true]);
        let big: Vec<Vec<BigInt>> = vec![
            vec![BigInt::from(2), BigInt::from(1)],
            vec![BigInt::from(4), BigInt::from(2)],
        ];
        assert_eq!(det_sign(big), 0);
    }
}
