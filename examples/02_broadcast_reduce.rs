//! # 02 · Broadcasting and reductions: align shapes, reduce a named axis
//!
//! `cargo run --example 02_broadcast_reduce`
//!
//! NumPy's broadcasting rule lines two shapes up from their trailing axes:
//! on each axis the extents must be equal or one of them 1 (a missing
//! leading axis counts as 1), and an extent-1 axis is read again for every
//! output index (stride 0, nothing copied). Each step prints the aligned
//! shapes, the extent each output axis gets and why, and every output
//! value with the source values it came from. Then `sum_axis`, `mean_axis`
//! and `max_axis` fold one named axis, keeping it with extent 1 (`KeepDim`,
//! NumPy's `keepdims=True`) or removing it (`RemoveDim`). It ends with the
//! typed error of every refused request.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic;
use std::error::Error;

type Outcome = Result<(), Box<dyn Error>>;

fn main() -> Outcome {
    heading("1. One bias row added to two token rows");
    let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
    println!("tokens =\n{tokens}\nbias = {bias}\n");
    align(&[("tokens", tokens.shape()), ("bias", bias.shape())]);
    // Ops take tensors or views; the output rank (2) is inferred from the
    // operand ranks, no annotation needed.
    let biased = map_binary(&tokens, &bias, |t, b| t + b)?;
    println!("\nevery output value and the two values it adds:");
    trace_binary(("tokens", &tokens), ("bias", &bias), &biased)?;
    println!("the bias was never copied: its missing leading axis is read with stride 0");

    heading("2. Three reductions over named axes");
    // Each reduction is also a method: x.sum_axis(axis, KeepDim or RemoveDim).
    let sums = biased.sum_axis(0, RemoveDim)?; // [2, 3] -> [3]
    folds("biased.sum_axis(0, RemoveDim)", &biased, 0, &sums, "sum")?;
    let means = biased.mean_axis(1, KeepDim)?; // [2, 3] -> [2, 1]
    folds("biased.mean_axis(1, KeepDim)", &biased, 1, &means, "mean")?;
    let maxima = biased.max_axis(1, RemoveDim)?; // [2, 3] -> [2]
    folds("biased.max_axis(1, RemoveDim)", &biased, 1, &maxima, "max")?;
    let tenths: Tensor<1> = Tensor::from_vec([3], vec![0.1, 0.2, 0.3])?;
    let mean = tenths.mean_axis(0, RemoveDim)?.as_slice()[0]; // [3] -> []
    println!("mean of [0.1, 0.2, 0.3] = {mean:?}: these are not binary fractions,");
    println!(
        "so compare with a tolerance: |mean - 0.2| < 1e-12 is {}",
        (mean - 0.2).abs() < 1e-12
    );

    heading("3. A scalar broadcasts to any shape");
    let half = Tensor::from_vec([], vec![0.5])?;
    align(&[("tokens", tokens.shape()), ("half", half.shape())]);
    let shifted = map_binary(&tokens, &half, |t, s| t + s)?;
    println!("tokens + half =\n{shifted}");

    heading("4. Empty shapes");
    let empty_rows = Tensor::from_vec([0, 3], Vec::<f64>::new())?;
    let mut calls = 0;
    let empty = map_binary(&empty_rows, &bias, |t, b| {
        calls += 1;
        t + b
    })?;
    println!(
        "[0, 3] + [3] -> {:?}: {} values, the closure ran {calls} times",
        empty.shape(),
        empty.len()
    );
    // An empty sum is the additive identity +0.0, like NumPy's `np.sum` of nothing.
    let hollow = Tensor::from_vec([2, 0, 3], Vec::<f64>::new())?;
    let zeros = hollow.sum_axis(1, RemoveDim)?; // [2, 0, 3] -> [2, 3]
    let positive = zeros.as_slice().iter().all(|v| v.to_bits() == 0);
    println!("sum_axis([2, 0, 3], 1) =\n{zeros}\nevery value is +0.0: {positive}");

    heading("5. Every refusal is a typed error");
    let short = Tensor::from_vec([2], vec![1.0, 2.0])?;
    align(&[("tokens", tokens.shape()), ("short", short.shape())]);
    let mismatch = map_binary(&tokens, &short, |l, r| l + r);
    refused("tokens [2, 3] + short [2]", mismatch)?;
    refused("mean_axis([2, 0, 3], 1)", hollow.mean_axis(1, RemoveDim))?;
    refused("max_axis([2, 0, 3], 1)", hollow.max_axis(1, RemoveDim))?;
    // RemoveDim on a rank-0 view does not compile; KeepDim fails at run time.
    refused("scalar.sum_axis(0, KeepDim)", half.sum_axis(0, KeepDim))?;
    let dynamic_scalar = half.view().into_dyn();
    let dynamic_sum = dynamic::sum_axis(&dynamic_scalar, 0, false);
    refused("dynamic::sum_axis(scalar, 0, false)", dynamic_sum)?;
    // Next: max and sum with KeepDim broadcast back over their rows (a stable softmax, 04).
    Ok(())
}

