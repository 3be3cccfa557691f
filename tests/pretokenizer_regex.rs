//! The pre-tokenizer's scanner against the regex it replaces: GPT-2's
//! pattern run by `fancy-regex` (which has the lookahead `\s+(?!\S)`), and
//! for `smollm` the `\p{N}` split first with the pattern on the text
//! between numbers (llama.cpp's regex list for SmolLM). Random strings over
//! an alphabet of every class and boundary case: ASCII and Unicode spaces
//! (NBSP, U+3000, U+2028, VT, NEL; U+001C is not `\s`), letters of several
//! scripts, decimal and other numbers, marks, ZWJ, emoji, apostrophes and
//! the letters of the contractions.

use fancy_regex::Regex;
use llm_from_scratch::tokenizer::PreTokenizer;

const GPT2: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

fn matches<'a>(re: &Regex, text: &'a str) -> Vec<&'a str> {
    re.find_iter(text)
        .map(|m| m.expect("regex").as_str())
        .collect()
}

#[test]
fn the_scanner_splits_as_the_regex_does() {
    let gpt2 = Regex::new(GPT2).unwrap();
    let number = Regex::new(r"\p{N}").unwrap();
    let alphabet: Vec<char> =
        " \t\n\r\u{a0}\u{3000}\u{2028}\u{b}\u{1c}\u{85}'aZé語ß1٣²Ⅻ.,!-_😀\u{200d}\u{301}sStrevmld"
            .chars()
            .collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        alphabet[(state >> 33) as usize % alphabet.len()]
    };
    for len in 0..32 {
        for _ in 0..500 {
            let text: String = (0..len).map(|_| next()).collect();
            let ours: Vec<&str> = PreTokenizer::Gpt2.split(&text).collect();
            assert_eq!(ours, matches(&gpt2, &text), "gpt2 on {text:?}");

            let mut expected = Vec::new();
            let mut from = 0;
            for m in number.find_iter(&text) {
                let m = m.unwrap();
                expected.extend(matches(&gpt2, &text[from..m.start()]));
                expected.push(m.as_str());
                from = m.end();
            }
            expected.extend(matches(&gpt2, &text[from..]));
            let ours: Vec<&str> = PreTokenizer::Smollm.split(&text).collect();
            assert_eq!(ours, expected, "smollm on {text:?}");
        }
    }
}
