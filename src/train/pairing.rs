//! Pairing two named-tensor lists by position, name and shape: the check
//! every training step runs before it writes anything.

use crate::error::Error;
use crate::tensor::DynTensor;

/// One named parameter (or gradient, or moment): a Hugging Face name such
/// as `transformer.h.0.attn.c_attn.weight` and its tensor.
pub type Named<T> = (String, DynTensor<T>);

/// Checks that `others` pairs one to one with `params`: the same length,
/// and at every position the same name and shape.
///
/// `what` names the second list's entries in the error (`"gradient"`).
///
/// # Errors
/// [`Error::ParameterCountMismatch`] for lists of different lengths,
/// [`Error::ParameterNameMismatch`] for the first position whose names
/// differ, [`Error::ParameterShapeMismatch`] for the first whose shapes differ.
///
/// ```
/// use llm_from_scratch::{DynTensor, Error};
/// use llm_from_scratch::train::check_pairing;
/// let p = vec![("a".to_string(), DynTensor::<f32>::zeros(vec![2, 3])?)];
/// let g = vec![("a".to_string(), DynTensor::<f32>::zeros(vec![3, 2])?)];
/// let error = check_pairing("step", "gradient", &p, &g).unwrap_err();
/// assert!(matches!(error, Error::ParameterShapeMismatch { .. }));
/// assert_eq!(
///     error.to_string(),
///     "step: parameter `a` has shape [2, 3] but is paired with a tensor of shape [3, 2]"
/// );
/// # Ok::<(), Error>(())
/// ```
pub fn check_pairing<T, U>(
    op: &'static str,
    what: &'static str,
    params: &[Named<T>],
    others: &[Named<U>],
) -> Result<(), Error> {
    let others = others
        .iter()
        .map(|(name, tensor)| (name.as_str(), tensor.shape()));
    check_names_and_shapes(op, what, params, others)
}

/// [`check_pairing`] against any list of names and shapes (an optimizer's
/// state, which holds its moments in its own type).
pub(crate) fn check_names_and_shapes<'a, T>(
    op: &'static str,
    what: &'static str,
    params: &[Named<T>],
    others: impl ExactSizeIterator<Item = (&'a str, &'a [usize])>,
) -> Result<(), Error> {
    if params.len() != others.len() {
        return Err(Error::ParameterCountMismatch {
            op,
            what,
            expected: params.len(),
            actual: others.len(),
        });
    }
    for (index, ((name, param), (other_name, other_shape))) in params.iter().zip(others).enumerate()
    {
        if name != other_name {
            return Err(Error::ParameterNameMismatch {
                op,
                what,
                index,
                expected: name.clone(),
                actual: other_name.to_string(),
            });
        }
        if param.shape() != other_shape {
            return Err(Error::ParameterShapeMismatch {
                op,
                name: name.clone(),
                expected: param.shape().to_vec(),
                actual: other_shape.to_vec(),
            });
        }
    }
    Ok(())
}
