//! [`AlignedBytes`]: a file or buffer held 8-byte aligned, so that every
//! `f16` / `bf16` / `f32` / `f64` tensor of a safetensors file borrows.

use std::path::Path;

/// A byte buffer whose start is 8-byte aligned, so f32/f64 tensors of a
/// safetensors file (whose data offsets are multiples of 8) borrow directly.
#[derive(Debug, Clone, Default)]
pub struct AlignedBytes {
    words: Vec<u64>,
    len: usize,
}

impl AlignedBytes {
    /// Copies `bytes` into an aligned buffer.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::AlignedBytes;
    /// let buffer = AlignedBytes::from_bytes(&[1, 2, 3]);
    /// assert_eq!(buffer.as_bytes(), &[1, 2, 3]);
    /// assert_eq!(buffer.as_bytes().as_ptr() as usize % 8, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut words = vec![0_u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Self {
            words,
            len: bytes.len(),
        }
    }

    /// Reads a whole file into an aligned buffer, in one pass and one
    /// allocation of the file's size (reserved fallibly).
    ///
    /// # Errors
    /// Any I/O error of reading the file; `ErrorKind::OutOfMemory` if the
    /// buffer cannot be reserved; `ErrorKind::InvalidData` if the file grows
    /// while it is read.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::AlignedBytes;
    /// let path = std::env::temp_dir().join(format!("aligned-bytes-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, [7u8, 8, 9])?;
    /// let buffer = AlignedBytes::read(&path);
    /// std::fs::remove_file(&path)?;
    /// assert_eq!(buffer?.as_bytes(), &[7, 8, 9]);
    /// assert!(AlignedBytes::read(&path).is_err()); // the file is gone
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<Self> {
        use std::io::{Error, ErrorKind, Read};
        let mut file = std::fs::File::open(path)?;
        let len = usize::try_from(file.metadata()?.len())
            .map_err(|_| Error::new(ErrorKind::OutOfMemory, "the file is larger than memory"))?;
        // Straight into the aligned buffer, reserved fallibly: the peak is
        // the file's size, not twice it.
        let mut words: Vec<u64> = Vec::new();
        words.try_reserve_exact(len.div_ceil(8)).map_err(|_| {
            Error::new(
                ErrorKind::OutOfMemory,
                format!("could not reserve {len} bytes to read the file"),
            )
        })?;
        words.resize(len.div_ceil(8), 0);
        file.read_exact(&mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..len])?;
        if file.read(&mut [0u8])? != 0 {
            return Err(Error::new(
                ErrorKind::InvalidData,
                "the file grew while it was read",
            ));
        }
        Ok(Self { words, len })
    }

    /// The bytes.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::AlignedBytes;
    /// assert_eq!(AlignedBytes::from_bytes(b"abc").as_bytes(), b"abc");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[..self.len]
    }
}
