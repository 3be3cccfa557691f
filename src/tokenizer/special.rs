//! Special tokens written literally in a text: `"<|im_start|>user"` holds
//! the control token `<|im_start|>`, not its eleven characters.
//!
//! Which tokens: GGUF's control, user-defined and unknown tokens (types 3,
//! 4, 2), the ones llama.cpp's `tokenizer_st_partition` matches; Hugging
//! Face `transformers` registers a GGUF's control tokens as special added
//! tokens. How (Hugging Face `tokenizers`' `AddedVocabulary`, its default
//! `split_special_tokens=False`): the text is cut at the leftmost
//! occurrence of any of them, the longest one when several start there,
//! with no stripping of the whitespace around it; the text between
//! occurrences goes through the pre-tokenizer and BPE as usual.

/// The special tokens of a vocabulary, by their first byte, longest first.
#[derive(Debug, Clone)]
pub(crate) struct SpecialTokens {
    /// `(text, id)` of every special token, grouped by first byte through
    /// `starts`: the tokens starting with byte `b` are
    /// `tokens[starts[b]..starts[b + 1]]`, longest first.
    tokens: Vec<(String, u32)>,
    starts: Vec<usize>,
}

impl SpecialTokens {
    /// The table for `specials` (`(text, id)` pairs); empty texts are left
    /// out (they would match everywhere).
    pub(crate) fn new(mut specials: Vec<(String, u32)>) -> Self {
        specials.retain(|(text, _)| !text.is_empty());
        // By first byte, then longest first, then lowest id (a text listed
        // twice matches its first id).
        specials.sort_by(|a, b| {
            (a.0.as_bytes()[0], std::cmp::Reverse(a.0.len()), a.1).cmp(&(
                b.0.as_bytes()[0],
                std::cmp::Reverse(b.0.len()),
                b.1,
            ))
        });
        let mut starts = vec![0; 257];
        for (text, _) in &specials {
            starts[usize::from(text.as_bytes()[0]) + 1] += 1;
        }
        for b in 0..256 {
            starts[b + 1] += starts[b];
        }
        Self {
            tokens: specials,
            starts,
        }
    }

    /// The number of special tokens matched in text.
    pub(crate) fn len(&self) -> usize {
        self.tokens.len()
    }

    /// The leftmost special token in `text`, the longest among those that
    /// start there: `(start byte, byte length, id)`.
    pub(crate) fn find(&self, text: &str) -> Option<(usize, usize, u32)> {
        if self.tokens.is_empty() {
            return None;
        }
        let bytes = text.as_bytes();
        for (at, &b) in bytes.iter().enumerate() {
            let group = &self.tokens[self.starts[usize::from(b)]..self.starts[usize::from(b) + 1]];
            // A token starts with a character, so a match at `at` is on a
            // character boundary of `text`.
            if let Some((token, id)) = group
                .iter()
                .find(|(t, _)| bytes[at..].starts_with(t.as_bytes()))
            {
                return Some((at, token.len(), *id));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(list: &[(&str, u32)]) -> SpecialTokens {
        SpecialTokens::new(list.iter().map(|&(t, i)| (t.to_owned(), i)).collect())
    }

    #[test]
    fn leftmost_then_longest() {
        let t = table(&[("<a>", 0), ("<ab>", 1), ("<", 2), ("", 3), ("é!", 4)]);
        assert_eq!(t.len(), 4);
        assert_eq!(t.find("x<ab>"), Some((1, 4, 1)));
        assert_eq!(t.find("x<a>"), Some((1, 3, 0)));
        assert_eq!(t.find("x<b"), Some((1, 1, 2)));
        assert_eq!(t.find("no match"), None);
        assert_eq!(t.find("café!"), Some((3, 3, 4)));
        assert_eq!(table(&[]).find("<a>"), None);
    }

    #[test]
    fn a_repeated_text_matches_its_first_id() {
        let t = table(&[("<s>", 7), ("<s>", 3)]);
        assert_eq!(t.find("<s>"), Some((0, 3, 3)));
    }
}
