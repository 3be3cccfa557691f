//! The naive reference of `op_sequence`: values in logical row-major order,
//! every operation written as a loop over output coordinates that reads the
//! source by plain row-major position, and the crate's error values built
//! directly from the semantics in the README's design notes, each naming
//! the public function called (`op`).

use llm_from_scratch::Error;
use llm_from_scratch::tensor::ops::tree_sum;

/// A NaN made by arithmetic: its payload is not specified (IEEE 754, LLVM),
/// so the model marks it and accepts any NaN there. Copies, transforms and
/// `max` keep exact bits and are compared exactly.
pub const ANY_NAN: u64 = 0x7ff8_0000_dead_beef;

pub fn arith(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(ANY_NAN)
    } else {
        x
    }
}

pub fn same(model: f64, got: f64) -> bool {
    if model.to_bits() == ANY_NAN {
        got.is_nan()
    } else {
        model.to_bits() == got.to_bits()
    }
}

/// Every coordinate of `shape` in row-major order.
fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    let count: usize = shape.iter().product();
    let mut all = Vec::with_capacity(count);
    let mut coordinate = vec![0; shape.len()];
    for _ in 0..count {
        all.push(coordinate.clone());
        for axis in (0..shape.len()).rev() {
            coordinate[axis] += 1;
            if coordinate[axis] < shape[axis] {
                break;
            }
            coordinate[axis] = 0;
        }
    }
    all
}

/// The row-major position of `coordinate` in `shape`.
fn position(shape: &[usize], coordinate: &[usize]) -> usize {
    coordinate
        .iter()
        .zip(shape)
        .fold(0, |acc, (&i, &extent)| acc * extent + i)
}

/// The reference: values in logical row-major order and, for each, its
/// storage offset in the current owner.
#[derive(Debug, Clone)]
pub struct Model {
    pub shape: Vec<usize>,
    pub values: Vec<f64>,
    pub offsets: Vec<usize>,
}

impl Model {
    pub fn owner(shape: Vec<usize>, values: Vec<f64>) -> Self {
        let offsets = (0..values.len()).collect();
        Model {
            shape,
            values,
            offsets,
        }
    }

    /// A view of the same storage: output coordinate `c` reads `source(c)`.
    fn gather(&self, shape: Vec<usize>, source: impl Fn(&[usize]) -> Vec<usize>) -> Self {
        let (mut values, mut offsets) = (Vec::new(), Vec::new());
        for coordinate in coordinates(&shape) {
            let k = position(&self.shape, &source(&coordinate));
            values.push(self.values[k]);
            offsets.push(self.offsets[k]);
        }
        Model {
            shape,
            values,
            offsets,
        }
    }

    /// Logical order visits consecutive storage offsets (empty: trivially).
    pub fn contiguous(&self) -> bool {
        self.offsets.windows(2).all(|pair| pair[1] == pair[0] + 1)
    }

    fn check_axis(&self, axis: usize, op: &'static str) -> Result<(), Error> {
        let rank = self.shape.len();
        if axis < rank {
            Ok(())
        } else {
            Err(Error::AxisOutOfBounds { op, axis, rank })
        }
    }

    pub fn transpose(&self, a: usize, b: usize) -> Result<Self, Error> {
        self.check_axis(a, "transpose")?;
        self.check_axis(b, "transpose")?;
        let mut shape = self.shape.clone();
        shape.swap(a, b);
        Ok(self.gather(shape, |c| {
            let mut source = c.to_vec();
            source.swap(a, b);
            source
        }))
    }

    pub fn permute(&self, axes: &[usize]) -> Result<Self, Error> {
        let rank = self.shape.len();
        if axes.len() != rank {
            return Err(Error::PermutationLengthMismatch {
                expected: rank,
                actual: axes.len(),
            });
        }
        for (k, &axis) in axes.iter().enumerate() {
            self.check_axis(axis, "permute")?;
            if axes[..k].contains(&axis) {
                return Err(Error::DuplicateAxis { axis });
            }
        }
        let shape = axes.iter().map(|&a| self.shape[a]).collect();
        Ok(self.gather(shape, |c| {
            let mut source = vec![0; rank];
            for (k, &axis) in axes.iter().enumerate() {
                source[axis] = c[k];
            }
            source
        }))
    }

