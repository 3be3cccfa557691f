//! A conversation to the model's text and ids, through the chat template.

use super::chat::ChatMessage;
use super::vocab::Tokenizer;
use crate::error::Error;

impl Tokenizer {
    /// The chat template's text of `messages` ([`ChatTemplate::render`](super::ChatTemplate::render)),
    /// with the tokenizer's special tokens' texts as `bos_token`,
    /// `eos_token`, `pad_token` and `unk_token`.
    ///
    /// # Errors
    /// [`Error::MissingChatTemplate`] if the spec had none;
    /// [`Error::ChatTemplate`] if rendering fails.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::{ChatMessage, Tokenizer, TokenizerSpec};
    /// let mut spec = TokenizerSpec::gpt2(vec!["<s>".into()], vec![]);
    /// spec.bos = Some(0);
    /// spec.chat_template = Some("{{ bos_token }}{{ messages[0].content }}".into());
    /// let tok = Tokenizer::new(spec)?;
    /// assert_eq!(tok.render_chat(&[ChatMessage::user("hi")], false)?, "<s>hi");
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn render_chat(
        &self,
        messages: &[ChatMessage],
        add_generation_prompt: bool,
    ) -> Result<String, Error> {
        self.chat
            .as_ref()
            .ok_or(Error::MissingChatTemplate)?
            .render(messages, add_generation_prompt)
    }

    /// The ids of the chat template's rendering of `messages`
    /// ([`render_chat`](Self::render_chat)), with no BOS added (the
    /// template writes what the model expects; Hugging Face's
    /// `apply_chat_template(tokenize=True)`).
    ///
    /// # Errors
    /// Those of [`render_chat`](Self::render_chat) and [`encode`](Self::encode).
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::{ChatMessage, Tokenizer, TokenizerSpec};
    /// let mut spec = TokenizerSpec::gpt2(vec!["h".into(), "i".into(), "hi".into()], vec!["h i".into()]);
    /// spec.chat_template = Some("{% for m in messages %}{{ m.content }}{% endfor %}".into());
    /// let tok = Tokenizer::new(spec)?;
    /// assert_eq!(tok.encode_chat(&[ChatMessage::user("hi")], true)?, [2]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn encode_chat(
        &self,
        messages: &[ChatMessage],
        add_generation_prompt: bool,
    ) -> Result<Vec<u32>, Error> {
        let text = self.render_chat(messages, add_generation_prompt)?;
        let mut ids = Vec::new();
        self.encode_into(&text, &mut ids)?;
        Ok(ids)
    }
}
