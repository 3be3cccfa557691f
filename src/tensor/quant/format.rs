//! [`BlockFormat`]: how one ggml block of 32 values is stored, and the
//! three formats the crate computes with ([`Q8_0`], [`Q4_0`], [`Q4_1`]).
//!
//! Every format stores a row of values as consecutive blocks of
//! [`BLOCK_LEN`] = 32 values, each block an `f16` scale `d` (little-endian),
//! for `Q4_1` an `f16` offset `m`, then the quantized values. The value at
//! position `l` of a block is `d · q[l]` (`Q8_0`, `Q4_0`) or `d · q[l] + m`
//! (`Q4_1`), computed in `f32`. The layouts are ggml's (`ggml-quants.c`,
//! `block_q8_0`, `block_q4_0`, `block_q4_1`), which the GGUF format stores
//! and the Python package `gguf` (`gguf.quants`) reads the same way.

use std::fmt::Debug;

/// Values per block of every format here (ggml's `QK8_0`, `QK4_0`, `QK4_1`).
pub const BLOCK_LEN: usize = 32;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Q8_0 {}
    impl Sealed for super::Q4_0 {}
    impl Sealed for super::Q4_1 {}
}

/// A ggml block format of [`BLOCK_LEN`] values (sealed: the kernels'
/// guarantees are stated for these three).
///
/// | format | bytes per block | layout | value `l` |
/// |---|---|---|---|
/// | [`Q8_0`] | 34 | `d: f16`, `q: [i8; 32]` | `d · q[l]` |
/// | [`Q4_0`] | 18 | `d: f16`, `qs: [u8; 16]` | `d · (nibble(l) − 8)` |
/// | [`Q4_1`] | 20 | `d: f16`, `m: f16`, `qs: [u8; 16]` | `d · nibble(l) + m` |
///
/// In the 4-bit formats byte `j` of `qs` holds value `j` in its low nibble
/// and value `j + 16` in its high nibble.
///
/// ```
/// use llm_from_scratch::tensor::quant::{BlockFormat, Q4_1};
/// assert_eq!((Q4_1::NAME, Q4_1::BLOCK_BYTES), ("Q4_1", 20));
/// let mut block = [0u8; 20];
/// block[..2].copy_from_slice(&llm_from_scratch::tensor::f16::from_f32(0.5).to_le_bytes()); // d
/// block[2..4].copy_from_slice(&llm_from_scratch::tensor::f16::from_f32(-1.0).to_le_bytes()); // m
/// block[4] = 0x3_2; // value 0 has nibble 2, value 16 has nibble 3
/// let values = Q4_1::dequantize_block(&block);
/// assert_eq!((values[0], values[16], values[1]), (0.0, 0.5, -1.0));
/// ```
pub trait BlockFormat: sealed::Sealed + Copy + Debug + Default + Send + Sync + 'static {
    /// ggml's name of the format (`"Q8_0"`, ...).
    const NAME: &'static str;
    /// ggml's type id (`GGML_TYPE_Q8_0` = 8, `Q4_0` = 2, `Q4_1` = 3).
    const GGML_TYPE: u32;
    /// Bytes per block.
    const BLOCK_BYTES: usize;
    /// Whether blocks carry an offset `m` (the value is `d · q + m`).
    const HAS_MIN: bool;
    /// One stored block: `[u8; BLOCK_BYTES]` (byte arrays, so a block
    /// borrows from any byte buffer, whatever its alignment).
    type Block: Copy + Debug + Send + Sync + AsRef<[u8]> + 'static;

    /// The whole blocks at the start of `bytes`, and the bytes after them.
    fn split_blocks(bytes: &[u8]) -> (&[Self::Block], &[u8]);

    /// The block's scale `d` and offset `m` as `f32` (`m` = 0 without one).
    fn scales(block: &Self::Block) -> (f32, f32);

    /// The block's 32 quantized values `q` as `f32` (exact small integers:
    /// −128..=127 for `Q8_0`, −8..=7 for `Q4_0`, 0..=15 for `Q4_1`).
    fn quants(block: &Self::Block) -> [f32; BLOCK_LEN];

    /// The block's 32 values in `f32`: `d · q[l]`, or `d · q[l] + m` (the
    /// product is exact, so one rounding at most), equal bit for bit to
    /// `gguf.quants.dequantize` and ggml's `dequantize_row_*`.
    #[inline(always)]
    fn dequantize_block(block: &Self::Block) -> [f32; BLOCK_LEN] {
        let (d, m) = Self::scales(block);
        let q = Self::quants(block);
        if Self::HAS_MIN {
            q.map(|q| d * q + m)
        } else {
            q.map(|q| d * q)
        }
    }
}

/// How the kernels read a block's quantized values in registers: where
/// they start in the block's bytes, and how they are packed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Packing {
    /// 32 signed bytes (`Q8_0`): value `l` is byte `l`.
    Bytes,
    /// 16 bytes of two nibbles (value `j` low, `j + 16` high), minus `bias`.
    Nibbles { bias: f32 },
}

/// The offset of `F`'s quantized values in its blocks, and their packing
/// (the table of [`BlockFormat`]).
#[inline(always)]
pub(crate) const fn packing<F: BlockFormat>() -> (usize, Packing) {
    match F::GGML_TYPE {
        8 => (2, Packing::Bytes),
        2 => (2, Packing::Nibbles { bias: 8.0 }),
        // Q4_1 (type 3), the last of the sealed formats.
        _ => (4, Packing::Nibbles { bias: 0.0 }),
    }
}

