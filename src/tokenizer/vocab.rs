//! [`Tokenizer`]: a checked, indexed [`TokenizerSpec`], and its look-ups.

use super::bpe::Merges;
use super::byte_level::{byte_char, token_bytes};
use super::chat::ChatTemplate;
use super::pretokenize::PreTokenizer;
use super::spec::{TokenType, TokenizerSpec};
use super::special::SpecialTokens;
use crate::error::Error;
use std::collections::HashMap;

/// A byte-level BPE tokenizer (GPT-2's scheme, as SmolLM2 and other
/// GGUF `gpt2`-model vocabularies use it): [`encode`](Tokenizer::encode)
/// text to ids, [`decode`](Tokenizer::decode) ids to text, stream
/// decoding with [`stream`](Tokenizer::stream), and the model's chat
/// template with [`render_chat`](Tokenizer::render_chat).
///
/// ```
/// use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
///
/// // "h", "i", "Ġ" (space), "hi", "Ġhi", "<|end|>"
/// let tokens = ["h", "i", "Ġ", "hi", "Ġhi", "<|end|>"].map(String::from).to_vec();
/// let mut spec = TokenizerSpec::gpt2(tokens, vec!["h i".into(), "Ġ hi".into()]);
/// spec.token_types = vec![1, 1, 1, 1, 1, 3]; // <|end|> is a control token
/// let tok = Tokenizer::new(spec)?;
///
/// assert_eq!(tok.encode("hi hi<|end|>")?, [3, 4, 5]);
/// assert_eq!(tok.decode(&[3, 4, 5])?, "hi hi<|end|>");
/// assert_eq!(tok.vocab_size(), 6);
/// assert_eq!(tok.token_to_id("Ġhi"), Some(4));
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug)]
pub struct Tokenizer {
    pub(super) tokens: Vec<String>,
    pub(super) types: Vec<TokenType>,
    pub(super) ids: HashMap<String, u32>,
    /// The token of each single byte, `None` where the vocabulary has none.
    pub(super) byte_tokens: [Option<u32>; 256],
    pub(super) merges: Merges,
    pub(super) pre: PreTokenizer,
    pub(super) specials: SpecialTokens,
    /// The bytes every token decodes to: token `i`'s are
    /// `decoded[decoded_at[i]..decoded_at[i + 1]]`.
    pub(super) decoded: Vec<u8>,
    pub(super) decoded_at: Vec<usize>,
    pub(super) bos: Option<u32>,
    pub(super) eos: Option<u32>,
    pub(super) pad: Option<u32>,
    pub(super) unk: Option<u32>,
    pub(super) add_bos: bool,
    pub(super) chat: Option<ChatTemplate>,
}

