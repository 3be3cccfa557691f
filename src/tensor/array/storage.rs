//! The storage parameter `S` of [`ArrayBase<S, D>`](super::base::ArrayBase),
//! and what each kind of storage allows.
//!
//! | storage | [`Readable`] (operand, `&[T]`) | [`Borrowed`] (transforms) | [`Writable`] (writes) |
//! |---|---|---|---|
//! | `Vec<T>` (owner) | yes | no: an owner stays row-major | through `view_mut()` |
//! | `&'a [T]` (view) | yes | yes, pieces are views | no |
//! | `&'a mut [T]` (mutable view) | yes | yes, pieces are [`Cells`] | yes |
//! | [`Cells<'a, T>`] (piece) | no | yes, pieces are `Cells` | yes |
//!
//! The traits are sealed: these four are the storages the crate's
//! invariants are proved for.

use std::cell::Cell;

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for Vec<T> {}
    impl<T> Sealed for &[T] {}
    impl<T> Sealed for &mut [T] {}
    impl<T> Sealed for super::Cells<'_, T> {}
}

/// The storage of a mutable view split into pieces that are alive at once
/// (see [`CellView`](super::base::CellView)): the owner's values as
/// `&'a [Cell<T>]` (`Cell::from_mut(..).as_slice_of_cells()`), so pieces
/// that interleave in memory can coexist in safe Rust. A read or write is a
/// plain load or store; `Cells` is not `Sync`.
pub struct Cells<'a, T>(pub(crate) &'a [Cell<T>]);

impl<T> std::fmt::Debug for Cells<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cells({} values)", self.0.len())
    }
}

impl<T> Clone for Cells<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Cells<'_, T> {}

/// Any storage of an array: the element type it holds. Sealed.
pub trait Storage: sealed::Sealed {
    /// The element type.
    type Elem;
    /// The alias of a ranked array with this storage (`"Tensor"`, `"View"`,
    /// `"ViewMut"`, `"CellView"`), as `Debug` prints it.
    const KIND: &'static str;
}

impl<T> Storage for Vec<T> {
    type Elem = T;
    const KIND: &'static str = "Tensor";
}
impl<T> Storage for &[T] {
    type Elem = T;
    const KIND: &'static str = "View";
}
impl<T> Storage for &mut [T] {
    type Elem = T;
    const KIND: &'static str = "ViewMut";
}
impl<T> Storage for Cells<'_, T> {
    type Elem = T;
    const KIND: &'static str = "CellView";
}

/// Storage whose values are readable as one slice `&[T]`: owners, views and
/// exclusive mutable views. Exactly these arrays are operands of the
/// operations ([`AsArray`](super::borrow::AsArray)).
pub trait Readable: Storage {
    /// Every stored value (the whole borrowed storage, not only the viewed part).
    #[doc(hidden)]
    fn values(&self) -> &[Self::Elem];
}

impl<T> Readable for Vec<T> {
    #[inline]
    fn values(&self) -> &[T] {
        self
    }
}
impl<T> Readable for &[T] {
    #[inline]
    fn values(&self) -> &[T] {
        self
    }
}
impl<T> Readable for &mut [T] {
    #[inline]
    fn values(&self) -> &[T] {
        self
    }
}

/// Borrowed storage, which the zero-copy transforms move into their result
/// (`transpose(self, ..)`): views, mutable views and their pieces.
pub trait Borrowed: Storage + Sized {
    /// The storage of pieces that are alive together (`split_at`, `chunk`,
    /// `axis_iter`): the view itself for `&[T]`, [`Cells`] for the mutable kinds.
    type Piece: Borrowed<Elem = Self::Elem, Piece = Self::Piece> + Copy;
    /// The number of stored values (the whole borrowed storage).
    #[doc(hidden)]
    fn stored(&self) -> usize;
    /// This storage shared by any number of pieces.
    #[doc(hidden)]
    fn into_piece(self) -> Self::Piece;
}

impl<'a, T> Borrowed for &'a [T] {
    type Piece = &'a [T];
    #[inline]
    fn stored(&self) -> usize {
        self.len()
    }
    #[inline]
    fn into_piece(self) -> &'a [T] {
        self
    }
}

impl<'a, T> Borrowed for &'a mut [T] {
    type Piece = Cells<'a, T>;
    #[inline]
    fn stored(&self) -> usize {
        self.len()
    }
    #[inline]
    fn into_piece(self) -> Cells<'a, T> {
        Cells(Cell::from_mut(self).as_slice_of_cells())
    }
}

impl<'a, T> Borrowed for Cells<'a, T> {
    type Piece = Cells<'a, T>;
    #[inline]
    fn stored(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn into_piece(self) -> Cells<'a, T> {
        self
    }
}

/// Storage that can be written through any offset of its layout: mutable
/// views and their pieces.
pub trait Writable: Borrowed {
    /// The stored values as cells, for the write kernels.
    #[doc(hidden)]
    fn cells(&mut self) -> &[Cell<Self::Elem>];
    /// The value at a storage offset (a copy).
    #[doc(hidden)]
    fn load(&self, offset: usize) -> Self::Elem
    where
        Self::Elem: Copy;
}

impl<T> Writable for &mut [T] {
    #[inline]
    fn cells(&mut self) -> &[Cell<T>] {
        Cell::from_mut(&mut **self).as_slice_of_cells()
    }
    #[inline]
    fn load(&self, offset: usize) -> T
    where
        T: Copy,
    {
        self[offset]
    }
}

impl<T> Writable for Cells<'_, T> {
    #[inline]
    fn cells(&mut self) -> &[Cell<T>] {
        self.0
    }
    #[inline]
    fn load(&self, offset: usize) -> T
    where
        T: Copy,
    {
        self.0[offset].get()
    }
}
