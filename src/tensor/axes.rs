//! Compile-time axis arguments: `transpose_axes::<A, B>()` and
//! `permute_axes::<Axes4<0, 2, 1, 3>>()`.
//!
//! The axes are const parameters, so a wrong axis is a build error instead
//! of a `Result`. The checks are inline `const` assertions: they are
//! evaluated when the function is monomorphized, i.e. by `cargo build` /
//! `cargo test`, not by `cargo check`.

use super::view::View;

/// A compile-time list of `R` axes: the markers [`Axes1`] … [`Axes8`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an axis list for a rank-{R} view",
    label = "expected a list of exactly {R} axes",
    note = "use `Axes{R}<…>`, the marker with one axis per axis of the view (e.g. `Axes4<0, 2, 1, 3>` for a rank-4 view)",
    note = "markers exist for ranks 1 to 8 (`MAX_RANK`); for other ranks, use `permute([..])?` with a `[usize; R]` array"
)]
pub trait AxisList<const R: usize> {
    /// The axes, `AXES[k]` being the source axis of output axis `k`.
    const AXES: [usize; R];
}

macro_rules! axis_markers {
    ($($name:ident<$($a:ident),+> = $rank:literal;)*) => {$(
        #[doc = concat!("Axis-list marker of rank ", stringify!($rank),
            " for [`View::permute_axes`]: output axis `k` takes source axis `A_k`.")]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name<$(const $a: usize),+>;
        impl<$(const $a: usize),+> AxisList<$rank> for $name<$($a),+> {
            const AXES: [usize; $rank] = [$($a),+];
        }
    )*};
}

axis_markers! {
    Axes1<A0> = 1;
    Axes2<A0, A1> = 2;
    Axes3<A0, A1, A2> = 3;
    Axes4<A0, A1, A2, A3> = 4;
    Axes5<A0, A1, A2, A3, A4> = 5;
    Axes6<A0, A1, A2, A3, A4, A5> = 6;
    Axes7<A0, A1, A2, A3, A4, A5, A6> = 7;
    Axes8<A0, A1, A2, A3, A4, A5, A6, A7> = 8;
}

/// Whether every axis in `axes` is below its length (the rank).
const fn all_below_rank(axes: &[usize]) -> bool {
    let mut i = 0;
    while i < axes.len() {
        if axes[i] >= axes.len() {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether some axis appears twice in `axes`.
const fn has_repeated_axis(axes: &[usize]) -> bool {
    let mut i = 0;
    while i < axes.len() {
        let mut j = 0;
        while j < i {
            if axes[j] == axes[i] {
                return true;
            }
            j += 1;
        }
        i += 1;
    }
    false
}

impl<const R: usize, T> View<'_, R, T> {
    /// [`View::transpose`] with the axes checked at compile time; infallible.
    ///
    /// Shapes: `[.., a, .., b, ..]` -> `[.., b, .., a, ..]`, rank `R` kept.
    /// An axis `>= R` fails to build (not at `cargo check`):
    ///
    /// ```compile_fail,E0080
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 3], vec![0.0; 6]).unwrap();
    /// let bad = t.view().transpose_axes::<0, 3>(); // rank 2 has no axis 3
    /// ```
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let q = Tensor::from_vec([1, 2, 3, 4], vec![0.0; 24])?; // [B, H, T, D]
    /// let kt = q.view().transpose_axes::<2, 3>();             // [B, H, D, T]
    /// assert_eq!(kt.shape(), &[1, 2, 4, 3]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    #[must_use]
    pub fn transpose_axes<const A: usize, const B: usize>(&self) -> Self {
        // One `const` block per check, so each error names its own check. They
        // fail the build (not `cargo check`); the "while instantiating" note
        // of the error shows `View<'_, R>` and `transpose_axes::<A, B>`.
        const {
            if A >= R {
                panic!(
                    "transpose_axes::<A, B>(): axis A is not below the view's rank R (values in the last note)"
                )
            }
        };
        const {
            if B >= R {
                panic!(
                    "transpose_axes::<A, B>(): axis B is not below the view's rank R (values in the last note)"
                )
            }
        };
        self.transpose(A, B)
            .unwrap_or_else(|_| unreachable!("axes checked at compile time"))
    }

    /// [`View::permute`] with the axis list checked at compile time; infallible.
    ///
    /// `P` is a marker such as `Axes4<0, 2, 1, 3>` (GPT-2 `split_heads`:
    /// `[B, T, H, D]` -> `[B, H, T, D]`). A marker of another rank does not
    /// satisfy `AxisList<R>`; a repeated or out-of-range axis fails the
    /// build (not at `cargo check`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Axes4, Tensor};
    /// let x = Tensor::from_vec([1, 3, 2, 4], vec![0.0; 24])?; // [B, T, H, D]
    /// let heads = x.view().permute_axes::<Axes4<0, 2, 1, 3>>(); // [B, H, T, D]
    /// assert_eq!(heads.shape(), &[1, 2, 3, 4]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    #[must_use]
    pub fn permute_axes<P: AxisList<R>>(&self) -> Self {
        const {
            if !all_below_rank(&P::AXES) {
                panic!(
                    "permute_axes::<P>(): P names an axis >= the view's rank R (values in the last note)"
                )
            }
        };
        const {
            if has_repeated_axis(&P::AXES) {
                panic!(
                    "permute_axes::<P>(): P repeats an axis; each must appear once (values in the last note)"
                )
            }
        };
        self.permute(P::AXES)
            .unwrap_or_else(|_| unreachable!("axes checked at compile time"))
    }
}
