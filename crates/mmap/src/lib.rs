//! A read-only memory map of a file, for `llm_from_scratch`'s weights
//! readers (feature `mmap`): the checkpoint's bytes are the page cache's, so
//! loading costs no copy and no resident memory beyond the pages read.
//!
//! This crate exists to hold the one `unsafe` call the main crate needs
//! (`memmap2::Mmap::map`), so that `llm_from_scratch` keeps
//! `#![forbid(unsafe_code)]`.
//!
//! # The contract (why `map` is `unsafe` in memmap2)
//! A memory map reads the file as it is *now*: if another process truncates
//! or rewrites the file while it is mapped, the mapped bytes change under a
//! `&[u8]` (undefined behaviour), or a read past a truncation raises
//! `SIGBUS`. [`MappedFile::open`] therefore documents the rule instead of
//! checking it (it cannot be checked): do not modify or truncate a weights
//! file while it is mapped. Checkpoints are written once and read many
//! times, and writers such as safetensors' write a sibling file and rename
//! it over the old one, which leaves an existing mapping intact.
//!
//! ```
//! let path = std::env::temp_dir().join(format!("mapped-doc-{}.bin", std::process::id()));
//! std::fs::write(&path, [1u8, 2, 3, 4])?;
//! let mapped = llm_from_scratch_mmap::MappedFile::open(&path)?;
//! assert_eq!(mapped.bytes(), &[1, 2, 3, 4]);
//! assert_eq!(mapped.bytes().as_ptr() as usize % 4096, 0); // page aligned
//! std::fs::remove_file(&path)?; // the mapping stays valid (the inode lives on)
//! # Ok::<(), std::io::Error>(())
//! ```
#![deny(missing_docs)]

use std::fs::File;
use std::path::Path;

/// A file mapped read-only into memory. Its bytes start page aligned.
#[derive(Debug)]
pub struct MappedFile {
    map: memmap2::Mmap,
}

impl MappedFile {
    /// Maps the whole file at `path` read-only.
    ///
    /// The caller promises what memmap2 cannot check: nobody modifies or
    /// truncates the file while this mapping lives (see the crate docs).
    ///
    /// # Errors
    /// Any I/O error of opening or mapping the file.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let file = File::open(path)?;
        // SAFETY: the file is opened read-only and mapped read-only; the
        // crate's documented contract (no modification or truncation while
        // mapped) is the caller's, as for every read-only memory map.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Self { map })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}
