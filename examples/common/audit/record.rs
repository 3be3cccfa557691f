//! What a pipeline reports while it runs: every view it creates, every new
//! owner and why it exists, every request the library refused.

use llm_from_scratch::prelude::*;
use std::fmt::Arguments;

/// Why a new owner exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// Input data (a packed projection, position indices).
    Input,
    /// An announced copy: `materialize` of a view whose strides cannot
    /// express the layout asked for (`reshape` / `merge_axes` refused it).
    Copy,
    /// New values computed by `map_unary` / `map_binary` / a reduction /
    /// `matmul`, kept.
    Computed,
    /// Computed values dropped inside the step that made them.
    Temporary,
}

/// Receives every layout a pipeline creates, in order.
///
/// Labels are `format_args!` so that recording costs no allocation between
/// two operations (a heap probe in the recorder sees only the operation's own).
pub trait Recorder {
    /// A new step starts.
    fn step(&mut self, title: Arguments<'_>);
    /// A view was created (no copy expected).
    fn view<const R: usize, T>(&mut self, label: Arguments<'_>, view: &View<'_, R, T>);
    /// A new owner was created, for the reason `made`.
    fn owner<const R: usize, T>(&mut self, label: Arguments<'_>, made: Made, tensor: &Tensor<R, T>);
    /// A request was refused with `error`.
    fn rejected(&mut self, label: Arguments<'_>, error: &Error);
}

/// Records nothing: for callers that want only the values.
impl Recorder for () {
    fn step(&mut self, _: Arguments<'_>) {}
    fn view<const R: usize, T>(&mut self, _: Arguments<'_>, _: &View<'_, R, T>) {}
    fn owner<const R: usize, T>(&mut self, _: Arguments<'_>, _: Made, _: &Tensor<R, T>) {}
    fn rejected(&mut self, _: Arguments<'_>, _: &Error) {}
}
