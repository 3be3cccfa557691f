//! Printing: `Display` writes nested values like NumPy's `print`; `Debug`
//! writes a summary (layout and the first few values), never megabytes.

use super::array::base::ArrayBase;
use super::array::storage::{Cells, Readable, Storage};
use super::shape::dimension::Dimension;
use super::shape::dims::Dims;
use super::shape::layout::Layout;
use super::traverse::offsets::StridedOffsets;
use std::fmt::{self, Debug, Display, Formatter, Write as _};

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
fn nested<T: Display, D: Dims>(
    f: &mut Formatter<'_>,
    data: &[T],
    layout: &Layout<D>,
) -> fmt::Result {
    let (shape, strides, base) = (layout.shape(), layout.strides(), layout.base_offset);
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
    let printer = Nested {
        data,
        shape,
        strides,
        summarize: positions > SUMMARY_THRESHOLD,
    };
    printer.write_axis(f, 0, base)
}

struct Nested<'a, 's, T> {
    data: &'a [T],
    shape: &'s [usize],
    strides: &'s [usize],
    summarize: bool,
}

impl<T: Display> Nested<'_, '_, T> {
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
/// a scalar prints as its value. Large arrays are summarized with `...`.
/// Every readable array (owner, view, mutable view, either dimension).
impl<S: Readable, D: Dimension> Display for ArrayBase<S, D>
where
    S::Elem: Display,
{
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        nested(f, self.data.values(), &self.layout)
    }
}

/// Values a `Debug` summary lists before eliding the rest.
const DEBUG_VALUES: usize = 6;

/// The first values of a layout in logical order, `[a, b, …]` when there
/// are more; `value` prints the value at a storage offset.
struct FirstValues<'a, D, V> {
    layout: &'a Layout<D>,
    value: V,
}

impl<D: Dims, V: Fn(usize, &mut Formatter<'_>) -> fmt::Result> Debug for FirstValues<'_, D, V> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let layout = self.layout;
        let offsets = StridedOffsets::new(layout.shape(), layout.strides(), layout.base_offset);
        let mut list = f.debug_list();
        for offset in offsets.take(DEBUG_VALUES) {
            list.entry(&Value(offset, &self.value));
        }
        if layout.len > DEBUG_VALUES {
            list.entry(&format_args!("… ({} values)", layout.len));
        }
        list.finish()
    }
}

/// One value of [`FirstValues`].
struct Value<'v, V>(usize, &'v V);

impl<V: Fn(usize, &mut Formatter<'_>) -> fmt::Result> Debug for Value<'_, V> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        (self.1)(self.0, f)
    }
}

/// `Debug` of any array: its alias name (`Tensor`, `View`, `DynViewMut`,
/// ...), shape, strides, (for views) base offset and the storage length,
/// the element count and the first values, so a huge tensor or a small
/// view of a huge owner prints small.
fn debug_summary<S: Storage, D: Dimension>(
    f: &mut Formatter<'_>,
    array: &ArrayBase<S, D>,
    stored: usize,
    value: impl Fn(usize, &mut Formatter<'_>) -> fmt::Result,
) -> fmt::Result {
    let layout = &array.layout;
    let name = match (S::KIND, D::RANK) {
        (kind, Some(_)) => kind.to_owned(),
        (kind, None) => format!("Dyn{kind}"),
    };
    let view = S::KIND != "Tensor";
    let mut out = f.debug_struct(&name);
    out.field("shape", &layout.shape())
        .field("strides", &layout.strides());
    if view {
        out.field("base_offset", &layout.base_offset);
    }
    out.field("len", &layout.len);
    if view {
        out.field("storage_len", &stored);
    }
    out.field("values", &FirstValues { layout, value }).finish()
}

impl<S: Readable, D: Dimension> Debug for ArrayBase<S, D>
where
    S::Elem: Debug,
{
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let data = self.data.values();
        debug_summary(f, self, data.len(), |offset, f| data[offset].fmt(f))
    }
}

impl<T: Copy + Debug, D: Dimension> Debug for ArrayBase<Cells<'_, T>, D> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let cells = self.data.0;
        debug_summary(f, self, cells.len(), |offset, f| cells[offset].get().fmt(f))
    }
}

#[cfg(test)]
mod tests {
    use crate::tensor::Tensor;

    #[test]
    fn debug_of_a_large_tensor_is_a_summary() {
        let big: Tensor<2> = Tensor::from_fn([1000, 1000], |[r, c]| (r * 1000 + c) as f64).unwrap();
        let text = format!("{big:?}");
        assert_eq!(
            text,
            "Tensor { shape: [1000, 1000], strides: [1000, 1], len: 1000000, values: [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, … (1000000 values)] }"
        );
        let corner = big.view().transpose(0, 1).unwrap().slice(0, 1..2).unwrap();
        assert_eq!(
            format!("{corner:?}"),
            "View { shape: [1, 1000], strides: [1, 1000], base_offset: 1, len: 1000, storage_len: 1000000, values: [1.0, 1001.0, 2001.0, 3001.0, 4001.0, 5001.0, … (1000 values)] }"
        );
    }
}
