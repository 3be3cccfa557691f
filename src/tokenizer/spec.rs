//! What a tokenizer is made from: the `tokenizer.*` keys of a GGUF file,
//! as plain values.

/// The vocabulary, merges, special ids and chat template of a byte-level
/// BPE tokenizer, one field per GGUF key (llama.cpp's `gguf.md`,
/// "Tokenizer"). [`Tokenizer::new`](super::Tokenizer::new) checks and
/// indexes it.
///
/// Marked `#[non_exhaustive]`: build one from [`TokenizerSpec::gpt2`] or
/// [`Default`] and set the fields.
///
/// ```
/// use llm_from_scratch::tokenizer::TokenizerSpec;
///
/// let mut spec = TokenizerSpec::gpt2(vec!["a".into(), "b".into(), "ab".into()], vec!["a b".into()]);
/// spec.eos = Some(2);
/// assert_eq!((spec.model.as_str(), spec.pre.as_str()), ("gpt2", "gpt2"));
/// assert!(spec.token_types.is_empty()); // every token normal
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenizerSpec {
    /// `tokenizer.ggml.model`: the tokenizer family; only `"gpt2"`
    /// (byte-level BPE) is implemented.
    pub model: String,
    /// `tokenizer.ggml.pre`: the pre-tokenizer ([`PreTokenizer`](super::PreTokenizer)),
    /// `"gpt2"` or `"smollm"`.
    pub pre: String,
    /// `tokenizer.ggml.tokens`: token `i`'s text, in GPT-2's byte alphabet
    /// (`"Ġthe"` for `" the"`) for normal tokens.
    pub tokens: Vec<String>,
    /// `tokenizer.ggml.token_type`: token `i`'s [`TokenType`] as its GGUF
    /// number; empty means every token is normal.
    pub token_types: Vec<i32>,
    /// `tokenizer.ggml.merges`: `"left right"`, highest priority first.
    pub merges: Vec<String>,
    /// `tokenizer.ggml.bos_token_id`.
    pub bos: Option<u32>,
    /// `tokenizer.ggml.eos_token_id`.
    pub eos: Option<u32>,
    /// `tokenizer.ggml.padding_token_id`.
    pub pad: Option<u32>,
    /// `tokenizer.ggml.unknown_token_id`.
    pub unk: Option<u32>,
    /// `tokenizer.ggml.add_bos_token`: whether [`Tokenizer::encode`](super::Tokenizer::encode)
    /// starts with the BOS token.
    pub add_bos: bool,
    /// `tokenizer.chat_template`: the Jinja chat template.
    pub chat_template: Option<String>,
}

impl TokenizerSpec {
    /// A GPT-2 tokenizer (model and pre-tokenizer `"gpt2"`) of `tokens`
    /// and `merges`, all tokens normal, no special ids, no chat template.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::TokenizerSpec;
    /// let spec = TokenizerSpec::gpt2(vec!["x".into()], vec![]);
    /// assert_eq!(spec.tokens, ["x"]);
    /// assert_eq!(spec.bos, None);
    /// ```
    pub fn gpt2(tokens: Vec<String>, merges: Vec<String>) -> Self {
        Self {
            model: "gpt2".to_owned(),
            pre: "gpt2".to_owned(),
            tokens,
            merges,
            ..Self::default()
        }
    }
}

/// A token's type, GGUF's `tokenizer.ggml.token_type` values (llama.cpp's
/// `llama_token_type`).
///
/// ```
/// use llm_from_scratch::tokenizer::TokenType;
/// assert_eq!(TokenType::from_gguf(3), Some(TokenType::Control));
/// assert_eq!(TokenType::Control.gguf_value(), 3);
/// assert_eq!(TokenType::from_gguf(9), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenType {
    /// 0: no type given.
    Undefined,
    /// 1: an ordinary token that BPE produces.
    Normal,
    /// 2: the unknown token; matched in text.
    Unknown,
    /// 3: a control token (`<|im_start|>`, `<|endoftext|>`); matched in text.
    Control,
    /// 4: a token added by the user; matched in text.
    UserDefined,
    /// 5: a token that is never used.
    Unused,
    /// 6: a byte token (SentencePiece's `<0x0A>`).
    Byte,
}

impl TokenType {
    /// The type of a GGUF number, `None` outside `0..=6`.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::TokenType;
    /// assert_eq!(TokenType::from_gguf(1), Some(TokenType::Normal));
    /// ```
    pub fn from_gguf(value: i32) -> Option<Self> {
        Some(match value {
            0 => Self::Undefined,
            1 => Self::Normal,
            2 => Self::Unknown,
            3 => Self::Control,
            4 => Self::UserDefined,
            5 => Self::Unused,
            6 => Self::Byte,
            _ => return None,
        })
    }

    /// The GGUF number of the type.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::TokenType;
    /// assert_eq!(TokenType::UserDefined.gguf_value(), 4);
    /// ```
    pub fn gguf_value(self) -> i32 {
        match self {
            Self::Undefined => 0,
            Self::Normal => 1,
            Self::Unknown => 2,
            Self::Control => 3,
            Self::UserDefined => 4,
            Self::Unused => 5,
            Self::Byte => 6,
        }
    }

    /// Whether a token of this type is matched whole where its text
    /// appears in an encoded text (control, user-defined, unknown).
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::TokenType;
    /// assert!(TokenType::Control.is_matched_in_text());
    /// assert!(!TokenType::Normal.is_matched_in_text());
    /// ```
    pub fn is_matched_in_text(self) -> bool {
        matches!(self, Self::Control | Self::UserDefined | Self::Unknown)
    }
}
