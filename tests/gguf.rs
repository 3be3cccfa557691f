//! The GGUF reader on real files (the fixture of scripts/quant_fixture.py
//! and SmolLM2's metadata) and on hostile ones: truncated at every byte,
//! huge counts and lengths, bad alignment, offsets past the end, unknown
//! types. Every failure is a typed error; nothing panics or allocates
//! beyond the file's size.

use llm_from_scratch::Error;
use llm_from_scratch::tensor::gguf::{GgmlType, Gguf, GgufValue, GgufValueType};
use llm_from_scratch::tensor::quant::Q4_1;
use llm_from_scratch::tensor::weights::AlignedBytes;
use llm_from_scratch::tensor::{View, f16};
use proptest::prelude::*;

fn fixture() -> AlignedBytes {
    AlignedBytes::read("tests/fixtures/gguf/quant.gguf").expect("the fixture")
}

/// The error inside `Error::InTensor`, with the tensor's name.
fn in_tensor(error: Error) -> (String, Error) {
    match error {
        Error::InTensor { name, source } => (name, *source),
        other => panic!("not about a tensor: {other:?}"),
    }
}

#[test]
fn the_fixture_parses_with_its_metadata_and_tensors() {
    let bytes = fixture();
    let gguf = Gguf::parse(bytes.as_bytes()).unwrap();
    assert_eq!((gguf.version(), gguf.alignment()), (3, 32));
    assert_eq!(gguf.get_str("general.architecture").unwrap(), "test");
    assert_eq!(gguf.get_str("general.name").unwrap(), "quant fixture");
    assert_eq!(gguf.get_i32("test.i32").unwrap(), -7);
    assert_eq!(gguf.get_u64("test.u64").unwrap(), 1 << 40);
    assert_eq!(gguf.get_usize("test.u64").unwrap(), 1 << 40);
    assert!(gguf.get_bool("test.bool").unwrap());
    assert_eq!(gguf.get("test.f64"), Some(GgufValue::F64(0.1)));
    assert_eq!(gguf.get_array_f32("test.f32s").unwrap(), [0.5, -1.5]);
    assert_eq!(gguf.get_array_str("test.strings").unwrap(), ["a", "ß", ""]);
    assert!(matches!(
        gguf.get_usize("test.i32"),
        Err(Error::MetadataTypeMismatch {
            expected: "a non-negative integer",
            actual: "i32",
            ..
        })
    ));
    assert!(matches!(
        gguf.get_array_str("test.f32s"),
        Err(Error::MetadataTypeMismatch {
            actual: "array of f32",
            ..
        })
    ));
    let summary: Vec<_> = gguf
        .tensor_infos()
        .iter()
        .map(|t| (t.name(), t.shape().to_vec(), t.ggml_type()))
        .collect();
    assert_eq!(
        summary,
        [
            ("f32", vec![3, 5], GgmlType::F32),
            ("f16", vec![2, 8], GgmlType::F16),
            ("q8_0", vec![3, 64], GgmlType::Q8_0),
            ("q4_0", vec![2, 96], GgmlType::Q4_0),
            ("q4_1", vec![4, 64], GgmlType::Q4_1),
        ]
    );
    for info in gguf.tensor_infos() {
        assert_eq!(info.offset() % 32, 0);
        assert_eq!((gguf.data_offset() + info.offset() as usize) % 32, 0);
    }
    // F32 and F16 borrow the buffer in place.
    let w: View<'_, 2, f32> = gguf.view::<2, f32>("f32").unwrap();
    let start = w.storage().as_ptr() as usize - bytes.as_bytes().as_ptr() as usize;
    assert_eq!(start, gguf.data_offset());
    let h = gguf.view::<2, f16>("f16").unwrap();
    assert_eq!(h.shape(), &[2, 8]);
    // Wrong requests.
    let (name, error) = in_tensor(gguf.view::<1, f32>("f32").unwrap_err());
    assert_eq!(
        (name.as_str(), error),
        (
            "f32",
            Error::RankMismatch {
                op: "Gguf::view",
                expected: 1,
                actual: 2
            }
        )
    );
    let (_, error) = in_tensor(gguf.blocks::<2, Q4_1>("q8_0").unwrap_err());
    assert!(matches!(error, Error::WrongDtype { .. }));
    assert!(matches!(
        gguf.tensor::<2>("nope"),
        Err(Error::MissingTensor { .. })
    ));
}

