//! The ranked view types, `View<'a, R, T>`, `ViewMut<'a, R, T>` (an
//! exclusive mutable view, an operand) and `CellView<'a, R, T>` (a piece of
//! a split mutable view), at a rank chosen at run time (0 to 8, `MAX_RANK`):
//! [`RankedView`], [`RankedMut`] and [`RankedCells`], one enum per type
//! whose methods call the statically ranked methods (the splits of a
//! `RankedMut` give `RankedCells` pieces, as those of a `ViewMut` give
//! `CellView`s), so a property or fixture test can run one chain of view
//! operations whose rank changes on the way. An operation the ranked API
//! cannot express at a rank (adding an axis at rank 8, removing one at rank
//! 0, `chunk::<N>` for an `N` not listed, `broadcast_to` a smaller rank:
//! each a compile error there) returns `None`.
//!
//! Include with `#[path = "common/ranked_views.rs"] mod ranked_views;`
//! next to `mod common;` (for `with_rank!`). Each test uses a subset.
#![allow(dead_code)]

use crate::common::with_rank;
use llm_from_scratch::Error;
use llm_from_scratch::tensor::ops::{map_binary, map_unary};
use llm_from_scratch::tensor::{CellView, Rank, RankAtMost, View, ViewMut};

pub type E = Error;

/// A slice of the right length as an array; lengths are matched by the callers.
pub fn array<const N: usize>(values: &[usize]) -> [usize; N] {
    values.try_into().expect("the caller matched the rank")
}

/// Takes an exact-size, double-ended iterator's items alternately from the
/// front and the back, checking `len()` after every step, and returns them
/// in order: both ends of the axis iterators are exercised.
pub fn both_ends<V>(mut items: impl DoubleEndedIterator<Item = V> + ExactSizeIterator) -> Vec<V> {
    let total = items.len();
    let (mut front, mut back) = (Vec::new(), Vec::new());
    loop {
        let from_front = front.len() <= back.len();
        let item = if from_front {
            items.next()
        } else {
            items.next_back()
        };
        let Some(item) = item else { break };
        if from_front {
            front.push(item);
        } else {
            back.push(item);
        }
        assert_eq!(
            items.len(),
            total - front.len() - back.len(),
            "len() after a step"
        );
    }
    assert!(
        items.next().is_none() && items.next_back().is_none(),
        "fused at both ends"
    );
    back.reverse();
    front.extend(back);
    assert_eq!(front.len(), total, "as many items as len() said");
    front
}

