//! The reference model of the view operations beyond transpose / permute /
//! slice / reshape, and what the specification says each returns.
//!
//! The model is the one of `tests/view_properties/model.rs`: a view is its
//! logical shape plus, in row-major order, the storage offset each
//! coordinate reads; it knows no strides. Each operation here rebuilds the
//! offsets coordinate by coordinate (`x[.., i, ..]` of a split axis is
//! `x[.., i_outer * inner + i_inner, ..]`, a broadcast coordinate reads the
//! source at 0 on stretched axes, ...). Where an error or a rule is about
//! strides (merge_axes, reshape_strided), the model reads the one stride an
//! axis of extent above 1 can have off its offsets: `at(e_k) - at(0)`.
//! Include with `#[path = "common/view_ops_model.rs"] mod ops_model;` after
//! `#[path = "view_properties/model.rs"] mod model;`.
#![allow(dead_code)]

use crate::model::{
    E, Model, coordinates, expect_axis, expected_reshape_of, expected_slice_of, overflow,
    row_major_strides,
};

/// The model of `shape` whose coordinate `c` reads `model` at `source(c)`.
pub fn derive(model: &Model, shape: Vec<usize>, source: impl Fn(&[usize]) -> Vec<usize>) -> Model {
    let offsets = coordinates(&shape)
        .iter()
        .map(|c| model.at(&source(c)))
        .collect();
    Model { shape, offsets }
}

/// The only stride axis `axis` of a non-empty view can have, when its extent is above 1.
pub fn stride(model: &Model, axis: usize) -> usize {
    let mut unit = vec![0; model.rank()];
    unit[axis] = 1;
    model.at(&unit) - model.offsets[0]
}

/// Whether some strides for `shape` read exactly the model's offsets in
/// row-major order (the strides-independent meaning of "no copy needed").
pub fn strides_exist(model: &Model, shape: &[usize]) -> bool {
    if model.len() == 0 {
        return true;
    }
    let base = model.offsets[0];
    let candidate = Model {
        shape: shape.to_vec(),
        offsets: model.offsets.clone(),
    };
    let strides: Vec<Option<usize>> = (0..shape.len())
        .map(|axis| {
            let mut unit = vec![0; shape.len()];
            unit[axis] = 1;
            (shape[axis] > 1)
                .then(|| candidate.at(&unit).checked_sub(base))
                .flatten()
        })
        .collect();
    if (0..shape.len()).any(|axis| shape[axis] > 1 && strides[axis].is_none()) {
        return false;
    }
    coordinates(shape)
        .iter()
        .zip(&model.offsets)
        .all(|(c, &offset)| {
            let step: usize = c
                .iter()
                .zip(&strides)
                .map(|(i, s)| i * s.unwrap_or(0))
                .sum();
            base + step == offset
        })
}

/// The checks every reshape makes first: overflow of `shape`, then its
/// count (`expected_reshape` without its contiguity rule), for `reshape_strided`.
fn expect_count(model: &Model, shape: &[usize]) -> Result<(), E> {
    match expected_reshape_of(model, shape, "reshape_strided") {
        Ok(_) | Err(E::NonContiguousReshape) => Ok(()),
        Err(error) => Err(error),
    }
}

