//! GPT-2's byte-level alphabet: every byte is spelled as one printable
//! Unicode character, so a byte-level BPE vocabulary is a list of ordinary
//! strings (`"Ġthe"` is the bytes `" the"`).
//!
//! The rule is GPT-2's `bytes_to_unicode` (OpenAI `encoder.py`, kept by
//! Hugging Face `tokenizers`' `ByteLevel` and llama.cpp's `unicode.cpp`):
//! the 188 bytes that are printable Latin-1 (`'!'..='~'`, `'¡'..='¬'`,
//! `'®'..='ÿ'`) stand for themselves; the other 68 bytes (controls, space,
//! DEL, the C1 range, NBSP and the soft hyphen), in increasing order, take
//! the characters U+0100, U+0101, ... U+0143. So space (0x20) is `'Ġ'`
//! (U+0120) and newline (0x0A) is `'Ċ'` (U+010A).

/// Whether a byte is one of the 188 that stand for themselves.
const fn stands_for_itself(byte: u8) -> bool {
    matches!(byte, 33..=126 | 161..=172 | 174..=255)
}

/// The character that spells each byte.
const BYTE_TO_CHAR: [char; 256] = {
    let mut table = ['\0'; 256];
    let mut shifted = 0u32;
    let mut byte = 0usize;
    while byte < 256 {
        table[byte] = if stands_for_itself(byte as u8) {
            byte as u8 as char
        } else {
            let code = 256 + shifted;
            shifted += 1;
            match char::from_u32(code) {
                Some(c) => c,
                None => '\0', // unreachable: 256..324 are all scalar values
            }
        };
        byte += 1;
    }
    table
};

/// One past the largest code point of the alphabet (U+0143).
const ALPHABET_END: usize = 256 + 68;

/// The byte each alphabet character spells, by code point.
const CHAR_TO_BYTE: [Option<u8>; ALPHABET_END] = {
    let mut table = [None; ALPHABET_END];
    let mut byte = 0usize;
    while byte < 256 {
        table[BYTE_TO_CHAR[byte] as usize] = Some(byte as u8);
        byte += 1;
    }
    table
};

/// The alphabet character that spells `byte`.
pub(crate) fn byte_char(byte: u8) -> char {
    BYTE_TO_CHAR[usize::from(byte)]
}

/// The byte that the alphabet character `c` spells, `None` for a character
/// outside the alphabet.
pub(crate) fn char_byte(c: char) -> Option<u8> {
    CHAR_TO_BYTE.get(c as usize).copied().flatten()
}

/// The bytes a token string spells: each character through the alphabet,
/// or, if any character is outside it, the string's own UTF-8 (a control
/// token such as `<|im_end|>` is plain ASCII, so both readings agree; an
/// added token in another script keeps its text). This is the fallback of
/// Hugging Face's `ByteLevel` decoder.
pub(crate) fn token_bytes(token: &str, out: &mut Vec<u8>) {
    let start = out.len();
    for c in token.chars() {
        match char_byte(c) {
            Some(b) => out.push(b),
            None => {
                out.truncate(start);
                out.extend_from_slice(token.as_bytes());
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_characters_of_gpt2() {
        assert_eq!(byte_char(b' '), 'Ġ');
        assert_eq!(byte_char(b'\n'), 'Ċ');
        assert_eq!(byte_char(b'\t'), 'ĉ');
        assert_eq!(byte_char(b'\r'), 'č');
        assert_eq!(byte_char(0), '\u{100}');
        assert_eq!(byte_char(b'a'), 'a');
        assert_eq!(byte_char(0x7f), '\u{121}'); // DEL follows the 33 below '!'
        assert_eq!(byte_char(0xad), '\u{143}'); // the soft hyphen is last
        assert_eq!(byte_char(0xe9), 'é');
    }

    #[test]
    fn the_alphabet_is_a_bijection() {
        let mut seen = std::collections::HashSet::new();
        for b in 0..=255u8 {
            let c = byte_char(b);
            assert!(seen.insert(c));
            assert_eq!(char_byte(c), Some(b));
            assert!(!c.is_whitespace() && !c.is_control(), "{b:#x} -> {c:?}");
        }
        assert_eq!(char_byte(' '), None);
        assert_eq!(char_byte('\u{144}'), None);
        assert_eq!(char_byte('語'), None);
    }

    #[test]
    fn token_bytes_falls_back_to_the_text() {
        let mut out = Vec::new();
        token_bytes("Ġhi", &mut out);
        assert_eq!(out, b" hi");
        token_bytes("<|im_end|>", &mut out);
        assert_eq!(out, b" hi<|im_end|>");
        out.clear();
        token_bytes("ab語", &mut out); // '語' is outside the alphabet
        assert_eq!(out, "ab語".as_bytes());
    }
}
