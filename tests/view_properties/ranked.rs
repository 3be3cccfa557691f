//! The ranked API (`View<'a, R>`, `Tensor<R>`) with the rank chosen at run
//! time: an enum over ranks 0 to 5 whose methods call the statically ranked
//! methods, so a property test can run one chain of requests on any rank.

use crate::common::with_rank;
use crate::model::E;
use llm_from_scratch::Error;
use llm_from_scratch::tensor::dynamic::DynView;
use llm_from_scratch::tensor::{Tensor, View};

/// The element type of the property tests: distinct integers name their offsets.
pub type Value = i64;

/// A ranked view of rank 0 to 5; each arm calls the statically ranked API.
#[derive(Clone, Copy, Debug)]
pub enum Ranked<'a> {
    R0(View<'a, 0, Value>),
    R1(View<'a, 1, Value>),
    R2(View<'a, 2, Value>),
    R3(View<'a, 3, Value>),
    R4(View<'a, 4, Value>),
    R5(View<'a, 5, Value>),
}

/// An owner of rank 0 to 5.
pub enum Owner {
    R0(Tensor<0, Value>),
    R1(Tensor<1, Value>),
    R2(Tensor<2, Value>),
    R3(Tensor<3, Value>),
    R4(Tensor<4, Value>),
    R5(Tensor<5, Value>),
}

macro_rules! each_rank {
    ($enum:ident, $value:expr, $v:ident => $body:expr) => {
        match $value {
            $enum::R0($v) => $body,
            $enum::R1($v) => $body,
            $enum::R2($v) => $body,
            $enum::R3($v) => $body,
            $enum::R4($v) => $body,
            $enum::R5($v) => $body,
        }
    };
}

/// Wraps views and owners of each rank in their variant.
macro_rules! ranked_from {
    ($($rank:literal => $variant:ident),*) => {$(
        impl<'a> From<View<'a, $rank, Value>> for Ranked<'a> {
            fn from(view: View<'a, $rank, Value>) -> Self {
                Ranked::$variant(view)
            }
        }
        impl From<Tensor<$rank, Value>> for Owner {
            fn from(tensor: Tensor<$rank, Value>) -> Self {
                Owner::$variant(tensor)
            }
        }
    )*};
}
ranked_from!(0 => R0, 1 => R1, 2 => R2, 3 => R3, 4 => R4, 5 => R5);

/// The tested ranks: shapes and reshape targets have at most 5 axes.
macro_rules! with_tested_rank {
    ($rank:expr, |$R:ident| $body:expr) => {
        with_rank!($rank, [0 1 2 3 4 5], |$R| $body)
    };
}

/// A slice of the right length as an array; lengths are matched by the callers.
pub fn array<const N: usize>(values: &[usize]) -> [usize; N] {
    values.try_into().expect("the caller matched the rank")
}

pub fn reshape_ranked<'a, const R: usize>(
    view: View<'a, R, Value>,
    shape: &[usize],
) -> Result<Ranked<'a>, E> {
    with_tested_rank!(shape.len(), |S| Ok(view.reshape(array::<S>(shape))?.into()))
}

/// What a materialized tensor holds: shape, strides, values.
pub type Owned = (Vec<usize>, Vec<usize>, Vec<Value>);

impl Owner {
    pub fn new(shape: &[usize], values: Vec<Value>) -> Result<Self, Error> {
        with_tested_rank!(shape.len(), |R| {
            Ok(Tensor::from_vec(array::<R>(shape), values)?.into())
        })
    }

    pub fn view(&self) -> Ranked<'_> {
        each_rank!(Owner, self, t => t.view().into())
    }
}

impl<'a> Ranked<'a> {
    pub fn shape(&self) -> Vec<usize> {
        each_rank!(Ranked, self, v => v.shape().to_vec())
    }
    pub fn strides(&self) -> Vec<usize> {
        each_rank!(Ranked, self, v => v.strides().to_vec())
    }
    pub fn base_offset(&self) -> usize {
        each_rank!(Ranked, self, v => v.base_offset())
    }
    pub fn len(&self) -> usize {
        each_rank!(Ranked, self, v => v.len())
    }
    pub fn is_empty(&self) -> bool {
        each_rank!(Ranked, self, v => v.is_empty())
    }
    pub fn rank(&self) -> usize {
        each_rank!(Ranked, self, v => v.rank())
    }
    pub fn is_contiguous(&self) -> bool {
        each_rank!(Ranked, self, v => v.is_contiguous())
    }
    pub fn offsets(&self) -> (usize, Vec<usize>) {
        each_rank!(Ranked, self, v => (v.offsets().len(), v.offsets().collect()))
    }
    pub fn values(&self) -> (usize, Vec<Value>) {
        each_rank!(Ranked, self, v => (v.iter().len(), v.iter().copied().collect()))
    }
    pub fn contiguous_slice(&self) -> Option<Vec<Value>> {
        each_rank!(Ranked, self, v => v.as_contiguous_slice().map(<[Value]>::to_vec))
    }
    pub fn get(&self, index: &[usize]) -> Result<Value, E> {
        each_rank!(Ranked, self, v => v.get(index.try_into().expect("rank")).copied())
    }
    pub fn storage_offset(&self, index: &[usize]) -> Result<usize, E> {
        each_rank!(Ranked, self, v => v.storage_offset(index.try_into().expect("rank")))
    }
    pub fn materialize(&self) -> Result<Owned, E> {
        each_rank!(Ranked, self, v => v.materialize().map(|t| {
            (t.shape().to_vec(), t.strides().to_vec(), t.into_vec())
        }))
    }
    pub fn materialize_into(&self) -> Result<Vec<Value>, E> {
        each_rank!(Ranked, self, v => {
            let mut out = Tensor::full(*v.shape(), -1)?;
            v.materialize_into(&mut out)?;
            Ok(out.into_vec())
        })
    }
    pub fn from_parts(
        data: &'a [Value],
        shape: &[usize],
        strides: &[usize],
        base: usize,
    ) -> Result<Self, E> {
        with_tested_rank!(shape.len(), |R| {
            Ok(View::from_parts(data, array::<R>(shape), array(strides), base)?.into())
        })
    }
    pub fn into_dyn(self) -> DynView<'a, Value> {
        each_rank!(Ranked, self, v => v.into_dyn())
    }
    pub fn transpose(&self, first: usize, second: usize) -> Result<Self, E> {
        each_rank!(Ranked, self, v => v.transpose(first, second).map(Ranked::from))
    }
    pub fn permute(&self, axes: &[usize]) -> Result<Self, E> {
        each_rank!(Ranked, self, v => v.permute(axes.try_into().expect("rank")).map(Ranked::from))
    }
    pub fn slice(&self, axis: usize, start: usize, end: usize) -> Result<Self, E> {
        each_rank!(Ranked, self, v => v.slice(axis, start..end).map(Ranked::from))
    }
    pub fn reshape(&self, shape: &[usize]) -> Result<Self, E> {
        each_rank!(Ranked, *self, v => reshape_ranked(v, shape))
    }
}