#[test]
fn smollm2_metadata_parses() {
    let bytes = AlignedBytes::read("tests/fixtures/smollm2/tokenizer.gguf").unwrap();
    let gguf = Gguf::parse(bytes.as_bytes()).unwrap();
    assert_eq!(gguf.version(), 3);
    assert!(gguf.tensor_infos().is_empty());
    assert_eq!(gguf.get_str("general.architecture").unwrap(), "llama");
    assert_eq!(gguf.get_str("tokenizer.ggml.model").unwrap(), "gpt2");
    assert_eq!(gguf.get_str("tokenizer.ggml.pre").unwrap(), "smollm");
    for (key, value) in [
        ("llama.block_count", 30),
        ("llama.embedding_length", 576),
        ("llama.feed_forward_length", 1536),
        ("llama.attention.head_count", 9),
        ("llama.attention.head_count_kv", 3),
        ("llama.rope.dimension_count", 64),
        ("llama.vocab_size", 49152),
        ("llama.context_length", 8192),
    ] {
        assert_eq!(gguf.get_u32(key).unwrap(), value, "{key}");
    }
    assert_eq!(gguf.get_f32("llama.rope.freq_base").unwrap(), 100000.0);
    assert_eq!(
        gguf.get_f32("llama.attention.layer_norm_rms_epsilon")
            .unwrap(),
        1e-5
    );
    let tokens = gguf.get_array_str("tokenizer.ggml.tokens").unwrap();
    assert_eq!(tokens.len(), 49152);
    let eos = gguf.get_u32("tokenizer.ggml.eos_token_id").unwrap() as usize;
    assert_eq!(tokens[eos], "<|im_end|>");
    assert_eq!(
        gguf.get_array_i32("tokenizer.ggml.token_type")
            .unwrap()
            .len(),
        49152
    );
    assert_eq!(
        gguf.get_array_str("tokenizer.ggml.merges").unwrap().len(),
        48900
    );
    assert!(
        gguf.get_str("tokenizer.chat_template")
            .unwrap()
            .contains("<|im_start|>")
    );
    assert_eq!(gguf.metadata().len(), 33);
    let languages = gguf.get_array("general.languages").unwrap();
    assert_eq!(languages.item_type(), GgufValueType::String);
}

/// A GGUF file built field by field.
#[derive(Default)]
struct Builder(Vec<u8>);
impl Builder {
    fn header(version: u32, tensors: u64, entries: u64) -> Self {
        let mut b = Self(b"GGUF".to_vec());
        b.u32(version).u64(tensors).u64(entries);
        b
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.u64(s.len() as u64);
        self.0.extend(s.as_bytes());
        self
    }
    fn kv_u32(&mut self, key: &str, v: u32) -> &mut Self {
        self.str(key).u32(4).u32(v)
    }
    /// A tensor info with GGUF-order dims.
    fn info(&mut self, name: &str, dims: &[u64], ggml_type: u32, offset: u64) -> &mut Self {
        self.str(name).u32(dims.len() as u32);
        for &d in dims {
            self.u64(d);
        }
        self.u32(ggml_type).u64(offset)
    }
    /// Pads to `alignment` and appends `data`.
    fn data(&mut self, alignment: usize, data: &[u8]) -> &mut Self {
        while !self.0.len().is_multiple_of(alignment) {
            self.0.push(0);
        }
        self.0.extend(data);
        self
    }
    fn parse(&self) -> Result<(), Error> {
        let buffer = AlignedBytes::from_bytes(&self.0);
        Gguf::parse(buffer.as_bytes()).map(|_| ())
    }
}