/// ggml's `Q8_0`: 32 signed bytes and one `f16` scale per block (8.5 bits
/// per value). See [`BlockFormat`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Q8_0;

/// ggml's `Q4_0`: 32 nibbles (offset by 8) and one `f16` scale per block
/// (4.5 bits per value). See [`BlockFormat`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Q4_0;

/// ggml's `Q4_1`: 32 nibbles, an `f16` scale and an `f16` offset per block
/// (5 bits per value). See [`BlockFormat`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Q4_1;

/// The `f16` at `bytes[at..at + 2]`, little-endian, as `f32`.
#[inline(always)]
fn half(bytes: &[u8], at: usize) -> f32 {
    half_to_f32(u16::from_le_bytes([bytes[at], bytes[at + 1]]))
}

/// `f16` bits to `f32`, exactly as the crate `half` converts them (the
/// same bits for every input, NaN payloads included) but branch-free on
/// finite values, so that it costs a few instructions per block in the
/// kernels: the magnitude's bits shifted into an `f32`'s place are the
/// value times 2⁻¹¹² (subnormal `f16` land on subnormal `f32`), and one
/// multiplication by 2¹¹² (exact: a power of two, no overflow) restores
/// it; infinities and NaNs keep their payload with the quiet bit set, as
/// `half` (and F16C's `vcvtph2ps`) do.
#[inline(always)]
pub(crate) const fn half_to_f32(bits: u16) -> f32 {
    const TWO_POW_112: f32 = f32::from_bits((127 + 112) << 23);
    let sign = ((bits & 0x8000) as u32) << 16;
    let magnitude = (bits & 0x7FFF) as u32;
    let value = if magnitude >= 0x7C00 {
        let payload = (magnitude & 0x03FF) << 13;
        let quiet = if payload == 0 { 0 } else { 0x0040_0000 };
        0x7F80_0000 | quiet | payload
    } else {
        (f32::from_bits(magnitude << 13) * TWO_POW_112).to_bits()
    };
    f32::from_bits(value | sign)
}

/// The 32 nibbles of `qs` (value `j` low, value `j + 16` high), minus `bias`.
#[inline(always)]
fn nibbles(qs: &[u8; 16], bias: i8) -> [f32; BLOCK_LEN] {
    std::array::from_fn(|l| {
        let byte = qs[l % 16];
        let nibble = if l < 16 { byte & 0x0F } else { byte >> 4 };
        f32::from(nibble as i8 - bias)
    })
}

impl BlockFormat for Q8_0 {
    const NAME: &'static str = "Q8_0";
    const GGML_TYPE: u32 = 8;
    const BLOCK_BYTES: usize = 34;
    const HAS_MIN: bool = false;
    type Block = [u8; 34];

    #[inline(always)]
    fn split_blocks(bytes: &[u8]) -> (&[[u8; 34]], &[u8]) {
        bytes.as_chunks()
    }
    #[inline(always)]
    fn scales(block: &[u8; 34]) -> (f32, f32) {
        (half(block, 0), 0.0)
    }
    #[inline(always)]
    fn quants(block: &[u8; 34]) -> [f32; BLOCK_LEN] {
        std::array::from_fn(|l| f32::from(block[2 + l] as i8))
    }
}

impl BlockFormat for Q4_0 {
    const NAME: &'static str = "Q4_0";
    const GGML_TYPE: u32 = 2;
    const BLOCK_BYTES: usize = 18;
    const HAS_MIN: bool = false;
    type Block = [u8; 18];

    #[inline(always)]
    fn split_blocks(bytes: &[u8]) -> (&[[u8; 18]], &[u8]) {
        bytes.as_chunks()
    }
    #[inline(always)]
    fn scales(block: &[u8; 18]) -> (f32, f32) {
        (half(block, 0), 0.0)
    }
    #[inline(always)]
    fn quants(block: &[u8; 18]) -> [f32; BLOCK_LEN] {
        nibbles(block.last_chunk().unwrap_or(&[0; 16]), 8)
    }
}

impl BlockFormat for Q4_1 {
    const NAME: &'static str = "Q4_1";
    const GGML_TYPE: u32 = 3;
    const BLOCK_BYTES: usize = 20;
    const HAS_MIN: bool = true;
    type Block = [u8; 20];

    #[inline(always)]
    fn split_blocks(bytes: &[u8]) -> (&[[u8; 20]], &[u8]) {
        bytes.as_chunks()
    }
    #[inline(always)]
    fn scales(block: &[u8; 20]) -> (f32, f32) {
        (half(block, 0), half(block, 2))
    }
    #[inline(always)]
    fn quants(block: &[u8; 20]) -> [f32; BLOCK_LEN] {
        nibbles(block.last_chunk().unwrap_or(&[0; 16]), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::element::f16;

    #[test]
    fn half_to_f32_equals_the_half_crate_on_every_bit_pattern() {
        for bits in 0..=u16::MAX {
            let want = f16::from_bits(bits).to_f32_const().to_bits();
            assert_eq!(half_to_f32(bits).to_bits(), want, "{bits:#06x}");
        }
    }
}
