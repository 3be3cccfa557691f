//! Shape arithmetic without values: axis lists, layouts and their checked
//! transforms, broadcasting, rank tables and compile-time axis markers.

pub mod axes;
pub(crate) mod broadcast;
pub mod dimension;
pub(crate) mod dims;
pub(crate) mod layout;
pub mod rank;
pub(crate) mod transforms;