#[test]
fn a_hand_built_file_parses() {
    let mut b = Builder::header(2, 1, 1);
    b.kv_u32("general.alignment", 64)
        .info("w", &[32, 2], 3, 0)
        .data(64, &[0; 40]);
    let buffer = AlignedBytes::from_bytes(&b.0);
    let gguf = Gguf::parse(buffer.as_bytes()).unwrap();
    assert_eq!(
        (gguf.version(), gguf.alignment(), gguf.data_offset() % 64),
        (2, 64, 0)
    );
    assert_eq!(gguf.blocks::<2, Q4_1>("w").unwrap().shape(), &[2, 32]);
}

#[test]
fn every_truncation_is_a_typed_error() {
    let bytes = fixture();
    let full = bytes.as_bytes();
    let mut kinds = std::collections::BTreeSet::new();
    for len in 0..full.len() {
        let cut = AlignedBytes::from_bytes(&full[..len]);
        let error = Gguf::parse(cut.as_bytes()).expect_err("a truncated file");
        let kind = match error {
            Error::GgufTruncated { .. } => "truncated",
            Error::GgufCountTooLarge { .. } => "count",
            Error::InTensor { source, .. }
                if matches!(*source, Error::GgufTensorOutOfBounds { .. }) =>
            {
                "bounds"
            }
            other => panic!("at {len}: {other:?}"),
        };
        kinds.insert(kind);
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["bounds", "count", "truncated"]
    );
    // The SmolLM2 metadata, cut at a sample of lengths (its arrays included).
    let tokenizer = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf").unwrap();
    for len in (0..tokenizer.len()).step_by(9973) {
        let error = Gguf::parse(&tokenizer[..len]).expect_err("a truncated file");
        assert!(
            matches!(
                error,
                Error::GgufTruncated { .. } | Error::GgufCountTooLarge { .. }
            ),
            "{error:?}"
        );
    }
}

#[test]
fn huge_counts_and_lengths_are_refused_before_allocating() {
    let huge = 1u64 << 63;
    let bytes = fixture();
    for (at, what) in [(8, "the tensor count"), (16, "the metadata count")] {
        let mut file = bytes.as_bytes().to_vec();
        file[at..at + 8].copy_from_slice(&huge.to_le_bytes());
        match Gguf::parse(&file) {
            Err(Error::GgufCountTooLarge { what: w, count, .. }) => {
                assert_eq!((w.as_str(), count), (what, huge))
            }
            other => panic!("{other:?}"),
        }
    }
    // A key length, a string value, an array count, a tensor name.
    let mut b = Builder::header(3, 0, 1);
    b.u64(huge).u64(0).u64(0); // room for one entry, so the count passes
    assert!(matches!(b.parse(), Err(Error::GgufTruncated { needed, .. }) if needed as u64 == huge));
    let mut b = Builder::header(3, 0, 1);
    b.str("k").u32(8).u64(huge);
    assert!(matches!(b.parse(), Err(Error::GgufTruncated { .. })));
    let mut b = Builder::header(3, 0, 1);
    b.str("k").u32(9).u32(8).u64(huge);
    assert!(matches!(
        b.parse(),
        Err(Error::GgufCountTooLarge {
            min_item_bytes: 8,
            ..
        })
    ));
    let mut b = Builder::header(3, 0, 1);
    b.str("k").u32(9).u32(12).u64(huge / 4);
    let error = b.parse().unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "gguf: metadata `k` claims {} items of at least 8 bytes, but only 0 bytes are left",
            huge / 4
        )
    );
    let mut b = Builder::header(3, 1, 0);
    b.u64(huge).u64(0).u64(0).u64(0);
    assert!(matches!(b.parse(), Err(Error::GgufTruncated { .. })));
    // Dimensions whose product overflows, and a byte size that overflows.
    let mut b = Builder::header(3, 1, 0);
    b.info("w", &[1 << 40, 1 << 40], 0, 0);
    assert_eq!(
        in_tensor(b.parse().unwrap_err()).1,
        Error::ShapeOverflow { op: "gguf" }
    );
    let mut b = Builder::header(3, 1, 0);
    b.info("w", &[u64::MAX], 0, 0);
    assert!(matches!(
        in_tensor(b.parse().unwrap_err()).1,
        Error::ShapeOverflow { .. }
    ));
}

