//! Chapter 000's learner program: shared views and explicit copies.
//!
//! Run with `cargo run --example views_tour`. It follows the chapter: one
//! frozen `[2, 3]` owner, the two `[3, 2]` results that look alike
//! (reshape and transpose), a permute, an inner-axis slice, the one explicit
//! copy (`materialize`) with its provenance, the eager `copying_transpose`,
//! a scalar, an empty tensor and every rejected request. Each step prints
//! shape, strides, base offset, logical storage offsets and nested values;
//! the end prints the chapter's comparison table. The program checks the
//! chapter's numbers as it goes and fails if one of them is not what it
//! says.

use llm_from_scratch::prelude::*;
use std::error::Error;
use std::fmt::Debug;

type Outcome = Result<(), Box<dyn Error>>;

fn main() -> Outcome {
    let mut trace = LayoutTrace::new();

    // ------------------------------------------------------------------
    heading("1. The frozen owner");
    // A Tensor owns its values, row-major: strides are suffix products of the shape.
    let tensor = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    let view = tensor.view(); // borrows the owner; copies only shape and strides
    describe("tensor.view()", &view);
    println!("storage = {:?}", tensor.as_slice());
    expect("owner offsets", offsets(&view), vec![0, 1, 2, 3, 4, 5])?;
    trace.owner("base", &tensor);

    // ------------------------------------------------------------------
    heading("2. Predict two [3, 2] tensors: reshape vs transpose");
    // Reshape keeps the logical row-major order and derives fresh strides.
    let reshaped = view.reshape([3, 2])?;
    describe("view.reshape([3, 2])", &reshaped);
    expect("reshape strides", reshaped.strides().to_vec(), vec![2, 1])?;
    expect(
        "reshape offsets",
        offsets(&reshaped),
        vec![0, 1, 2, 3, 4, 5],
    )?;

    // Transpose reorders the axes (and their strides) together: a new reading order.
    let transposed = view.transpose(0, 1)?;
    describe("view.transpose(0, 1)", &transposed);
    expect(
        "transpose strides",
        transposed.strides().to_vec(),
        vec![1, 3],
    )?;
    expect(
        "transpose offsets",
        offsets(&transposed),
        vec![0, 3, 1, 4, 2, 5],
    )?;

    // Same storage, different coordinates: [2, 1] of the transpose is [1, 2] of the owner.
    let (t_offset, s_offset) = (
        transposed.storage_offset([2, 1])?,
        view.storage_offset([1, 2])?,
    );
    println!(
        "transposed [2, 1] -> offset {t_offset} -> {}; source [1, 2] -> offset {s_offset} -> {}",
        transposed.get([2, 1])?,
        view.get([1, 2])?
    );
    expect("both select offset 5", (t_offset, s_offset), (5, 5))?;
    expect("the same stored 22", *transposed.get([2, 1])?, 22.0)?;
    trace.view("reshape [3, 2]", &reshaped);
    trace.view("transpose(0, 1)", &transposed);

    // ------------------------------------------------------------------
    heading("3. permute([2, 0, 1]) of a [2, 3, 4] owner");
    // Output axis k takes the extent and stride of source axis axes[k].
    let cube = Tensor::from_fn([2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as f64)?;
    let permuted = cube.view().permute([2, 0, 1])?;
    println!(
        "source:  shape {:?}, strides {:?}",
        cube.shape(),
        cube.strides()
    );
    println!(
        "permute: shape {:?}, strides {:?}",
        permuted.shape(),
        permuted.strides()
    );
    expect("permuted shape", permuted.shape().to_vec(), vec![4, 2, 3])?;
    expect(
        "permuted strides",
        permuted.strides().to_vec(),
        vec![1, 12, 4],
    )?;

    // ------------------------------------------------------------------
    heading("4. slice(1, 1..3): keep columns 1 and 2");
    // Unit-step slicing keeps the strides and moves the base offset by start * stride.
    let slice = view.slice(1, 1..3)?;
    describe("view.slice(1, 1..3)", &slice);
    expect("slice base offset", slice.base_offset(), 1)?;
    expect("slice offsets", offsets(&slice), vec![1, 2, 4, 5])?;
    println!("offset 3 is skipped, so the slice is not row-major contiguous.");
    trace.view("slice(1, 1..3)", &slice);

    // ------------------------------------------------------------------
    heading("5. materialize: the one explicit copy");
    // A new owner in the view's logical order; the original owner is untouched.
    let materialized = slice.materialize()?;
    describe("slice.materialize()", &materialized.view());
    expect(
        "materialized values",
        materialized.as_slice().to_vec(),
        vec![11.0, 12.0, 21.0, 22.0],
    )?;
    expect(
        "materialized strides",
        materialized.strides().to_vec(),
        vec![2, 1],
    )?;
    println!("\nprovenance: where each copied value came from");
    println!("  source offset (base) -> new offset (materialize) : value");
    for (source, target) in slice.offsets().zip(materialized.view().offsets()) {
        println!(
            "  {source:>20} -> {target:<25} : {}",
            materialized.as_slice()[target]
        );
    }
    // Now the slice's values are contiguous, so the two-step reshape works.
    let flat = materialized.view().reshape([4])?;
    println!("materialize, then reshape([4]): {flat}");
    expect(
        "the owner is untouched",
        tensor.as_slice().to_vec(),
        vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0],
    )?;
    trace.owner("materialize", &materialized);

    // ------------------------------------------------------------------
    heading("6. copying_transpose: the eager K-transpose");
    // Allocates and copies every value, where the borrowed transpose copied none.
    let copied = copying_transpose(&tensor)?;
    println!("copying_transpose(&tensor) =\n{copied}");
    println!(
        "storage = {:?}, strides {:?}",
        copied.as_slice(),
        copied.strides()
    );
    expect(
        "copied values",
        copied.as_slice().to_vec(),
        vec![10.0, 20.0, 11.0, 21.0, 12.0, 22.0],
    )?;
    println!(
        "the borrowed transpose reads the same order through strides {:?}, offsets {:?}",
        transposed.strides(),
        offsets(&transposed)
    );
    trace.owner("copying_transpose", &copied);

    // ------------------------------------------------------------------
    heading("7. Edge shapes: a scalar and an empty tensor");
    // Shape [] has an empty product: one value, an empty permutation.
    let scalar = Tensor::from_vec([], vec![7.0])?;
    let scalar_view = scalar.view().permute([])?;
    describe("scalar.view().permute([])", &scalar_view);
    expect("scalar offsets", offsets(&scalar_view), vec![0])?;
    // Any zero extent gives zero values; an empty view is contiguous and yields no offsets.
    let empty: Tensor<3> = Tensor::from_vec([2, 0, 3], vec![])?;
    describe("empty.view()", &empty.view());
    expect("empty strides", empty.strides().to_vec(), vec![0, 3, 1])?;
    let empty_copy = empty.view().transpose(0, 2)?.materialize()?;
    println!("an empty materialize holds {} values", empty_copy.len());
    trace.owner("scalar", &scalar);
    trace.owner("empty [2, 0, 3]", &empty);

    // ------------------------------------------------------------------
    heading("8. Rejected requests");
    // Each request fails before any view exists, with a typed error naming the problem.
    reject(&mut trace, "reshape [4, 2]", view.reshape([4, 2]))?;
    reject(
        &mut trace,
        "transpose.reshape [2, 3]",
        transposed.reshape([2, 3]),
    )?;
    reject(&mut trace, "slice(1, 1..4)", view.slice(1, 1..4))?;
    reject(&mut trace, "slice.reshape [4]", slice.reshape([4]))?;
    reject(&mut trace, "permute([0, 0])", view.permute([0, 0]))?;
    reject(&mut trace, "transpose(0, 2)", view.transpose(0, 2))?;
    // 3 * 7 * 29 * 36760123 * 823996703 = 2^64 + 5: a wrapping product would say 5.
    let five = Tensor::from_vec([5], vec![1.0, 2.0, 3.0, 4.0, 5.0])?;
    reject(
        &mut trace,
        "reshape 5 values to 2^64 + 5",
        five.view().reshape([3, 7, 29, 36_760_123, 823_996_703]),
    )?;

    // ------------------------------------------------------------------
    heading("9. The comparison table");
    // Shared rows name the owner they borrow; copies name their new owner.
    print!("{trace}");
    Ok(())
}

