//! The chain's view in each API: an exclusive mutable view, or a piece of a
//! split one (a `CellView`, which has no `reborrow`), rebuilt for every step
//! from the owner by replaying the steps that succeeded.

use crate::Value;
use crate::apply::{dynamic_apply, ranked_apply};
use crate::common::with_rank;
use crate::model::E;
use crate::ops::Op;
use crate::ranked_views::{RankedCells, RankedMut, array};
use llm_from_scratch::tensor::ViewMut;
use llm_from_scratch::tensor::dynamic::{DynCellView, DynTensor, DynViewMut};

/// The chain's view in the dynamic API: an exclusive mutable view, or a
/// piece of a split one (or the cells of the start).
pub enum DynState<'a> {
    Mut(DynViewMut<'a, Value>),
    Cells(DynCellView<'a, Value>),
}

/// The chain's view in the ranked API, as [`DynState`].
pub enum RankedState<'a> {
    Mut(RankedMut<'a, Value>),
    Cells(RankedCells<'a, Value>),
}

impl<'a> From<DynViewMut<'a, Value>> for DynState<'a> {
    fn from(view: DynViewMut<'a, Value>) -> Self {
        DynState::Mut(view)
    }
}
impl<'a> From<DynCellView<'a, Value>> for DynState<'a> {
    fn from(view: DynCellView<'a, Value>) -> Self {
        DynState::Cells(view)
    }
}
impl<'a> From<RankedMut<'a, Value>> for RankedState<'a> {
    fn from(view: RankedMut<'a, Value>) -> Self {
        RankedState::Mut(view)
    }
}
impl<'a> From<RankedCells<'a, Value>> for RankedState<'a> {
    fn from(view: RankedCells<'a, Value>) -> Self {
        RankedState::Cells(view)
    }
}

/// `$body` with `$v` the view of either kind of state `$State`.
macro_rules! both {
    ($State:ident, $value:expr, $v:ident => $body:expr) => {
        match $value {
            $State::Mut($v) => $body,
            $State::Cells($v) => $body,
        }
    };
}
pub(crate) use both;

/// `broadcast_to` is not a method of the mutable views: the chains skip it.
pub fn not_a_method<V>(_: V, _: &Vec<usize>) -> Result<V, E> {
    unreachable!("the chains skip broadcast_to")
}

/// `broadcast_to` of a ranked mutable view: it does not compile.
pub fn no_broadcast<V>(_: V, _: &Vec<usize>) -> Option<Result<V, E>> {
    None
}

impl<'a> DynState<'a> {
    pub fn shape(&self) -> Vec<usize> {
        both!(DynState, self, v => v.shape().to_vec())
    }
    pub fn strides(&self) -> Vec<usize> {
        both!(DynState, self, v => v.strides().to_vec())
    }
    pub fn offsets(&self) -> Vec<usize> {
        both!(DynState, self, v => v.offsets().collect())
    }
    pub fn get(&self, index: &[usize]) -> Result<Value, E> {
        both!(DynState, self, v => v.get(index))
    }
    pub fn fill(&mut self, value: Value) {
        both!(DynState, self, v => v.fill(value))
    }
    pub fn values(&self) -> Result<Vec<Value>, E> {
        both!(DynState, self, v => v.materialize().map(|t| t.into_vec()))
    }
    pub fn apply(self, op: &Op) -> Result<Vec<DynState<'a>>, E> {
        both!(DynState, self, v => dynamic_apply!(op, v, not_a_method, DynState<'a>))
    }
}

impl<'a> RankedState<'a> {
    pub fn strides(&self) -> Vec<usize> {
        both!(RankedState, self, v => v.strides())
    }
    pub fn offsets(&self) -> Vec<usize> {
        both!(RankedState, self, v => v.offsets())
    }
    pub fn get(&self, index: &[usize]) -> Result<Value, E> {
        both!(RankedState, self, v => v.get(index))
    }
    pub fn fill(&mut self, value: Value) {
        both!(RankedState, self, v => v.fill(value))
    }
    pub fn values(&self) -> Result<Vec<Value>, E> {
        both!(RankedState, self, v => v.values())
    }
    /// `None` where the ranked API cannot express `op`.
    pub fn apply(self, op: &Op) -> Option<Result<Vec<RankedState<'a>>, E>> {
        both!(RankedState, self, v => ranked_apply!(op, v, no_broadcast, RankedState<'a>))
    }
}

/// The steps of a chain that succeeded, each with the piece it went on with.
pub type Path = [(Op, usize)];

/// The chain's dynamic view: `root` (or its cells), then the `path` replayed.
pub fn dynamic_state<'a>(root: DynViewMut<'a, Value>, cells: bool, path: &Path) -> DynState<'a> {
    let mut state = match cells {
        true => DynState::Cells(root.into_cells()),
        false => DynState::Mut(root),
    };
    for (op, k) in path {
        let mut pieces = state.apply(op).expect("a step that succeeded before");
        state = pieces.swap_remove(*k);
    }
    state
}

/// The chain's ranked view, as [`dynamic_state`] (every step of `path` was
/// expressible in the ranked API).
pub fn ranked_state<'a>(root: RankedMut<'a, Value>, cells: bool, path: &Path) -> RankedState<'a> {
    let mut state = match cells {
        true => RankedState::Cells(root.into_cells()),
        false => RankedState::Mut(root),
    };
    for (op, k) in path {
        let mut pieces = state
            .apply(op)
            .expect("expressible before")
            .expect("a step that succeeded before");
        state = pieces.swap_remove(*k);
    }
    state
}

/// The ranked exclusive view of a `from_parts` layout over `storage`.
pub fn ranked_root<'a>(
    storage: &'a mut [Value],
    shape: &[usize],
    strides: &[usize],
    base: usize,
) -> RankedMut<'a, Value> {
    with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8], |R| RankedMut::from(
        ViewMut::from_parts(storage, array::<R>(shape), array(strides), base).expect("disjoint")
    ))
}

/// The dynamic exclusive view: the whole `owner` when `plain`, else a
/// `from_parts` layout over `storage`.
pub fn dynamic_root<'a>(
    owner: &'a mut DynTensor<Value>,
    storage: &'a mut [Value],
    plain: bool,
    (shape, strides, base): (&[usize], &[usize], usize),
) -> DynViewMut<'a, Value> {
    if plain {
        owner.view_mut()
    } else {
        DynViewMut::from_parts(storage, shape, strides, base).expect("disjoint")
    }
}
