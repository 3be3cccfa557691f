//! Byte-pair merges: the ranked list of token pairs that BPE joins, and
//! the encoding of one pre-tokenized piece with them.
//!
//! The rule (Sennrich et al. 2016, as GPT-2 and Hugging Face `tokenizers`
//! apply it): start from one token per byte; while some adjacent pair is a
//! merge, join the pair of lowest rank (the merge's position in the list),
//! the leftmost one among equals; the tokens left are the piece's ids.
//! Done with a min-heap of candidate pairs over a linked list of symbols
//! (as `tokenizers`' `Word::merge_all`): `O(n log n)` for a piece of `n`
//! bytes, where rescanning all pairs after every merge would be `O(n²)`.

use crate::error::Error;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// No neighbour.
const NONE: usize = usize::MAX;

/// The merges of a vocabulary: `(left, right)` → `(rank, joined)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Merges {
    pairs: HashMap<(u32, u32), (u32, u32)>,
}

impl Merges {
    /// The merges `"left right"` of GGUF's `tokenizer.ggml.merges`, ranked
    /// by position. A merge is split at its first space after the first
    /// character (llama.cpp's rule, so a left token may itself be a space);
    /// a pair listed twice keeps its first (lowest) rank, as llama.cpp does.
    ///
    /// Errors: [`Error::MalformedMerge`] for a merge with no such space or
    /// an empty right side; [`Error::UnknownMergeToken`] for a merge whose
    /// left, right or joined token is not in `ids`;
    /// [`Error::AllocationFailed`] if the table cannot be reserved.
    pub(crate) fn new(merges: &[String], ids: &HashMap<String, u32>) -> Result<Self, Error> {
        let mut pairs = HashMap::new();
        pairs
            .try_reserve(merges.len())
            .map_err(|_| Error::AllocationFailed {
                op: "Tokenizer::new",
                elements: merges.len(),
            })?;
        let mut joined = String::new();
        for (index, merge) in merges.iter().enumerate() {
            let split = merge
                .char_indices()
                .skip(1)
                .find(|&(_, c)| c == ' ')
                .map(|(i, _)| i)
                .filter(|&i| i + 1 < merge.len());
            let Some(split) = split else {
                return Err(Error::MalformedMerge {
                    index,
                    merge: merge.clone(),
                });
            };
            let (left, right) = (&merge[..split], &merge[split + 1..]);
            joined.clear();
            joined.push_str(left);
            joined.push_str(right);
            let id = |token: &str| {
                ids.get(token)
                    .copied()
                    .ok_or_else(|| Error::UnknownMergeToken {
                        index,
                        merge: merge.clone(),
                        token: token.to_owned(),
                    })
            };
            let key = (id(left)?, id(right)?);
            let value = (u32::try_from(index).unwrap_or(u32::MAX), id(&joined)?);
            pairs.entry(key).or_insert(value);
        }
        Ok(Self { pairs })
    }

    /// The number of distinct merges.
    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Applies the merges to `symbols` (one token per byte of a piece) in
    /// place, with `scratch` reused across pieces.
    pub(crate) fn apply(&self, symbols: &mut Vec<u32>, scratch: &mut Scratch) -> Result<(), Error> {
        let n = symbols.len();
        if n < 2 {
            return Ok(());
        }
        let reserve = |e: usize| Error::AllocationFailed {
            op: "encode",
            elements: e,
        };
        scratch.links.clear();
        scratch.links.try_reserve(n).map_err(|_| reserve(n))?;
        scratch.links.extend((0..n).map(|i| Link {
            id: symbols[i],
            prev: if i == 0 { NONE } else { i - 1 },
            next: if i + 1 == n { NONE } else { i + 1 },
        }));
        scratch.heap.clear();
        scratch.heap.try_reserve(n).map_err(|_| reserve(n))?;
        for i in 0..n - 1 {
            self.push_candidate(&mut scratch.heap, &scratch.links, i);
        }
        let links = &mut scratch.links;
        while let Some(Reverse((_, pos, joined))) = scratch.heap.pop() {
            // A stale candidate: its left symbol was absorbed, it has no
            // right neighbour any more, or the pair there changed.
            let next = links[pos].next;
            if links[pos].id == u32::MAX || next == NONE {
                continue;
            }
            if self
                .pairs
                .get(&(links[pos].id, links[next].id))
                .map(|&(_, j)| j)
                != Some(joined)
            {
                continue;
            }
            links[pos].id = joined;
            let after = links[next].next;
            links[pos].next = after;
            links[next].id = u32::MAX;
            if after != NONE {
                links[after].prev = pos;
                self.push_candidate(&mut scratch.heap, links, pos);
            }
            let before = links[pos].prev;
            if before != NONE {
                self.push_candidate(&mut scratch.heap, links, before);
            }
        }
        symbols.clear();
        let mut at = 0;
        while at != NONE {
            symbols.push(links[at].id);
            at = links[at].next;
        }
        Ok(())
    }

