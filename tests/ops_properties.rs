//! Property tests: broadcasting, maps and reductions against a naive
//! coordinate-by-coordinate reference written here with plain index
//! arithmetic, over random shapes (ranks 0..=4, extents 0..=4) and random
//! layouts (permuted storage, sliced padding, stride-0 repeats). Results must
//! be bit-identical, errors equal, and the ranked and dynamic APIs agree.

mod common;

use common::with_rank;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic;
use llm_from_scratch::tensor::ops::ShapeRef;
use llm_from_scratch::tensor::ops::tree_sum;
use proptest::prelude::*;

// ---------------------------------------------------------------- layouts

/// How a logical shape is stored: the owner keeps the axes in `order`
/// (owner axis `p` is logical axis `order[p]`), each padded by `pad[a]`
/// values before and after; the `repeat` axis is stored once and read
/// with stride 0. Values are a hash of `seed` and the owner offset.
#[derive(Debug, Clone)]
struct Layout {
    shape: Vec<usize>,
    order: Vec<usize>,
    pad: Vec<(usize, usize)>,
    repeat: Option<usize>,
    seed: u64,
}

impl Layout {
    fn stored_extent(&self, axis: usize) -> usize {
        if self.repeat == Some(axis) {
            1
        } else {
            self.shape[axis]
        }
    }

    fn owner_shape(&self) -> Vec<usize> {
        self.order
            .iter()
            .map(|&a| self.stored_extent(a) + self.pad[a].0 + self.pad[a].1)
            .collect()
    }

    /// The reference: the value at logical coordinate `c`, by index arithmetic on the owner.
    fn value_at(&self, c: &[usize]) -> f64 {
        let owner_shape = self.owner_shape();
        let mut offset = 0;
        for (p, &a) in self.order.iter().enumerate() {
            let coordinate = if self.repeat == Some(a) { 0 } else { c[a] };
            offset = offset * owner_shape[p] + coordinate + self.pad[a].0;
        }
        value(self.seed, offset)
    }

    fn owner(&self) -> DynTensor {
        let shape = self.owner_shape();
        let len = shape.iter().product();
        DynTensor::from_vec(
            shape,
            (0..len).map(|offset| value(self.seed, offset)).collect(),
        )
        .unwrap()
    }

    /// The view the library sees: slice off the padding, permute back, repeat.
    fn view<'a>(&self, owner: &'a DynTensor) -> DynView<'a> {
        let mut view = owner.view();
        for (p, &a) in self.order.iter().enumerate() {
            view = view
                .slice(p, self.pad[a].0..self.pad[a].0 + self.stored_extent(a))
                .unwrap();
        }
        let inverse: Vec<usize> = (0..self.shape.len())
            .map(|a| self.order.iter().position(|&o| o == a).unwrap())
            .collect();
        view = view.permute(&inverse).unwrap();
        if let Some(axis) = self.repeat {
            let mut strides = view.strides().to_vec();
            strides[axis] = 0;
            view = DynView::from_parts(
                view.storage(),
                self.shape.clone(),
                strides,
                view.base_offset(),
            )
            .unwrap();
        }
        view
    }
}

/// A deterministic value for owner offset `offset`: signed zeros, tenths,
/// 1e16-sized values (so the order of addition matters) and NaNs with
/// distinct payloads.
fn value(seed: u64, offset: usize) -> f64 {
    let mut h = seed ^ (offset as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    let sign = if h & 1 == 0 { 1.0 } else { -1.0 };
    match (h >> 1) % 16 {
        0 => -0.0,
        1 => 0.0,
        2 => sign * 1e16,
        3 => f64::from_bits(0x7ff8_0000_0000_0000 | ((h >> 12) & 0xffff)),
        _ => sign * ((h >> 8) % 1000) as f64 / 10.0,
    }
}

fn shape_strategy() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0_usize..=4, 0..=4)
}

fn layout_strategy(shape: Vec<usize>) -> BoxedStrategy<Layout> {
    let rank = shape.len();
    let order = Just((0..rank).collect::<Vec<_>>()).prop_shuffle();
    let pad = prop::collection::vec((0_usize..=1, 0_usize..=1), rank);
    let repeat = if rank == 0 {
        Just(None).boxed()
    } else {
        prop::option::weighted(0.25, 0..rank).boxed()
    };
    (Just(shape), order, pad, repeat, any::<u64>())
        .prop_map(|(shape, order, pad, repeat, seed)| Layout {
            shape,
            order,
            pad,
            repeat,
            seed,
        })
        .boxed()
}

