//! A [`TokenizerSpec`] / [`Tokenizer`] from a GGUF file's `tokenizer.*`
//! keys (llama.cpp's `gguf.md`, "Tokenizer").

use super::spec::TokenizerSpec;
use super::vocab::Tokenizer;
use crate::error::Error;
use crate::tensor::gguf::Gguf;

impl TokenizerSpec {
    /// The tokenizer keys of `gguf`: `tokenizer.ggml.{model, pre, tokens,
    /// token_type, merges, bos_token_id, eos_token_id, padding_token_id,
    /// unknown_token_id, add_bos_token}` and `tokenizer.chat_template`.
    /// Absent optional keys give `None` / empty / `false` (`pre` defaults to
    /// `"gpt2"`, `token_type` to all normal, as llama.cpp reads them).
    ///
    /// # Errors
    /// [`Error::MissingMetadata`] without `tokenizer.ggml.model` or
    /// `tokenizer.ggml.tokens`; a key of another type than the format says
    /// (the reader's error names the key and both types).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::gguf::Gguf, tokenizer::TokenizerSpec};
    /// let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let spec = TokenizerSpec::from_gguf(&Gguf::parse(&bytes)?)?;
    /// assert_eq!((spec.model.as_str(), spec.pre.as_str()), ("gpt2", "smollm"));
    /// assert_eq!((spec.tokens.len(), spec.eos), (49152, Some(2)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_gguf(gguf: &Gguf<'_>) -> Result<Self, Error> {
        let present = |key: &str| gguf.get(key).is_some();
        let strings = |key: &str| -> Result<Vec<String>, Error> {
            Ok(gguf
                .get_array_str(key)?
                .into_iter()
                .map(str::to_owned)
                .collect())
        };
        let id = |key: &str| present(key).then(|| gguf.get_u32(key)).transpose();
        let pre = match present("tokenizer.ggml.pre") {
            true => gguf.get_str("tokenizer.ggml.pre")?.to_owned(),
            false => "gpt2".to_owned(),
        };
        let token_types = match present("tokenizer.ggml.token_type") {
            true => gguf.get_array_i32("tokenizer.ggml.token_type")?,
            false => Vec::new(),
        };
        let merges = match present("tokenizer.ggml.merges") {
            true => strings("tokenizer.ggml.merges")?,
            false => Vec::new(),
        };
        let chat_template = match present("tokenizer.chat_template") {
            true => Some(gguf.get_str("tokenizer.chat_template")?.to_owned()),
            false => None,
        };
        let spec = TokenizerSpec {
            model: gguf.get_str("tokenizer.ggml.model")?.to_owned(),
            pre,
            tokens: strings("tokenizer.ggml.tokens")?,
            token_types,
            merges,
            bos: id("tokenizer.ggml.bos_token_id")?,
            eos: id("tokenizer.ggml.eos_token_id")?,
            pad: id("tokenizer.ggml.padding_token_id")?,
            unk: id("tokenizer.ggml.unknown_token_id")?,
            add_bos: present("tokenizer.ggml.add_bos_token")
                && gguf.get_bool("tokenizer.ggml.add_bos_token")?,
            chat_template,
        };
        Ok(spec)
    }
}

impl Tokenizer {
    /// The tokenizer of a GGUF file: [`TokenizerSpec::from_gguf`], then
    /// [`Tokenizer::new`].
    ///
    /// # Errors
    /// Those of both.
    ///
    /// ```
    /// use llm_from_scratch::{tensor::gguf::Gguf, tokenizer::Tokenizer};
    /// let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let tok = Tokenizer::from_gguf(&Gguf::parse(&bytes)?)?;
    /// assert_eq!(tok.encode("Hello, world!")?, [19556, 28, 905, 17]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_gguf(gguf: &Gguf<'_>) -> Result<Self, Error> {
        Tokenizer::new(TokenizerSpec::from_gguf(gguf)?)
    }
}
