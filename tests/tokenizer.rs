//! The tokenizer on SmolLM2-135M-Instruct's real vocabulary, against
//! Hugging Face `transformers` reading the same GGUF
//! (`scripts/smollm2_reference.py`): 45 strings (code, digits, whitespace
//! runs, accents, CJK, emoji, literal special tokens) encoded to the same
//! ids and decoded to the same text, and the chat prompt of
//! `reference.json` rendered and encoded to its 37 ids.
//!
//! The fixture `tests/fixtures/smollm2/tokenizer.gguf` is the model file's
//! metadata with no tensors.

use llm_from_scratch::tokenizer::{ChatMessage, PreTokenizer, TokenType, Tokenizer, TokenizerSpec};
use serde_json::Value;
use std::path::PathBuf;

/// Test scaffolding, replaced by `crate::tensor::gguf` at merge: a walker
/// over the key-value section of a GGUF v3 file, enough to read the
/// `tokenizer.*` keys (layout: magic `GGUF`, u32 version, u64 tensor count,
/// u64 key count, then per key: u64 length + bytes, u32 type, value;
/// strings are u64 length + bytes; arrays are u32 item type, u64 count,
/// items; all little-endian).
mod gguf_meta {
    use std::collections::HashMap;

    /// A metadata value.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Meta {
        Int(i64),
        Float(f64),
        Bool(bool),
        Str(String),
        Array(Vec<Meta>),
    }

    impl Meta {
        pub fn as_str(&self) -> Option<&str> {
            match self {
                Meta::Str(s) => Some(s),
                _ => None,
            }
        }
        pub fn as_int(&self) -> Option<i64> {
            match self {
                Meta::Int(i) => Some(*i),
                _ => None,
            }
        }
        pub fn as_bool(&self) -> Option<bool> {
            match self {
                Meta::Bool(b) => Some(*b),
                _ => None,
            }
        }
        pub fn as_array(&self) -> Option<&[Meta]> {
            match self {
                Meta::Array(a) => Some(a),
                _ => None,
            }
        }
    }

    struct Reader<'a> {
        bytes: &'a [u8],
        at: usize,
    }

    impl Reader<'_> {
        fn take(&mut self, n: usize) -> Result<&[u8], String> {
            let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
            let end = end.ok_or_else(|| format!("truncated at byte {}", self.at))?;
            let out = &self.bytes[self.at..end];
            self.at = end;
            Ok(out)
        }
        fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
            Ok(self.take(N)?.try_into().expect("N bytes"))
        }
        fn u32(&mut self) -> Result<u32, String> {
            Ok(u32::from_le_bytes(self.array()?))
        }
        fn u64(&mut self) -> Result<u64, String> {
            Ok(u64::from_le_bytes(self.array()?))
        }
        fn len(&mut self) -> Result<usize, String> {
            let n = self.u64()?;
            // Every item takes at least one byte: a count past the rest is corrupt.
            usize::try_from(n)
                .ok()
                .filter(|&n| n <= self.bytes.len() - self.at)
                .ok_or_else(|| format!("count {n} past the end of the file"))
        }
        fn string(&mut self) -> Result<String, String> {
            let n = self.len()?;
            String::from_utf8(self.take(n)?.to_vec()).map_err(|e| e.to_string())
        }
        fn value(&mut self, kind: u32) -> Result<Meta, String> {
            Ok(match kind {
                0 => Meta::Int(i64::from(self.array::<1>()?[0])),
                1 => Meta::Int(i64::from(i8::from_le_bytes(self.array()?))),
                2 => Meta::Int(i64::from(u16::from_le_bytes(self.array()?))),
                3 => Meta::Int(i64::from(i16::from_le_bytes(self.array()?))),
                4 => Meta::Int(i64::from(self.u32()?)),
                5 => Meta::Int(i64::from(i32::from_le_bytes(self.array()?))),
                6 => Meta::Float(f64::from(f32::from_le_bytes(self.array()?))),
                7 => Meta::Bool(self.array::<1>()?[0] != 0),
                8 => Meta::Str(self.string()?),
                9 => {
                    let item = self.u32()?;
                    let n = self.len()?;
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(self.value(item)?);
                    }
                    Meta::Array(items)
                }
                10 => Meta::Int(i64::try_from(self.u64()?).map_err(|e| e.to_string())?),
                11 => Meta::Int(i64::from_le_bytes(self.array()?)),
                12 => Meta::Float(f64::from_le_bytes(self.array()?)),
                _ => return Err(format!("unknown value type {kind}")),
            })
        }
    }

    /// The key-value metadata of a GGUF v3 file.
    pub fn read(bytes: &[u8]) -> Result<HashMap<String, Meta>, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4)? != b"GGUF" {
            return Err("not a GGUF file".into());
        }
        let version = r.u32()?;
        if version != 3 {
            return Err(format!("GGUF version {version}, expected 3"));
        }
        let _tensors = r.u64()?;
        let keys = r.len()?;
        let mut meta = HashMap::new();
        for _ in 0..keys {
            let key = r.string()?;
            let kind = r.u32()?;
            meta.insert(key, r.value(kind)?);
        }
        Ok(meta)
    }
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/smollm2")
        .join(name)
}