/// Shape pairs: half derived to be compatible (a suffix of the left shape
/// with some extents set to 1, new leading axes, sides swapped at random),
/// half independent (mostly incompatible).
fn shape_pair_strategy() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    let derived = (
        shape_strategy(),
        0_usize..=4,
        prop::collection::vec(any::<bool>(), 4),
        prop::collection::vec(0_usize..=4, 0..=4),
        any::<bool>(),
    )
        .prop_map(|(left, keep, ones, prefix, swap)| {
            let keep = keep.min(left.len());
            let mut right: Vec<usize> = prefix.into_iter().take(4 - keep).collect();
            for (i, &extent) in left[left.len() - keep..].iter().enumerate() {
                right.push(if ones[i] { 1 } else { extent });
            }
            if swap { (right, left) } else { (left, right) }
        });
    prop_oneof![derived, (shape_strategy(), shape_strategy())]
}

// ---------------------------------------------------------------- reference

/// Every coordinate of `shape` in row-major order (one `[]` for a scalar).
fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for &extent in shape {
        all = all
            .into_iter()
            .flat_map(|c| (0..extent).map(move |i| [&c[..], &[i]].concat()))
            .collect();
    }
    all
}

/// The broadcast shape, or the error the public function `op` reports.
fn reference_broadcast(
    left: &[usize],
    right: &[usize],
    op: &'static str,
) -> Result<Vec<usize>, Error> {
    let rank = left.len().max(right.len());
    let extent = |shape: &[usize], axis: usize| {
        if axis + shape.len() < rank {
            1
        } else {
            shape[axis + shape.len() - rank]
        }
    };
    (0..rank)
        .map(|axis| {
            let (l, r) = (extent(left, axis), extent(right, axis));
            match (l, r) {
                _ if l == r => Ok(l),
                (1, _) => Ok(r),
                (_, 1) => Ok(l),
                _ => Err(Error::IncompatibleBroadcast {
                    op,
                    axis,
                    left_dimension: l,
                    right_dimension: r,
                }),
            }
        })
        .collect()
}

/// The coordinate an operand of `shape` reads for output coordinate `out`.
fn source(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let skip = out.len() - shape.len();
    shape
        .iter()
        .zip(&out[skip..])
        .map(|(&extent, &i)| if extent == 1 { 0 } else { i })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Sum,
    Mean,
    Max,
}

impl Kind {
    /// The public function that runs it.
    fn name(self) -> &'static str {
        match self {
            Kind::Sum => "sum_axis",
            Kind::Mean => "mean_axis",
            Kind::Max => "max_axis",
        }
    }
}

type Reduced = Result<(Vec<usize>, Vec<f64>), Error>;

fn reference_reduce(layout: &Layout, axis: usize, keep: bool, kind: Kind) -> Reduced {
    let shape = &layout.shape;
    let rank = shape.len();
    if axis >= rank {
        let op = kind.name();
        return Err(Error::AxisOutOfBounds { op, axis, rank });
    }
    let n = shape[axis];
    match kind {
        Kind::Mean if n == 0 => {
            return Err(Error::EmptyMeanAxis {
                op: "mean_axis",
                axis,
            });
        }
        Kind::Max if n == 0 => {
            return Err(Error::EmptyMaxAxis {
                op: "max_axis",
                axis,
            });
        }
        _ => {}
    }
    let group_shape: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(a, &e)| if a == axis { 1 } else { e })
        .collect();
    let mut values = Vec::new();
    for mut c in coordinates(&group_shape) {
        let mut along = (0..n).map(|i| {
            c[axis] = i;
            layout.value_at(&c)
        });
        values.push(match kind {
            Kind::Sum => tree_sum(&along.collect::<Vec<f64>>()),
            Kind::Mean => tree_sum(&along.collect::<Vec<f64>>()) / n as f64,
            Kind::Max => {
                let first = along.next().unwrap();
                along.fold(first, |m, v| {
                    if !m.is_nan() && (v.is_nan() || v > m) {
                        v
                    } else {
                        m
                    }
                })
            }
        });
    }
    let out_shape = if keep {
        group_shape
    } else {
        [&shape[..axis], &shape[axis + 1..]].concat()
    };
    Ok((out_shape, values))
}

