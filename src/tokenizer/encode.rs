//! Text to token ids: special tokens first, then each piece of the
//! pre-tokenizer through the byte alphabet and the merges.

use super::bpe::Scratch;
use super::vocab::Tokenizer;
use crate::error::Error;

impl Tokenizer {
    /// The token ids of `text`, the BOS token first when the spec's
    /// `add_bos` says so (Hugging Face `tokenizer(text)`, llama.cpp
    /// `llama_tokenize` with `add_special`, `parse_special`).
    ///
    /// Special tokens (control, user-defined, unknown) written in the text
    /// are their own ids, matched leftmost and longest first with the
    /// whitespace around them left as it is (Hugging Face's added-token
    /// split). The text between them is cut by the pre-tokenizer, and each
    /// piece's UTF-8 bytes, one token each, are joined by the merges,
    /// lowest rank first (see the [module docs](super)).
    ///
    /// # Errors
    /// - [`Error::UnencodableByte`]: a byte of the text has no token of its
    ///   own. SmolLM2's vocabulary lacks 21 bytes: the control characters
    ///   0x04, 0x06, 0x13, 0x14, 0x16 and 0x1D, and bytes that UTF-8 never
    ///   or hardly uses (0xC0, 0xC1, 0xF5..=0xFF never; 0xF1 and 0xF2 lead
    ///   the unassigned planes U+40000..U+BFFFF). Hugging Face and
    ///   llama.cpp drop such a byte silently; here it is an error naming it.
    /// - [`Error::AllocationFailed`]: the ids cannot be stored.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tokens = ["a", "b", "Ġ", "ab", "Ġab", "<|x|>"].map(String::from).to_vec();
    /// let mut spec = TokenizerSpec::gpt2(tokens, vec!["a b".into(), "Ġ ab".into()]);
    /// spec.token_types = vec![1, 1, 1, 1, 1, 3];
    /// let tok = Tokenizer::new(spec)?;
    /// assert_eq!(tok.encode("ab ab")?, [3, 4]);
    /// assert_eq!(tok.encode("ab<|x|> ab")?, [3, 5, 4]);
    /// assert_eq!(tok.encode("ba")?, [1, 0]);
    /// assert!(tok.encode("c").is_err()); // no token for the byte 'c'
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, Error> {
        let mut ids = Vec::new();
        if let (true, Some(bos)) = (self.add_bos, self.bos) {
            ids.push(bos);
        }
        self.encode_into(text, &mut ids)?;
        Ok(ids)
    }

    /// Appends the ids of `text` (no BOS) to `ids`.
    pub(super) fn encode_into(&self, text: &str, ids: &mut Vec<u32>) -> Result<(), Error> {
        let mut scratch = Scratch::default();
        let mut symbols = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let rest = &text[at..];
            let (plain_len, special) = match self.specials.find(rest) {
                Some((start, len, id)) => (start, Some((len, id))),
                None => (rest.len(), None),
            };
            let mut offset = at;
            for piece in self.pre.split(&rest[..plain_len]) {
                self.encode_piece(piece, offset, &mut symbols, &mut scratch)?;
                offset += piece.len();
                reserve(ids, symbols.len())?;
                ids.extend_from_slice(&symbols);
            }
            at += plain_len;
            if let Some((len, id)) = special {
                reserve(ids, 1)?;
                ids.push(id);
                at += len;
            }
        }
        Ok(())
    }

    /// The ids of one piece, into `symbols`; `offset` is the piece's byte
    /// offset in the text, for the error.
    fn encode_piece(
        &self,
        piece: &str,
        offset: usize,
        symbols: &mut Vec<u32>,
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        symbols.clear();
        reserve(symbols, piece.len())?;
        for (i, &byte) in piece.as_bytes().iter().enumerate() {
            let id = self.byte_tokens[usize::from(byte)].ok_or(Error::UnencodableByte {
                byte,
                offset: offset + i,
            })?;
            symbols.push(id);
        }
        self.merges.apply(symbols, scratch)
    }
}

/// Room for `more` ids in `ids`, or [`Error::AllocationFailed`].
fn reserve(ids: &mut Vec<u32>, more: usize) -> Result<(), Error> {
    ids.try_reserve(more).map_err(|_| Error::AllocationFailed {
        op: "encode",
        elements: ids.len().saturating_add(more),
    })
}
