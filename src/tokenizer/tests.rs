//! The tokenizer end to end on a small hand-made vocabulary: every byte,
//! a few merges, a control and a user-defined token.

use super::byte_level::byte_char;
use super::{ChatMessage, ChatTemplate, TokenType, Tokenizer, TokenizerSpec};
use crate::error::Error;

/// The 256 byte tokens (ids 0..256, id = byte), then merged tokens and
/// two special ones.
const EXTRA: [&str; 7] = ["Ġt", "he", "Ġthe", "ðŁ", "ðŁĺ", "<|end|>", "<user>"];
const MERGES: [&str; 5] = ["Ġ t", "h e", "Ġt he", "ð Ł", "ðŁ ĺ"];

fn id(token: &str) -> u32 {
    if let [c] = token.chars().collect::<Vec<_>>()[..]
        && let Some(b) = (0..=255u8).find(|&b| byte_char(b) == c)
    {
        return u32::from(b);
    }
    256 + EXTRA.iter().position(|t| *t == token).unwrap() as u32
}

fn spec() -> TokenizerSpec {
    let mut tokens: Vec<String> = (0..=255u8).map(|b| byte_char(b).to_string()).collect();
    tokens.extend(EXTRA.iter().map(|t| t.to_string()));
    let mut spec = TokenizerSpec::gpt2(tokens, MERGES.iter().map(|m| m.to_string()).collect());
    spec.token_types = vec![1; 256 + EXTRA.len()];
    spec.token_types[id("<|end|>") as usize] = 3;
    spec.token_types[id("<user>") as usize] = 4;
    spec.eos = Some(id("<|end|>"));
    spec
}

fn tok() -> Tokenizer {
    Tokenizer::new(spec()).unwrap()
}

#[test]
fn merges_by_rank() {
    let t = tok();
    let ids = |s: &[&str]| s.iter().map(|s| id(s)).collect::<Vec<_>>();
    assert_eq!(t.encode("the the").unwrap(), ids(&["t", "he", "Ġthe"]));
    assert_eq!(t.encode(" th").unwrap(), ids(&["Ġt", "h"]));
    assert_eq!(t.encode("hello").unwrap(), ids(&["he", "l", "l", "o"]));
    assert_eq!(t.encode("").unwrap(), [] as [u32; 0]);
    // "😀" is F0 9F 98 80: "ð" "Ł" "ĺ" "Ģ" -> "ðŁ" -> "ðŁĺ", "Ģ".
    assert_eq!(t.encode("😀").unwrap(), ids(&["ðŁĺ", "Ģ"]));
}

#[test]
fn special_tokens_in_text() {
    let t = tok();
    let (end, user) = (id("<|end|>"), id("<user>"));
    let x = u32::from(b'x');
    let sp = id("Ġ");
    assert_eq!(t.encode("x<|end|>x").unwrap(), [x, end, x]);
    assert_eq!(t.encode(" <|end|> ").unwrap(), [sp, end, sp]); // no stripping
    assert_eq!(t.encode("<user><|end|>").unwrap(), [user, end]);
    assert_eq!(t.encode("<|end|").unwrap().len(), 6); // not whole: bytes
    assert_eq!(t.encode("<|end |>").unwrap().len(), 8);
    assert_eq!(t.decode(&[x, end, user]).unwrap(), "x<|end|><user>");
    assert_eq!(t.token_type(end), Some(TokenType::Control));
    assert_eq!(t.counts(), (5, 2));
}

#[test]
fn bos_is_added_when_the_spec_says_so() {
    let mut spec = spec();
    spec.bos = Some(id("<|end|>"));
    spec.add_bos = true;
    let t = Tokenizer::new(spec).unwrap();
    assert_eq!(t.encode("x").unwrap(), [id("<|end|>"), u32::from(b'x')]);
}

#[test]
fn decode_inverts_encode() {
    let t = tok();
    for text in [
        "the the",
        "a\u{0}\u{7f}\r\n\t b",
        "😀🎉 日本語 ï",
        "<|end|>x<user>",
        "",
    ] {
        let ids = t.encode(text).unwrap();
        assert_eq!(t.decode(&ids).unwrap(), text);
    }
    // A byte run that is not UTF-8: one U+FFFD per maximal invalid run.
    let (f0, x80, a) = (0xf0, 0x80, u32::from(b'a'));
    assert_eq!(
        t.decode(&[f0, a, x80, x80]).unwrap(),
        "\u{FFFD}a\u{FFFD}\u{FFFD}"
    );
    assert_eq!(t.token_bytes(id("ðŁĺ")).unwrap(), [0xf0, 0x9f, 0x98]);
    assert_eq!(
        t.decode(&[3, 999]).unwrap_err(),
        Error::TokenIdOutOfRange {
            op: "decode",
            id: 999,
            vocab_size: 263
        }
    );
}