/// Bit equality; for sums and means two NaNs also match (IEEE 754 does not
/// fix which payload an addition propagates; max only selects, so it must
/// keep the exact bits).
fn same(kind: Kind, got: &Reduced, expected: &Reduced) -> bool {
    match (got, expected) {
        (Ok((gs, gv)), Ok((es, ev))) => {
            gs == es
                && gv.len() == ev.len()
                && gv.iter().zip(ev).all(|(g, e)| {
                    g.to_bits() == e.to_bits() || (kind != Kind::Max && g.is_nan() && e.is_nan())
                })
        }
        (got, expected) => got.as_ref().err() == expected.as_ref().err() && got.is_err(),
    }
}

// ---------------------------------------------------------------- both dimensions

type Pairs = Vec<(u64, u64)>;

/// `broadcast_shape` of the operands' shapes, and `map_binary`: output
/// shape, outputs, closure calls. Typed or dynamic operands (the same
/// generic functions serve both).
#[allow(clippy::type_complexity)]
fn binary<L, M, O>(
    left: ArrayBase<&[f64], L>,
    right: ArrayBase<&[f64], M>,
) -> (
    Result<Vec<usize>, Error>,
    Result<(Vec<usize>, Pairs, Pairs), Error>,
)
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
    L::Shape: ShapeRef<Dim = L>,
    M::Shape: ShapeRef<Dim = M>,
{
    let planned = broadcast_shape(left.shape(), right.shape()).map(|s| s.as_ref().to_vec());
    let mut calls = Vec::new();
    let out = map_binary(&left, &right, |a: f64, b: f64| {
        calls.push((a.to_bits(), b.to_bits()));
        (a.to_bits(), b.to_bits())
    })
    .map(|out| (out.shape().as_ref().to_vec(), out.into_vec(), calls));
    (planned, out)
}

/// The ranked view of rank `R` of a `DynView` that has that rank.
fn ranked<'a, const R: usize>(view: &DynView<'a>) -> View<'a, R> {
    view.into_ranked::<R>()
        .expect("dispatched on the view's rank")
}

/// The three reductions with marker `keep` (`KeepDim` / `RemoveDim`, or a
/// `bool` for a dynamic view); the output dimension is inferred.
fn reduce<D: Dimension, E: Dimension, K: ReduceDim<D, Output = E>>(
    view: ArrayBase<&[f64], D>,
    axis: usize,
    keep: K,
) -> [Reduced; 3] {
    let pack = |result: Result<ArrayBase<Vec<f64>, E>, Error>| {
        result.map(|t| (t.shape().as_ref().to_vec(), t.into_vec()))
    };
    [
        pack(sum_axis(&view, axis, keep)),
        pack(mean_axis(&view, axis, keep)),
        pack(max_axis(&view, axis, keep)),
    ]
}

/// `map_unary`: output shape, the input bits and the closure calls.
fn unary<D: Dimension>(view: ArrayBase<&[f64], D>) -> (Vec<usize>, Vec<u64>, Vec<u64>) {
    let mut calls = Vec::new();
    let out = map_unary(&view, |x: f64| {
        calls.push(x.to_bits());
        x.to_bits()
    })
    .unwrap();
    (out.shape().as_ref().to_vec(), out.into_vec(), calls)
}

// ---------------------------------------------------------------- properties

fn binary_case() -> impl Strategy<Value = (Layout, Layout)> {
    shape_pair_strategy()
        .prop_flat_map(|(left, right)| (layout_strategy(left), layout_strategy(right)))
}

fn reduce_case() -> impl Strategy<Value = (Layout, usize, bool)> {
    shape_strategy().prop_flat_map(|shape| {
        let rank = shape.len();
        (layout_strategy(shape), 0..=rank, any::<bool>())
    })
}

