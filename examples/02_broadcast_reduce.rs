//! Chapter 003's learner program: align compatible shapes, reduce a named axis.
//!
//! Run with `cargo run --example broadcast_reduce`. Every step prints the
//! shapes right-aligned (NumPy's broadcasting rule lines them up from the
//! right), the output extent of every axis, and each output value together
//! with the source coordinates it was read from. It ends with every typed
//! error of the chapter.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    // ------------------------------------------------------------------
    heading("1. One feature bias over two token rows");
    let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
    println!("tokens =\n{tokens}");
    println!("bias   = {bias}");
    println!("\nPredict first: the shapes are aligned from their trailing ends.");
    align(&[("tokens", tokens.shape()), ("bias", bias.shape())]);

    // The output rank (2) is inferred from the operand ranks: no annotation.
    let biased = map_binary(&tokens.view(), &bias.view(), |value, offset| value + offset)?;
    println!("\nEach output coordinate reads one token and one bias coordinate:");
    trace_binary(("tokens", &tokens), ("bias", &bias), &biased, "+")?;
    println!("\nbiased =\n{biased}");
    println!("The bias was never copied: its leading axis is read with stride 0.");

    // ------------------------------------------------------------------
    heading("2. Three reductions over named axes");
    let sums = sum_axis(&biased.view(), 0, RemoveDim)?; // [2, 3] -> [3]
    println!(
        "sum_axis(biased, 0, RemoveDim): [2, 3] -> {:?}",
        sums.shape()
    );
    trace_reduction(("biased", &biased), 0, &sums, Fold::Sum)?;

    let means = mean_axis(&biased.view(), 1, KeepDim)?; // [2, 3] -> [2, 1]
    println!(
        "\nmean_axis(biased, 1, KeepDim): [2, 3] -> {:?} (the axis stays, extent 1)",
        means.shape()
    );
    trace_reduction(("biased", &biased), 1, &means, Fold::Mean)?;

    let maxima = max_axis(&biased.view(), 1, RemoveDim)?; // [2, 3] -> [2]
    println!(
        "\nmax_axis(biased, 1, RemoveDim): [2, 3] -> {:?}",
        maxima.shape()
    );
    trace_reduction(("biased", &biased), 1, &maxima, Fold::Max)?;

    let tenths: Tensor<1> = Tensor::from_vec([3], vec![0.1, 0.2, 0.3])?;
    let mean = mean_axis(&tenths.view(), 0, RemoveDim)?; // [3] -> [] (a scalar)
    let value = mean.as_slice()[0];
    println!(
        "\nmean_axis([0.1, 0.2, 0.3], 0, RemoveDim): [3] -> {:?} = {value:?}",
        mean.shape()
    );
    println!("  0.1, 0.2 and 0.3 are not binary fractions, so compare with a tolerance:");
    println!(
        "  |{value:?} - 0.2| < 1e-12: {}",
        (value - 0.2).abs() < 1e-12
    );

    // ------------------------------------------------------------------
    heading("3. A scalar broadcasts to any shape");
    let half = Tensor::from_vec([], vec![0.5])?;
    align(&[("tokens", tokens.shape()), ("half", half.shape())]);
    let shifted = map_binary(&tokens.view(), &half.view(), |value, s| value + s)?;
    trace_binary(("tokens", &tokens), ("half", &half), &shifted, "+")?;

    // ------------------------------------------------------------------
    heading("4. An empty broadcast calls the closure zero times");
    let empty_rows = Tensor::from_vec([0, 3], Vec::<f64>::new())?;
    align(&[("empty", empty_rows.shape()), ("bias", bias.shape())]);
    let mut closure_calls = 0;
    let empty_out = map_binary(&empty_rows.view(), &bias.view(), |value, offset| {
        closure_calls += 1;
        value + offset
    })?;
    println!(
        "result shape {:?} holds {} values; the closure ran {closure_calls} times",
        empty_out.shape(),
        empty_out.len()
    );

    // ------------------------------------------------------------------
    heading("5. Summing an empty axis gives the additive identity");
    let empty = Tensor::from_vec([2, 0, 3], Vec::<f64>::new())?;
    let empty_sum = sum_axis(&empty.view(), 1, RemoveDim)?; // [2, 0, 3] -> [2, 3]
    println!(
        "sum_axis([2, 0, 3], 1, RemoveDim) -> {:?} =\n{empty_sum}",
        empty_sum.shape()
    );
    let all_positive = empty_sum.as_slice().iter().all(|v| v.to_bits() == 0);
    println!("every value is +0.0 (sign bit clear): {all_positive}");
    let negative_zero: Tensor<1> = Tensor::from_vec([1], vec![-0.0])?;
    let summed = sum_axis(&negative_zero.view(), 0, RemoveDim)?.as_slice()[0];
    println!("sum of [-0.0] = {summed:?}: the accumulator starts at +0.0, and +0.0 + -0.0 = +0.0,");
    println!("so an empty sum and a sum of negative zeros agree on the sign.");

    // ------------------------------------------------------------------
    heading("6. Every typed error");
    let short = Tensor::from_vec([2], vec![1.0, 2.0])?;
    align(&[("tokens", tokens.shape()), ("short", short.shape())]);
    let broadcast_error = map_binary(&tokens.view(), &short.view(), |l, r| l + r).unwrap_err();
    report("map_binary(tokens [2, 3], short [2])", &broadcast_error);

    let mean_error = mean_axis(&empty.view(), 1, RemoveDim).unwrap_err();
    report("mean_axis([2, 0, 3], 1)", &mean_error);
    let max_error = max_axis(&empty.view(), 1, RemoveDim).unwrap_err();
    report("max_axis([2, 0, 3], 1)", &max_error);
    // `RemoveDim` on a rank-0 value does not even compile; `KeepDim` fails at run time.
    let scalar_error = sum_axis(&half.view(), 0, KeepDim).unwrap_err();
    report("sum_axis(scalar [], 0, KeepDim)", &scalar_error);
    let dynamic_error = dynamic::sum_axis(&half.view().into_dyn(), 0, false).unwrap_err();
    report("dynamic::sum_axis(scalar [], 0, false)", &dynamic_error);

    println!("\nThese are the pieces of a stable softmax and of layer normalization: the");
    println!("max and sum keep their axis (KeepDim) so they broadcast back over the rows.");
    Ok(())
}