fn json(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name)).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

/// The spec from the GGUF metadata (what `crate::tensor::gguf` will fill).
fn smollm2_spec() -> TokenizerSpec {
    let bytes = std::fs::read(fixture("tokenizer.gguf")).expect("tokenizer.gguf");
    let meta = gguf_meta::read(&bytes).expect("GGUF metadata");
    let strings = |key: &str| -> Vec<String> {
        meta[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let id = |key: &str| {
        meta.get(key)
            .map(|v| u32::try_from(v.as_int().unwrap()).unwrap())
    };
    let mut spec = TokenizerSpec::default();
    spec.model = meta["tokenizer.ggml.model"].as_str().unwrap().to_owned();
    spec.pre = meta["tokenizer.ggml.pre"].as_str().unwrap().to_owned();
    spec.tokens = strings("tokenizer.ggml.tokens");
    spec.merges = strings("tokenizer.ggml.merges");
    spec.token_types = meta["tokenizer.ggml.token_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| i32::try_from(v.as_int().unwrap()).unwrap())
        .collect();
    spec.bos = id("tokenizer.ggml.bos_token_id");
    spec.eos = id("tokenizer.ggml.eos_token_id");
    spec.pad = id("tokenizer.ggml.padding_token_id");
    spec.unk = id("tokenizer.ggml.unknown_token_id");
    spec.add_bos = meta["tokenizer.ggml.add_bos_token"].as_bool().unwrap();
    spec.chat_template = meta
        .get("tokenizer.chat_template")
        .map(|v| v.as_str().unwrap().to_owned());
    spec
}

fn smollm2() -> Tokenizer {
    Tokenizer::new(smollm2_spec()).expect("SmolLM2's tokenizer")
}

fn ids_of(value: &Value) -> Vec<u32> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| u32::try_from(v.as_u64().unwrap()).unwrap())
        .collect()
}

#[test]
fn the_gguf_builds_the_expected_tokenizer() {
    let spec = smollm2_spec();
    assert_eq!((spec.model.as_str(), spec.pre.as_str()), ("gpt2", "smollm"));
    assert_eq!((spec.tokens.len(), spec.merges.len()), (49152, 48900));
    let tok = Tokenizer::new(spec).unwrap();
    assert_eq!(tok.pre_tokenizer(), PreTokenizer::Smollm);
    assert_eq!(
        (tok.bos(), tok.eos(), tok.pad(), tok.unk()),
        (Some(1), Some(2), Some(2), Some(0))
    );
    assert_eq!(tok.counts(), (48900, 17)); // the 17 control tokens
    assert_eq!(tok.token_type(1), Some(TokenType::Control));
    assert_eq!(tok.id_to_token(1), Some("<|im_start|>"));
    assert_eq!(tok.token_to_id("Ġ"), Some(216));
}

#[test]
fn all_45_strings_match_transformers() {
    let tok = smollm2();
    let cases = json("tokenizer_cases.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 45);
    let mut failures = Vec::new();
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let expected = ids_of(&case["ids"]);
        let ids = tok.encode(text).unwrap();
        if ids != expected {
            failures.push(format!("{text:?}\n  ours   {ids:?}\n  theirs {expected:?}"));
        }
        let decoded = tok.decode(&expected).unwrap();
        assert_eq!(
            decoded,
            case["decoded"].as_str().unwrap(),
            "decode of {text:?}"
        );
        // One id at a time: the same text, and never a broken character.
        let mut stream = tok.stream();
        let mut streamed = String::new();
        for &id in &expected {
            streamed.push_str(&stream.push(id).unwrap());
            assert!(stream.pending_len() <= 3);
        }
        streamed.push_str(&stream.finish());
        assert_eq!(streamed, decoded, "stream decode of {text:?}");
    }
    assert!(
        failures.is_empty(),
        "{} of 45 differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_chat_prompt_matches_transformers() {
    let tok = smollm2();
    let reference = json("reference.json");
    let messages: Vec<ChatMessage> = reference["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| ChatMessage::new(m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    let text = tok.render_chat(&messages, true).unwrap();
    assert_eq!(text, reference["prompt_text"].as_str().unwrap());
    let system = reference["default_system_prompt"].as_str().unwrap();
    assert!(
        text.contains(system),
        "the template's default system prompt"
    );
    let ids = tok.encode_chat(&messages, true).unwrap();
    assert_eq!(ids, ids_of(&reference["prompt_ids"]));
    assert_eq!(ids.len(), 37);
    assert_eq!(tok.encode(&text).unwrap(), ids); // add_bos is false
}

#[test]
fn chat_template_branches() {
    let tok = smollm2();
    // A system message of the caller's replaces the default one.
    let text = tok
        .render_chat(
            &[ChatMessage::system("Be brief."), ChatMessage::user("Hi")],
            false,
        )
        .unwrap();
    assert_eq!(
        text,
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
    );
    // A whole exchange, then the generation prompt.
    let text = tok
        .render_chat(
            &[ChatMessage::user("Hi"), ChatMessage::assistant("Hello!")],
            true,
        )
        .unwrap();
    assert!(text.starts_with("<|im_start|>system\nYou are a helpful AI assistant named SmolLM"));
    assert!(text.ends_with(
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>assistant\n"
    ));
}

#[test]
fn streaming_holds_back_split_characters() {
    let tok = smollm2();
    // Emoji and CJK characters are three or four bytes, often split over tokens.
    let text = "emoji 😀🎉👍 日本語 Straße";
    let ids = tok.encode(text).unwrap();
    let mut stream = tok.stream();
    let mut out = String::new();
    let mut held = 0;
    for &id in &ids {
        let piece = stream.push(id).unwrap();
        held += usize::from(stream.pending_len() > 0);
        out.push_str(&piece);
        assert!(text.starts_with(&out), "{out:?} is not a prefix");
    }
    assert!(held > 0, "some character spans tokens in this text");
    assert_eq!(stream.finish(), "");
    assert_eq!(out, text);
}

#[test]
fn bytes_without_a_token_are_errors() {
    let tok = smollm2();
    let err = tok.encode("ok \u{4} no").unwrap_err();
    assert_eq!(
        err.to_string(),
        "encode: the byte 0x04 at offset 3 of the text has no token in the vocabulary"
    );
    assert!(tok.encode("\u{40000}").is_err()); // F1 80 80 80: 0xF1 has no token
    assert_eq!(tok.encode("\u{F0000}").unwrap().len(), 4); // F3 B0 80 80 has
    assert!(tok.decode(&[49152]).is_err());
}
