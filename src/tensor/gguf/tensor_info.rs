//! GGUF tensor infos: [`GgmlType`] (ggml's element types and their block
//! sizes) and [`GgufTensorInfo`] (a tensor's name, shape, type and bytes).

use super::cursor::Cursor;
use crate::error::Error;

/// ggml's tensor element types (`enum ggml_type`), with their ids, names
/// and block sizes, as GGUF tensor infos name them. The crate reads every
/// one of them (so it can check every tensor's extent), and computes with
/// `F32`, `F16`, `BF16`, `Q8_0`, `Q4_0` and `Q4_1`.
///
/// ```
/// use llm_from_scratch::tensor::gguf::GgmlType;
/// let q = GgmlType::from_id(3).unwrap();
/// assert_eq!((q, q.name(), q.block_len(), q.block_bytes()), (GgmlType::Q4_1, "Q4_1", 32, 20));
/// assert_eq!(GgmlType::from_id(4), None); // Q4_2, removed from ggml
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(non_camel_case_types, missing_docs)]
pub enum GgmlType {
    F32,
    F16,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Q8_1,
    Q2_K,
    Q3_K,
    Q4_K,
    Q5_K,
    Q6_K,
    Q8_K,
    IQ2_XXS,
    IQ2_XS,
    IQ3_XXS,
    IQ1_S,
    IQ4_NL,
    IQ3_S,
    IQ2_S,
    IQ4_XS,
    I8,
    I16,
    I32,
    I64,
    F64,
    IQ1_M,
    BF16,
    TQ1_0,
    TQ2_0,
    MXFP4,
}

/// `(type, id, name, values per block, bytes per block)`: ggml's
/// `type_traits` table (`ggml.c`), as `gguf-py`'s `GGML_QUANT_SIZES`.
const TABLE: [(GgmlType, u32, &str, usize, usize); 32] = {
    use GgmlType::*;
    [
        (F32, 0, "F32", 1, 4),
        (F16, 1, "F16", 1, 2),
        (Q4_0, 2, "Q4_0", 32, 18),
        (Q4_1, 3, "Q4_1", 32, 20),
        (Q5_0, 6, "Q5_0", 32, 22),
        (Q5_1, 7, "Q5_1", 32, 24),
        (Q8_0, 8, "Q8_0", 32, 34),
        (Q8_1, 9, "Q8_1", 32, 40),
        (Q2_K, 10, "Q2_K", 256, 84),
        (Q3_K, 11, "Q3_K", 256, 110),
        (Q4_K, 12, "Q4_K", 256, 144),
        (Q5_K, 13, "Q5_K", 256, 176),
        (Q6_K, 14, "Q6_K", 256, 210),
        (Q8_K, 15, "Q8_K", 256, 292),
        (IQ2_XXS, 16, "IQ2_XXS", 256, 66),
        (IQ2_XS, 17, "IQ2_XS", 256, 74),
        (IQ3_XXS, 18, "IQ3_XXS", 256, 98),
        (IQ1_S, 19, "IQ1_S", 256, 50),
        (IQ4_NL, 20, "IQ4_NL", 32, 18),
        (IQ3_S, 21, "IQ3_S", 256, 110),
        (IQ2_S, 22, "IQ2_S", 256, 82),
        (IQ4_XS, 23, "IQ4_XS", 256, 136),
        (I8, 24, "I8", 1, 1),
        (I16, 25, "I16", 1, 2),
        (I32, 26, "I32", 1, 4),
        (I64, 27, "I64", 1, 8),
        (F64, 28, "F64", 1, 8),
        (IQ1_M, 29, "IQ1_M", 256, 56),
        (BF16, 30, "BF16", 1, 2),
        (TQ1_0, 34, "TQ1_0", 256, 54),
        (TQ2_0, 35, "TQ2_0", 256, 66),
        (MXFP4, 39, "MXFP4", 32, 17),
    ]
};

impl GgmlType {
    /// The type with ggml id `id`, or `None` for an id this crate does not know.
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgmlType;
    /// assert_eq!(GgmlType::from_id(8), Some(GgmlType::Q8_0));
    /// ```
    pub fn from_id(id: u32) -> Option<Self> {
        TABLE.iter().find(|row| row.1 == id).map(|row| row.0)
    }

    /// This type's row of the table.
    fn row(self) -> (GgmlType, u32, &'static str, usize, usize) {
        TABLE
            .iter()
            .copied()
            .find(|row| row.0 == self)
            .unwrap_or((self, u32::MAX, "?", 1, 1))
    }

    /// ggml's id.
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgmlType;
    /// assert_eq!(GgmlType::BF16.id(), 30);
    /// ```
    pub fn id(self) -> u32 {
        self.row().1
    }

    /// ggml's name (`"Q4_K"`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgmlType;
    /// assert_eq!(GgmlType::Q4_K.name(), "Q4_K");
    /// ```
    pub fn name(self) -> &'static str {
        self.row().2
    }

    /// Values per block (1 for plain element types).
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgmlType;
    /// assert_eq!((GgmlType::F16.block_len(), GgmlType::Q6_K.block_len()), (1, 256));
    /// ```
    pub fn block_len(self) -> usize {
        self.row().3
    }

    /// Bytes per block.
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgmlType;
    /// assert_eq!((GgmlType::F16.block_bytes(), GgmlType::Q8_0.block_bytes()), (2, 34));
    /// ```
    pub fn block_bytes(self) -> usize {
        self.row().4
    }
}

