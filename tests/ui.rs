//! Compile-time guarantees, pinned: every `ui-tests/fail/*.rs` must fail to
//! build with exactly the diagnostic in its `.stderr` snapshot, and every
//! `ui-tests/pass/*.rs` must build and run.
//!
//! The pass cases matter twice: they pin the happy paths, and their presence
//! makes trybuild run `cargo build` instead of `cargo check`, which is what
//! evaluates the inline `const` axis assertions of `transpose_axes` and
//! `permute_axes` (post-monomorphization errors that `cargo check` never sees).
//!
//! Re-bless after an intended change of wording:
//! `TRYBUILD=overwrite cargo test --test ui`, then review the `.stderr` diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/fail/*.rs");
    t.pass("ui-tests/pass/*.rs");
}
