//! Recording and auditing a pipeline's layouts: where values are shared,
//! where they are copied, and what each step cost.
//!
//! - [`record`]: the [`record::Recorder`] trait a pipeline reports every
//!   view, new owner and refused request to, and why an owner exists
//!   ([`record::Made`]);
//! - [`ledger`]: the recorder that keeps a `LayoutTrace` and measures the
//!   heap bytes and the time between two records, and audits them;
//! - [`heap`]: the counting global allocator those heap bytes come from;
//! - [`report`]: the closing summary of copied bytes against a
//!   copy-everything baseline.
//!
//! Included by `attention_heads` with
//! `#[path = "../common/audit/mod.rs"] mod audit;` (see
//! `examples/common/README.md`); a pipeline that records into
//! `&mut impl Recorder` reads as its algorithm, and a caller that passes
//! `&mut ()` records nothing.

pub mod heap;
pub mod ledger;
pub mod record;
pub mod report;