/// The dimension limit of a ggml tensor (`GGML_MAX_DIMS`).
pub(super) const MAX_DIMS: usize = 4;

/// One tensor of a GGUF file: its name, row-major shape, type and bytes.
///
/// GGUF lists a tensor's dimensions fastest-varying first (ggml's `ne`);
/// [`shape`](Self::shape) is the row-major shape, those dimensions
/// reversed: a GGUF `[576, 1536]` weight is the `[1536, 576]` matrix
/// `[out, in]` of `x · Wᵀ`.
///
/// ```
/// use llm_from_scratch::tensor::gguf::{GgmlType, Gguf};
/// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
/// let gguf = Gguf::parse(&bytes)?;
/// let info = gguf.tensor_info("q4_1").unwrap();
/// assert_eq!((info.name(), info.shape(), info.ggml_type()), ("q4_1", &[4, 64][..], GgmlType::Q4_1));
/// assert_eq!(info.data().len(), 4 * 2 * 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct GgufTensorInfo<'a> {
    name: &'a str,
    dims: [usize; MAX_DIMS],
    rank: usize,
    ggml_type: GgmlType,
    offset: u64,
    data: &'a [u8],
}

impl<'a> GgufTensorInfo<'a> {
    /// The tensor's name (`blk.0.attn_q.weight`).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.tensor_infos()[0].name(), "f32");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The row-major shape (GGUF's dimensions reversed).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.tensor_info("f32").unwrap().shape(), &[3, 5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.dims[..self.rank]
    }

    /// The element type.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::{GgmlType, Gguf};
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.tensor_info("f16").unwrap().ggml_type(), GgmlType::F16);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ggml_type(&self) -> GgmlType {
        self.ggml_type
    }

    /// The offset of its bytes from the start of the data section.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.tensor_infos()[0].offset(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Its bytes, borrowed from the file.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.tensor_info("f32").unwrap().data().len(), 15 * 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Reads one tensor info (name, dims, type, offset); its bytes are
    /// found later by [`GgufTensorInfo::locate`].
    pub(super) fn read(cursor: &mut Cursor<'a>, index: usize) -> Result<Self, Error> {
        let what = || format!("tensor info {index}");
        let name = cursor.string(&|| format!("the name of tensor info {index}"))?;
        let in_tensor = |error: Error| error.in_tensor(name);
        let n_dims = cursor.u32(&what)?;
        let rank = usize::try_from(n_dims).unwrap_or(usize::MAX);
        if rank > MAX_DIMS {
            return Err(in_tensor(Error::GgufTooManyDims {
                n_dims,
                maximum: MAX_DIMS as u32,
            }));
        }
        let mut dims = [0; MAX_DIMS];
        for axis in 0..rank {
            let dim = cursor.u64(&what)?;
            // GGUF order is fastest-varying first: reverse into row-major.
            dims[rank - 1 - axis] =
                usize::try_from(dim).map_err(|_| in_tensor(Error::ShapeOverflow { op: "gguf" }))?;
        }
        let type_id = cursor.u32(&what)?;
        let ggml_type = GgmlType::from_id(type_id)
            .ok_or_else(|| in_tensor(Error::GgufUnknownTensorType { type_id }))?;
        let offset = cursor.u64(&what)?;
        Ok(Self {
            name,
            dims,
            rank,
            ggml_type,
            offset,
            data: &[],
        })
    }

    /// Finds the tensor's bytes in the data section `data` (whose start in
    /// the file is a multiple of `alignment`): checks the shape against
    /// the type's blocks, the offset's alignment and the extent.
    pub(super) fn locate(&mut self, data: &'a [u8], alignment: usize) -> Result<(), Error> {
        let op = "gguf";
        let locate = || {
            let shape = self.shape();
            let block_len = self.ggml_type.block_len();
            let row_len = shape.last().copied().unwrap_or(1);
            if row_len % block_len != 0 {
                return Err(Error::PartialBlock {
                    op,
                    row_len,
                    block_len,
                });
            }
            let elements = crate::tensor::shape::layout::checked_len(shape, op)?;
            let bytes = (elements / block_len)
                .checked_mul(self.ggml_type.block_bytes())
                .ok_or(Error::ShapeOverflow { op })?;
            if !self.offset.is_multiple_of(alignment as u64) {
                return Err(Error::GgufMisalignedTensor {
                    offset: self.offset,
                    alignment,
                });
            }
            let range = usize::try_from(self.offset)
                .ok()
                .and_then(|start| Some(start..start.checked_add(bytes)?));
            match range.and_then(|range| data.get(range)) {
                Some(slice) => Ok(slice),
                None => Err(Error::GgufTensorOutOfBounds {
                    offset: self.offset,
                    bytes: bytes as u64,
                    data_len: data.len(),
                }),
            }
        };
        self.data = locate().map_err(|error| error.in_tensor(self.name))?;
        Ok(())
    }
}
