//! Printing: nested values like NumPy's `print`, and the layout trace table
//! of seed 000 (shape, strides, base offset, logical offsets, contiguity,
//! shared owner or new owner).

use super::dynamic::{DynTensor, DynView};
use super::layout;
use super::storage::Tensor;
use super::view::View;
use std::fmt::{self, Display, Formatter, Write as _};

/// Above this many values, print only `EDGE` items at each end of every axis (NumPy's default).
const SUMMARY_THRESHOLD: usize = 1000;
const EDGE: usize = 3;

/// Writes values in nested brackets, row-major; `value(i)` is the `i`-th value in logical order.
fn nested<T: Display>(
    f: &mut Formatter<'_>,
    shape: &[usize],
    value: &dyn Fn(usize) -> T,
) -> fmt::Result {
    let len: usize = shape.iter().product();
    let summarize = len > SUMMARY_THRESHOLD;
    write_axis(f, shape, 0, 0, len, summarize, value)
}

fn write_axis<T: Display>(
    f: &mut Formatter<'_>,
    shape: &[usize],
    depth: usize,
    start: usize,
    block: usize,
    summarize: bool,
    value: &dyn Fn(usize) -> T,
) -> fmt::Result {
    if depth == shape.len() {
        return write!(f, "{}", value(start));
    }
    let extent = shape[depth];
    let step = block.checked_div(extent).unwrap_or(0);
    let separator = if depth + 1 == shape.len() {
        ", ".to_string()
    } else {
        format!(
            ",{}{}",
            "\n".repeat(shape.len() - depth - 1),
            " ".repeat(depth + 1)
        )
    };
    f.write_char('[')?;
    let mut first = true;
    for i in 0..extent {
        if summarize && extent > 2 * EDGE && i == EDGE {
            f.write_str(&separator)?;
            f.write_str("...")?;
        }
        if summarize && extent > 2 * EDGE && (EDGE..extent - EDGE).contains(&i) {
            continue;
        }
        if !first {
            f.write_str(&separator)?;
        }
        first = false;
        write_axis(
            f,
            shape,
            depth + 1,
            start + i * step,
            step,
            summarize,
            value,
        )?;
    }
    f.write_char(']')
}

/// Nested values in brackets, like NumPy: `[[10, 11, 12],\n [20, 21, 22]]`;
/// a scalar prints as its value. Large tensors are summarized with `...`.
impl<const R: usize, T: Display> Display for Tensor<R, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        nested(f, self.shape(), &|i| &self.as_slice()[i])
    }
}

/// The view's logical values, nested as for [`Tensor`].
impl<const R: usize, T: Display> Display for View<'_, R, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let data = self.storage();
        let offsets: Vec<usize> = self.offsets().collect();
        nested(f, self.shape(), &|i| &data[offsets[i]])
    }
}

impl<T: Display> Display for DynTensor<T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        nested(f, self.shape(), &|i| &self.as_slice()[i])
    }
}

impl<T: Display> Display for DynView<'_, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let data = self.storage();
        let offsets: Vec<usize> = self.offsets().collect();
        nested(f, self.shape(), &|i| &data[offsets[i]])
    }
}

/// How many logical offsets a trace row lists before eliding the rest.
const TRACE_OFFSETS: usize = 8;

/// One row of a [`LayoutTrace`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRow {
    /// The request that produced this layout (e.g. `"reshape [3, 2]"`).
    pub label: String,
    /// Shape, or empty for a rejected request.
    pub shape: Vec<usize>,
    /// Strides in elements.
    pub strides: Vec<usize>,
    /// Base offset into the owner's storage.
    pub base_offset: usize,
    /// The first logical storage offsets (up to 8) and the total count.
    pub offsets: (Vec<usize>, usize),
    /// Row-major contiguous from the base offset.
    pub contiguous: bool,
    /// `"shares base"`, `"new owner m"`, or the rejection message.
    pub storage: String,
    /// Whether the request was rejected (then only `label` and `storage` are meaningful).
    pub rejected: bool,
}

/// The seed's comparison table: one row per view or owner, telling whether
/// its values live in an existing owner's storage or in a new one.
///
/// Owners are recognised by their storage address, so a row can only say
/// "shares" when the view really borrows that owner.
///
/// ```
/// use llm_from_scratch::tensor::{LayoutTrace, Tensor};
/// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// let mut trace = LayoutTrace::new();
/// trace.owner("base", &owner);
/// let t = owner.view().transpose(0, 1)?;
/// trace.view("transpose(0, 1)", &t);
/// let m = t.materialize()?;
/// trace.owner("materialize", &m);
/// let table = trace.to_string();
/// assert!(table.contains("[0, 3, 1, 4, 2, 5]"));
/// assert!(table.contains("shares base"));
/// assert!(table.contains("new owner materialize"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LayoutTrace {
    owners: Vec<(usize, usize, String)>,
    rows: Vec<TraceRow>,
}

