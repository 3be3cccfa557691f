//! The reference model of a view, and what the specification says each
//! request returns for it.
//!
//! The model knows nothing about strides: a view is its logical shape plus,
//! in row-major order, the owner offset each coordinate reads. Permute and
//! slice rebuild that list coordinate by coordinate with plain arithmetic;
//! reshape keeps it; contiguity means "consecutive offsets".

use llm_from_scratch::Error;

pub type E = Error;

/// The error of a shape whose element count or a stride does not fit in
/// usize, raised by the public operation `op`.
pub fn overflow(op: &'static str) -> E {
    E::ShapeOverflow { op }
}

/// The element count of a valid shape (a zero extent anywhere gives 0).
pub fn count(shape: &[usize]) -> usize {
    if shape.contains(&0) {
        0
    } else {
        shape.iter().product()
    }
}

/// Every coordinate of `shape`, in row-major order, by counting.
pub fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    (0..count(shape))
        .map(|mut index| {
            let mut coordinate = vec![0; shape.len()];
            for axis in (0..shape.len()).rev() {
                coordinate[axis] = index % shape[axis];
                index /= shape[axis];
            }
            coordinate
        })
        .collect()
}

/// The row-major position of `coordinate` in `shape`.
pub fn position(shape: &[usize], coordinate: &[usize]) -> usize {
    coordinate
        .iter()
        .zip(shape)
        .fold(0, |acc, (&c, &n)| acc * n + c)
}

/// Row-major strides: plain suffix products, right to left; `ShapeOverflow`
/// of `op` when one of them (or the element count) does not fit in usize.
pub fn row_major_strides(shape: &[usize], op: &'static str) -> Result<Vec<usize>, E> {
    let mut strides = vec![0; shape.len()];
    let mut running: u128 = 1;
    for axis in (0..shape.len()).rev() {
        strides[axis] = running as usize;
        running *= shape[axis] as u128;
        if running > usize::MAX as u128 {
            return Err(overflow(op));
        }
    }
    Ok(strides)
}

#[derive(Clone, Debug)]
pub struct Model {
    pub shape: Vec<usize>,
    /// The owner offset of each coordinate, in row-major order.
    pub offsets: Vec<usize>,
}

impl Model {
    pub fn owner(shape: &[usize]) -> Self {
        Self {
            shape: shape.to_vec(),
            offsets: (0..count(shape)).collect(),
        }
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    pub fn at(&self, coordinate: &[usize]) -> usize {
        self.offsets[position(&self.shape, coordinate)]
    }

    /// Output axis k is source axis `axes[k]`.
    pub fn permute(&self, axes: &[usize]) -> Self {
        let shape: Vec<usize> = axes.iter().map(|&axis| self.shape[axis]).collect();
        let offsets = coordinates(&shape)
            .iter()
            .map(|coordinate| {
                let mut source = vec![0; coordinate.len()];
                for (k, &axis) in axes.iter().enumerate() {
                    source[axis] = coordinate[k];
                }
                self.at(&source)
            })
            .collect();
        Self { shape, offsets }
    }

    pub fn slice(&self, axis: usize, start: usize, end: usize) -> Self {
        let mut shape = self.shape.clone();
        shape[axis] = end - start;
        let offsets = coordinates(&shape)
            .iter()
            .map(|coordinate| {
                let mut source = coordinate.clone();
                source[axis] += start;
                self.at(&source)
            })
            .collect();
        Self { shape, offsets }
    }

    pub fn reshape(&self, shape: &[usize]) -> Self {
        Self {
            shape: shape.to_vec(),
            offsets: self.offsets.clone(),
        }
    }

    pub fn contiguous(&self) -> bool {
        self.offsets.windows(2).all(|pair| pair[1] == pair[0] + 1)
    }
}

// ---- what the specification says each request returns ----

/// `axis` of the operation `op` checked against `rank`.
pub fn expect_axis(axis: usize, rank: usize, op: &'static str) -> Result<(), E> {
    if axis < rank {
        Ok(())
    } else {
        Err(E::AxisOutOfBounds { op, axis, rank })
    }
}

pub fn expected_transpose(model: &Model, first: usize, second: usize) -> Result<Model, E> {
    expect_axis(first, model.rank(), "transpose")?;
    expect_axis(second, model.rank(), "transpose")?;
    let mut axes: Vec<usize> = (0..model.rank()).collect();
    axes.swap(first, second);
    Ok(model.permute(&axes))
}

pub fn expected_permute(model: &Model, axes: &[usize]) -> Result<Model, E> {
    if axes.len() != model.rank() {
        return Err(E::PermutationLengthMismatch {
            expected: model.rank(),
            actual: axes.len(),
        });
    }
    for (k, &axis) in axes.iter().enumerate() {
        expect_axis(axis, model.rank(), "permute")?;
        if axes[..k].contains(&axis) {
            return Err(E::DuplicateAxis { axis });
        }
    }
    Ok(model.permute(axes))
}

/// `slice(axis, start..end)`.
pub fn expected_slice(model: &Model, axis: usize, start: usize, end: usize) -> Result<Model, E> {
    expected_slice_of(model, axis, start, end, "slice")
}

/// The checks and the result of a unit-step slice, made by the public
/// operation `op` (`slice`, `slice_step`, `split_at`).
pub fn expected_slice_of(
    model: &Model,
    axis: usize,
    start: usize,
    end: usize,
    op: &'static str,
) -> Result<Model, E> {
    expect_axis(axis, model.rank(), op)?;
    if start > end {
        return Err(E::SliceStartAfterEnd {
            op,
            axis,
            start,
            end,
        });
    }
    let dimension = model.shape[axis];
    if end > dimension {
        return Err(E::SliceEndOutOfBounds {
            op,
            axis,
            end,
            dimension,
        });
    }
    Ok(model.slice(axis, start, end))
}

/// `reshape(shape)`.
pub fn expected_reshape(model: &Model, shape: &[usize]) -> Result<Model, E> {
    expected_reshape_of(model, shape, "reshape")
}

/// The strict reshape's checks in order (overflow, count, contiguity), of
/// the public operation `op`.
pub fn expected_reshape_of(model: &Model, shape: &[usize], op: &'static str) -> Result<Model, E> {
    // Every suffix product (each stride and the count) must fit in usize.
    let mut running: u128 = 1;
    for &extent in shape.iter().rev() {
        running *= extent as u128;
        if running > usize::MAX as u128 {
            return Err(overflow(op));
        }
    }
    let requested = running as usize;
    if requested != model.len() {
        return Err(E::ReshapeElementCountMismatch {
            op,
            current: model.len(),
            requested,
        });
    }
    if !model.contiguous() {
        return Err(E::NonContiguousReshape);
    }
    Ok(model.reshape(shape))
}

/// The storage offset a coordinate access (`get`, `set`, `storage_offset`:
/// the operation `op`) reads, or its error.
pub fn expected_offset(model: &Model, coordinate: &[usize], op: &'static str) -> Result<usize, E> {
    for (axis, (&index, &dimension)) in coordinate.iter().zip(&model.shape).enumerate() {
        if index >= dimension {
            return Err(E::IndexOutOfBounds {
                op,
                axis,
                index,
                dimension,
            });
        }
    }
    Ok(model.at(coordinate))
}