fn heading(title: &str) {
    println!("\n== {title} ==");
}

fn offsets<const R: usize>(view: &View<'_, R>) -> Vec<usize> {
    view.offsets().collect()
}

/// Prints the layout record and the nested values of one view.
fn describe<const R: usize>(label: &str, view: &View<'_, R>) {
    println!("{label}:");
    println!(
        "  shape {:?}, strides {:?}, base offset {}, contiguous {}",
        view.shape(),
        view.strides(),
        view.base_offset(),
        if view.is_contiguous() { "Yes" } else { "No" }
    );
    println!("  logical offsets {:?}", offsets(view));
    println!("  values");
    for line in view.to_string().lines() {
        if line.is_empty() {
            println!();
        } else {
            println!("    {line}");
        }
    }
}

/// Fails the program when a number differs from the chapter's.
fn expect<T: PartialEq + Debug>(what: &str, actual: T, chapter: T) -> Outcome {
    if actual == chapter {
        Ok(())
    } else {
        Err(format!("{what}: got {actual:?}, the chapter says {chapter:?}").into())
    }
}

/// Prints a rejected request and adds it to the table; an accepted one is a bug.
fn reject<V: Debug>(
    trace: &mut LayoutTrace,
    label: &str,
    result: Result<V, TensorViewError>,
) -> Outcome {
    match result {
        Err(error) => {
            println!("{label:<30} {error:?}");
            println!("{:<30} \"{error}\"", "");
            trace.rejected(label, &error);
            Ok(())
        }
        Ok(view) => Err(format!("{label} should be rejected, got {view:?}").into()),
    }
}
