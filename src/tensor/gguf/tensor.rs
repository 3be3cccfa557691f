//! [`GgufTensor`]: a tensor of a GGUF file in whichever supported type it
//! is stored, for model code that takes what the file holds.

use super::file::Gguf;
use super::tensor_info::GgmlType;
use crate::error::Error;
use crate::tensor::array::base::{Tensor, View};
use crate::tensor::array::borrow::AsView;
use crate::tensor::element::{bf16, f16};
use crate::tensor::ops::{cast, index_select, matmul};
use crate::tensor::quant::{Q4_0, Q4_1, Q8_0, QBlocks, linear};

/// A rank-`R` tensor of a GGUF file, borrowed in its stored type: a
/// [`View`] for the float types, [`QBlocks`] for the block formats.
///
/// ```
/// use llm_from_scratch::tensor::{gguf::{GgmlType, Gguf, GgufTensor}, weights::AlignedBytes};
/// let buffer = AlignedBytes::read("tests/fixtures/gguf/quant.gguf")?;
/// let gguf = Gguf::parse(buffer.as_bytes())?;
/// let w = gguf.tensor::<2>("q4_0")?;
/// assert!(matches!(w, GgufTensor::Q4_0(_)));
/// assert_eq!((w.ggml_type(), w.shape()), (GgmlType::Q4_0, [2, 96]));
/// assert_eq!(w.dequantize()?.shape(), &[2, 96]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
#[allow(non_camel_case_types)]
pub enum GgufTensor<'a, const R: usize> {
    /// `F32` values in place.
    F32(View<'a, R, f32>),
    /// `F16` values in place.
    F16(View<'a, R, f16>),
    /// `BF16` values in place.
    BF16(View<'a, R, bf16>),
    /// `Q8_0` blocks.
    Q8_0(QBlocks<'a, R, Q8_0>),
    /// `Q4_0` blocks.
    Q4_0(QBlocks<'a, R, Q4_0>),
    /// `Q4_1` blocks.
    Q4_1(QBlocks<'a, R, Q4_1>),
}

impl<'a> Gguf<'a> {
    /// The tensor `name` in its stored type, borrowed (see [`GgufTensor`]).
    ///
    /// # Errors
    /// [`Error::MissingTensor`]; as [`Error::InTensor`]:
    /// [`Error::UnsupportedTensorType`] for a ggml type the crate does not
    /// compute with (naming it, e.g. `Q4_K`), [`Error::RankMismatch`],
    /// [`Error::NotBorrowable`] (see [`Gguf::view`]).
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::{Gguf, GgufTensor};
    /// let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// assert!(matches!(gguf.tensor::<2>("q8_0")?, GgufTensor::Q8_0(_)));
    /// assert!(gguf.tensor::<3>("q8_0").is_err()); // a matrix
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tensor<const R: usize>(&self, name: &str) -> Result<GgufTensor<'a, R>, Error> {
        let op = "Gguf::tensor";
        let (info, _) = self.entry::<R>(name, op)?;
        Ok(match info.ggml_type() {
            GgmlType::F32 => GgufTensor::F32(self.view(name)?),
            GgmlType::F16 => GgufTensor::F16(self.view(name)?),
            GgmlType::BF16 => GgufTensor::BF16(self.view(name)?),
            GgmlType::Q8_0 => GgufTensor::Q8_0(self.blocks(name)?),
            GgmlType::Q4_0 => GgufTensor::Q4_0(self.blocks(name)?),
            GgmlType::Q4_1 => GgufTensor::Q4_1(self.blocks(name)?),
            other => {
                let error = Error::UnsupportedTensorType {
                    op,
                    type_name: other.name(),
                };
                return Err(error.in_tensor(name));
            }
        })
    }
}

impl<'a, const R: usize> GgufTensor<'a, R> {
    /// The stored type.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::{GgmlType, Gguf};
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.tensor::<2>("q4_1")?.ggml_type(), GgmlType::Q4_1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ggml_type(&self) -> GgmlType {
        match self {
            Self::F32(_) => GgmlType::F32,
            Self::F16(_) => GgmlType::F16,
            Self::BF16(_) => GgmlType::BF16,
            Self::Q8_0(_) => GgmlType::Q8_0,
            Self::Q4_0(_) => GgmlType::Q4_0,
            Self::Q4_1(_) => GgmlType::Q4_1,
        }
    }

    /// The row-major logical shape.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.tensor::<2>("q8_0")?.shape(), [3, 64]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shape(&self) -> [usize; R] {
        match self {
            Self::F32(v) => *v.shape(),
            Self::F16(v) => *v.shape(),
            Self::BF16(v) => *v.shape(),
            Self::Q8_0(q) => *q.shape(),
            Self::Q4_0(q) => *q.shape(),
            Self::Q4_1(q) => *q.shape(),
        }
    }

    /// Every value in `f32` as a new owner: a copy of `F32`, an exact
    /// widening of `F16` / `BF16`, [`QBlocks::dequantize`] of the blocks.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// assert_eq!(gguf.tensor::<2>("f16")?.dequantize()?.shape(), &[2, 8]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dequantize(&self) -> Result<Tensor<R, f32>, Error> {
        match self {
            Self::F32(v) => cast::<f32, _, f32>(v),
            Self::F16(v) => cast::<f32, _, f16>(v),
            Self::BF16(v) => cast::<f32, _, bf16>(v),
            Self::Q8_0(q) => q.dequantize(),
            Self::Q4_0(q) => q.dequantize(),
            Self::Q4_1(q) => q.dequantize(),
        }
    }
}

impl<'a> GgufTensor<'a, 2> {
    /// Rows `indices` of this table `[rows, cols]` as `f32`, `[indices.len(),
    /// cols]`: the embedding lookup. Only the selected rows are read
    /// (dequantized or widened); the table is not copied.
    ///
    /// # Errors
    /// [`Error::IndexSelectOutOfBounds`] naming the first index past the
    /// rows; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// let table = gguf.tensor::<2>("q8_0")?;            // [3, 64]
    /// let rows = table.rows(&[2, 0])?;
    /// let all = table.dequantize()?;
    /// assert_eq!(rows.as_slice()[..64], all.as_slice()[128..]);
    /// assert!(table.rows(&[3]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rows(&self, indices: &[usize]) -> Result<Tensor<2, f32>, Error> {
        match self {
            Self::F32(v) => index_select(v, 0, indices),
            Self::F16(v) => cast::<f32, _, f16>(&index_select(v, 0, indices)?),
            Self::BF16(v) => cast::<f32, _, bf16>(&index_select(v, 0, indices)?),
            Self::Q8_0(q) => q.dequantize_rows(indices),
            Self::Q4_0(q) => q.dequantize_rows(indices),
            Self::Q4_1(q) => q.dequantize_rows(indices),
        }
    }

    /// `x · Wᵀ` for this weight `W` stored `[out, in]`: `[m, k] x [n, k]ᵀ ->
    /// [m, n]` in `f32`. Quantized weights go through [`linear`] (no
    /// dequantized copy); `F32` through `matmul` with `Wᵀ` as a view (no
    /// copy); `F16` / `BF16` are widened to `f32` first (one copy).
    ///
    /// # Errors
    /// [`Error::LinearInnerMismatch`] (quantized) or
    /// [`Error::MatmulInnerMismatch`] (float) when the `k` differ;
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::{prelude::*, tensor::gguf::Gguf};
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// let x = Tensor::<2, f32>::full([1, 64], 1.0)?;
    /// assert_eq!(gguf.tensor::<2>("q4_1")?.linear(&x)?.shape(), &[1, 4]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn linear(&self, x: &impl AsView<2, f32>) -> Result<Tensor<2, f32>, Error> {
        match self {
            Self::F32(w) => matmul(x, &w.transpose(0, 1)?),
            Self::F16(_) | Self::BF16(_) => matmul(x, &self.dequantize()?.view().transpose(0, 1)?),
            Self::Q8_0(w) => linear(x, w),
            Self::Q4_0(w) => linear(x, w),
            Self::Q4_1(w) => linear(x, w),
        }
    }
}