#[test]
fn corrupt_fields_are_typed_errors() {
    let expect = |b: &Builder| b.parse().unwrap_err();
    let mut b = Builder::header(3, 0, 0);
    b.0[..4].copy_from_slice(b"GGUX");
    assert_eq!(expect(&b), Error::GgufBadMagic { found: *b"GGUX" });
    for version in [0, 1, 4, 3 << 24] {
        assert_eq!(
            expect(&Builder::header(version, 0, 0)),
            Error::GgufUnsupportedVersion { version }
        );
    }
    // Alignment: not a power of two, zero, the wrong type.
    for alignment in [0, 3, 48] {
        let mut b = Builder::header(3, 0, 1);
        b.kv_u32("general.alignment", alignment);
        assert_eq!(
            expect(&b),
            Error::GgufBadAlignment {
                alignment: alignment.into()
            }
        );
    }
    let mut b = Builder::header(3, 0, 1);
    b.str("general.alignment").u32(8).str("32");
    assert!(matches!(
        expect(&b),
        Error::MetadataTypeMismatch {
            expected: "u32",
            actual: "string",
            ..
        }
    ));
    // Unknown value types, an array of arrays, bad UTF-8, duplicates.
    let mut b = Builder::header(3, 0, 1);
    b.str("k").u32(13).u32(0);
    assert!(matches!(
        expect(&b),
        Error::GgufUnknownValueType { value_type: 13, .. }
    ));
    let mut b = Builder::header(3, 0, 1);
    b.str("k").u32(9).u32(99).u64(0);
    assert!(matches!(
        expect(&b),
        Error::GgufUnknownValueType { value_type: 99, .. }
    ));
    let mut b = Builder::header(3, 0, 1);
    b.str("k").u32(9).u32(9).u64(1).u32(4).u64(0);
    assert!(matches!(
        expect(&b),
        Error::GgufUnknownValueType { value_type: 9, .. }
    ));
    let mut b = Builder::header(3, 0, 1);
    b.u64(2);
    b.0.extend([0xC3, 0x28]);
    b.u64(0).u64(0);
    assert!(matches!(expect(&b), Error::GgufInvalidUtf8 { .. }));
    let mut b = Builder::header(3, 0, 2);
    b.kv_u32("k", 1).kv_u32("k", 2);
    assert_eq!(
        expect(&b),
        Error::GgufDuplicateName {
            what: "metadata key",
            name: "k".into()
        }
    );
    let mut b = Builder::header(3, 2, 0);
    b.info("w", &[4], 0, 0)
        .info("w", &[4], 0, 32)
        .data(32, &[0; 48]);
    assert_eq!(
        expect(&b),
        Error::GgufDuplicateName {
            what: "tensor name",
            name: "w".into()
        }
    );
    // Tensor infos: unknown type, too many dims, partial blocks,
    // misaligned or out-of-bounds offsets.
    let cases: [(&[u64], u32, u64, usize, Error); 6] = [
        (&[4], 4, 0, 64, Error::GgufUnknownTensorType { type_id: 4 }),
        (
            &[1, 1, 1, 1, 1],
            0,
            0,
            64,
            Error::GgufTooManyDims {
                n_dims: 5,
                maximum: 4,
            },
        ),
        (
            &[48, 2],
            8,
            0,
            256,
            Error::PartialBlock {
                op: "gguf",
                row_len: 48,
                block_len: 32,
            },
        ),
        (
            &[4],
            0,
            16,
            64,
            Error::GgufMisalignedTensor {
                offset: 16,
                alignment: 32,
            },
        ),
        (
            &[4],
            0,
            64,
            64,
            Error::GgufTensorOutOfBounds {
                offset: 64,
                bytes: 16,
                data_len: 64,
            },
        ),
        (
            &[4],
            0,
            1 << 63,
            64,
            Error::GgufTensorOutOfBounds {
                offset: 1 << 63,
                bytes: 16,
                data_len: 64,
            },
        ),
    ];
    for (dims, ggml_type, offset, data, want) in cases {
        let mut b = Builder::header(3, 1, 0);
        b.info("w", dims, ggml_type, offset)
            .data(32, &vec![0; data]);
        assert_eq!(in_tensor(expect(&b)), ("w".to_string(), want));
    }
}

