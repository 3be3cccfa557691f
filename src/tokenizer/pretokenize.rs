//! The pre-tokenizer: the split of a text into pieces ("words") that BPE
//! then encodes one at a time, so no token spans two pieces.
//!
//! The rules are documented on [`PreTokenizer`].

use crate::error::Error;
use unicode_general_category::{GeneralCategory, get_general_category};

/// A pre-tokenizer rule.
///
/// Two rules, named as GGUF's `tokenizer.ggml.pre` names them:
///
/// - **`gpt2`**: GPT-2's regex (OpenAI `encoder.py`; Hugging Face
///   `ByteLevel(use_regex=true)`; llama.cpp `LLAMA_VOCAB_PRE_TYPE_GPT2`)
///   `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
///   taken match after match from the left.
/// - **`smollm`**: every number character alone first, then the GPT-2
///   regex on the text between them (llama.cpp `LLAMA_VOCAB_PRE_TYPE_SMOLLM`,
///   the regex list `\p{N}` then GPT-2's; Hugging Face's tokenizer.json of
///   SmolLM2 is `Sequence[Digits(individual_digits), ByteLevel]`, the same
///   split). Transformers, loading a GGUF, builds plain `ByteLevel` (the
///   `gpt2` rule) instead; the two give different ids only where a run of
///   two or more whitespace characters precedes a number (`"a  1"`: `smollm`
///   gives `"a"`, `"  "`, `"1"`, `gpt2` gives `"a"`, `" "`, `" 1"`), or for a
///   run of several numbers that a merge joins (none in SmolLM2's
///   vocabulary, trained on single digits).
///   [`Tokenizer::with_pre_tokenizer`](crate::tokenizer::Tokenizer::with_pre_tokenizer)
///   chooses the rule; the `llama` example follows transformers by default.
///
/// The regex's `\s+(?!\S)` needs a lookahead, which the `regex` crate does
/// not have; the split is written here as a scanner instead (no regex
/// engine, one pass, no allocation), one rule per branch of the regex, in
/// the regex's order. The classes: `\s` is Unicode `White_Space`
/// ([`char::is_whitespace`]), `\p{L}` the general categories `L*`, `\p{N}`
/// the categories `N*`.
///
/// ```
/// use llm_from_scratch::tokenizer::PreTokenizer;
///
/// let gpt2 = PreTokenizer::from_gguf_name("gpt2")?;
/// let pieces: Vec<&str> = gpt2.split("Hi there  you're 42").collect();
/// assert_eq!(pieces, ["Hi", " there", " ", " you", "'re", " 42"]);
///
/// let smollm = PreTokenizer::from_gguf_name("smollm")?;
/// let pieces: Vec<&str> = smollm.split("x  42").collect();
/// assert_eq!(pieces, ["x", "  ", "4", "2"]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PreTokenizer {
    /// GPT-2's regex.
    Gpt2,
    /// Each number character alone, then GPT-2's regex (SmolLM, StarCoder).
    Smollm,
}

/// The names [`PreTokenizer::from_gguf_name`] knows, for its error.
const SUPPORTED: &str = "gpt2, smollm";

