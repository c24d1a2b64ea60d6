//! Exact solves of block-tridiagonal linear systems (block Gaussian elimination, the block
//! Thomas algorithm), for the analytic twin's chain: its states come in levels (attempts at
//! the server) that change by one at a time, so its generator is block tridiagonal, and both
//! its stationary distribution and its expected hitting times are such a system.
//!
//! Why not nalgebra (which the tests use, to check the chain against a dense eigen-solver): no
//! crate here has a block-tridiagonal solve, so the elimination loop below would be written
//! either way; nalgebra would replace only the two dense helpers (a product and an inverse with
//! partial pivoting, about forty lines), and would bring a dependency tree into the core's
//! no_std build for them. The blocks are small (the orbit's size, at most [`MAX_BLOCK`]).

use alloc::vec;
use alloc::vec::Vec;

/// The largest block (orbit states per level) solved.
pub const MAX_BLOCK: usize = 160;

/// A block-tridiagonal system: for each level `n`, `lower[n] x[n-1] + diag[n] x[n] +
/// upper[n] x[n+1] = rhs[n]`, every block `b x b` row-major.
#[derive(Clone, Debug)]
pub struct System {
    /// The block size.
    pub b: usize,
    /// Sub-diagonal blocks (`lower[0]` unused).
    pub lower: Vec<Vec<f64>>,
    /// Diagonal blocks.
    pub diag: Vec<Vec<f64>>,
    /// Super-diagonal blocks (the last unused).
    pub upper: Vec<Vec<f64>>,
    /// The right-hand side, one vector per level.
    pub rhs: Vec<Vec<f64>>,
}

impl System {
    /// A system of `levels` levels of size `b`, all zero.
    pub fn zeros(levels: usize, b: usize) -> System {
        let z = vec![vec![0.0; b * b]; levels];
        System {
            b,
            lower: z.clone(),
            diag: z.clone(),
            upper: z,
            rhs: vec![vec![0.0; b]; levels],
        }
    }

    /// Solves it; `None` when a pivot vanishes (a singular system).
    pub fn solve(self) -> Option<Vec<Vec<f64>>> {
        let (f, rhs) = self.factor()?;
        Some(f.back(rhs))
    }

    /// Eliminates the sub-diagonal blocks level by level (forwarding the right-hand side as it
    /// goes); `None` when a pivot vanishes. The factors solve further right-hand sides with
    /// [`Factors::solve`].
    pub fn factor(mut self) -> Option<(Factors, Vec<Vec<f64>>)> {
        let (b, levels) = (self.b, self.diag.len());
        let mut inv: Vec<Vec<f64>> = Vec::with_capacity(levels);
        let mut ws: Vec<Vec<f64>> = Vec::with_capacity(levels);
        for n in 0..levels {
            if n > 0 {
                // W = L_n D'_{n-1}^-1; D'_n = D_n - W U_{n-1}; r'_n = r_n - W r'_{n-1}.
                let w = mul(&self.lower[n], &inv[n - 1], b, b, b);
                let wu = mul(&w, &self.upper[n - 1], b, b, b);
                self.diag[n].iter_mut().zip(&wu).for_each(|(d, x)| *d -= x);
                let wr = mul(&w, &self.rhs[n - 1], b, b, 1);
                self.rhs[n].iter_mut().zip(&wr).for_each(|(r, x)| *r -= x);
                ws.push(w);
            } else {
                ws.push(Vec::new());
            }
            inv.push(invert(&self.diag[n], b)?);
        }
        let f = Factors {
            b,
            w: ws,
            inv,
            upper: self.upper,
        };
        Some((f, self.rhs))
    }
}

/// A block-tridiagonal system with its sub-diagonal eliminated: per level, the multiplier
/// `W_n`, the inverse of the reduced diagonal block, and the super-diagonal block.
#[derive(Clone, Debug)]
pub struct Factors {
    b: usize,
    w: Vec<Vec<f64>>,
    inv: Vec<Vec<f64>>,
    upper: Vec<Vec<f64>>,
}

impl Factors {
    /// The solution for the right-hand side `rhs` (one vector per level).
    pub fn solve(&self, mut rhs: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
        let b = self.b;
        for n in 1..rhs.len() {
            let wr = mul(&self.w[n], &rhs[n - 1], b, b, 1);
            rhs[n].iter_mut().zip(&wr).for_each(|(r, x)| *r -= x);
        }
        self.back(rhs)
    }

    /// Back substitution from a forwarded right-hand side.
    fn back(&self, rhs: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
        let (b, levels) = (self.b, rhs.len());
        let mut x = vec![Vec::new(); levels];
        for n in (0..levels).rev() {
            let mut r = rhs[n].clone();
            if n + 1 < levels {
                let ux = mul(&self.upper[n], &x[n + 1], b, b, 1);
                r.iter_mut().zip(&ux).for_each(|(v, u)| *v -= u);
            }
            x[n] = mul(&self.inv[n], &r, b, b, 1);
        }
        x
    }
}

/// `a (r x k) * c (k x cols)`.
fn mul(a: &[f64], c: &[f64], r: usize, k: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; r * cols];
    for i in 0..r {
        for j in 0..k {
            let v = a[i * k + j];
            if v != 0.0 {
                for (o, cv) in out[i * cols..(i + 1) * cols]
                    .iter_mut()
                    .zip(&c[j * cols..(j + 1) * cols])
                {
                    *o += v * cv;
                }
            }
        }
    }
    out
}

/// The inverse of `a` (`b x b`) by Gauss-Jordan elimination with partial pivoting.
fn invert(a: &[f64], b: usize) -> Option<Vec<f64>> {
    let mut m = a.to_vec();
    let mut inv = vec![0.0; b * b];
    (0..b).for_each(|i| inv[i * b + i] = 1.0);
    for col in 0..b {
        let piv =
            (col..b).max_by(|&i, &j| m[i * b + col].abs().total_cmp(&m[j * b + col].abs()))?;
        if m[piv * b + col].abs() < 1e-300 {
            return None;
        }
        for k in 0..b {
            m.swap(col * b + k, piv * b + k);
            inv.swap(col * b + k, piv * b + k);
        }
        let p = m[col * b + col];
        for k in 0..b {
            m[col * b + k] /= p;
            inv[col * b + k] /= p;
        }
        for row in (0..b).filter(|&r| r != col) {
            let f = m[row * b + col];
            if f != 0.0 {
                for k in 0..b {
                    m[row * b + k] -= f * m[col * b + k];
                    inv[row * b + k] -= f * inv[col * b + k];
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_system_is_solved_exactly() {
        // Two levels of 2: [[4,1,1,0],[1,3,0,1],[2,0,5,1],[0,2,1,6]] x = [6,5,8,9]; x = 1,1,1,1.
        let mut s = System::zeros(2, 2);
        s.diag[0] = vec![4.0, 1.0, 1.0, 3.0];
        s.upper[0] = vec![1.0, 0.0, 0.0, 1.0];
        s.lower[1] = vec![2.0, 0.0, 0.0, 2.0];
        s.diag[1] = vec![5.0, 1.0, 1.0, 6.0];
        s.rhs = vec![vec![6.0, 5.0], vec![8.0, 9.0]];
        let x = s.solve().unwrap();
        for v in x.iter().flatten() {
            assert!((v - 1.0).abs() < 1e-12, "{x:?}");
        }
        assert!(invert(&[0.0, 0.0, 0.0, 0.0], 2).is_none());
    }
}