/// Defines a run-time-rank enum over a ranked array type with the
/// operations every view type shares. `$Piece` is the enum of the pieces its
/// splits (`split_at`, `chunk`, `axis_iter`, `axis_chunks_iter`) give: the
/// type itself for `View` and `CellView`, `CellView`s for `ViewMut`.
macro_rules! ranked_enum {
    ($Name:ident, $View:ident, $Piece:ident) => {
        /// An array of rank 0 to 8 (each arm the statically ranked type).
        pub enum $Name<'a, T> {
            R0($View<'a, 0, T>),
            R1($View<'a, 1, T>),
            R2($View<'a, 2, T>),
            R3($View<'a, 3, T>),
            R4($View<'a, 4, T>),
            R5($View<'a, 5, T>),
            R6($View<'a, 6, T>),
            R7($View<'a, 7, T>),
            R8($View<'a, 8, T>),
        }

        ranked_enum!(@from $Name, $View; 0 R0 1 R1 2 R2 3 R3 4 R4 5 R5 6 R6 7 R7 8 R8);

        impl<'a, T: Copy> $Name<'a, T> {
            pub fn shape(&self) -> Vec<usize> {
                each!($Name, self, v => v.shape().to_vec())
            }
            pub fn strides(&self) -> Vec<usize> {
                each!($Name, self, v => v.strides().to_vec())
            }
            pub fn base_offset(&self) -> usize {
                each!($Name, self, v => v.base_offset())
            }
            pub fn len(&self) -> usize {
                each!($Name, self, v => v.len())
            }
            pub fn rank(&self) -> usize {
                each!($Name, self, v => v.rank())
            }
            pub fn is_contiguous(&self) -> bool {
                each!($Name, self, v => v.is_contiguous())
            }
            pub fn offsets(&self) -> Vec<usize> {
                each!($Name, self, v => v.offsets().collect())
            }
            pub fn transpose(self, first: usize, second: usize) -> Result<Self, E> {
                each!($Name, self, v => v.transpose(first, second).map(Self::from))
            }
            /// `None` for an axis list of another length (it does not compile).
            pub fn permute(self, axes: &[usize]) -> Option<Result<Self, E>> {
                let rank = self.rank();
                (axes.len() == rank)
                    .then(|| each!($Name, self, v => v.permute(array(axes)).map(Self::from)))
            }
            pub fn slice(self, axis: usize, start: usize, end: usize) -> Result<Self, E> {
                each!($Name, self, v => v.slice(axis, start..end).map(Self::from))
            }
            pub fn slice_step(self, axis: usize, start: usize, end: usize, step: usize) -> Result<Self, E> {
                each!($Name, self, v => v.slice_step(axis, start..end, step).map(Self::from))
            }
            /// `None` for a target rank above 8.
            pub fn reshape(self, shape: &[usize]) -> Option<Result<Self, E>> {
                each!($Name, self, v => with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8],
                    |S| Some(v.reshape(array::<S>(shape)).map(Self::from)), _ => None))
            }
            /// `None` for a target rank above 8.
            pub fn reshape_strided(self, shape: &[usize]) -> Option<Result<Self, E>> {
                each!($Name, self, v => with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8],
                    |S| Some(v.reshape_strided(array::<S>(shape)).map(Self::from)), _ => None))
            }
            pub fn split_axis(self, axis: usize, extents: [usize; 2]) -> Option<Result<Self, E>> {
                grow!($Name, self, v => v.split_axis(axis, extents).map(Self::from))
            }
            pub fn unsqueeze(self, axis: usize) -> Option<Result<Self, E>> {
                grow!($Name, self, v => v.unsqueeze(axis).map(Self::from))
            }
            pub fn merge_axes(self, axis: usize) -> Option<Result<Self, E>> {
                shrink!($Name, self, v => v.merge_axes(axis).map(Self::from))
            }
            pub fn squeeze(self, axis: usize) -> Option<Result<Self, E>> {
                shrink!($Name, self, v => v.squeeze(axis).map(Self::from))
            }
            pub fn select(self, axis: usize, index: usize) -> Option<Result<Self, E>> {
                shrink!($Name, self, v => v.select(axis, index).map(Self::from))
            }
            #[allow(clippy::type_complexity)]
            pub fn split_at(
                self,
                axis: usize,
                index: usize,
            ) -> Result<($Piece<'a, T>, $Piece<'a, T>), E> {
                each!($Name, self, v => v.split_at(axis, index).map(|(a, b)| (a.into(), b.into())))
            }
            /// `chunk::<N>` for `N` in 1 to 4; `None` for another `N`.
            pub fn chunk(
                self,
                axis: usize,
                parts: usize,
            ) -> Option<Result<Vec<$Piece<'a, T>>, E>> {
                each!($Name, self, v => {
                    let all = |p: Vec<_>| -> Vec<$Piece<'a, T>> {
                        p.into_iter().map($Piece::from).collect()
                    };
                    match parts {
                        1 => Some(v.chunk::<1>(axis).map(|p| all(Vec::from(p)))),
                        2 => Some(v.chunk::<2>(axis).map(|p| all(Vec::from(p)))),
                        3 => Some(v.chunk::<3>(axis).map(|p| all(Vec::from(p)))),
                        4 => Some(v.chunk::<4>(axis).map(|p| all(Vec::from(p)))),
                        _ => None,
                    }
                })
            }
            /// The pieces of `axis_iter` (rank - 1), taken from both ends.
            pub fn axis_iter(self, axis: usize) -> Option<Result<Vec<$Piece<'a, T>>, E>> {
                shrink!($Name, self, v => v
                    .axis_iter(axis)
                    .map(|items| both_ends(items.map($Piece::from))))
            }
            /// The pieces of `axis_chunks_iter`, taken from both ends.
            pub fn axis_chunks_iter(
                self,
                axis: usize,
                size: usize,
            ) -> Result<Vec<$Piece<'a, T>>, E> {
                each!($Name, self, v => v
                    .axis_chunks_iter(axis, size)
                    .map(|items| both_ends(items.map($Piece::from))))
            }
        }
    };
    (@from $Name:ident, $View:ident; $($rank:literal $variant:ident)*) => {$(
        impl<'a, T> From<$View<'a, $rank, T>> for $Name<'a, T> {
            fn from(view: $View<'a, $rank, T>) -> Self {
                $Name::$variant(view)
            }
        }
    )*};
}

