//! Printing for the numbered examples: a view's layout (shape, strides,
//! base offset, contiguity), the storage offsets it reads in logical
//! row-major order, and its values nested the way NumPy prints them.
//!
//! Included by `01_views`, `03_split_heads` and `04_attention` with
//! `#[path = "common/show.rs"] mod show;` (see `examples/common/README.md`).

use llm_from_scratch::prelude::*;
use std::fmt::Display;

/// Prints `label`, then the layout, the logical storage offsets and the
/// values of `view`, each line indented under the label.
pub fn layout<const R: usize, T: Display>(label: &str, view: &View<'_, R, T>) {
    println!("\n{label}");
    println!(
        "  shape {:?}, strides {:?}, base offset {}, contiguous: {}",
        view.shape(),
        view.strides(),
        view.base_offset(),
        if view.is_contiguous() { "yes" } else { "no" }
    );
    println!(
        "  storage offsets in logical order: {:?}",
        view.offsets().collect::<Vec<_>>()
    );
    for line in view.to_string().lines() {
        match line.trim_end() {
            "" => println!(),
            line => println!("  {line}"),
        }
    }
}