    pub fn slice(&self, axis: usize, start: usize, end: usize) -> Result<Self, Error> {
        self.check_axis(axis, "slice")?;
        if start > end {
            return Err(Error::SliceStartAfterEnd {
                op: "slice",
                axis,
                start,
                end,
            });
        }
        let dimension = self.shape[axis];
        if end > dimension {
            return Err(Error::SliceEndOutOfBounds {
                op: "slice",
                axis,
                end,
                dimension,
            });
        }
        let mut shape = self.shape.clone();
        shape[axis] = end - start;
        Ok(self.gather(shape, |c| {
            let mut source = c.to_vec();
            source[axis] += start;
            source
        }))
    }

    pub fn reshape(&self, shape: &[usize]) -> Result<Self, Error> {
        let requested: usize = shape.iter().product();
        if requested != self.values.len() {
            let current = self.values.len();
            return Err(Error::ReshapeElementCountMismatch {
                op: "reshape",
                current,
                requested,
            });
        }
        if !self.contiguous() {
            return Err(Error::NonContiguousReshape);
        }
        Ok(Model {
            shape: shape.to_vec(),
            ..self.clone()
        })
    }

    pub fn map(&self, f: impl Fn(f64) -> f64) -> Self {
        Model::owner(
            self.shape.clone(),
            self.values.iter().map(|&x| arith(f(x))).collect(),
        )
    }

    pub fn broadcast(
        left: &Self,
        right: &Self,
        f: impl Fn(f64, f64) -> f64,
    ) -> Result<Self, Error> {
        let rank = left.shape.len().max(right.shape.len());
        let aligned = |m: &Self, axis: usize| {
            let pad = rank - m.shape.len();
            if axis < pad { 1 } else { m.shape[axis - pad] }
        };
        let mut shape = Vec::new();
        for axis in 0..rank {
            let (l, r) = (aligned(left, axis), aligned(right, axis));
            if l != r && l != 1 && r != 1 {
                return Err(Error::IncompatibleBroadcast {
                    op: "map_binary",
                    axis,
                    left_dimension: l,
                    right_dimension: r,
                });
            }
            shape.push(if l == 1 { r } else { l });
        }
        let read = |m: &Self, c: &[usize]| {
            let pad = rank - m.shape.len();
            let source: Vec<usize> = (0..m.shape.len())
                .map(|a| if m.shape[a] == 1 { 0 } else { c[a + pad] })
                .collect();
            m.values[position(&m.shape, &source)]
        };
        let values = coordinates(&shape)
            .iter()
            .map(|c| arith(f(read(left, c), read(right, c))))
            .collect();
        Ok(Model::owner(shape, values))
    }

    pub fn reduce(&self, kind: Reduce, axis: usize, keep: bool) -> Result<Self, Error> {
        let rank = self.shape.len();
        if axis >= rank {
            return Err(Error::AxisOutOfBounds {
                op: kind.name(),
                axis,
                rank,
            });
        }
        let extent = self.shape[axis];
        match kind {
            Reduce::Mean if extent == 0 => {
                return Err(Error::EmptyMeanAxis {
                    op: "mean_axis",
                    axis,
                });
            }
            Reduce::Max if extent == 0 => {
                return Err(Error::EmptyMaxAxis {
                    op: "max_axis",
                    axis,
                });
            }
            _ => {}
        }
        let mut kept = self.shape.clone();
        kept[axis] = 1;
        let mut values = Vec::new();
        for coordinate in coordinates(&kept) {
            let group: Vec<f64> = (0..extent)
                .map(|i| {
                    let mut source = coordinate.clone();
                    source[axis] = i;
                    self.values[position(&self.shape, &source)]
                })
                .collect();
            values.push(match kind {
                Reduce::Sum => arith(tree_sum(&group)),
                Reduce::Mean => arith(tree_sum(&group) / extent as f64),
                Reduce::Max => {
                    let mut best = group[0];
                    for &x in &group[1..] {
                        if !best.is_nan() && (x.is_nan() || x > best) {
                            best = x;
                        }
                    }
                    best
                }
            });
        }
        if !keep {
            kept.remove(axis);
        }
        Ok(Model::owner(kept, values))
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Reduce {
    Sum,
    Mean,
    Max,
}

impl Reduce {
    /// The public function that runs it.
    pub fn name(self) -> &'static str {
        match self {
            Reduce::Sum => "sum_axis",
            Reduce::Mean => "mean_axis",
            Reduce::Max => "max_axis",
        }
    }
}
