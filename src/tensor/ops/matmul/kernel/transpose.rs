//! Staging a right operand whose steps are contiguous (the transposed view
//! `Kᵀ` of a row-major key cache: each output column is a contiguous run
//! over `k`) with in-register transposes of square blocks on AVX-512:
//! 16 runs of 16 `f32` (8 of 8 `f64`) are loaded as vectors, transposed with
//! unpack and lane shuffles, and stored as 16 panel rows. Moves only: the
//! values, and so the sums built from them, are the same as with
//! [`pack_panel`](super::pack::pack_panel).

use super::pack::Source;
use crate::tensor::float::Float;
use pulp::Simd;

/// Fills `panel` (`depth × width`, step-major) from `source` like
/// `pack_panel` when a fast path applies: AVX-512, contiguous steps, all
/// `width` lanes live, `width` and `depth` multiples of the block side.
/// Returns whether it did (otherwise nothing is written).
#[inline(always)]
pub(super) fn stage_transposed<F: Float, S: Simd>(
    simd: S,
    source: Source<'_, F>,
    live: usize,
    width: usize,
    depth: usize,
    panel: &mut [F],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if source.step_stride == 1 && live == width {
        let any: &dyn core::any::Any = &simd;
        if let Some(&v4) = any.downcast_ref::<pulp::x86::V4>() {
            let (data, base, stride) = (source.data, source.base, source.lane_stride);
            if let (Some(data), Some(panel)) = (F::as_f32(data), F::as_f32_mut(panel)) {
                if width.is_multiple_of(16) && depth.is_multiple_of(16) {
                    x86::blocks_f32(v4, data, base, stride, width, depth, panel);
                    return true;
                }
            } else if let (Some(data), Some(panel)) = (F::as_f64(data), F::as_f64_mut(panel))
                && width.is_multiple_of(8)
                && depth.is_multiple_of(8)
            {
                x86::blocks_f64(v4, data, base, stride, width, depth, panel);
                return true;
            }
        }
    }
    let _ = (simd, source, live, width, depth, panel);
    false
}