#[test]
fn streaming_an_emoji_split_over_tokens() {
    let t = tok();
    let ids = t.encode("a😀b🎉").unwrap();
    let mut stream = t.stream();
    let pieces: Vec<String> = ids.iter().map(|&i| stream.push(i).unwrap()).collect();
    assert_eq!(pieces.concat() + &stream.finish(), "a😀b🎉");
    assert_eq!(pieces[0], "a");
    assert_eq!(pieces[1], ""); // "ðŁĺ": F0 9F 98 held back
    assert_eq!(pieces[2], "😀");
    // Every split of every id sequence agrees with decode.
    let bytes: Vec<u32> = "é😀x".bytes().map(u32::from).chain([0xff, 0xc3]).collect();
    let mut stream = t.stream();
    let streamed: String = bytes.iter().map(|&b| stream.push(b).unwrap()).collect();
    assert_eq!(streamed + &stream.finish(), t.decode(&bytes).unwrap());
    // A bad id leaves the stream as it was.
    let mut stream = t.stream();
    assert_eq!(stream.push(0xf0).unwrap(), "");
    assert!(stream.push(10_000).is_err());
    assert_eq!(stream.pending_len(), 1);
}

#[test]
fn spec_errors() {
    let mut s = spec();
    s.model = "llama".into();
    assert_eq!(
        Tokenizer::new(s).unwrap_err().to_string(),
        "Tokenizer::new: tokenizer.ggml.model `llama` is not supported (supported: gpt2)"
    );
    let mut s = spec();
    s.token_types.pop();
    assert_eq!(
        Tokenizer::new(s).unwrap_err(),
        Error::TokenTypesLengthMismatch {
            tokens: 263,
            types: 262
        }
    );
    let mut s = spec();
    s.token_types[5] = 7;
    assert_eq!(
        Tokenizer::new(s).unwrap_err(),
        Error::UnknownTokenType { id: 5, value: 7 }
    );
    let mut s = spec();
    s.pad = Some(263);
    assert_eq!(
        Tokenizer::new(s).unwrap_err().to_string(),
        "Tokenizer::new: token id 263 is not below the vocabulary size 263"
    );
    let mut s = spec();
    s.merges.push("Ġthe".into());
    assert!(matches!(
        Tokenizer::new(s),
        Err(Error::MalformedMerge { index: 5, .. })
    ));
    let mut s = spec();
    s.merges.push("Ġthe he".into());
    assert!(matches!(
        Tokenizer::new(s),
        Err(Error::UnknownMergeToken { index: 5, .. })
    ));
    let mut s = spec();
    s.chat_template = Some("{% if %}".into());
    assert!(matches!(
        Tokenizer::new(s),
        Err(Error::ChatTemplate {
            op: "ChatTemplate::new",
            ..
        })
    ));
    // A vocabulary without some byte builds; encoding that byte fails.
    let mut s = TokenizerSpec::gpt2(vec!["a".into()], vec![]);
    s.token_types = vec![1];
    let t = Tokenizer::new(s).unwrap();
    assert_eq!(
        t.encode("ab").unwrap_err(),
        Error::UnencodableByte {
            byte: b'b',
            offset: 1
        }
    );
    assert_eq!(
        t.render_chat(&[], false).unwrap_err().to_string(),
        "render_chat: the tokenizer has no chat template (no tokenizer.chat_template key)"
    );
}

#[test]
fn templates_render_as_transformers_does() {
    // trim_blocks: the newline after a block tag goes; lstrip_blocks: the
    // indentation before one goes.
    let t = ChatTemplate::new(
        "{% for m in messages %}\n  {% if m.role == 'user' %}\nU: {{ m.content.strip() }}\n  {% endif %}\n{% endfor %}\n{% if add_generation_prompt %}A:{% endif %}",
    )
    .unwrap();
    let messages = [
        ChatMessage::user("  hi "),
        ChatMessage::assistant("x"),
        ChatMessage::user("yo"),
    ];
    assert_eq!(t.render(&messages, true).unwrap(), "U: hi\nU: yo\nA:");
    assert_eq!(t.render(&messages, false).unwrap(), "U: hi\nU: yo\n");
    // The special tokens' texts are variables; raise_exception stops rendering.
    let mut s = spec();
    s.chat_template = Some(
        "{% if messages|length == 0 %}{{ raise_exception('no messages') }}{% endif %}{{ eos_token }}|{{ bos_token is defined }}"
            .into(),
    );
    let tk = Tokenizer::new(s).unwrap();
    assert_eq!(
        tk.render_chat(&[ChatMessage::user("a")], false).unwrap(),
        "<|end|>|False"
    );
    let err = tk.render_chat(&[], false).unwrap_err();
    assert!(
        matches!(&err, Error::ChatTemplate { op: "render_chat", message } if message.contains("no messages")),
        "{err}"
    );
    // No HTML escaping.
    let t = ChatTemplate::new("{{ messages[0].content }}").unwrap();
    assert_eq!(
        t.render(&[ChatMessage::user("<b>&</b>")], false).unwrap(),
        "<b>&</b>"
    );
}
