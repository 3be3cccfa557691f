//! Chat templates: the Jinja program in a GGUF's `tokenizer.chat_template`
//! that writes a conversation out as the text the model was trained on.
//!
//! Rendered with MiniJinja the way Hugging Face `transformers` renders
//! them (`apply_chat_template`): `trim_blocks` and `lstrip_blocks` on, the
//! variables `messages` (a list of `{role, content}` maps),
//! `add_generation_prompt`, and the special tokens' texts `bos_token`,
//! `eos_token`, `pad_token`, `unk_token`, plus the function
//! `raise_exception(message)`. Python's string and dict methods that
//! templates call (`.strip()`, `.startswith()`, `.items()`, ...) come from
//! `minijinja-contrib`'s `pycompat`. A default system prompt is whatever
//! the template writes itself (SmolLM2's writes one when the first message
//! is not a system message).

use crate::error::Error;
use minijinja::{Environment, ErrorKind, Value, syntax::SyntaxConfig};
use std::collections::BTreeMap;

/// The name the template is stored under (no extension: no HTML escaping).
const NAME: &str = "chat_template";

/// One message of a conversation.
///
/// ```
/// use llm_from_scratch::tokenizer::ChatMessage;
/// let m = ChatMessage::new("user", "Hi!");
/// assert_eq!(m, ChatMessage::user("Hi!"));
/// assert_eq!((m.role.as_str(), m.content.as_str()), ("user", "Hi!"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChatMessage {
    /// `"system"`, `"user"` or `"assistant"` (the template decides what it accepts).
    pub role: String,
    /// The message's text.
    pub content: String,
}

impl ChatMessage {
    /// A message of `role` saying `content`.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::ChatMessage;
    /// assert_eq!(ChatMessage::new("tool", "42").role, "tool");
    /// ```
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            role: role.into(),
            content: content.into(),
        }
    }

    /// A `"system"` message.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::ChatMessage;
    /// assert_eq!(ChatMessage::system("Be brief.").role, "system");
    /// ```
    pub fn system(content: impl Into<String>) -> Self {
        Self::new("system", content)
    }

    /// A `"user"` message.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::ChatMessage;
    /// assert_eq!(ChatMessage::user("Hi").content, "Hi");
    /// ```
    pub fn user(content: impl Into<String>) -> Self {
        Self::new("user", content)
    }

    /// An `"assistant"` message.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::ChatMessage;
    /// assert_eq!(ChatMessage::assistant("Hello.").role, "assistant");
    /// ```
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new("assistant", content)
    }
}

/// A compiled chat template.
///
/// ```
/// use llm_from_scratch::tokenizer::{ChatMessage, ChatTemplate};
/// let t = ChatTemplate::new(
///     "{% for m in messages %}<{{ m.role }}>{{ m.content | trim }}\n{% endfor %}\
///      {% if add_generation_prompt %}<assistant>{% endif %}",
/// )?;
/// let text = t.render(&[ChatMessage::user(" Hi ")], true)?;
/// assert_eq!(text, "<user>Hi\n<assistant>");
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug)]
pub struct ChatTemplate {
    env: Environment<'static>,
    source: String,
}

impl ChatTemplate {
    /// Compiles `source`, with no special-token variables.
    ///
    /// # Errors
    /// [`Error::ChatTemplate`] with MiniJinja's message if it does not parse.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::ChatTemplate;
    /// assert!(ChatTemplate::new("{% for m in messages %}").is_err());
    /// ```
    pub fn new(source: &str) -> Result<Self, Error> {
        Self::with_special_tokens(source, [])
    }

    /// Compiles `source` with the variables `(name, Some(text))` defined
    /// (the tokenizer's `bos_token`, ...).
    pub(crate) fn with_special_tokens<const N: usize>(
        source: &str,
        tokens: [(&'static str, Option<&str>); N],
    ) -> Result<Self, Error> {
        let mut env = Environment::new();
        let syntax = SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|e| template_error("ChatTemplate::new", &e))?;
        env.set_syntax(syntax);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function(
            "raise_exception",
            |message: String| -> Result<Value, minijinja::Error> {
                Err(minijinja::Error::new(ErrorKind::InvalidOperation, message))
            },
        );
        for (name, text) in tokens {
            if let Some(text) = text {
                env.add_global(name, text.to_owned());
            }
        }
        env.add_template_owned(NAME, source.to_owned())
            .map_err(|e| template_error("ChatTemplate::new", &e))?;
        Ok(Self {
            env,
            source: source.to_owned(),
        })
    }

    /// The template's source text.
    ///
    /// ```
    /// # use llm_from_scratch::tokenizer::ChatTemplate;
    /// assert_eq!(ChatTemplate::new("hi")?.source(), "hi");
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The text of `messages`; `add_generation_prompt` asks the template
    /// to end with the opening of the assistant's reply.
    ///
    /// # Errors
    /// [`Error::ChatTemplate`] with MiniJinja's message when rendering
    /// fails (a `raise_exception` call, an unknown filter, ...).
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::{ChatMessage, ChatTemplate};
    /// let t = ChatTemplate::new("{{ raise_exception('roles must alternate') }}")?;
    /// let err = t.render(&[ChatMessage::user("x")], false).unwrap_err();
    /// assert!(err.to_string().contains("roles must alternate"));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn render(
        &self,
        messages: &[ChatMessage],
        add_generation_prompt: bool,
    ) -> Result<String, Error> {
        const OP: &str = "render_chat";
        let messages: Value = messages
            .iter()
            .map(|m| {
                let mut map = BTreeMap::new();
                map.insert("role".to_owned(), Value::from(m.role.as_str()));
                map.insert("content".to_owned(), Value::from(m.content.as_str()));
                Value::from(map)
            })
            .collect();
        let mut context = BTreeMap::new();
        context.insert("messages".to_owned(), messages);
        context.insert(
            "add_generation_prompt".to_owned(),
            Value::from(add_generation_prompt),
        );
        let template = self
            .env
            .get_template(NAME)
            .map_err(|e| template_error(OP, &e))?;
        template
            .render(Value::from(context))
            .map_err(|e| template_error(OP, &e))
    }
}

/// [`Error::ChatTemplate`] from a MiniJinja error, with its causes.
fn template_error(op: &'static str, error: &minijinja::Error) -> Error {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    Error::ChatTemplate { op, message }
}
