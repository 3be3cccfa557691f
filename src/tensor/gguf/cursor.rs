//! A bounds-checked little-endian reader over a GGUF buffer: every read
//! checks the bytes left first, every count is checked against what the
//! rest of the file could hold before anything is allocated.

use crate::error::Error;

/// A position in a GGUF buffer.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, offset: 0 }
    }

    /// The current byte offset.
    pub(super) fn offset(&self) -> usize {
        self.offset
    }

    /// The bytes left after the current offset.
    pub(super) fn remaining(&self) -> usize {
        self.bytes.len() - self.offset
    }

    /// The next `len` bytes, or [`Error::GgufTruncated`] naming `what`.
    pub(super) fn take(
        &mut self,
        len: usize,
        what: &dyn Fn() -> String,
    ) -> Result<&'a [u8], Error> {
        if len > self.remaining() {
            return Err(Error::GgufTruncated {
                what: what(),
                offset: self.offset,
                needed: len,
                available: self.remaining(),
            });
        }
        let taken = &self.bytes[self.offset..self.offset + len];
        self.offset += len;
        Ok(taken)
    }

    /// The next `N` bytes as an array.
    pub(super) fn array<const N: usize>(
        &mut self,
        what: &dyn Fn() -> String,
    ) -> Result<[u8; N], Error> {
        let bytes = self.take(N, what)?;
        let mut array = [0; N];
        array.copy_from_slice(bytes);
        Ok(array)
    }

    /// A little-endian `u32`.
    pub(super) fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32, Error> {
        self.array(what).map(u32::from_le_bytes)
    }

    /// A little-endian `u64`.
    pub(super) fn u64(&mut self, what: &dyn Fn() -> String) -> Result<u64, Error> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A count of items, each at least `min_item_bytes` long, read as a
    /// `u64` and refused ([`Error::GgufCountTooLarge`]) when the rest of the
    /// file cannot hold that many: so a count is always below the file size
    /// and can size an allocation.
    pub(super) fn count(
        &mut self,
        min_item_bytes: usize,
        what: &dyn Fn() -> String,
    ) -> Result<usize, Error> {
        let count = self.u64(what)?;
        let fits = usize::try_from(count)
            .ok()
            .and_then(|count| count.checked_mul(min_item_bytes))
            .is_some_and(|bytes| bytes <= self.remaining());
        if !fits {
            return Err(Error::GgufCountTooLarge {
                what: what(),
                count,
                min_item_bytes,
                available: self.remaining(),
            });
        }
        // `fits` proved the conversion above.
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }

    /// A GGUF string: a `u64` byte length, then that many UTF-8 bytes (a
    /// length past the end is [`Error::GgufTruncated`]).
    pub(super) fn string(&mut self, what: &dyn Fn() -> String) -> Result<&'a str, Error> {
        let len = usize::try_from(self.u64(what)?).unwrap_or(usize::MAX);
        let bytes = self.take(len, what)?;
        std::str::from_utf8(bytes).map_err(|_| Error::GgufInvalidUtf8 { what: what() })
    }
}

impl<'a> Cursor<'a> {
    /// The bytes from `start` to the current offset.
    pub(super) fn slice_from(&self, start: usize) -> &'a [u8] {
        &self.bytes[start.min(self.offset)..self.offset]
    }
}