impl PreTokenizer {
    /// The rule GGUF's `tokenizer.ggml.pre` names.
    ///
    /// # Errors
    /// [`Error::UnsupportedTokenizer`] for any name but `gpt2` and `smollm`
    /// (llama.cpp knows more; each is a different split).
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::PreTokenizer;
    /// assert_eq!(PreTokenizer::from_gguf_name("smollm")?, PreTokenizer::Smollm);
    /// assert!(PreTokenizer::from_gguf_name("llama-bpe").is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn from_gguf_name(name: &str) -> Result<Self, Error> {
        match name {
            "gpt2" => Ok(Self::Gpt2),
            "smollm" => Ok(Self::Smollm),
            _ => Err(Error::UnsupportedTokenizer {
                key: "tokenizer.ggml.pre",
                name: name.to_owned(),
                supported: SUPPORTED,
            }),
        }
    }

    /// The rule's GGUF name (`"gpt2"`, `"smollm"`).
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::PreTokenizer;
    /// assert_eq!(PreTokenizer::Smollm.gguf_name(), "smollm");
    /// ```
    pub fn gguf_name(self) -> &'static str {
        match self {
            Self::Gpt2 => "gpt2",
            Self::Smollm => "smollm",
        }
    }

    /// The pieces of `text`, in order; they concatenate back to `text`, and
    /// none is empty. Borrows `text`, allocates nothing.
    ///
    /// ```
    /// use llm_from_scratch::tokenizer::PreTokenizer;
    /// let pieces: Vec<&str> = PreTokenizer::Gpt2.split("a\n\n  b").collect();
    /// assert_eq!(pieces, ["a", "\n\n ", " b"]);
    /// ```
    pub fn split(self, text: &str) -> Pieces<'_> {
        Pieces {
            rest: text,
            isolate_numbers: self == Self::Smollm,
        }
    }
}

/// The pieces of a text ([`PreTokenizer::split`]).
///
/// ```
/// use llm_from_scratch::tokenizer::PreTokenizer;
/// let mut pieces = PreTokenizer::Gpt2.split("don't");
/// assert_eq!(pieces.next(), Some("don"));
/// assert_eq!(pieces.next(), Some("'t"));
/// assert_eq!(pieces.next(), None);
/// ```
#[derive(Debug, Clone)]
pub struct Pieces<'a> {
    rest: &'a str,
    isolate_numbers: bool,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let len = first_piece_len(self.rest, self.isolate_numbers);
        let (piece, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(piece)
    }
}

/// The class of a character for the regex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `\s`.
    Space,
    /// `\p{L}`.
    Letter,
    /// `\p{N}`.
    Number,
    /// `[^\s\p{L}\p{N}]`.
    Other,
}

fn class(c: char) -> Class {
    if c.is_ascii() {
        return match c {
            'a'..='z' | 'A'..='Z' => Class::Letter,
            '0'..='9' => Class::Number,
            _ if c.is_ascii_whitespace() || c == '\x0b' => Class::Space,
            _ => Class::Other,
        };
    }
    if c.is_whitespace() {
        return Class::Space;
    }
    use GeneralCategory as G;
    match get_general_category(c) {
        G::UppercaseLetter
        | G::LowercaseLetter
        | G::TitlecaseLetter
        | G::ModifierLetter
        | G::OtherLetter => Class::Letter,
        G::DecimalNumber | G::LetterNumber | G::OtherNumber => Class::Number,
        _ => Class::Other,
    }
}

/// GPT-2's contractions, in the regex's order (case-sensitive).
const CONTRACTIONS: [&str; 7] = ["s", "t", "re", "ve", "m", "ll", "d"];

