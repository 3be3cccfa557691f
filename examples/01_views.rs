//! # 01 · Views: one owner, many layouts, one explicit copy
//!
//! `cargo run --example 01_views`
//!
//! A `Tensor` owns its values in row-major order (NumPy's C order); a `View`
//! borrows them and reads them through a shape, strides and a base offset.
//! `reshape`, `transpose`, `permute` and `slice` make new views without
//! copying a value; `materialize` is the one explicit copy (PyTorch's
//! `.contiguous()`). Each step prints the layout, the storage offsets it
//! reads and the values, and checks the numbers it states: the program
//! fails if one of them is not what the text says.

#[path = "common/show.rs"]
mod show;

use llm_from_scratch::prelude::*;
use show::layout;
use std::error::Error;
use std::fmt::Debug;

type Outcome = Result<(), Box<dyn Error>>;

fn main() -> Outcome {
    let mut trace = LayoutTrace::new();

    heading("1. An owner: strides are suffix products of the shape");
    let tensor = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    let view = tensor.view(); // borrows the values; copies only shape and strides
    layout("tensor.view()", &view);
    expect("row-major strides", view.strides(), &[3, 1])?;
    trace.owner("tensor", &tensor);

    heading("2. Two [3, 2] results that look alike: reshape and transpose");
    // Reshape keeps the row-major reading order and derives fresh strides.
    let reshaped = view.reshape([3, 2])?;
    layout("view.reshape([3, 2])", &reshaped);
    expect(
        "reshape offsets",
        offsets(&reshaped),
        vec![0, 1, 2, 3, 4, 5],
    )?;
    // Transpose swaps two axes together with their strides: a new reading order.
    let transposed = view.transpose(0, 1)?;
    layout("view.transpose(0, 1)", &transposed);
    expect(
        "transpose offsets",
        offsets(&transposed),
        vec![0, 3, 1, 4, 2, 5],
    )?;
    // Same storage, other coordinates: [2, 1] of the transpose is [1, 2] of the owner.
    let pair = (
        transposed.storage_offset([2, 1])?,
        view.storage_offset([1, 2])?,
    );
    println!("\ntransposed[2, 1] and view[1, 2] both read storage offset {pair:?}");
    expect("one stored value, two coordinates", pair, (5, 5))?;
    trace.view("reshape([3, 2])", &reshaped);
    trace.view("transpose(0, 1)", &transposed);

    heading("3. permute([2, 0, 1]): output axis k is source axis axes[k]");
    let cube = Tensor::from_fn([2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as f64)?;
    let permuted = cube.view().permute([2, 0, 1])?;
    println!(
        "source  shape {:?} strides {:?}",
        cube.shape(),
        cube.strides()
    );
    println!(
        "permute shape {:?} strides {:?}",
        permuted.shape(),
        permuted.strides()
    );
    expect("permuted strides", permuted.strides(), &[1, 12, 4])?;

    heading("4. slice(1, 1..3): same strides, base offset moved by 1 · stride");
    let slice = view.slice(1, 1..3)?;
    layout("view.slice(1, 1..3)", &slice);
    expect("slice offsets", offsets(&slice), vec![1, 2, 4, 5])?;
    println!("offset 3 is skipped, so the slice is not row-major contiguous");
    trace.view("slice(1, 1..3)", &slice);

    heading("5. materialize: the one explicit copy, in logical order");
    let copy = slice.materialize()?;
    layout("slice.materialize()", &copy.view());
    println!("where each copied value came from (source offset -> new offset):");
    for (source, target) in slice.offsets().zip(copy.view().offsets()) {
        println!("  {source} -> {target} : {}", copy.as_slice()[target]);
    }
    // The copy is contiguous, so the reshape that the slice refused now works.
    println!("copy.reshape([4]) = {}", copy.view().reshape([4])?);
    expect(
        "the owner is untouched",
        tensor.as_slice(),
        &[10.0, 11.0, 12.0, 20.0, 21.0, 22.0][..],
    )?;
    trace.owner("slice.materialize()", &copy);

    heading("6. copying_transpose: an eager transpose writes every value again");
    let copied = copying_transpose(&tensor)?;
    println!("copying_transpose(&tensor) =\n{copied}");
    println!(
        "storage {:?}: the borrowed transpose reads this order with no copy",
        copied.as_slice()
    );
    expect(
        "eager order",
        copied.as_slice(),
        &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0][..],
    )?;
    trace.owner("copying_transpose", &copied);

    heading("7. Edge shapes: a scalar and an empty tensor");
    // Shape [] (NumPy's 0-d array): the empty product is one value.
    let scalar = Tensor::from_vec([], vec![7.0])?;
    layout("scalar.view().permute([])", &scalar.view().permute([])?);
    // A zero extent means zero values; the view is still well formed.
    let empty: Tensor<3> = Tensor::from_vec([2, 0, 3], vec![])?;
    layout("empty.view()", &empty.view());
    expect("empty strides", empty.strides(), &[0, 3, 1])?;
    let empty_copy = empty.view().transpose(0, 2)?.materialize()?;
    println!(
        "materializing an empty view copies {} values",
        empty_copy.len()
    );
    trace.owner("scalar", &scalar);
    trace.owner("empty [2, 0, 3]", &empty);

    heading("8. Rejected requests: a typed error before any view exists");
    reject(&mut trace, "reshape([4, 2])", view.reshape([4, 2]))?;
    // Reshape never copies (like PyTorch's `view`): a non-contiguous view is refused.
    reject(
        &mut trace,
        "transpose.reshape([2, 3])",
        transposed.reshape([2, 3]),
    )?;
    reject(&mut trace, "slice(1, 1..4)", view.slice(1, 1..4))?;
    reject(&mut trace, "slice.reshape([4])", slice.reshape([4]))?;
    reject(&mut trace, "permute([0, 0])", view.permute([0, 0]))?;
    reject(&mut trace, "transpose(0, 2)", view.transpose(0, 2))?;
    // 3 · 7 · 29 · 36760123 · 823996703 = 2^64 + 5: a wrapping product would say 5.
    let five = Tensor::from_vec([5], vec![1.0, 2.0, 3.0, 4.0, 5.0])?;
    let huge = five.view().reshape([3, 7, 29, 36_760_123, 823_996_703]);
    reject(&mut trace, "reshape 5 values to 2^64 + 5", huge)?;

    heading("9. Every layout above in one table");
    // Views name the owner they share; copies name their new owner.
    print!("{trace}");
    Ok(())
}

fn heading(title: &str) {
    println!("\n== {title} ==");
}

fn offsets<const R: usize>(view: &View<'_, R>) -> Vec<usize> {
    view.offsets().collect()
}

/// Fails the program when a number differs from the one the text states.
fn expect<T: PartialEq + Debug>(what: &str, actual: T, stated: T) -> Outcome {
    if actual == stated {
        Ok(())
    } else {
        Err(format!("{what}: got {actual:?}, expected {stated:?}").into())
    }
}

/// Prints a refused request and adds it to the table; an accepted one is a bug.
fn reject<V: Debug>(
    trace: &mut LayoutTrace,
    label: &str,
    result: Result<V, llm_from_scratch::Error>,
) -> Outcome {
    match result {
        Err(error) => {
            println!("{label:<30} {error:?}\n{:<30} \"{error}\"", "");
            trace.rejected(label, &error);
            Ok(())
        }
        Ok(view) => Err(format!("{label} should be refused, got {view:?}").into()),
    }
}