proptest! {
    #[test]
    fn layouts_show_the_reference_values(layout in shape_strategy().prop_flat_map(layout_strategy)) {
        let owner = layout.owner();
        let view = layout.view(&owner);
        prop_assert_eq!(view.shape(), &layout.shape[..]);
        for c in coordinates(&layout.shape) {
            prop_assert_eq!(view.get(&c).unwrap().to_bits(), layout.value_at(&c).to_bits());
        }
    }

    #[test]
    fn map_unary_matches_the_reference(layout in shape_strategy().prop_flat_map(layout_strategy)) {
        let owner = layout.owner();
        let view = layout.view(&owner);
        let expected: Vec<u64> = coordinates(&layout.shape).iter().map(|c| layout.value_at(c).to_bits()).collect();
        let want = (layout.shape.clone(), expected.clone(), expected);
        prop_assert_eq!(unary(view), want.clone());
        let ranked = with_rank!(view.rank(), [0 1 2 3 4], |R| unary(ranked::<R>(&view)));
        prop_assert_eq!(ranked, want);
    }

    #[test]
    fn map_binary_matches_the_reference((left, right) in binary_case()) {
        let (left_owner, right_owner) = (left.owner(), right.owner());
        let (left_view, right_view) = (left.view(&left_owner), right.view(&right_owner));

        let expected = reference_broadcast(&left.shape, &right.shape, "map_binary").map(|shape| {
            let pairs: Pairs = coordinates(&shape)
                .iter()
                .map(|o| (left.value_at(&source(&left.shape, o)).to_bits(),
                          right.value_at(&source(&right.shape, o)).to_bits()))
                .collect();
            (shape, pairs.clone(), pairs)
        });

        let planned = reference_broadcast(&left.shape, &right.shape, "broadcast_shape");
        prop_assert_eq!(
            dynamic::broadcast_shape(&left.shape, &right.shape),
            planned.clone()
        );
        let dynamic_result = binary(left_view, right_view);
        prop_assert_eq!(&dynamic_result, &(planned.clone(), expected.clone()));

        let ranked_result = with_rank!(left_view.rank(), [0 1 2 3 4], |L| {
            with_rank!(right_view.rank(), [0 1 2 3 4], |M| {
                binary(ranked::<L>(&left_view), ranked::<M>(&right_view))
            })
        });
        prop_assert_eq!(&ranked_result, &(planned, expected));
    }

    #[test]
    fn reductions_match_the_reference((layout, axis, keep) in reduce_case()) {
        let owner = layout.owner();
        let view = layout.view(&owner);
        let kinds = [Kind::Sum, Kind::Mean, Kind::Max];
        let expected = kinds.map(|kind| reference_reduce(&layout, axis, keep, kind));

        let dynamic_results = reduce(view, axis, keep);
        let ranked_results = if keep {
            let reduced = with_rank!(view.rank(), [0 1 2 3 4], |R| {
                reduce(ranked::<R>(&view), axis, KeepDim)
            });
            Some(reduced)
        } else {
            // RemoveDim on a rank-0 view does not compile.
            with_rank!(view.rank(), [1 2 3 4], |R| {
                Some(reduce(ranked::<R>(&view), axis, RemoveDim))
            }, 0 => None, rank => panic!("rank {rank} is not drawn"))
        };
        for (i, kind) in kinds.into_iter().enumerate() {
            prop_assert!(same(kind, &dynamic_results[i], &expected[i]),
                "{:?} dynamic: {:?} vs reference {:?}", kind, dynamic_results[i], expected[i]);
            if let Some(ranked) = &ranked_results {
                prop_assert!(same(kind, &ranked[i], &expected[i]),
                    "{:?} ranked: {:?} vs reference {:?}", kind, ranked[i], expected[i]);
            }
        }
    }
}

#[test]
fn the_value_palette_exercises_signed_zeros_nans_and_large_magnitudes() {
    let values: Vec<f64> = (0..4096).map(|offset| value(7, offset)).collect();
    assert!(values.iter().any(|v| v.to_bits() == (-0.0_f64).to_bits()));
    assert!(values.iter().any(|v| v.is_nan()));
    assert!(values.iter().any(|v| v.abs() == 1e16));
    let payloads: std::collections::HashSet<u64> = values
        .iter()
        .filter(|v| v.is_nan())
        .map(|v| v.to_bits())
        .collect();
    assert!(payloads.len() > 10, "NaN payloads should differ");
}