fn heading(title: &str) {
    println!("\n=== {title} ===\n");
}

/// Prints shapes right-aligned, one column per output axis, then the output
/// extent of every axis and why (NumPy's trailing-axis rule).
fn align(operands: &[(&str, &[usize])]) {
    let rank = operands
        .iter()
        .map(|(_, shape)| shape.len())
        .max()
        .unwrap_or(0);
    let result = operands.iter().try_fold(Vec::new(), |acc, (_, shape)| {
        dynamic::broadcast_shape(&acc, shape)
    });
    let mut rows: Vec<(&str, &[usize])> = operands.to_vec();
    if let Ok(shape) = &result {
        rows.push(("result", shape));
    }
    // The extent of `shape` on output axis `axis`, if it has that axis.
    let extent =
        |shape: &[usize], axis: usize| (axis + shape.len()).checked_sub(rank).map(|a| shape[a]);
    let widths: Vec<usize> = (0..rank)
        .map(|axis| {
            rows.iter()
                .filter_map(|(_, s)| extent(s, axis))
                .map(|e| e.to_string().len())
                .max()
                .unwrap_or(1)
        })
        .collect();
    let label_width = rows.iter().map(|(label, _)| label.len()).max().unwrap_or(0) + 1;
    for (label, shape) in &rows {
        let mut line = format!("{:<label_width$} [", format!("{label}:"));
        let mut started = false;
        for (axis, &width) in widths.iter().enumerate() {
            let separator = if axis == 0 {
                ""
            } else if started {
                ", "
            } else {
                "  "
            };
            line.push_str(separator);
            match extent(shape, axis) {
                Some(e) => {
                    line.push_str(&format!("{e:>width$}"));
                    started = true;
                }
                None => line.push_str(&" ".repeat(width)),
            }
        }
        let note = if shape.is_empty() {
            "   (a scalar: no axes to contradict)"
        } else {
            ""
        };
        println!("{line}]{note}");
    }
    if let Err(error) = &result {
        println!("{:<label_width$} none: {error}", "result:");
    }
    for axis in 0..rank {
        let parts: Vec<String> = operands
            .iter()
            .map(|(label, shape)| match extent(shape, axis) {
                Some(e) => format!("{label} {e}"),
                None => format!("{label} 1 (missing)"),
            })
            .collect();
        let extents: Vec<usize> = operands
            .iter()
            .map(|(_, shape)| extent(shape, axis).unwrap_or(1))
            .collect();
        let others: Vec<usize> = extents.iter().copied().filter(|&e| e != 1).collect();
        let verdict = match others.first() {
            _ if extents.iter().all(|&e| e == extents[0]) => format!("-> {} (equal)", extents[0]),
            Some(&e) if others.iter().all(|&o| o == e) => format!("-> {e} (extent 1 is reused)"),
            _ => "-> incompatible: not equal and neither is 1".to_string(),
        };
        println!("  axis {axis}: {} {verdict}", parts.join(" with "));
    }
}

