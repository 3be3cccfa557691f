//! [`QBlocks`]: a borrowed rank-`R` array of block-quantized values, the
//! quantized counterpart of a [`View`](crate::tensor::View).

use super::format::{BLOCK_LEN, BlockFormat};
use crate::error::Error;
use crate::tensor::array::base::Tensor;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::alloc::try_buffer;
use std::marker::PhantomData;

/// A borrowed, row-major array of `R` axes whose values are stored as
/// blocks of format `F` ([`Q8_0`](super::Q8_0), [`Q4_0`](super::Q4_0),
/// [`Q4_1`](super::Q4_1)): the last axis is cut into blocks of
/// [`BLOCK_LEN`] = 32 values, so a `[rows, cols]` matrix is `rows ×
/// cols / 32` blocks, row after row. The shape is the logical one (of the
/// `f32` values), like a [`View`](crate::tensor::View)'s; the bytes are
/// borrowed (from a GGUF file, no copy), `Copy` like a view.
///
/// Blocks cannot be strided or transposed (a block is the unit), so a
/// `QBlocks` is always whole rows in row-major order. Compute with it
/// through [`dequantize`](QBlocks::dequantize),
/// [`dequantize_rows`](QBlocks::dequantize_rows) (an embedding lookup) and
/// [`linear`](super::linear) (`x · Wᵀ` without dequantizing `W`).
///
/// ```
/// use llm_from_scratch::tensor::{f16, quant::{QBlocks, Q8_0}};
/// // One row of 32 values: d = 0.5, q = 0, 1, ..., 31.
/// let mut bytes = f16::from_f32(0.5).to_le_bytes().to_vec();
/// bytes.extend((0..32).map(|q: u8| q));
/// let w = QBlocks::<2, Q8_0>::from_bytes([1, 32], &bytes)?;
/// assert_eq!((w.shape(), w.blocks_per_row()), (&[1, 32], 1));
/// assert_eq!(w.dequantize()?.as_slice()[..3], [0.0, 0.5, 1.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub struct QBlocks<'a, const R: usize, F: BlockFormat> {
    blocks: &'a [F::Block],
    shape: [usize; R],
    format: PhantomData<F>,
}

impl<const R: usize, F: BlockFormat> Clone for QBlocks<'_, R, F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<const R: usize, F: BlockFormat> Copy for QBlocks<'_, R, F> {}

impl<const R: usize, F: BlockFormat> std::fmt::Debug for QBlocks<'_, R, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "QBlocks<{}>{:?} ({} blocks)",
            F::NAME,
            self.shape,
            self.blocks.len()
        )
    }
}

impl<'a, const R: usize, F: BlockFormat> QBlocks<'a, R, F> {
    /// The array of logical shape `shape` stored in `bytes` (exactly its
    /// blocks, row-major), borrowed without a copy. Any alignment works.
    ///
    /// # Errors
    /// [`Error::RankTooSmall`] for `R = 0` (there is no row to cut into
    /// blocks); [`Error::PartialBlock`] when the last extent is not a
    /// multiple of 32; [`Error::ShapeOverflow`] when the element or byte
    /// count does not fit in `usize`; [`Error::ByteLengthMismatch`] when
    /// `bytes` is not exactly the blocks' size.
    ///
    /// ```
    /// use llm_from_scratch::{tensor::quant::{QBlocks, Q4_0}, Error};
    /// let bytes = [0u8; 2 * 18];
    /// assert!(QBlocks::<2, Q4_0>::from_bytes([2, 32], &bytes).is_ok());
    /// assert!(matches!(
    ///     QBlocks::<2, Q4_0>::from_bytes([1, 48], &bytes),
    ///     Err(Error::PartialBlock { row_len: 48, block_len: 32, .. })
    /// ));
    /// assert!(matches!(
    ///     QBlocks::<2, Q4_0>::from_bytes([3, 32], &bytes),
    ///     Err(Error::ByteLengthMismatch { expected_bytes: 54, actual_bytes: 36, .. })
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_bytes(shape: [usize; R], bytes: &'a [u8]) -> Result<Self, Error> {
        let op = "QBlocks::from_bytes";
        let count = block_count(&shape, op)?;
        let expected = count
            .checked_mul(F::BLOCK_BYTES)
            .ok_or(Error::ShapeOverflow { op })?;
        let (blocks, rest) = F::split_blocks(bytes);
        if bytes.len() != expected || !rest.is_empty() {
            return Err(Error::ByteLengthMismatch {
                op,
                expected_bytes: expected,
                actual_bytes: bytes.len(),
            });
        }
        Ok(Self {
            blocks,
            shape,
            format: PhantomData,
        })
    }