/// `Some($body)` with `$v` the view, for the listed ranks; `None` for the others.
macro_rules! on {
    ($Name:ident, $value:expr, [$($r:ident)*], $v:ident => $body:expr) => {{
        #[allow(unreachable_patterns)]
        let result = match $value {
            $($Name::$r($v) => Some($body),)*
            _ => None,
        };
        result
    }};
}

/// `$body` with `$v` the view of whichever rank.
macro_rules! each {
    ($Name:ident, $value:expr, $v:ident => $body:expr) => {
        on!($Name, $value, [R0 R1 R2 R3 R4 R5 R6 R7 R8], $v => $body).expect("every rank")
    };
}

/// `Some($body)` at ranks 0 to 7, where the `InsertAxis` table has `R + 1`.
macro_rules! grow {
    ($Name:ident, $value:expr, $v:ident => $body:expr) => {
        on!($Name, $value, [R0 R1 R2 R3 R4 R5 R6 R7], $v => $body)
    };
}

/// `Some($body)` at ranks 1 to 8, where the `RemoveAxis` table has `R - 1`.
macro_rules! shrink {
    ($Name:ident, $value:expr, $v:ident => $body:expr) => {
        on!($Name, $value, [R1 R2 R3 R4 R5 R6 R7 R8], $v => $body)
    };
}

/// `Some($body)` for two arrays of the same rank, `None` for different ranks.
macro_rules! same_rank {
    ($pair:expr, |$l:pat_param, $r:pat_param| $body:expr, [$L:ident, $R:ident]) => {
        match $pair {
            ($L::R0($l), $R::R0($r)) => Some($body),
            ($L::R1($l), $R::R1($r)) => Some($body),
            ($L::R2($l), $R::R2($r)) => Some($body),
            ($L::R3($l), $R::R3($r)) => Some($body),
            ($L::R4($l), $R::R4($r)) => Some($body),
            ($L::R5($l), $R::R5($r)) => Some($body),
            ($L::R6($l), $R::R6($r)) => Some($body),
            ($L::R7($l), $R::R7($r)) => Some($body),
            ($L::R8($l), $R::R8($r)) => Some($body),
            _ => None,
        }
    };
}

/// The pairs of ranks `M <= R` (the `RankAtMost` table): `$body` for the
/// listed pairs of `($small, $large)`, `None` for the others.
macro_rules! at_most {
    ($pair:expr, |$small:pat_param, $large:pat_param| $body:expr, [$Small:ident, $Large:ident]) => {
        at_most!(@table $pair, |$small, $large| $body, [$Small, $Large];
            R0 => R0 R1 R2 R3 R4 R5 R6 R7 R8;
            R1 => R1 R2 R3 R4 R5 R6 R7 R8;
            R2 => R2 R3 R4 R5 R6 R7 R8;
            R3 => R3 R4 R5 R6 R7 R8;
            R4 => R4 R5 R6 R7 R8;
            R5 => R5 R6 R7 R8;
            R6 => R6 R7 R8;
            R7 => R7 R8;
            R8 => R8;)
    };
    (@table $pair:expr, |$small:pat_param, $large:pat_param| $body:expr, [$Small:ident, $Large:ident];
        $($m:ident => $($r:ident)*;)*) => {
        #[allow(unreachable_patterns)]
        match $pair {
            $($(($Small::$m($small), $Large::$r($large)) => Some($body),)*)*
            _ => None,
        }
    };
}

ranked_enum!(RankedView, View, RankedView);
ranked_enum!(RankedMut, ViewMut, RankedCells);
ranked_enum!(RankedCells, CellView, RankedCells);

/// A rank as a value (`Rank<N>` in the arm of rank `N`), to pair with a
/// view's rank in [`at_most!`].
#[derive(Clone, Copy)]
pub enum RankTag {
    R0(Rank<0>),
    R1(Rank<1>),
    R2(Rank<2>),
    R3(Rank<3>),
    R4(Rank<4>),
    R5(Rank<5>),
    R6(Rank<6>),
    R7(Rank<7>),
    R8(Rank<8>),
}

impl RankTag {
    /// `None` above 8.
    pub fn of(rank: usize) -> Option<Self> {
        use RankTag::*;
        [
            R0(Rank),
            R1(Rank),
            R2(Rank),
            R3(Rank),
            R4(Rank),
            R5(Rank),
            R6(Rank),
            R7(Rank),
            R8(Rank),
        ]
        .get(rank)
        .copied()
    }
}

