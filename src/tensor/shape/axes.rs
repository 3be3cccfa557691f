//! Compile-time axis arguments: `transpose_axes::<A, B>()` and
//! `permute_axes::<Axes4<0, 2, 1, 3>>()`.
//!
//! The axes are const parameters, so a wrong axis is a build error instead
//! of a `Result`. The checks are inline `const` assertions: they are
//! evaluated when the function is monomorphized, i.e. by `cargo build` /
//! `cargo test`, not by `cargo check`.

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
            " for [`View::permute_axes`](crate::tensor::View::permute_axes): output axis `k` takes source axis `A_k`.")]
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
pub(crate) const fn all_below_rank(axes: &[usize]) -> bool {
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
pub(crate) const fn has_repeated_axis(axes: &[usize]) -> bool {
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