    /// Pushes the pair starting at `pos` if it is a merge.
    fn push_candidate(&self, heap: &mut BinaryHeap<Candidate>, links: &[Link], pos: usize) {
        let next = links[pos].next;
        if let Some(&(rank, joined)) = self.pairs.get(&(links[pos].id, links[next].id)) {
            heap.push(Reverse((rank, pos, joined)));
        }
    }
}

/// A symbol of the piece being merged (`id == u32::MAX`: absorbed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Link {
    id: u32,
    prev: usize,
    next: usize,
}

/// A pair `(rank, left position, joined id)`, lowest rank then leftmost first.
type Candidate = Reverse<(u32, usize, u32)>;

/// Buffers [`Merges::apply`] reuses from one piece to the next.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    links: Vec<Link>,
    heap: BinaryHeap<Candidate>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(tokens: &[&str]) -> HashMap<String, u32> {
        tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), i as u32))
            .collect()
    }

    fn merges(list: &[&str], ids: &HashMap<String, u32>) -> Result<Merges, Error> {
        Merges::new(&list.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ids)
    }

    /// The quadratic textbook rule: rescan all pairs after every merge.
    fn reference(m: &Merges, mut s: Vec<u32>) -> Vec<u32> {
        loop {
            let best = (0..s.len().saturating_sub(1))
                .filter_map(|i| m.pairs.get(&(s[i], s[i + 1])).map(|&(r, j)| (r, i, j)))
                .min();
            let Some((_, i, j)) = best else { return s };
            s[i] = j;
            s.remove(i + 1);
        }
    }

    #[test]
    fn lowest_rank_then_leftmost() {
        // a=0 b=1 c=2 ab=3 bc=4 abc=5 aa=6 aaaa=7
        let ids = vocab(&["a", "b", "c", "ab", "bc", "abc", "aa", "aaaa"]);
        let m = merges(&["b c", "a b", "a bc", "a a", "aa aa"], &ids).unwrap();
        let mut scratch = Scratch::default();
        let run = |s: &[u32], scratch: &mut Scratch| {
            let mut v = s.to_vec();
            m.apply(&mut v, scratch).unwrap();
            assert_eq!(v, reference(&m, s.to_vec()));
            v
        };
        assert_eq!(run(&[0, 1, 2], &mut scratch), [5]); // "b c" first, then "a bc"
        assert_eq!(run(&[0, 1], &mut scratch), [3]);
        assert_eq!(run(&[0, 0, 0], &mut scratch), [6, 0]); // leftmost "a a"
        assert_eq!(run(&[0; 9], &mut scratch), [7, 7, 0]);
        assert_eq!(run(&[2, 2], &mut scratch), [2, 2]);
        assert_eq!(run(&[], &mut scratch), [] as [u32; 0]);
        for seed in 0..200u32 {
            let s: Vec<u32> = (0..(seed % 17))
                .map(|i| (seed.wrapping_mul(2654435761).rotate_left(i) >> 7) % 3)
                .collect();
            run(&s, &mut scratch);
        }
    }

    #[test]
    fn first_rank_of_a_repeated_pair_wins() {
        let ids = vocab(&["a", "b", "ab"]);
        let m = merges(&["a b", "a b"], &ids).unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(m.pairs[&(0, 1)], (0, 2));
    }

    #[test]
    fn bad_merges_are_errors() {
        let ids = vocab(&["a", "b", "ab", " ", " a"]);
        assert_eq!(
            merges(&["ab"], &ids).unwrap_err(),
            Error::MalformedMerge {
                index: 0,
                merge: "ab".into()
            }
        );
        assert!(matches!(
            merges(&["a "], &ids),
            Err(Error::MalformedMerge { .. })
        ));
        assert!(merges(&["  a"], &ids).is_ok()); // the left token is " "
        assert_eq!(
            merges(&["a b", "b a"], &ids).unwrap_err(),
            Error::UnknownMergeToken {
                index: 1,
                merge: "b a".into(),
                token: "ba".into()
            }
        );
        assert_eq!(
            merges(&["x b"], &ids).unwrap_err().to_string(),
            "Tokenizer::new: merge 0 `x b` names the token `x`, which is not in the vocabulary"
        );
    }
}