/// The byte length of the first piece of the non-empty `text`. With
/// `isolate_numbers` a number character is a piece alone and ends the text
/// the regex sees (the text between two numbers is split on its own).
fn first_piece_len(text: &str, isolate_numbers: bool) -> usize {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return 0;
    };
    let first_class = class(first);
    // The `smollm` number split: the number alone.
    if isolate_numbers && first_class == Class::Number {
        return first.len_utf8();
    }
    // The class of the character after `first`, `None` at the end of the
    // text the regex sees.
    let second = chars
        .next()
        .map(|c| (c, class(c)))
        .filter(|&(_, k)| !(isolate_numbers && k == Class::Number));
    // `'s|'t|'re|'ve|'m|'ll|'d`
    if first == '\''
        && let Some(suffix) = CONTRACTIONS.iter().find(|s| text[1..].starts_with(**s))
    {
        return 1 + suffix.len();
    }
    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional ASCII space
    // and a run of one class (a number run never meets an isolated number).
    let run_start = match (first, second) {
        (' ', Some((c, k))) if k != Class::Space => Some((1, c, k)),
        (_, _) if first_class != Class::Space => Some((0, first, first_class)),
        _ => None,
    };
    if let Some((start, c, k)) = run_start {
        let after = start + c.len_utf8();
        let run = text[after..]
            .char_indices()
            .find(|&(_, c)| class(c) != k)
            .map_or(text.len(), |(i, _)| after + i);
        return run;
    }
    // `\s+(?!\S)|\s+`: a whitespace run. Followed by the end (or, with
    // `isolate_numbers`, by a number), all of it; followed by anything else,
    // all but its last character when it has two or more (that one then
    // leads the next piece), else the one character.
    let mut end = 0;
    let mut last_len = 0;
    for c in text.chars() {
        if class(c) != Class::Space {
            let ends_text = isolate_numbers && class(c) == Class::Number;
            if ends_text || end == last_len {
                return end;
            }
            return end - last_len;
        }
        end += c.len_utf8();
        last_len = c.len_utf8();
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpt2(text: &str) -> Vec<&str> {
        PreTokenizer::Gpt2.split(text).collect()
    }

    fn smollm(text: &str) -> Vec<&str> {
        PreTokenizer::Smollm.split(text).collect()
    }

    #[test]
    fn gpt2_regex_branches() {
        assert_eq!(gpt2("Hello, world!"), ["Hello", ",", " world", "!"]);
        assert_eq!(gpt2("   three"), ["  ", " three"]);
        assert_eq!(gpt2("trailing   "), ["trailing", "   "]);
        assert_eq!(
            gpt2("line1\n\nline3"),
            ["line", "1", "\n", "\n", "line", "3"]
        );
        assert_eq!(gpt2("\r\n windows"), ["\r\n", " windows"]);
        assert_eq!(gpt2("a \t b"), ["a", " \t", " b"]);
        assert_eq!(gpt2("x  \n"), ["x", "  \n"]);
        assert_eq!(gpt2("DON'T I'll"), ["DON", "'", "T", " I", "'ll"]);
        assert_eq!(gpt2(" 's"), [" '", "s"]);
        assert_eq!(gpt2("!'s"), ["!'", "s"]);
        assert_eq!(gpt2("'"), ["'"]);
        assert_eq!(gpt2("1999 x²"), ["1999", " x", "²"]);
        assert_eq!(gpt2("café naïve"), ["café", " naïve"]);
        assert_eq!(gpt2("日本語。"), ["日本語", "。"]);
        assert_eq!(gpt2("a 😀🎉"), ["a", " 😀🎉"]);
        assert_eq!(gpt2("\u{a0}x"), ["\u{a0}", "x"]); // NBSP is \s but not ' '
        assert!(gpt2("").is_empty());
    }

    #[test]
    fn smollm_isolates_numbers() {
        assert_eq!(smollm("1234"), ["1", "2", "3", "4"]);
        assert_eq!(smollm("a 1"), ["a", " ", "1"]);
        assert_eq!(smollm("a  1"), ["a", "  ", "1"]);
        assert_eq!(gpt2("a  1"), ["a", " ", " 1"]); // the one kind of difference
        assert_eq!(smollm("x2y"), ["x", "2", "y"]);
        assert_eq!(smollm("v1.2"), ["v", "1", ".", "2"]);
        assert_eq!(smollm("٣٤"), ["٣", "٤"]); // Arabic-Indic digits are \p{N}
        assert_eq!(smollm("Hi there"), gpt2("Hi there"));
    }

    #[test]
    fn pieces_cover_the_text() {
        let text = "class Foo:\n    def __init__(self):\n\t\tpass  \n \u{3000}x 12 ab'c";
        for rule in [PreTokenizer::Gpt2, PreTokenizer::Smollm] {
            let pieces: Vec<&str> = rule.split(text).collect();
            assert!(pieces.iter().all(|p| !p.is_empty()));
            assert_eq!(pieces.concat(), text);
        }
    }

    #[test]
    fn unknown_name_is_an_error() {
        let err = PreTokenizer::from_gguf_name("qwen2").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Tokenizer::new: tokenizer.ggml.pre `qwen2` is not supported (supported: gpt2, smollm)"
        );
    }
}
