//! The ranked view types, `View<'a, R, T>` and `ViewMut<'a, R, T>`, at a
//! rank chosen at run time (0 to 8, `MAX_RANK`): one enum per type whose
//! methods call the statically ranked methods, so a property or fixture test
//! can run one chain of view operations whose rank changes on the way. An
//! operation the ranked API cannot express at a rank (adding an axis at
//! rank 8, removing one at rank 0, `chunk::<N>` for an `N` not listed,
//! `broadcast_to` a smaller rank: each a compile error there) returns `None`.
//!
//! Include with `#[path = "common/ranked_views.rs"] mod ranked_views;`
//! next to `mod common;` (for `with_rank!`). Each test uses a subset.
#![allow(dead_code)]

use crate::common::with_rank;
use llm_from_scratch::tensor::{Rank, RankAtMost, TensorViewError, View, ViewMut};

pub type E = TensorViewError;

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

/// Defines a run-time-rank enum over a ranked view type with the operations
/// both view types share; `$split_at`, `$axis_iter` and `$axis_chunks_iter`
/// are the type's names for them (`_mut` for `ViewMut`).
macro_rules! ranked_enum {
    ($Name:ident, $View:ident, $split_at:ident, $axis_iter:ident, $axis_chunks_iter:ident) => {
        /// A view of rank 0 to 8 (each arm the statically ranked type).
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
                    |S| Some(v.reshape::<S>(array(shape)).map(Self::from)), _ => None))
            }
            /// `None` for a target rank above 8.
            pub fn reshape_strided(self, shape: &[usize]) -> Option<Result<Self, E>> {
                each!($Name, self, v => with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8],
                    |S| Some(v.reshape_strided::<S>(array(shape)).map(Self::from)), _ => None))
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
            pub fn split_at(self, axis: usize, index: usize) -> Result<(Self, Self), E> {
                each!($Name, self, v => v.$split_at(axis, index).map(|(a, b)| (a.into(), b.into())))
            }
            /// `chunk::<N>` for `N` in 1 to 4; `None` for another `N`.
            pub fn chunk(self, axis: usize, parts: usize) -> Option<Result<Vec<Self>, E>> {
                each!($Name, self, v => match parts {
                    1 => Some(v.chunk::<1>(axis).map(|p| p.into_iter().map(Self::from).collect())),
                    2 => Some(v.chunk::<2>(axis).map(|p| p.into_iter().map(Self::from).collect())),
                    3 => Some(v.chunk::<3>(axis).map(|p| p.into_iter().map(Self::from).collect())),
                    4 => Some(v.chunk::<4>(axis).map(|p| p.into_iter().map(Self::from).collect())),
                    _ => None,
                })
            }
            /// The pieces of `axis_iter` (rank - 1), taken from both ends.
            pub fn axis_iter(self, axis: usize) -> Option<Result<Vec<Self>, E>> {
                shrink!($Name, self, v => v.$axis_iter(axis).map(|items| both_ends(items.map(Self::from))))
            }
            /// The pieces of `axis_chunks_iter`, taken from both ends.
            pub fn axis_chunks_iter(self, axis: usize, size: usize) -> Result<Vec<Self>, E> {
                each!($Name, self, v => v.$axis_chunks_iter(axis, size).map(|items| both_ends(items.map(Self::from))))
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

ranked_enum!(RankedView, View, split_at, axis_iter, axis_chunks_iter);
ranked_enum!(
    RankedMut,
    ViewMut,
    split_at_mut,
    axis_iter_mut,
    axis_chunks_iter_mut
);

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

impl<'a, T: Copy> RankedMut<'a, T> {
    pub fn reborrow(&mut self) -> RankedMut<'_, T> {
        each!(RankedMut, self, v => v.reborrow().into())
    }
    pub fn get(&self, index: &[usize]) -> Result<T, E> {
        each!(RankedMut, self, v => v.get(array(index)))
    }
    pub fn set(&mut self, index: &[usize], value: T) -> Result<(), E> {
        each!(RankedMut, self, v => v.set(array(index), value))
    }
    pub fn fill(&mut self, value: T) {
        each!(RankedMut, self, v => v.fill(value))
    }
    pub fn map_inplace(&mut self, f: impl FnMut(T) -> T) {
        each!(RankedMut, self, v => v.map_inplace(f))
    }
    /// The values, through `materialize` (a mutable view has no `iter`).
    pub fn values(&self) -> Result<Vec<T>, E> {
        each!(RankedMut, self, v => v.materialize().map(|t| t.into_vec()))
    }
    /// `None` when the source has the larger rank (it does not compile).
    pub fn assign(&mut self, source: &RankedView<'_, T>) -> Option<Result<(), E>> {
        at_most!(
            (*source, self),
            |s, d| d.assign(&s),
            [RankedView, RankedMut]
        )
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
            [RankedView, RankedMut]
        )
    }
}

impl<T> Clone for RankedView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for RankedView<'_, T> {}
