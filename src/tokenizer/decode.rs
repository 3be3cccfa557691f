//! Token ids to text, all at once ([`Tokenizer::decode`]) or one id at a
//! time as a model generates them ([`StreamDecoder`]).
//!
//! A token decodes to bytes: a normal token's characters through GPT-2's
//! byte alphabet, a special token to its own text (Hugging Face's
//! `ByteLevel` decoder, `skip_special_tokens=False`; llama.cpp's
//! `token_to_piece` with `special`). The bytes of a sequence of tokens are
//! UTF-8 only as a whole: one character (an emoji, a CJK ideograph) is
//! often split over two or three tokens. Bytes that are not UTF-8 read as
//! U+FFFD, one per maximal invalid run (`String::from_utf8_lossy`, as
//! Hugging Face reads them).

use super::vocab::Tokenizer;
use crate::error::Error;

impl Tokenizer {
    /// The text of `ids`, special tokens as their text.
    ///
    /// # Errors
    /// - [`Error::TokenIdOutOfRange`]: an id is not below
    ///   [`vocab_size`](Self::vocab_size).
    /// - [`Error::AllocationFailed`]: the bytes cannot be stored.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(
    ///     ["Ġhi", "Ċ", "ðŁ", "ĺ", "Ģ"].map(String::from).to_vec(), vec![],
    /// ))?;
    /// assert_eq!(tok.decode(&[0, 1])?, " hi\n");
    /// assert_eq!(tok.decode(&[2, 3, 4])?, "😀"); // F0 9F | 98 | 80
    /// assert_eq!(tok.decode(&[2, 3])?, "\u{FFFD}"); // an unfinished character
    /// assert!(tok.decode(&[5]).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn decode(&self, ids: &[u32]) -> Result<String, Error> {
        let mut bytes = Vec::new();
        for &id in ids {
            self.push_bytes("decode", id, &mut bytes)?;
        }
        Ok(match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// The bytes token `id` decodes to.
    ///
    /// # Errors
    /// [`Error::TokenIdOutOfRange`] for an id past the vocabulary.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["Ġé".into()], vec![]))?;
    /// assert_eq!(tok.token_bytes(0)?, b" \xe9"); // 'é' is the byte 0xE9 in the alphabet
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn token_bytes(&self, id: u32) -> Result<&[u8], Error> {
        self.bytes_of("token_bytes", id)
    }

    /// A decoder that takes ids one at a time and gives back text as soon
    /// as it is whole UTF-8.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["a".into()], vec![]))?;
    /// let mut stream = tok.stream();
    /// assert_eq!(stream.push(0)?, "a");
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn stream(&self) -> StreamDecoder<'_> {
        StreamDecoder {
            tokenizer: self,
            pending: Vec::new(),
        }
    }

    fn bytes_of(&self, op: &'static str, id: u32) -> Result<&[u8], Error> {
        let i = id as usize;
        if i >= self.tokens.len() {
            return Err(Error::TokenIdOutOfRange {
                op,
                id,
                vocab_size: self.tokens.len(),
            });
        }
        Ok(&self.decoded[self.decoded_at[i]..self.decoded_at[i + 1]])
    }

    fn push_bytes(&self, op: &'static str, id: u32, out: &mut Vec<u8>) -> Result<(), Error> {
        let bytes = self.bytes_of(op, id)?;
        out.try_reserve(bytes.len())
            .map_err(|_| Error::AllocationFailed {
                op,
                elements: out.len().saturating_add(bytes.len()),
            })?;
        out.extend_from_slice(bytes);
        Ok(())
    }
}

/// Decodes ids one at a time ([`Tokenizer::stream`]): each
/// [`push`](Self::push) returns the text that became whole UTF-8 and holds
/// back the first bytes of a character whose last bytes are still to
/// come; [`finish`](Self::finish) returns what is left. The pieces
/// concatenate to exactly [`Tokenizer::decode`] of all the ids.
///
/// ```
/// use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
/// // 😀 is F0 9F 98 80: "ðŁ" spells F0 9F, "ĺ" 98, "Ģ" 80.
/// let tok = Tokenizer::new(TokenizerSpec::gpt2(
///     ["Ġhi", "ðŁ", "ĺ", "Ģ", "!"].map(String::from).to_vec(), vec![],
/// ))?;
/// let mut stream = tok.stream();
/// assert_eq!(stream.push(0)?, " hi");
/// assert_eq!(stream.push(1)?, ""); // F0 9F: held back
/// assert_eq!(stream.push(2)?, "");
/// assert_eq!(stream.pending_len(), 3);
/// assert_eq!(stream.push(3)?, "😀");
/// assert_eq!(stream.push(1)?, "");
/// assert_eq!(stream.push(4)?, "\u{FFFD}!"); // F0 9F then '!' is not UTF-8
/// assert_eq!(stream.finish(), "");
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct StreamDecoder<'t> {
    tokenizer: &'t Tokenizer,
    /// Bytes decoded but not returned: the start of an unfinished character.
    pending: Vec<u8>,
}

impl StreamDecoder<'_> {
    /// Adds token `id`; returns the text that is now whole (possibly
    /// empty), with U+FFFD for each maximal run of bytes that no later
    /// byte can make valid UTF-8.
    ///
    /// # Errors
    /// [`Error::TokenIdOutOfRange`] for an id past the vocabulary (the
    /// decoder is unchanged); [`Error::AllocationFailed`].
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["Ã".into(), "©".into()], vec![]))?;
    /// let mut stream = tok.stream(); // é is C3 A9
    /// assert_eq!((stream.push(0)?, stream.push(1)?), (String::new(), "é".to_string()));
    /// assert!(stream.push(2).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn push(&mut self, id: u32) -> Result<String, Error> {
        self.tokenizer
            .push_bytes("StreamDecoder::push", id, &mut self.pending)?;
        let mut text = String::new();
        let mut start = 0;
        loop {
            match std::str::from_utf8(&self.pending[start..]) {
                Ok(valid) => {
                    text.push_str(valid);
                    start = self.pending.len();
                    break;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    let good = &self.pending[start..start + valid];
                    text.push_str(std::str::from_utf8(good).unwrap_or_default());
                    start += valid;
                    match e.error_len() {
                        // Invalid whatever follows: one U+FFFD, go on.
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            start += bad;
                        }
                        // The start of a character: wait for more bytes.
                        None => break,
                    }
                }
            }
        }
        self.pending.drain(..start);
        Ok(text)
    }

    /// The number of bytes held back (0 to 3).
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["Ã".into()], vec![]))?;
    /// let mut stream = tok.stream();
    /// stream.push(0)?;
    /// assert_eq!(stream.pending_len(), 1);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Ends the stream: the held-back bytes, an unfinished character, read
    /// as one U+FFFD (empty if nothing is held back). The decoder is empty
    /// afterwards and can go on.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["Ã".into()], vec![]))?;
    /// let mut stream = tok.stream();
    /// stream.push(0)?;
    /// assert_eq!(stream.finish(), "\u{FFFD}");
    /// assert_eq!(stream.finish(), "");
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn finish(&mut self) -> String {
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        text
    }
}
