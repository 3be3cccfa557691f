//! Random strided inputs for the gather, argmax and softmax property tests,
//! and the reference model's index arithmetic.
//!
//! A logical shape is stored in an owner whose axes are permuted (`order`),
//! each padded before and after, one axis possibly read every second value
//! (`step`), and one axis possibly stored once and read with stride 0
//! (`repeat`). The library sees the view built by its own transforms
//! (`slice_step`, `permute`, `broadcast_to`); the model finds the value of a
//! logical coordinate by plain index arithmetic on the owner.

#![allow(dead_code)] // each test file uses a part

use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};
use proptest::prelude::*;

/// How a logical `shape` is stored (see the module docs).
#[derive(Debug, Clone)]
pub struct Layout {
    pub shape: Vec<usize>,
    /// Owner axis `p` holds logical axis `order[p]`.
    order: Vec<usize>,
    /// Padding (before, after) per logical axis.
    pad: Vec<(usize, usize)>,
    /// Step (1 or 2) per logical axis.
    step: Vec<usize>,
    /// The logical axis stored once and read with stride 0.
    repeat: Option<usize>,
}

impl Layout {
    /// A plain row-major layout of `shape`.
    pub fn dense(shape: &[usize]) -> Self {
        let rank = shape.len();
        Self {
            shape: shape.to_vec(),
            order: (0..rank).collect(),
            pad: vec![(0, 0); rank],
            step: vec![1; rank],
            repeat: None,
        }
    }

    /// `shape` stored with its axes permuted: owner axis `p` holds logical
    /// axis `order[p]` (`[1, 0]` is a transposed matrix), no padding.
    pub fn permuted(shape: &[usize], order: &[usize]) -> Self {
        Self {
            order: order.to_vec(),
            ..Self::dense(shape)
        }
    }

    fn stored(&self, axis: usize) -> usize {
        if self.repeat == Some(axis) {
            1
        } else {
            self.shape[axis]
        }
    }

    /// The owner positions spanned along logical axis `axis` (without padding).
    fn span(&self, axis: usize) -> usize {
        match self.stored(axis) {
            0 => 0,
            n => (n - 1) * self.step[axis] + 1,
        }
    }

    pub fn owner_shape(&self) -> Vec<usize> {
        self.order
            .iter()
            .map(|&a| self.pad[a].0 + self.span(a) + self.pad[a].1)
            .collect()
    }

    pub fn owner_len(&self) -> usize {
        self.owner_shape().iter().product()
    }

    /// The model: the owner offset holding logical coordinate `c`.
    pub fn offset(&self, c: &[usize]) -> usize {
        let owner_shape = self.owner_shape();
        self.order
            .iter()
            .zip(&owner_shape)
            .fold(0, |offset, (&a, &extent)| {
                let index = if self.repeat == Some(a) { 0 } else { c[a] };
                offset * extent + self.pad[a].0 + index * self.step[a]
            })
    }

    /// An owner whose value at offset `k` is `value(k)`.
    pub fn owner<T>(&self, value: impl FnMut(usize) -> T) -> DynTensor<T> {
        let values = (0..self.owner_len()).map(value).collect();
        DynTensor::from_vec(self.owner_shape(), values).expect("owner")
    }

    /// The view the library sees, built with the library's own transforms.
    pub fn view<'a, T>(&self, owner: &'a DynTensor<T>) -> DynView<'a, T> {
        let mut view = owner.view();
        for (p, &a) in self.order.iter().enumerate() {
            let start = self.pad[a].0;
            view = view
                .slice_step(p, start..start + self.span(a), self.step[a])
                .expect("stored part");
        }
        let inverse: Vec<usize> = (0..self.shape.len())
            .map(|a| self.order.iter().position(|&o| o == a).expect("axis"))
            .collect();
        view = view.permute(&inverse).expect("permutation");
        if self.repeat.is_some() {
            view = view.broadcast_to(&self.shape).expect("stride-0 axis");
        }
        assert_eq!(view.shape(), self.shape.as_slice());
        view
    }

    /// The logical values in row-major order, by the model.
    pub fn logical<T: Copy>(&self, owner: &DynTensor<T>) -> Vec<T> {
        coordinates(&self.shape)
            .iter()
            .map(|c| owner.as_slice()[self.offset(c)])
            .collect()
    }
}

/// Every coordinate of `shape` in row-major order (one for a scalar, none
/// for an empty shape).
pub fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    let count: usize = shape.iter().product();
    (0..count)
        .map(|mut linear| {
            let mut c = vec![0; shape.len()];
            for (slot, &extent) in c.iter_mut().zip(shape).rev() {
                *slot = linear % extent;
                linear /= extent;
            }
            c
        })
        .collect()
}

/// Random layouts of `shape`.
pub fn layout(shape: Vec<usize>) -> BoxedStrategy<Layout> {
    let rank = shape.len();
    let order = Just((0..rank).collect::<Vec<_>>()).prop_shuffle();
    let pad = prop::collection::vec((0_usize..=1, 0_usize..=1), rank);
    let step = prop::collection::vec(prop::sample::select(vec![1, 1, 2]), rank);
    let repeat = if rank == 0 {
        Just(None).boxed()
    } else {
        prop::option::weighted(0.2, 0..rank).boxed()
    };
    (Just(shape), order, pad, step, repeat)
        .prop_map(|(shape, order, pad, step, repeat)| Layout {
            shape,
            order,
            pad,
            step,
            repeat,
        })
        .boxed()
}

/// Random shapes: ranks `0..=max_rank`, extents `0..=max_extent`.
pub fn shape(max_rank: usize, max_extent: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=max_extent, 0..=max_rank)
}

/// A well-mixed 64-bit hash of `seed` and `k` (splitmix64's finalizer).
pub fn mix(seed: u64, k: usize) -> u64 {
    let mut h = seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[test]
fn the_model_and_the_view_agree_on_a_fixed_layout() {
    // Logical [2, 3]: owner [3 + 2 pad, 2 * 2 - 1] with axes swapped, axis 1 padded, axis 0 stepped.
    let layout = Layout {
        shape: vec![2, 3],
        order: vec![1, 0],
        pad: vec![(0, 0), (1, 1)],
        step: vec![2, 1],
        repeat: None,
    };
    assert_eq!(layout.owner_shape(), [5, 3]);
    let owner = layout.owner(|k| k);
    let view = layout.view(&owner);
    assert_eq!(
        view.iter().copied().collect::<Vec<_>>(),
        layout.logical(&owner)
    );
    assert_eq!(layout.logical(&owner), [3, 6, 9, 5, 8, 11]);
}
