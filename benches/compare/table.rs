//! One row of the comparison table and one entry of the JSON line: the
//! pieces every case's module describes its rows with.

/// One table row: ours against ndarray and/or memcpy, with the target.
pub(crate) struct Row {
    pub(crate) label: String,
    /// `group/id` of our timing.
    pub(crate) ours: String,
    /// `ndarray` or `memcpy`: which reference the target ratio is against.
    pub(crate) against: &'static str,
    pub(crate) limit: Option<f64>,
    pub(crate) json: String,
}

/// A [`Row`] for our timing `group/ours`.
pub(crate) fn row(
    label: &str,
    group: &str,
    ours: &str,
    against: &'static str,
    limit: Option<f64>,
    json: &str,
) -> Row {
    Row {
        label: label.into(),
        ours: format!("{group}/{ours}"),
        against,
        limit,
        json: json.into(),
    }
}

/// `"key":value`, or `"key":null` when the value is not finite (a sample
/// below the clock's resolution, as in `cargo test`'s single-iteration runs).
pub(crate) fn json_entry(key: &str, value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("\"{key}\":{value:.decimals$}")
    } else {
        format!("\"{key}\":null")
    }
}
