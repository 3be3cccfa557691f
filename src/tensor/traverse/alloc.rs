//! The one fallible-allocation helper: every output buffer of the crate is
//! reserved here with `try_reserve_exact`, so a huge or impossible request
//! becomes a typed error at the call site instead of an abort.

/// A request for `elements` values that could not be reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AllocationFailed {
    /// The number of values asked for.
    pub(crate) elements: usize,
}

/// An empty `Vec` with room for exactly `elements` values.
pub(crate) fn try_buffer<T>(elements: usize) -> Result<Vec<T>, AllocationFailed> {
    let mut values = Vec::new();
    values
        .try_reserve_exact(elements)
        .map_err(|_| AllocationFailed { elements })?;
    Ok(values)
}

/// A `Vec` of `elements` copies of `value`, reserved with [`try_buffer`].
pub(crate) fn try_filled<T: Clone>(elements: usize, value: T) -> Result<Vec<T>, AllocationFailed> {
    let mut values = try_buffer(elements)?;
    values.resize(elements, value);
    Ok(values)
}
