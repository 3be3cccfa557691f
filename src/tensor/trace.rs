//! `LayoutTrace`: a table with one row per view or owner, telling whether
//! its values live in an existing owner's storage or in a new one.

#[cfg(doc)]
use super::array::base::Tensor;
use super::array::base::{ArrayBase, DynTensor, DynView};
use super::array::storage::Readable;
use super::shape::dimension::Dimension;
use super::shape::dims::Dims;
use super::shape::layout::Layout;
use super::traverse::offsets::StridedOffsets;
use std::fmt::{self, Display, Formatter};

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

/// A comparison table of layouts: one row per view or owner, telling whether
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
    ///
    /// ```
    /// use llm_from_scratch::tensor::LayoutTrace;
    /// assert!(LayoutTrace::new().rows().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The rows so far.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{LayoutTrace, Tensor};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let mut trace = LayoutTrace::new();
    /// trace.owner("base", &owner).view("row 1", &owner.view().select(0, 1)?);
    /// let row = &trace.rows()[1];
    /// assert_eq!((row.shape.as_slice(), row.base_offset, row.storage.as_str()), (&[3][..], 3, "shares base"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rows(&self) -> &[TraceRow] {
        &self.rows
    }

    /// Adds a row "new owner `label`" for an owner and remembers its storage.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{LayoutTrace, Tensor};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let mut trace = LayoutTrace::new();
    /// trace.owner("base", &owner);
    /// let row = &trace.rows()[0];
    /// assert_eq!((row.strides.as_slice(), row.contiguous), (&[3, 1][..], true));
    /// assert_eq!(row.storage, "new owner base");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn owner<T, D: Dimension>(
        &mut self,
        label: &str,
        tensor: &ArrayBase<Vec<T>, D>,
    ) -> &mut Self {
        self.register(label, tensor.as_slice());
        self.push(true, label, tensor.as_slice(), &tensor.layout)
    }

    /// Adds a row for a view or a mutable view (of either dimension):
    /// "shares `owner`" when it borrows the storage of an owner added before,
    /// otherwise "borrows unregistered storage".
    ///
    /// ```
    /// use llm_from_scratch::tensor::{LayoutTrace, Tensor};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let other = Tensor::from_vec([2], vec![1.0, 2.0])?;
    /// let mut trace = LayoutTrace::new();
    /// trace.owner("base", &owner);
    /// trace.view("transpose", &owner.view().transpose(0, 1)?);
    /// trace.view("other", &other.view());
    /// assert_eq!(trace.rows()[1].offsets, (vec![0, 3, 1, 4, 2, 5], 6));
    /// assert_eq!(trace.rows()[1].storage, "shares base");
    /// assert_eq!(trace.rows()[2].storage, "borrows unregistered storage");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view<S: Readable, D: Dimension>(
        &mut self,
        label: &str,
        view: &ArrayBase<S, D>,
    ) -> &mut Self {
        self.push(false, label, view.data.values(), &view.layout)
    }

    /// [`view`](LayoutTrace::view) of a dynamic view (its earlier name).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, LayoutTrace};
    /// let owner = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let mut trace = LayoutTrace::new();
    /// # #[allow(deprecated)]
    /// trace.dyn_owner("base", &owner).dyn_view("permute", &owner.view().permute(&[1, 0])?);
    /// let row = &trace.rows()[1];
    /// assert_eq!((row.strides.as_slice(), row.contiguous), (&[1, 2][..], false));
    /// assert_eq!(row.storage, "shares base");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[deprecated(since = "0.3.0", note = "use `view`: it takes every view")]
    pub fn dyn_view<T>(&mut self, label: &str, view: &DynView<'_, T>) -> &mut Self {
        self.view(label, view)
    }

    /// [`owner`](LayoutTrace::owner) of a dynamic owner (its earlier name).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, LayoutTrace};
    /// let owner = DynTensor::from_vec(vec![1, 1, 2], vec![1.0, 2.0])?;
    /// let mut trace = LayoutTrace::new();
    /// # #[allow(deprecated)]
    /// trace.dyn_owner("base", &owner);
    /// assert_eq!(trace.rows()[0].shape, vec![1, 1, 2]);
    /// assert_eq!(trace.rows()[0].storage, "new owner base");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[deprecated(since = "0.3.0", note = "use `owner`: it takes every owner")]
    pub fn dyn_owner<T>(&mut self, label: &str, tensor: &DynTensor<T>) -> &mut Self {
        self.owner(label, tensor)
    }

    /// Names a borrowed buffer that is not a [`Tensor`] (a weights file, a
    /// caller's `Vec`) without adding a row, so views of it say "shares `label`".
    ///
    /// ```
    /// use llm_from_scratch::tensor::{LayoutTrace, View};
    /// let buffer = vec![1.0, 2.0, 3.0, 4.0];
    /// let mut trace = LayoutTrace::new();
    /// trace.source("buffer", &buffer);
    /// trace.view("as [2, 2]", &View::<2>::from_parts(&buffer, [2, 2], [2, 1], 0)?);
    /// assert_eq!(trace.rows().len(), 1); // `source` adds no row
    /// assert_eq!(trace.rows()[0].storage, "shares buffer");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn source<T>(&mut self, label: &str, storage: &[T]) -> &mut Self {
        self.register(label, storage);
        self
    }

    /// Adds a row for a rejected request, with the error's message.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{LayoutTrace, Tensor};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let mut trace = LayoutTrace::new();
    /// let error = owner.view().reshape([4]).map(|_| ()).unwrap_err(); // 6 values, not 4
    /// trace.rejected("reshape [4]", &error);
    /// assert!(trace.rows()[0].rejected);
    /// assert_eq!(trace.rows()[0].storage, format!("rejected: {error}"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

    fn push<T, D: Dims>(
        &mut self,
        owner: bool,
        label: &str,
        storage: &[T],
        layout: &Layout<D>,
    ) -> &mut Self {
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
        let offsets = StridedOffsets::new(layout.shape(), layout.strides(), layout.base_offset);
        self.rows.push(TraceRow {
            label: label.to_string(),
            shape: layout.shape().to_vec(),
            strides: layout.strides().to_vec(),
            base_offset: layout.base_offset,
            offsets: (offsets.take(TRACE_OFFSETS).collect(), layout.len),
            contiguous: layout.is_contiguous(),
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