/// `broadcast_to` with the target rank `S` named by a value.
fn broadcast<'a, const R: usize, const S: usize, T>(
    view: View<'a, R, T>,
    _: Rank<S>,
    shape: &[usize],
) -> Result<RankedView<'a, T>, E>
where
    Rank<R>: RankAtMost<Rank<S>>,
    RankedView<'a, T>: From<View<'a, S, T>>,
{
    view.broadcast_to(array::<S>(shape)).map(RankedView::from)
}

impl<'a, T: Copy> RankedView<'a, T> {
    pub fn values(&self) -> Vec<T> {
        each!(RankedView, self, v => v.iter().copied().collect())
    }
    pub fn get(&self, index: &[usize]) -> Result<T, E> {
        each!(RankedView, self, v => v.get(array(index)).copied())
    }
    /// `None` when the target rank is below the view's (it does not compile) or above 8.
    pub fn broadcast_to(self, shape: &[usize]) -> Option<Result<Self, E>> {
        let target = RankTag::of(shape.len())?;
        at_most!(
            (self, target),
            |v, tag| broadcast(v, tag, shape),
            [RankedView, RankTag]
        )
    }
}

/// The coordinate reads and the writes of the two writable kinds (an
/// exclusive `ViewMut` and a `CellView` piece), which share their names.
macro_rules! writes {
    ($Name:ident) => {
        impl<T: Copy + Send + Sync> $Name<'_, T> {
            pub fn get(&self, index: &[usize]) -> Result<T, E> {
                each!($Name, self, v => v.get(array(index)))
            }
            pub fn set(&mut self, index: &[usize], value: T) -> Result<(), E> {
                each!($Name, self, v => v.set(array(index), value))
            }
            pub fn fill(&mut self, value: T) {
                each!($Name, self, v => v.fill(value))
            }
            pub fn map_inplace(&mut self, f: impl FnMut(T) -> T) {
                each!($Name, self, v => v.map_inplace(f))
            }
            /// The values, through `materialize`.
            pub fn values(&self) -> Result<Vec<T>, E> {
                each!($Name, self, v => v.materialize().map(|t| t.into_vec()))
            }
            /// `None` when the source has the larger rank (it does not compile).
            pub fn assign(&mut self, source: &RankedView<'_, T>) -> Option<Result<(), E>> {
                at_most!((*source, self), |s, d| d.assign(&s), [RankedView, $Name])
            }
            /// `None` when the source has the larger rank (it does not compile).
            pub fn zip_map_inplace<U: Copy>(
                &mut self,
                source: &RankedView<'_, U>,
                f: impl FnMut(T, U) -> T,
            ) -> Option<Result<(), E>> {
                at_most!(
                    (*source, self),
                    |s, d| d.zip_map_inplace(&s, f),
                    [RankedView, $Name]
                )
            }
        }
    };
}

writes!(RankedMut);
writes!(RankedCells);

/// What only an exclusive mutable view has: a shorter reborrow, a read-only
/// view, the cells of its pieces, and being an operand of the operations.
impl<'a, T: Copy + Send + Sync> RankedMut<'a, T> {
    pub fn reborrow(&mut self) -> RankedMut<'_, T> {
        each!(RankedMut, self, v => v.reborrow().into())
    }
    pub fn view(&self) -> RankedView<'_, T> {
        each!(RankedMut, self, v => v.view().into())
    }
    pub fn into_cells(self) -> RankedCells<'a, T> {
        each!(RankedMut, self, v => v.into_cells().into())
    }
    /// `map_unary(&self, |x| x)`: this mutable view as an operand.
    pub fn map_unary_values(&self) -> Result<Vec<T>, E> {
        each!(RankedMut, self, v => map_unary(&v, |x| x).map(|t| t.into_vec()))
    }
    /// `map_binary(&self, other, f)` of two arrays of the same rank: this
    /// mutable view as the left operand.
    pub fn map_binary_values<U: Copy, C: Copy>(
        &self,
        other: &RankedView<'_, U>,
        f: impl FnMut(T, U) -> C,
    ) -> Option<Result<Vec<C>, E>> {
        same_rank!(
            (self, other),
            |l, r| map_binary(l, r, f).map(|t| t.into_vec()),
            [RankedMut, RankedView]
        )
    }
}

impl<T> Clone for RankedView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for RankedView<'_, T> {}
