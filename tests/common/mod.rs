//! Helpers shared by the integration tests (each test file that needs them
//! declares `mod common;`; Cargo does not build `tests/common/` as a test
//! of its own).
//!
//! Rank dispatch: the ranked API takes the rank as a const parameter, while
//! the property and conformance tests draw shapes at run time. [`with_rank`]
//! turns a runtime rank into a `const` the ranked API can be instantiated
//! with, one match arm per listed rank, so a test calls `View<R>` and
//! `Tensor<R>` for every rank it draws.

/// Evaluates `$body` with `$R` bound to a `const usize` equal to the
/// runtime rank `$rank`, for each rank listed in the brackets.
///
/// ```ignore
/// let rank = shape.len();
/// let owner = with_rank!(rank, [0 1 2 3], |R| Tensor::<R>::zeros(shape.try_into().unwrap()));
/// ```
///
/// A rank that is not listed panics, naming it; to handle some ranks
/// another way, add match arms after the body
/// (`with_rank!(r, [1 2], |R| .., 0 => .., _ => ..)`), which then replace
/// the panicking arm. Nest two calls to dispatch a pair of ranks.
macro_rules! with_rank {
    ($rank:expr, [$($r:literal)*], |$R:ident| $body:expr) => {
        with_rank!($rank, [$($r)*], |$R| $body, rank => panic!(
            "rank {rank} is not among the ranks dispatched here: {:?}",
            [$($r),*]
        ))
    };
    ($rank:expr, [$($r:literal)*], |$R:ident| $body:expr, $($other:pat => $fallback:expr),+) => {
        match $rank {
            $($r => {
                const $R: usize = $r;
                $body
            })*
            $($other => $fallback,)+
        }
    };
}
pub(crate) use with_rank;