    /// The logical shape (of the values, not of the blocks).
    ///
    /// ```
    /// use llm_from_scratch::tensor::quant::{QBlocks, Q4_1};
    /// let bytes = [0u8; 3 * 2 * 20];
    /// assert_eq!(QBlocks::<2, Q4_1>::from_bytes([3, 64], &bytes)?.shape(), &[3, 64]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize; R] {
        &self.shape
    }

    /// Blocks per row: the last extent / 32.
    ///
    /// ```
    /// use llm_from_scratch::tensor::quant::{QBlocks, Q4_1};
    /// let bytes = [0u8; 3 * 2 * 20];
    /// assert_eq!(QBlocks::<2, Q4_1>::from_bytes([3, 64], &bytes)?.blocks_per_row(), 2);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn blocks_per_row(&self) -> usize {
        self.shape.last().map_or(0, |&extent| extent / BLOCK_LEN)
    }

    /// Every block, row after row (`[u8; BLOCK_BYTES]` each).
    ///
    /// ```
    /// use llm_from_scratch::tensor::quant::{QBlocks, Q8_0};
    /// let bytes = [0u8; 2 * 34];
    /// assert_eq!(QBlocks::<1, Q8_0>::from_bytes([64], &bytes)?.blocks().len(), 2);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn blocks(&self) -> &'a [F::Block] {
        self.blocks
    }

    /// Every value in `f32`, as a new row-major owner of the same shape:
    /// each block by [`BlockFormat::dequantize_block`], so equal bit for bit
    /// to `gguf.quants.dequantize` (the Python package) and ggml's
    /// `dequantize_row_*`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when the output cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{f16, quant::{QBlocks, Q4_0}};
    /// let mut bytes = f16::from_f32(2.0).to_le_bytes().to_vec(); // d = 2
    /// bytes.extend([0x9Fu8; 16]); // low nibbles 15, high nibbles 9
    /// let w = QBlocks::<1, Q4_0>::from_bytes([32], &bytes)?.dequantize()?;
    /// assert_eq!((w.as_slice()[0], w.as_slice()[16]), (14.0, 2.0)); // 2·(15−8), 2·(9−8)
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn dequantize(&self) -> Result<Tensor<R, f32>, Error> {
        let values =
            dequantize_blocks::<F>(self.blocks.iter(), self.blocks.len(), "QBlocks::dequantize")?;
        Tensor::from_vec(self.shape, values)
    }
}

impl<'a, F: BlockFormat> QBlocks<'a, 2, F> {
    /// Rows `indices` of the matrix, dequantized into a new `[indices.len(),
    /// cols]` owner: the embedding lookup of a quantized token table
    /// (`index_select` along axis 0, PyTorch's `F.embedding`), each row
    /// equal bit for bit to the same row of [`dequantize`](Self::dequantize).
    ///
    /// # Errors
    /// [`Error::IndexSelectOutOfBounds`] for an index not below the row
    /// count; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::{tensor::{f16, quant::{QBlocks, Q8_0}}, Error};
    /// let mut bytes = Vec::new();
    /// for row in 0..3u8 {
    ///     bytes.extend(f16::from_f32(1.0).to_le_bytes());
    ///     bytes.extend([row; 32]);
    /// }
    /// let table = QBlocks::<2, Q8_0>::from_bytes([3, 32], &bytes)?;
    /// let rows = table.dequantize_rows(&[2, 0])?;
    /// assert_eq!((rows.shape(), rows.as_slice()[0], rows.as_slice()[32]), (&[2, 32], 2.0, 0.0));
    /// assert!(matches!(table.dequantize_rows(&[3]), Err(Error::IndexSelectOutOfBounds { index: 3, .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn dequantize_rows(&self, indices: &[usize]) -> Result<Tensor<2, f32>, Error> {
        let op = "QBlocks::dequantize_rows";
        let [rows, cols] = self.shape;
        let per_row = self.blocks_per_row();
        for (position, &index) in indices.iter().enumerate() {
            if index >= rows {
                return Err(Error::IndexSelectOutOfBounds {
                    op,
                    axis: 0,
                    position,
                    index,
                    extent: rows,
                });
            }
        }
        let count = indices
            .len()
            .checked_mul(per_row)
            .ok_or(Error::ShapeOverflow { op })?;
        let blocks = indices
            .iter()
            .flat_map(|&index| &self.blocks[index * per_row..(index + 1) * per_row]);
        let values = dequantize_blocks::<F>(blocks, count, op)?;
        Tensor::from_vec([indices.len(), cols], values)
    }
}

/// The number of blocks of a logical `shape` ([`QBlocks::from_bytes`]'s
/// shape errors).
fn block_count(shape: &[usize], op: &'static str) -> Result<usize, Error> {
    let Some(&row_len) = shape.last() else {
        return Err(Error::RankTooSmall {
            op,
            rank: 0,
            minimum: 1,
        });
    };
    if row_len % BLOCK_LEN != 0 {
        return Err(Error::PartialBlock {
            op,
            row_len,
            block_len: BLOCK_LEN,
        });
    }
    Ok(checked_len(shape, op)? / BLOCK_LEN)
}

/// `count` blocks dequantized one after the other into a new buffer.
fn dequantize_blocks<'b, F: BlockFormat>(
    blocks: impl Iterator<Item = &'b F::Block>,
    count: usize,
    op: &'static str,
) -> Result<Vec<f32>, Error> {
    let elements = count
        .checked_mul(BLOCK_LEN)
        .ok_or(Error::ShapeOverflow { op })?;
    let mut values: Vec<f32> = try_buffer(elements).map_err(|failed| Error::AllocationFailed {
        op,
        elements: failed.elements,
    })?;
    for block in blocks {
        values.extend_from_slice(&F::dequantize_block(block));
    }
    Ok(values)
}