#[test]
fn known_but_unsupported_types_and_misaligned_buffers() {
    let mut b = Builder::header(3, 1, 0);
    b.info("w", &[256], 12, 0).data(32, &[0; 144]); // one Q4_K block
    let buffer = AlignedBytes::from_bytes(&b.0);
    let gguf = Gguf::parse(buffer.as_bytes()).unwrap();
    assert_eq!(gguf.tensor_info("w").unwrap().ggml_type(), GgmlType::Q4_K);
    let error = gguf.tensor::<1>("w").unwrap_err();
    assert_eq!(
        error.to_string(),
        "tensor `w`: Gguf::tensor: tensors of type Q4_K are not supported yet (F32, F16, BF16, Q8_0, Q4_0 and Q4_1 are)"
    );
    // An f32 tensor in a buffer that is not 4-byte aligned cannot be borrowed.
    let mut b = Builder::header(3, 1, 0);
    b.info("w", &[4], 0, 0).data(32, &[0; 16]);
    let mut shifted = vec![0u8];
    shifted.extend(&b.0);
    let buffer = AlignedBytes::from_bytes(&shifted);
    let gguf = Gguf::parse(&buffer.as_bytes()[1..]).unwrap();
    assert!(matches!(
        in_tensor(gguf.view::<1, f32>("w").unwrap_err()).1,
        Error::NotBorrowable { .. }
    ));
}

/// Parses `bytes` and, when that succeeds, reads every metadata value and
/// every tensor as far as the API allows: nothing may panic.
fn read_everything(bytes: &[u8]) {
    let buffer = AlignedBytes::from_bytes(bytes);
    let Ok(gguf) = Gguf::parse(buffer.as_bytes()) else {
        return;
    };
    for (key, value) in gguf.metadata() {
        if let GgufValue::Array(array) = value {
            assert!(array.iter().count() <= array.len());
            let _ = gguf.get_array_str(key);
        }
        let _ = (gguf.get_u32(key), gguf.get_usize(key), gguf.get_str(key));
    }
    for info in gguf.tensor_infos() {
        for result in [
            gguf.tensor::<1>(info.name()).map(|_| ()),
            gguf.tensor::<2>(info.name()).map(|_| ()),
        ] {
            let _ = result;
        }
        if let Ok(tensor) = gguf.tensor::<2>(info.name()) {
            let _ = tensor.dequantize();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random byte edits of the fixture (some of them huge numbers) never panic.
    #[test]
    fn mutated_files_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), any::<bool>()), 1..8),
    ) {
        let mut file = fixture().as_bytes().to_vec();
        let len = file.len();
        for (at, byte, wide) in edits {
            let at = at.index(len);
            if wide && at + 8 <= len {
                file[at..at + 8].copy_from_slice(&(u64::MAX - u64::from(byte)).to_le_bytes());
            } else {
                file[at] = byte;
            }
        }
        read_everything(&file);
    }
}