/// PyTorch's `view` rule, stated on runs: the axes of extent above 1 fall
/// into runs whose strides chain (`stride[i] == stride[j] * extent[j]` for
/// neighbours); counting elements from the right, every run boundary must
/// also be a boundary of the new axes. The first run (from the right) that
/// is not is the error.
pub fn expected_reshape_strided(model: &Model, shape: &[usize]) -> Result<Model, E> {
    expect_count(model, shape)?;
    let reshaped = model.reshape(shape);
    if model.len() == 0 {
        return Ok(reshaped);
    }
    let wide: Vec<usize> = (0..model.rank()).filter(|&a| model.shape[a] > 1).collect();
    let mut boundaries_new = vec![1_usize];
    for &extent in shape.iter().rev() {
        boundaries_new.push(boundaries_new.last().unwrap() * extent);
    }
    let (mut elements, mut last) = (1_usize, wide.last().copied());
    for (k, &axis) in wide.iter().enumerate().rev() {
        elements *= model.shape[axis];
        let ends = k == 0 || stride(model, wide[k - 1]) != stride(model, axis) * model.shape[axis];
        if ends {
            let total: usize = wide[k..].iter().map(|&a| model.shape[a]).product();
            if !boundaries_new.contains(&total) {
                let error = E::NonStrideCompatibleReshape {
                    axes: [axis, last.expect("a wide axis")],
                    elements,
                };
                assert!(
                    !strides_exist(model, shape),
                    "the model's two rules disagree"
                );
                return Err(error);
            }
            (elements, last) = (1, k.checked_sub(1).map(|j| wide[j]));
        }
    }
    assert!(
        strides_exist(model, shape),
        "the model's two rules disagree"
    );
    Ok(reshaped)
}

pub fn expected_split_axis(
    model: &Model,
    axis: usize,
    [outer, inner]: [usize; 2],
) -> Result<Model, E> {
    expect_axis(axis, model.rank(), "split_axis")?;
    let extent = model.shape[axis];
    if outer.checked_mul(inner) != Some(extent) {
        return Err(E::SplitAxisMismatch {
            axis,
            extent,
            requested: [outer, inner],
        });
    }
    let mut shape = model.shape.clone();
    shape.splice(axis..=axis, [outer, inner]);
    // An empty axis splits into any `[0, n]`, but not into a shape whose
    // row-major strides overflow where the view's own did not.
    if row_major_strides(&shape, "split_axis").is_err()
        && row_major_strides(&model.shape, "split_axis").is_ok()
    {
        return Err(overflow("split_axis"));
    }
    Ok(derive(model, shape, |c| {
        let mut source = c.to_vec();
        source.splice(axis..=axis + 1, [c[axis] * inner + c[axis + 1]]);
        source
    }))
}

pub fn expected_merge_axes(model: &Model, axis: usize) -> Result<Model, E> {
    expect_axis(axis.saturating_add(1), model.rank(), "merge_axes")?;
    let extents = [model.shape[axis], model.shape[axis + 1]];
    let extent = extents[0]
        .checked_mul(extents[1])
        .ok_or(overflow("merge_axes"))?;
    let mut shape = model.shape.clone();
    shape.splice(axis..=axis + 1, [extent]);
    if !strides_exist(model, &shape) {
        let strides = [stride(model, axis), stride(model, axis + 1)];
        return Err(E::NonMergeableAxes {
            axis,
            extents,
            strides,
        });
    }
    Ok(model.reshape(&shape))
}

pub fn expected_unsqueeze(model: &Model, axis: usize) -> Result<Model, E> {
    expect_axis(axis, model.rank() + 1, "unsqueeze")?;
    let mut shape = model.shape.clone();
    shape.insert(axis, 1);
    Ok(model.reshape(&shape))
}

pub fn expected_squeeze(model: &Model, axis: usize) -> Result<Model, E> {
    expect_axis(axis, model.rank(), "squeeze")?;
    let extent = model.shape[axis];
    if extent != 1 {
        return Err(E::SqueezeNonUnitAxis { axis, extent });
    }
    let mut shape = model.shape.clone();
    shape.remove(axis);
    Ok(model.reshape(&shape))
}

pub fn expected_select(model: &Model, axis: usize, index: usize) -> Result<Model, E> {
    expect_axis(axis, model.rank(), "select")?;
    let dimension = model.shape[axis];
    if index >= dimension {
        return Err(E::IndexOutOfBounds {
            op: "select",
            axis,
            index,
            dimension,
        });
    }
    let mut shape = model.shape.clone();
    shape.remove(axis);
    Ok(derive(model, shape, |c| {
        let mut source = c.to_vec();
        source.insert(axis, index);
        source
    }))
}

