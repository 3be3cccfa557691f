//! Printing: nested values like NumPy's `print`, and the layout trace table
//! of the views chapter (shape, strides, base offset, logical offsets, contiguity,
//! shared owner or new owner).

use super::dynamic::{DynTensor, DynView};
use super::kernels::Strided;
use super::layout;
use super::storage::Tensor;
use super::view::View;
use std::fmt::{self, Display, Formatter, Write as _};

/// Above this many values, print only `EDGE` items at each end of every axis (NumPy's default).
const SUMMARY_THRESHOLD: usize = 1000;
const EDGE: usize = 3;

/// Writes the values of a checked layout in nested brackets, row-major.
///
/// Summarizes (NumPy's `threshold` / `edgeitems`) when the layout has more
/// than `SUMMARY_THRESHOLD` positions, counting an empty axis as one so that
/// a valid empty shape like `[usize::MAX, 0]` prints in bounded space too.
/// Reads each printed value by its offset: nothing proportional to the
/// view's length is allocated.
fn nested<T: Display>(
    f: &mut Formatter<'_>,
    data: &[T],
    shape: &[usize],
    strides: &[usize],
    base: usize,
) -> fmt::Result {
    // An empty layout is never read: its base and strides (which may be
    // anything for an empty view) must not enter the offset arithmetic.
    let zeros = vec![0; shape.len()];
    let (strides, base) = if shape.contains(&0) {
        (&zeros[..], 0)
    } else {
        (strides, base)
    };
    let positions = shape.iter().fold(1_usize, |count, &extent| {
        count.saturating_mul(extent.max(1))
    });
    let layout = Layout {
        data,
        shape,
        strides,
        summarize: positions > SUMMARY_THRESHOLD,
    };
    layout.write_axis(f, 0, base)
}

struct Layout<'a, 's, T> {
    data: &'a [T],
    shape: &'s [usize],
    strides: &'s [usize],
    summarize: bool,
}

impl<T: Display> Layout<'_, '_, T> {
    fn write_axis(&self, f: &mut Formatter<'_>, depth: usize, offset: usize) -> fmt::Result {
        if depth == self.shape.len() {
            return write!(f, "{}", self.data[offset]);
        }
        let extent = self.shape[depth];
        let inner = self.shape.len() - depth - 1;
        let separator = if inner == 0 {
            ", ".to_string()
        } else {
            format!(",{}{}", "\n".repeat(inner), " ".repeat(depth + 1))
        };
        let elide = self.summarize && extent > 2 * EDGE;
        let indices: Box<dyn Iterator<Item = usize>> = if elide {
            Box::new((0..EDGE).chain(extent - EDGE..extent))
        } else {
            Box::new(0..extent)
        };
        f.write_char('[')?;
        for (position, index) in indices.enumerate() {
            if position > 0 {
                f.write_str(&separator)?;
            }
            if elide && position == EDGE {
                f.write_str("...")?;
                f.write_str(&separator)?;
            }
            // In bounds: the layout was checked when the view was made.
            let next = offset + index * self.strides[depth];
            self.write_axis(f, depth + 1, next)?;
        }
        f.write_char(']')
    }
}

/// Nested values in brackets, like NumPy: `[[10, 11, 12],\n [20, 21, 22]]`;
/// a scalar prints as its value. Large tensors are summarized with `...`.
impl<const R: usize, T: Display> Display for Tensor<R, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        nested(f, self.as_slice(), self.shape(), self.strides(), 0)
    }
}

/// The view's logical values, nested as for [`Tensor`].
impl<const R: usize, T: Display> Display for View<'_, R, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (shape, strides) = (self.shape(), self.strides());
        nested(f, self.storage(), shape, strides, self.base_offset())
    }
}

impl<T: Display> Display for DynTensor<T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        nested(f, self.as_slice(), self.shape(), self.strides(), 0)
    }
}

impl<T: Display> Display for DynView<'_, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (shape, strides) = (self.shape(), self.strides());
        nested(f, self.storage(), shape, strides, self.base_offset())
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

/// The views chapter's comparison table: one row per view or owner, telling whether
/// its values live in an existing owner's storage or in a new one.
///
/// Owners are recognised by their storage address, so a row can only say
/// "shares" when the view really borrows that owner. Keep every traced
/// owner alive while tracing: a later buffer at a freed owner's address
/// would be taken for it.
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

    /// Adds a row "new owner `label`" for an owner and remembers its storage.
    pub fn owner<const R: usize, T>(&mut self, label: &str, tensor: &Tensor<R, T>) -> &mut Self {
        self.register(label, tensor.as_slice());
        let view = tensor.view();
        self.push(true, label, view.strided(), view.len())
    }

    /// Adds a row for a view: "shares `owner`" when it borrows the storage of
    /// an owner added before, otherwise "borrows unregistered storage".
    pub fn view<const R: usize, T>(&mut self, label: &str, view: &View<'_, R, T>) -> &mut Self {
        self.push(false, label, view.strided(), view.len())
    }

    /// Adds a row for a dynamic view.
    pub fn dyn_view<T>(&mut self, label: &str, view: &DynView<'_, T>) -> &mut Self {
        self.push(false, label, view.strided(), view.len())
    }

    /// Adds a row for an owner whose rank is known only at run time.
    pub fn dyn_owner<T>(&mut self, label: &str, tensor: &DynTensor<T>) -> &mut Self {
        self.register(label, tensor.as_slice());
        let view = tensor.view();
        self.push(true, label, view.strided(), view.len())
    }

    /// Names a borrowed buffer that is not a [`Tensor`] (a weights file, a
    /// caller's `Vec`) without adding a row, so views of it say "shares `label`".
    pub fn source<T>(&mut self, label: &str, storage: &[T]) -> &mut Self {
        self.register(label, storage);
        self
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

    fn register<T>(&mut self, label: &str, storage: &[T]) {
        let address = (storage.as_ptr() as usize, storage.len());
        self.owners.push((address.0, address.1, label.to_string()));
    }

    fn push<T>(
        &mut self,
        owner: bool,
        label: &str,
        layout: Strided<'_, '_, T>,
        len: usize,
    ) -> &mut Self {
        let Strided {
            data: storage,
            shape,
            strides,
            base: base_offset,
        } = layout;
        let address = (storage.as_ptr() as usize, storage.len());
        // Newest first: an owner registered last is the live one at that address.
        let known = self
            .owners
            .iter()
            .rev()
            .find(|(a, l, _)| (*a, *l) == address);
        let storage = match known {
            _ if owner => format!("new owner {label}"),
            Some((_, _, name)) => format!("shares {name}"),
            None => "borrows unregistered storage".to_string(),
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

/// `Debug` of a view: its layout only (shape, strides, base offset, length
/// and the owner's storage length), so a small view of a large owner prints small.
pub(crate) fn debug_layout<T>(
    f: &mut Formatter<'_>,
    name: &str,
    layout: Strided<'_, '_, T>,
    len: usize,
) -> fmt::Result {
    f.debug_struct(name)
        .field("shape", &layout.shape)
        .field("strides", &layout.strides)
        .field("base_offset", &layout.base)
        .field("len", &len)
        .field("storage_len", &layout.data.len())
        .finish()
}