impl Tokenizer {
    /// Checks and indexes `spec`: the text-to-id map (a text listed twice
    /// maps to its last id, as in llama.cpp and Hugging Face), the merge
    /// table, the special tokens matched in text (types control,
    /// user-defined, unknown), the bytes each token decodes to, and the
    /// compiled chat template.
    ///
    /// # Errors
    /// - [`Error::UnsupportedTokenizer`]: `model` is not `"gpt2"`, or `pre`
    ///   is neither `"gpt2"` nor `"smollm"`.
    /// - [`Error::VocabularyTooLarge`]: more tokens than `u32` ids can name
    ///   (`u32::MAX` at most).
    /// - [`Error::TokenTypesLengthMismatch`]: `token_types` is neither
    ///   empty nor one per token.
    /// - [`Error::UnknownTokenType`]: a type outside GGUF's `0..=6`.
    /// - [`Error::TokenIdOutOfRange`]: `bos`, `eos`, `pad` or `unk` is not
    ///   a token id.
    /// - [`Error::MalformedMerge`], [`Error::UnknownMergeToken`]: a merge
    ///   that is not two tokens of the vocabulary whose joined text is one.
    /// - [`Error::ChatTemplate`]: the chat template does not compile.
    /// - [`Error::AllocationFailed`]: a table cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::{Error, tokenizer::{Tokenizer, TokenizerSpec}};
    /// let mut spec = TokenizerSpec::gpt2(vec!["a".into()], vec![]);
    /// spec.pre = "llama3".into();
    /// assert!(matches!(Tokenizer::new(spec), Err(Error::UnsupportedTokenizer { .. })));
    /// ```
    pub fn new(spec: TokenizerSpec) -> Result<Self, Error> {
        const OP: &str = "Tokenizer::new";
        if spec.model != "gpt2" {
            return Err(Error::UnsupportedTokenizer {
                key: "tokenizer.ggml.model",
                name: spec.model,
                supported: "gpt2",
            });
        }
        let pre = PreTokenizer::from_gguf_name(&spec.pre)?;
        let n = spec.tokens.len();
        if n > u32::MAX as usize {
            return Err(Error::VocabularyTooLarge { tokens: n });
        }
        if !spec.token_types.is_empty() && spec.token_types.len() != n {
            return Err(Error::TokenTypesLengthMismatch {
                tokens: n,
                types: spec.token_types.len(),
            });
        }
        let mut types = Vec::new();
        types.try_reserve_exact(n).map_err(|_| alloc(n))?;
        for id in 0..n {
            types.push(match spec.token_types.get(id) {
                None => TokenType::Normal,
                Some(&value) => TokenType::from_gguf(value).ok_or(Error::UnknownTokenType {
                    id: id as u32,
                    value,
                })?,
            });
        }
        for id in [spec.bos, spec.eos, spec.pad, spec.unk]
            .into_iter()
            .flatten()
        {
            if id as usize >= n {
                return Err(Error::TokenIdOutOfRange {
                    op: OP,
                    id,
                    vocab_size: n,
                });
            }
        }
        let mut ids = HashMap::new();
        ids.try_reserve(n).map_err(|_| alloc(n))?;
        for (id, token) in spec.tokens.iter().enumerate() {
            ids.insert(token.clone(), id as u32);
        }
        let merges = Merges::new(&spec.merges, &ids)?;
        let mut byte_tokens = [None; 256];
        for (b, slot) in byte_tokens.iter_mut().enumerate() {
            *slot = ids
                .get(byte_char(b as u8).encode_utf8(&mut [0; 4]) as &str)
                .copied();
        }
        let specials = SpecialTokens::new(
            (0..n)
                .filter(|&id| types[id].is_matched_in_text())
                .filter(|&id| ids.get(&spec.tokens[id]) == Some(&(id as u32)))
                .map(|id| (spec.tokens[id].clone(), id as u32))
                .collect(),
        );
        let text_bytes: usize = spec.tokens.iter().map(String::len).sum();
        let mut decoded = Vec::new();
        decoded
            .try_reserve_exact(text_bytes)
            .map_err(|_| alloc(text_bytes))?;
        let mut decoded_at = Vec::new();
        decoded_at
            .try_reserve_exact(n + 1)
            .map_err(|_| alloc(n + 1))?;
        decoded_at.push(0);
        for token in &spec.tokens {
            token_bytes(token, &mut decoded);
            decoded_at.push(decoded.len());
        }
        let text = |id: Option<u32>| id.map(|i| spec.tokens[i as usize].as_str());
        let chat = match &spec.chat_template {
            Some(source) => Some(ChatTemplate::with_special_tokens(
                source,
                [
                    ("bos_token", text(spec.bos)),
                    ("eos_token", text(spec.eos)),
                    ("pad_token", text(spec.pad)),
                    ("unk_token", text(spec.unk)),
                ],
            )?),
            None => None,
        };
        Ok(Self {
            tokens: spec.tokens,
            types,
            ids,
            byte_tokens,
            merges,
            pre,
            specials,
            decoded,
            decoded_at,
            bos: spec.bos,
            eos: spec.eos,
            pad: spec.pad,
            unk: spec.unk,
            add_bos: spec.add_bos,
            chat,
        })
    }

