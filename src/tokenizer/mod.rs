//! Text in, text out (feature `gguf`): the byte-level BPE tokenizer of
//! GGUF's `gpt2` model (GPT-2, SmolLM2, StarCoder and others) and the
//! model's chat template.
//!
//! A [`TokenizerSpec`] holds the GGUF `tokenizer.*` keys as plain values;
//! [`Tokenizer::new`] checks and indexes it. Then:
//!
//! - [`Tokenizer::encode`]: text → ids. Special tokens written in the text
//!   first (`"<|im_start|>"` is one id), then the pre-tokenizer
//!   ([`PreTokenizer`]: GPT-2's regex, with numbers split one by one for
//!   `smollm`), then per piece its UTF-8 bytes spelled in GPT-2's byte
//!   alphabet and joined by the ranked merges.
//! - [`Tokenizer::decode`]: ids → text, special tokens as their text;
//!   [`StreamDecoder`] does it one id at a time, holding back the bytes of
//!   a character split over tokens.
//! - [`Tokenizer::render_chat`] / [`Tokenizer::encode_chat`]: a
//!   conversation ([`ChatMessage`]s) through the Jinja chat template
//!   ([`ChatTemplate`], rendered by MiniJinja as `transformers` does).
//!
//! Checked against Hugging Face `transformers` (which reads the same GGUF)
//! on SmolLM2-135M-Instruct's vocabulary: `tests/tokenizer.rs`.
//!
//! ```
//! use llm_from_scratch::tokenizer::{ChatMessage, Tokenizer, TokenizerSpec};
//!
//! let tokens = ["h", "i", "Ġ", "hi", "Ġhi", "Ċ", "<|end|>"].map(String::from).to_vec();
//! let mut spec = TokenizerSpec::gpt2(tokens, vec!["h i".into(), "Ġ hi".into()]);
//! spec.token_types = vec![1, 1, 1, 1, 1, 1, 3];
//! spec.eos = Some(6);
//! spec.chat_template = Some(
//!     "{% for m in messages %}{{ m.content }}{{ eos_token }}\n{% endfor %}".into(),
//! );
//! let tok = Tokenizer::new(spec)?;
//!
//! let ids = tok.encode_chat(&[ChatMessage::user("hi hi")], false)?;
//! assert_eq!(ids, [3, 4, 6, 5]);
//! assert_eq!(tok.decode(&ids)?, "hi hi<|end|>\n");
//! # Ok::<(), llm_from_scratch::Error>(())
//! ```

mod bpe;
mod byte_level;
mod chat;
mod conversation;
mod decode;
mod encode;
mod from_gguf;
mod pretokenize;
mod spec;
mod special;
mod vocab;

#[cfg(test)]
mod tests;

pub use chat::{ChatMessage, ChatTemplate};
pub use decode::StreamDecoder;
pub use pretokenize::{Pieces, PreTokenizer};
pub use spec::{TokenType, TokenizerSpec};
pub use vocab::Tokenizer;
