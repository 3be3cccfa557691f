//! One request on a view (transpose, permute, slice, reshape, get), turned
//! into concrete arguments from a seed: valid ones for the current view, and
//! wild ones drawn past every bound.

use super::Model;

/// splitmix64: a tiny deterministic stream of numbers from one seed.
pub struct Stream(pub u64);

impl Stream {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..bound` (`bound > 0`).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

#[derive(Clone, Debug)]
pub enum Request {
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Slice(usize, usize, usize),
    Reshape(Vec<usize>),
    Get(Vec<usize>),
}

/// A shape with `len` elements: a random factorisation (extents 0–5 around a zero when empty).
pub fn factorisation(len: usize, stream: &mut Stream) -> Vec<usize> {
    let mut rank = stream.below(6);
    if len != 1 && rank == 0 {
        rank = 1;
    }
    let mut shape = vec![1; rank];
    if len == 0 {
        for extent in &mut shape {
            *extent = stream.below(6);
        }
        let zero = stream.below(rank);
        shape[zero] = 0;
    } else {
        let (mut rest, mut prime) = (len, 2);
        while rest > 1 {
            while rest % prime == 0 {
                shape[stream.below(rank)] *= prime;
                rest /= prime;
            }
            prime += 1;
        }
    }
    shape
}

/// A valid request for `model` (a reshape is valid when the view is contiguous).
pub fn valid_request(model: &Model, kind: u8, stream: &mut Stream) -> Request {
    let rank = model.rank();
    match kind % 4 {
        0 if rank > 0 => Request::Transpose(stream.below(rank), stream.below(rank)),
        1 => {
            let mut axes: Vec<usize> = (0..rank).collect();
            for i in (1..rank).rev() {
                axes.swap(i, stream.below(i + 1));
            }
            Request::Permute(axes)
        }
        2 if rank > 0 => {
            let axis = stream.below(rank);
            let extent = model.shape[axis];
            // Saturating: a wild reshape may leave an empty view with a usize::MAX extent.
            let start = stream.below(extent.saturating_add(1));
            let end = start + stream.below((extent - start).saturating_add(1));
            Request::Slice(axis, start, end)
        }
        _ => Request::Reshape(factorisation(model.len(), stream)),
    }
}

/// A request with arguments drawn past every bound, valid only by chance.
pub fn wild_request(model: &Model, kind: u8, stream: &mut Stream) -> Request {
    let rank = model.rank();
    let extent_of = |axis: usize| model.shape.get(axis).copied().unwrap_or(5);
    match kind % 5 {
        0 => Request::Transpose(stream.below(rank + 3), stream.below(rank + 3)),
        1 => {
            // Mostly the right length (the ranked API needs it), sometimes not.
            let len = if stream.below(4) == 0 {
                stream.below(7)
            } else {
                rank
            };
            Request::Permute((0..len).map(|_| stream.below(rank + 2)).collect())
        }
        2 => {
            let axis = stream.below(rank + 2);
            let bound = extent_of(axis).saturating_add(4);
            Request::Slice(axis, stream.below(bound), stream.below(bound))
        }
        3 => {
            const HUGE: [usize; 4] = [usize::MAX, 1 << 32, 1 << 33, usize::MAX / 3];
            let shape = (0..stream.below(6))
                .map(|_| {
                    if stream.below(4) == 0 {
                        HUGE[stream.below(HUGE.len())]
                    } else {
                        stream.below(8)
                    }
                })
                .collect();
            Request::Reshape(shape)
        }
        _ => Request::Get(
            (0..rank)
                .map(|axis| stream.below(extent_of(axis).saturating_add(2)))
                .collect(),
        ),
    }
}