    /// The number of tokens; ids are `0..vocab_size()`.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["a".into(), "b".into()], vec![]))?;
    /// assert_eq!(tok.vocab_size(), 2);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    /// The id of the token whose text (in the byte alphabet) is `token`.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["a".into(), "Ġ".into()], vec![]))?;
    /// assert_eq!(tok.token_to_id("Ġ"), Some(1));
    /// assert_eq!(tok.token_to_id(" "), None);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// The text of token `id` as the vocabulary spells it (`"Ġthe"`), or
    /// `None` past the vocabulary. [`decode`](Self::decode) gives its bytes.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["Ġa".into()], vec![]))?;
    /// assert_eq!(tok.id_to_token(0), Some("Ġa"));
    /// assert_eq!(tok.id_to_token(1), None);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    /// The type of token `id`, or `None` past the vocabulary.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{TokenType, Tokenizer, TokenizerSpec};
    /// let mut spec = TokenizerSpec::gpt2(vec!["a".into(), "<s>".into()], vec![]);
    /// spec.token_types = vec![1, 3];
    /// let tok = Tokenizer::new(spec)?;
    /// assert_eq!(tok.token_type(1), Some(TokenType::Control));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn token_type(&self, id: u32) -> Option<TokenType> {
        self.types.get(id as usize).copied()
    }

    /// The pre-tokenizer rule in use.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{PreTokenizer, Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["a".into()], vec![]))?;
    /// assert_eq!(tok.pre_tokenizer(), PreTokenizer::Gpt2);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn pre_tokenizer(&self) -> PreTokenizer {
        self.pre
    }

    /// The same tokenizer with another pre-tokenizer rule.
    ///
    /// The vocabulary, merges and special tokens are unchanged; only the
    /// split of text into pieces differs. For a GGUF whose
    /// `tokenizer.ggml.pre` is `smollm`, llama.cpp splits with
    /// [`PreTokenizer::Smollm`] (what [`Tokenizer::from_gguf`] builds, and
    /// what the model's own `tokenizer.json` does), while Hugging Face
    /// `transformers` loading the same file builds plain `ByteLevel`, i.e.
    /// [`PreTokenizer::Gpt2`]: `with_pre_tokenizer(PreTokenizer::Gpt2)`
    /// gives transformers' ids (see [`PreTokenizer`] for where they differ).
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{PreTokenizer, Tokenizer, TokenizerSpec};
    /// let tokens = ["a", "1", "Ġ", "ĠĠ"].map(String::from).to_vec();
    /// let mut spec = TokenizerSpec::gpt2(tokens, vec!["Ġ Ġ".into()]);
    /// spec.pre = "smollm".into();
    /// let tok = Tokenizer::new(spec)?;
    /// assert_eq!(tok.encode("a  1")?, [0, 3, 1]); // "a", "  ", "1"
    /// let tok = tok.with_pre_tokenizer(PreTokenizer::Gpt2);
    /// assert_eq!(tok.encode("a  1")?, [0, 2, 2, 1]); // "a", " ", " 1"
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[must_use]
    pub fn with_pre_tokenizer(mut self, rule: PreTokenizer) -> Self {
        self.pre = rule;
        self
    }

    /// The beginning-of-sequence token id, if the vocabulary names one.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let mut spec = TokenizerSpec::gpt2(vec!["<s>".into(), "</s>".into()], vec![]);
    /// (spec.bos, spec.eos) = (Some(0), Some(1));
    /// let tok = Tokenizer::new(spec)?;
    /// assert_eq!((tok.bos(), tok.eos(), tok.pad(), tok.unk()), (Some(0), Some(1), None, None));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn bos(&self) -> Option<u32> {
        self.bos
    }

    /// The end-of-sequence token id (generation stops there), if named.
    /// Example at [`bos`](Self::bos).
    pub fn eos(&self) -> Option<u32> {
        self.eos
    }

    /// The padding token id, if named. Example at [`bos`](Self::bos).
    pub fn pad(&self) -> Option<u32> {
        self.pad
    }

    /// The unknown token id, if named. Example at [`bos`](Self::bos).
    pub fn unk(&self) -> Option<u32> {
        self.unk
    }

    /// The chat template, if the spec has one.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let mut spec = TokenizerSpec::gpt2(vec!["a".into()], vec![]);
    /// spec.chat_template = Some("{{ messages[0].content }}".into());
    /// let tok = Tokenizer::new(spec)?;
    /// assert_eq!(tok.chat_template().map(|t| t.source()), Some("{{ messages[0].content }}"));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn chat_template(&self) -> Option<&ChatTemplate> {
        self.chat.as_ref()
    }

    /// The number of merges (distinct pairs) and of special tokens matched
    /// in text, for a summary line.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::{Tokenizer, TokenizerSpec};
    /// let tok = Tokenizer::new(TokenizerSpec::gpt2(vec!["a".into(), "aa".into()], vec!["a a".into()]))?;
    /// assert_eq!(tok.counts(), (1, 0));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn counts(&self) -> (usize, usize) {
        (self.merges.len(), self.specials.len())
    }
}

/// The allocation error of [`Tokenizer::new`].
fn alloc(elements: usize) -> Error {
    Error::AllocationFailed {
        op: "Tokenizer::new",
        elements,
    }
}
