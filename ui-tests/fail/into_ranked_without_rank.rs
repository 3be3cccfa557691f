// The user converts a dynamic tensor back to a ranked one without saying
// which rank: the compiler cannot guess R from the run-time shape.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let d = DynTensor::from_vec(vec![2, 3], vec![0.0; 6])?;
    let _t = d.into_ranked()?;
    Ok(())
}