/// NumPy's broadcasting of a source `shape` to `target` by the public
/// operation `op` (`broadcast_to`, `assign`, `zip_map_inplace`):
/// right-aligned; the target's rank first, then the leftmost failing output
/// axis (the source's extent on the left, the target's on the right).
pub fn broadcast_compatible(shape: &[usize], target: &[usize], op: &'static str) -> Result<(), E> {
    let (rank, target_rank) = (shape.len(), target.len());
    if target_rank < rank {
        return Err(E::BroadcastRankTooSmall {
            op,
            rank,
            target_rank,
        });
    }
    let padding = target_rank - rank;
    for (k, &extent) in shape.iter().enumerate() {
        let wanted = target[padding + k];
        if extent != wanted && extent != 1 {
            return Err(E::IncompatibleBroadcast {
                op,
                axis: padding + k,
                left_dimension: extent,
                right_dimension: wanted,
            });
        }
    }
    Ok(())
}

/// `broadcast_to` checks: [`broadcast_compatible`], then the target's
/// overflow (every suffix product must fit).
pub fn broadcast_checks(model: &Model, target: &[usize]) -> Result<(), E> {
    broadcast_compatible(&model.shape, target, "broadcast_to")?;
    row_major_strides(target, "broadcast_to").map(|_| ())
}

/// The source coordinate a broadcast coordinate reads (0 on stretched axes).
pub fn broadcast_source(model: &Model, coordinate: &[usize]) -> Vec<usize> {
    let padding = coordinate.len() - model.rank();
    (0..model.rank())
        .map(|k| {
            if model.shape[k] == 1 {
                0
            } else {
                coordinate[padding + k]
            }
        })
        .collect()
}

/// The broadcast view, for a target small enough to enumerate.
pub fn expected_broadcast_to(model: &Model, target: &[usize]) -> Result<Model, E> {
    broadcast_checks(model, target)?;
    Ok(derive(model, target.to_vec(), |c| {
        broadcast_source(model, c)
    }))
}

pub fn expected_slice_step(
    model: &Model,
    axis: usize,
    start: usize,
    end: usize,
    step: usize,
) -> Result<Model, E> {
    expected_slice_of(model, axis, start, end, "slice_step")?;
    if step == 0 {
        return Err(E::ZeroSliceStep { axis });
    }
    let mut shape = model.shape.clone();
    shape[axis] = (end - start).div_ceil(step);
    Ok(derive(model, shape, |c| {
        let mut source = c.to_vec();
        source[axis] = start + c[axis] * step;
        source
    }))
}

pub fn expected_split_at(model: &Model, axis: usize, index: usize) -> Result<[Model; 2], E> {
    expect_axis(axis, model.rank(), "split_at")?;
    let extent = model.shape[axis];
    Ok([
        expected_slice_of(model, axis, 0, index, "split_at")?,
        expected_slice_of(model, axis, index, extent, "split_at")?,
    ])
}

pub fn expected_chunk(model: &Model, axis: usize, parts: usize) -> Result<Vec<Model>, E> {
    expect_axis(axis, model.rank(), "chunk")?;
    let extent = model.shape[axis];
    if parts == 0 || !extent.is_multiple_of(parts) {
        return Err(E::UnevenChunk {
            axis,
            extent,
            chunks: parts,
        });
    }
    match extent {
        0 => Ok(vec![model.clone(); parts]),
        _ => expected_axis_chunks(model, axis, extent / parts),
    }
}

pub fn expected_axis_iter(model: &Model, axis: usize) -> Result<Vec<Model>, E> {
    expect_axis(axis, model.rank(), "axis_iter")?;
    (0..model.shape[axis])
        .map(|index| expected_select(model, axis, index))
        .collect()
}

pub fn expected_axis_chunks(model: &Model, axis: usize, size: usize) -> Result<Vec<Model>, E> {
    expect_axis(axis, model.rank(), "axis_chunks_iter")?;
    if size == 0 {
        return Err(E::ZeroChunkSize { axis });
    }
    let extent = model.shape[axis];
    (0..extent.div_ceil(size))
        .map(|k| {
            expected_slice_of(
                model,
                axis,
                k * size,
                extent.min((k + 1).saturating_mul(size)),
                "axis_chunks_iter",
            )
        })
        .collect()
}
