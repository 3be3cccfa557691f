//! Views too large for the model to enumerate: a broadcast to `usize::MAX`
//! elements, an axis iterator over an axis of extent `usize::MAX` (of an
//! empty view). Checked at their ends; the chain stays where it was.

use crate::model::*;
use crate::ops::{Op, pieces};
use crate::ops_model::*;
use crate::{Chain, Value};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A broadcast to a valid target too large to enumerate (a `[1]` view as
/// `[usize::MAX]`: one stored value read `usize::MAX` times): the shape,
/// the count and the values at the first and last coordinates; the chain
/// stays on the current view.
pub fn huge_broadcast(
    chain: &Chain<'_>,
    target: &[usize],
    data: &[Value],
) -> Result<(), TestCaseError> {
    let dynamic = chain
        .dynamic
        .broadcast_to(target)
        .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
    prop_assert_eq!((dynamic.shape(), dynamic.len()), (target, count(target)));
    let last: Vec<usize> = target.iter().map(|&e| e - 1).collect();
    for coordinate in [vec![0; target.len()], last] {
        let want = data[chain.model.at(&broadcast_source(&chain.model, &coordinate))];
        prop_assert_eq!(dynamic.get(&coordinate).copied(), Ok(want));
        if let Some(ranked) = chain.ranked.and_then(|r| r.broadcast_to(target)) {
            let ranked = ranked.map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            prop_assert_eq!(ranked.strides(), dynamic.strides().to_vec());
            prop_assert_eq!(ranked.get(&coordinate), Ok(want));
        }
    }
    Ok(())
}

/// An axis iterator over an axis too long to enumerate (an empty view with a
/// `usize::MAX` extent): its length, and the pieces at both ends.
pub fn huge_iterator(op: &Op, axis: usize, chain: &Chain<'_>) -> Result<(), TestCaseError> {
    let model = &chain.model;
    let total = pieces(op, model);
    let (first, last, mut front, mut back) = match *op {
        Op::AxisIter(..) => {
            let mut items = chain.dynamic.axis_iter(axis).expect("a valid axis");
            prop_assert_eq!(items.len(), total);
            let ends = (items.next(), items.next_back());
            let expected = |k| expected_select(model, axis, k).expect("in range");
            (expected(0), expected(total - 1), ends.0, ends.1)
        }
        Op::AxisChunks(_, size, _) => {
            let mut items = chain
                .dynamic
                .axis_chunks_iter(axis, size)
                .expect("a valid axis and size");
            prop_assert_eq!(items.len(), total);
            let ends = (items.next(), items.next_back());
            let extent = model.shape[axis];
            // The last chunk of an axis of extent usize::MAX may end past
            // usize::MAX (a size that does not divide it): saturate.
            let expected = |start: usize| {
                let end = extent.min(start.saturating_add(size));
                expected_slice(model, axis, start, end).expect("in range")
            };
            (expected(0), expected((total - 1) * size), ends.0, ends.1)
        }
        _ => unreachable!("only axis iterators"),
    };
    for (want, got) in [(first, front.take()), (last, back.take())] {
        let got = got.expect("len() items");
        prop_assert_eq!(
            (got.shape(), got.len()),
            (want.shape.as_slice(), want.len())
        );
    }
    Ok(())
}
