//! The tokenizer on SmolLM2-135M-Instruct's real vocabulary, against
//! Hugging Face `transformers` reading the same GGUF
//! (`scripts/smollm2_reference.py`): 53 strings (code, digits, whitespace
//! runs, whitespace before digits, accents, CJK, emoji, literal special
//! tokens) encoded to the same ids and decoded to the same text, and the
//! chat prompt of `reference.json` rendered and encoded to its 37 ids.
//!
//! transformers splits the text with GPT-2's regex whatever the file's
//! `tokenizer.ggml.pre` says ([`PreTokenizer::Gpt2`]); the file names
//! `smollm`, which the model's own tokenizer.json and llama.cpp apply with
//! each digit split off first ([`PreTokenizer::Smollm`], what
//! [`Tokenizer::from_gguf`] builds). Both readings are checked, each
//! against the `tokenizers` library applying that rule.
//!
//! The fixture `tests/fixtures/smollm2/tokenizer.gguf` is the model file's
//! metadata with no tensors.

use llm_from_scratch::tensor::gguf::Gguf;
use llm_from_scratch::tokenizer::{ChatMessage, PreTokenizer, TokenType, Tokenizer, TokenizerSpec};
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/smollm2")
        .join(name)
}

fn json(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name)).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

/// The spec from the GGUF metadata, read by the crate's GGUF reader.
fn smollm2_spec() -> TokenizerSpec {
    let bytes = std::fs::read(fixture("tokenizer.gguf")).expect("tokenizer.gguf");
    let gguf = Gguf::parse(&bytes).expect("GGUF metadata");
    TokenizerSpec::from_gguf(&gguf).expect("the tokenizer keys")
}

/// The tokenizer as transformers reads the GGUF: GPT-2's regex.
fn smollm2() -> Tokenizer {
    smollm2_gguf_rule().with_pre_tokenizer(PreTokenizer::Gpt2)
}

/// The tokenizer as the file's `smollm` rule says (llama.cpp's reading).
fn smollm2_gguf_rule() -> Tokenizer {
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
fn all_53_strings_match_transformers() {
    let tok = smollm2();
    let by_rule = smollm2_gguf_rule();
    let cases = json("tokenizer_cases.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 53);
    let mut failures = Vec::new();
    let mut readings_differ = 0;
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let expected = ids_of(&case["ids"]);
        let ids = tok.encode(text).unwrap();
        if ids != expected {
            failures.push(format!("{text:?}\n  ours   {ids:?}\n  theirs {expected:?}"));
        }
        let expected_by_rule = ids_of(&case["ids_gguf_rule"]);
        let ids = by_rule.encode(text).unwrap();
        if ids != expected_by_rule {
            failures.push(format!(
                "{text:?} (smollm rule)\n  ours   {ids:?}\n  theirs {expected_by_rule:?}"
            ));
        }
        readings_differ += usize::from(expected != expected_by_rule);
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
        "{} encodings differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The whitespace-before-a-digit cases are where the two readings part.
    assert_eq!(readings_differ, 7);
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