/// The coordinate an operand of `shape` reads for output coordinate `out`:
/// drop the missing leading axes, select 0 on an axis of extent 1.
fn source(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let skip = out.len() - shape.len();
    shape
        .iter()
        .zip(&out[skip..])
        .map(|(&extent, &i)| if extent == 1 { 0 } else { i })
        .collect()
}

/// Every coordinate of `shape` in logical row-major order.
fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for &extent in shape {
        all = all
            .into_iter()
            .flat_map(|c| (0..extent).map(move |i| [&c[..], &[i]].concat()))
            .collect();
    }
    all
}

fn index(coordinate: &[usize]) -> String {
    coordinate
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Prints `out[i] = left[..] op right[..] = a op b = value` for every output value.
fn trace_binary<const L: usize, const M: usize, const O: usize>(
    (left_name, left): (&str, &Tensor<L>),
    (right_name, right): (&str, &Tensor<M>),
    out: &Tensor<O>,
    op: &str,
) -> Result<(), Box<dyn Error>> {
    let (left, right, result) = (
        left.view().into_dyn(),
        right.view().into_dyn(),
        out.view().into_dyn(),
    );
    for c in coordinates(out.shape()) {
        let (l, r) = (source(left.shape(), &c), source(right.shape(), &c));
        println!(
            "  out[{}] = {left_name}[{}] {op} {right_name}[{}] = {} {op} {} = {}",
            index(&c),
            index(&l),
            index(&r),
            left.get(&l)?,
            right.get(&r)?,
            result.get(&c)?
        );
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Fold {
    Sum,
    Mean,
    Max,
}

/// Prints, for every output value, the group of source values it folds in ascending order.
fn trace_reduction<const R: usize, const S: usize>(
    (name, input): (&str, &Tensor<R>),
    axis: usize,
    out: &Tensor<S>,
    fold: Fold,
) -> Result<(), Box<dyn Error>> {
    let (input, result) = (input.view().into_dyn(), out.view().into_dyn());
    let mut group_shape = input.shape().to_vec();
    group_shape[axis] = 1;
    for (group, out_coordinate) in coordinates(&group_shape)
        .into_iter()
        .zip(coordinates(out.shape()))
    {
        let members: Vec<Vec<usize>> = (0..input.shape()[axis])
            .map(|i| {
                let mut c = group.clone();
                c[axis] = i;
                c
            })
            .collect();
        let names: Vec<String> = members
            .iter()
            .map(|c| format!("{name}[{}]", index(c)))
            .collect();
        let values: Vec<String> = members
            .iter()
            .map(|c| input.get(c).map(f64::to_string))
            .collect::<Result<_, _>>()?;
        let value = result.get(&out_coordinate)?;
        let n = members.len();
        let line = match fold {
            Fold::Sum => format!("{} = {}", names.join(" + "), values.join(" + ")),
            Fold::Mean => format!(
                "({}) / {n} = ({}) / {n}",
                names.join(" + "),
                values.join(" + ")
            ),
            Fold::Max => format!("max({}) = max({})", names.join(", "), values.join(", ")),
        };
        println!("  out[{}] = {line} = {value}", index(&out_coordinate));
    }
    Ok(())
}

fn report(call: &str, error: &TensorOpError) {
    println!("{call}\n  -> {error}\n     {error:?}");
}