impl LayoutTrace {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The rows so far.
    pub fn rows(&self) -> &[TraceRow] {
        &self.rows
    }

    /// Adds a row for an owner; the first row naming a storage is "new owner `label`".
    pub fn owner<const R: usize, T>(&mut self, label: &str, tensor: &Tensor<R, T>) -> &mut Self {
        self.push(
            label,
            tensor.as_slice(),
            tensor.shape(),
            tensor.strides(),
            0,
            tensor.len(),
        )
    }

    /// Adds a row for a view: "shares `owner`" when it borrows a storage seen before.
    pub fn view<const R: usize, T>(&mut self, label: &str, view: &View<'_, R, T>) -> &mut Self {
        self.push(
            label,
            view.storage(),
            view.shape(),
            view.strides(),
            view.base_offset(),
            view.len(),
        )
    }

    /// Adds a row for a dynamic view.
    pub fn dyn_view<T>(&mut self, label: &str, view: &DynView<'_, T>) -> &mut Self {
        self.push(
            label,
            view.storage(),
            view.shape(),
            view.strides(),
            view.base_offset(),
            view.len(),
        )
    }

    /// Adds a row for an owner whose rank is known only at run time.
    pub fn dyn_owner<T>(&mut self, label: &str, tensor: &DynTensor<T>) -> &mut Self {
        self.push(
            label,
            tensor.as_slice(),
            tensor.shape(),
            tensor.strides(),
            0,
            tensor.len(),
        )
    }

    /// Adds a row for a rejected request, with the error's message.
    pub fn rejected(&mut self, label: &str, error: &dyn Display) -> &mut Self {
        self.rows.push(TraceRow {
            label: label.to_string(),
            shape: Vec::new(),
            strides: Vec::new(),
            base_offset: 0,
            offsets: (Vec::new(), 0),
            contiguous: false,
            storage: format!("rejected: {error}"),
            rejected: true,
        });
        self
    }

    fn push<T>(
        &mut self,
        label: &str,
        storage: &[T],
        shape: &[usize],
        strides: &[usize],
        base_offset: usize,
        len: usize,
    ) -> &mut Self {
        let address = (storage.as_ptr() as usize, storage.len());
        let known = self
            .owners
            .iter()
            .find(|(a, l, _)| (*a, *l) == address && *l > 0)
            .map(|(_, _, name)| name.clone());
        let storage = match known {
            Some(name) => format!("shares {name}"),
            None => {
                self.owners.push((address.0, address.1, label.to_string()));
                format!("new owner {label}")
            }
        };
        let offsets =
            super::kernels::offsets::StridedOffsets::new(shape, strides, base_offset, len);
        self.rows.push(TraceRow {
            label: label.to_string(),
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            base_offset,
            offsets: (offsets.take(TRACE_OFFSETS).collect(), len),
            contiguous: layout::is_contiguous(shape, strides),
            storage,
            rejected: false,
        });
        self
    }
}

fn list(values: &[usize]) -> String {
    let items: Vec<String> = values.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// An aligned text table, one row per entry, for a terminal.
impl Display for LayoutTrace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let header = [
            "request",
            "shape",
            "strides",
            "base",
            "logical offsets",
            "contiguous",
            "storage",
        ];
        let cells: Vec<[String; 7]> = self
            .rows
            .iter()
            .map(|row| {
                if row.rejected {
                    let dash = || "-".to_string();
                    return [
                        row.label.clone(),
                        dash(),
                        dash(),
                        dash(),
                        dash(),
                        dash(),
                        row.storage.clone(),
                    ];
                }
                let (first, total) = &row.offsets;
                let mut offsets = list(first);
                if *total > first.len() {
                    offsets.pop();
                    offsets.push_str(&format!(", … ({total})]"));
                }
                [
                    row.label.clone(),
                    list(&row.shape),
                    list(&row.strides),
                    row.base_offset.to_string(),
                    offsets,
                    if row.contiguous { "Yes" } else { "No" }.to_string(),
                    row.storage.clone(),
                ]
            })
            .collect();
        let mut widths = header.map(|h| h.chars().count());
        for row in &cells {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let line = |f: &mut Formatter<'_>, row: &[String]| -> fmt::Result {
            let padded: Vec<String> = row
                .iter()
                .zip(widths)
                .enumerate()
                .map(|(i, (cell, width))| {
                    let pad = width - cell.chars().count();
                    if i + 1 == row.len() {
                        cell.clone()
                    } else {
                        format!("{cell}{}", " ".repeat(pad))
                    }
                })
                .collect();
            writeln!(f, "{}", padded.join(" | ").trim_end())
        };
        line(f, &header.map(String::from))?;
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        writeln!(f, "{}", rule.join("-+-"))?;
        for row in &cells {
            line(f, row)?;
        }
        Ok(())
    }
}