fn heading(title: &str) {
    println!("\n=== {title} ===\n");
}

/// Prints the shapes right-aligned (missing leading axes blank), then the
/// output extent of every axis and the rule that gives it.
fn align(operands: &[(&str, &[usize])]) {
    let rank = operands.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    // The extent of `shape` on output axis `axis`; `None` for a missing leading axis.
    let extent = |s: &[usize], axis: usize| (axis + s.len()).checked_sub(rank).map(|a| s[a]);
    for (name, shape) in operands {
        let cells =
            (0..rank).map(|axis| extent(shape, axis).map_or("   ".into(), |e| format!("{e:>3}")));
        println!(
            "  {name:>7}: [{}]",
            cells.collect::<Vec<String>>().join(" ")
        );
    }
    for axis in 0..rank {
        let extents: Vec<usize> = operands
            .iter()
            .map(|(_, s)| extent(s, axis).unwrap_or(1))
            .collect();
        let largest = extents.iter().copied().max().unwrap_or(1);
        let verdict = if extents.iter().all(|&e| e == largest) {
            format!("{largest} (equal)")
        } else if extents.iter().all(|&e| e == largest || e == 1) {
            format!("{largest} (an extent 1 is read again for every index)")
        } else {
            "none: the extents differ and neither is 1".to_string()
        };
        println!("  axis {axis}: extents {extents:?} -> {verdict}");
    }
}

/// The coordinate an operand of `shape` reads for output coordinate `out`:
/// drop the missing leading axes, read index 0 on an axis of extent 1.
fn source(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let skip = out.len() - shape.len();
    let pick = |(&e, &i): (&usize, &usize)| if e == 1 { 0 } else { i };
    shape.iter().zip(&out[skip..]).map(pick).collect()
}

/// Prints `out[i, j] = left[..] + right[..] = a + b = value` for every output value.
fn trace_binary<const M: usize>(
    (left_name, left): (&str, &Tensor<2>),
    (right_name, right): (&str, &Tensor<M>),
    out: &Tensor<2>,
) -> Outcome {
    let (left, right) = (left.view().into_dyn(), right.view().into_dyn());
    let [rows, columns] = *out.shape();
    for c in (0..rows).flat_map(|i| (0..columns).map(move |j| [i, j])) {
        let (l, r) = (source(left.shape(), &c), source(right.shape(), &c));
        let (a, b, value) = (left.get(&l)?, right.get(&r)?, out.get(c)?);
        println!("  out{c:?} = {left_name}{l:?} + {right_name}{r:?} = {a} + {b} = {value}");
    }
    Ok(())
}

/// Prints the call and the shapes, then, for every output value, the values
/// it folds along `axis` of the `[2, 3]` input in ascending order; `fold` is
/// `"sum"`, `"mean"` or `"max"`. Fails if a value differs from that fold.
fn folds<const S: usize>(
    call: &str,
    input: &Tensor<2>,
    axis: usize,
    out: &Tensor<S>,
    fold: &str,
) -> Outcome {
    println!("{call}: {:?} -> {:?}", input.shape(), out.shape());
    let kept = 1 - axis; // the other axis of the rank-2 input
    for (k, &value) in out.view().iter().enumerate() {
        let mut members = Vec::new();
        for i in 0..input.shape()[axis] {
            let mut c = [0, 0];
            (c[axis], c[kept]) = (i, k);
            members.push(*input.get(c)?);
        }
        let text: Vec<String> = members.iter().map(f64::to_string).collect();
        let sum: f64 = members.iter().sum(); // ascending order, from +0.0
        let (folded, expected) = match fold {
            "sum" => (text.join(" + "), sum),
            "mean" => (
                format!("({}) / {}", text.join(" + "), text.len()),
                sum / members.len() as f64,
            ),
            _ => (
                format!("max({})", text.join(", ")),
                members.iter().copied().fold(f64::MIN, f64::max),
            ),
        };
        println!("  value {k} = {folded} = {value}");
        if value != expected {
            return Err(format!("{call}: value {k} is {value}, the fold gives {expected}").into());
        }
    }
    Ok(())
}

/// Prints a refused call with its message and its typed value; an accepted call is a bug.
fn refused<T>(call: &str, result: Result<T, llm_from_scratch::Error>) -> Outcome {
    let error = result.err().ok_or(format!("{call} should be refused"))?;
    println!("{call}\n  -> {error}\n     {error:?}");
    Ok(())
}