/// `out[i]` = the chain `acc = fma(a[p], c_i[p], acc)` for `p = 0, 1, …`
/// from +0.0, for the 16 runs `c_i = data[base + i · stride..][..k]` (the
/// kernel's order, `vfmadd` per step): each 16 × 16 block of the runs is
/// transposed in registers and consumed at once. Only on AVX-512 for f32
/// with `k` a multiple of 16; returns whether it ran.
#[inline(always)]
pub(super) fn columns16<F: Float, S: Simd>(
    simd: S,
    a: &[F],
    data: &[F],
    base: usize,
    stride: usize,
    k: usize,
    out: &mut [F],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if k.is_multiple_of(16) {
        let any: &dyn core::any::Any = &simd;
        if let (Some(&v4), Some(a), Some(data), Some(out)) = (
            any.downcast_ref::<pulp::x86::V4>(),
            F::as_f32(a),
            F::as_f32(data),
            F::as_f32_mut(out),
        ) {
            out.copy_from_slice(&x86::columns16_f32(v4, a, data, base, stride, k));
            return true;
        }
    }
    let _ = (simd, a, data, base, stride, k, out);
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::{__m512, __m512d};
    use pulp::bytemuck::cast;
    use pulp::x86::V4;

    // Plain loops throughout, not `core::array::from_fn` closures: a closure
    // is compiled without the caller's target features
    // (rust-lang/rust#108338), so what it does becomes an out-of-line call.

    /// `$name` stages every `L × L` block of the panel: `L` runs of `L`
    /// steps (lane `g + c` starts at `base + (g + c) · stride`), transposed
    /// by `$transpose` into `L` panel rows.
    macro_rules! blocks {
        ($name:ident, $t:ty, $l:literal, $transpose:ident) => {
            #[inline(always)]
            pub(super) fn $name(
                simd: V4,
                data: &[$t],
                base: usize,
                stride: usize,
                width: usize,
                depth: usize,
                panel: &mut [$t],
            ) {
                for first_lane in (0..width).step_by($l) {
                    for first_step in (0..depth).step_by($l) {
                        let mut rows = [[0.0; $l]; $l];
                        for (c, row) in rows.iter_mut().enumerate() {
                            let start = base + (first_lane + c) * stride + first_step;
                            *row = pulp::as_arrays::<$l, $t>(&data[start..start + $l]).0[0];
                        }
                        let columns = $transpose(simd, rows);
                        for (s, column) in columns.iter().enumerate() {
                            let start = (first_step + s) * width + first_lane;
                            panel[start..start + $l].copy_from_slice(column);
                        }
                    }
                }
            }
        };
    }

    blocks!(blocks_f32, f32, 16, transpose_f32);
    blocks!(blocks_f64, f64, 8, transpose_f64);

    /// See [`super::columns16`].
    #[inline(always)]
    pub(super) fn columns16_f32(
        simd: V4,
        a: &[f32],
        data: &[f32],
        base: usize,
        stride: usize,
        k: usize,
    ) -> [f32; 16] {
        let f = simd.avx512f;
        let mut acc: __m512 = cast([0.0_f32; 16]);
        // The 16 runs as blocks of 16 steps, bounds-checked once.
        let mut runs: [&[[f32; 16]]; 16] = [&[]; 16];
        for (i, run) in runs.iter_mut().enumerate() {
            let start = base + i * stride;
            *run = pulp::as_arrays::<16, f32>(&data[start..start + k]).0;
        }
        let a_blocks = pulp::as_arrays::<16, f32>(&a[..k]).0;
        for (block, a_block) in a_blocks.iter().enumerate() {
            let mut rows = [[0.0; 16]; 16];
            for (row, run) in rows.iter_mut().zip(&runs) {
                *row = run[block];
            }
            let columns = transpose_f32(simd, rows);
            for (column, &value) in columns.iter().zip(a_block) {
                acc = f._mm512_fmadd_ps(cast([value; 16]), cast(*column), acc);
            }
        }
        cast(acc)
    }

    /// `out[k][i] = rows[i][k]` for a 16 × 16 block.
    #[inline(always)]
    fn transpose_f32(simd: V4, rows: [[f32; 16]; 16]) -> [[f32; 16]; 16] {
        let f = simd.avx512f;
        let zero: __m512 = cast([0.0_f32; 16]);
        // Pairs of rows interleaved per 128-bit lane.
        let mut t = [zero; 16];
        for pair in 0..8 {
            let (a, b): (__m512, __m512) = (cast(rows[2 * pair]), cast(rows[2 * pair + 1]));
            t[2 * pair] = f._mm512_unpacklo_ps(a, b);
            t[2 * pair + 1] = f._mm512_unpackhi_ps(a, b);
        }
        // u[4g + c], 128-bit lane L: rows 4g..4g + 4 of column 4L + c.
        let mut u = [zero; 16];
        for g in 0..4 {
            for half in 0..2 {
                let x: __m512d = cast(t[4 * g + half]);
                let y: __m512d = cast(t[4 * g + 2 + half]);
                u[4 * g + 2 * half] = cast(f._mm512_unpacklo_pd(x, y));
                u[4 * g + 2 * half + 1] = cast(f._mm512_unpackhi_pd(x, y));
            }
        }
        // Column 4L + c gathers lane L of u[c], u[4 + c], u[8 + c], u[12 + c].
        let mut out = [[0.0; 16]; 16];
        for c in 0..4 {
            let p0 = f._mm512_shuffle_f32x4::<0x44>(u[c], u[4 + c]);
            let p1 = f._mm512_shuffle_f32x4::<0xEE>(u[c], u[4 + c]);
            let q0 = f._mm512_shuffle_f32x4::<0x44>(u[8 + c], u[12 + c]);
            let q1 = f._mm512_shuffle_f32x4::<0xEE>(u[8 + c], u[12 + c]);
            out[c] = cast(f._mm512_shuffle_f32x4::<0x88>(p0, q0));
            out[4 + c] = cast(f._mm512_shuffle_f32x4::<0xDD>(p0, q0));
            out[8 + c] = cast(f._mm512_shuffle_f32x4::<0x88>(p1, q1));
            out[12 + c] = cast(f._mm512_shuffle_f32x4::<0xDD>(p1, q1));
        }
        out
    }

    /// `out[k][i] = rows[i][k]` for an 8 × 8 block.
    #[inline(always)]
    fn transpose_f64(simd: V4, rows: [[f64; 8]; 8]) -> [[f64; 8]; 8] {
        let f = simd.avx512f;
        // t[2g + c], 128-bit lane L: rows 2g, 2g + 1 of column 2L + c.
        let mut t: [__m512d; 8] = [cast([0.0_f64; 8]); 8];
        for pair in 0..4 {
            let (a, b): (__m512d, __m512d) = (cast(rows[2 * pair]), cast(rows[2 * pair + 1]));
            t[2 * pair] = f._mm512_unpacklo_pd(a, b);
            t[2 * pair + 1] = f._mm512_unpackhi_pd(a, b);
        }
        // Column 2L + c gathers lane L of t[c], t[2 + c], t[4 + c], t[6 + c].
        let mut out = [[0.0; 8]; 8];
        for c in 0..2 {
            let p0 = f._mm512_shuffle_f64x2::<0x44>(t[c], t[2 + c]);
            let p1 = f._mm512_shuffle_f64x2::<0xEE>(t[c], t[2 + c]);
            let q0 = f._mm512_shuffle_f64x2::<0x44>(t[4 + c], t[6 + c]);
            let q1 = f._mm512_shuffle_f64x2::<0xEE>(t[4 + c], t[6 + c]);
            out[c] = cast(f._mm512_shuffle_f64x2::<0x88>(p0, q0));
            out[2 + c] = cast(f._mm512_shuffle_f64x2::<0xDD>(p0, q0));
            out[4 + c] = cast(f._mm512_shuffle_f64x2::<0x88>(p1, q1));
            out[6 + c] = cast(f._mm512_shuffle_f64x2::<0xDD>(p1, q1));
        }
        out
    }
}
