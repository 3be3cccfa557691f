//! Views over safetensors buffers (feature `safetensors`): zero-copy views,
//! `NotBorrowable` and a converting copy when misaligned, the same views
//! over a memory map (feature `mmap`), typed errors for every bad file.
#![cfg(feature = "safetensors")]

use llm_from_scratch::Error;
#[allow(deprecated)]
use llm_from_scratch::tensor::weights::{AlignedBytes, Weight, Weights};
use safetensors::Dtype;
use safetensors::tensor::TensorView;

/// A file with an f32 [2, 3] matrix `w`, an f64 vector `b` and i64 token ids.
fn file() -> Vec<u8> {
    let w: Vec<u8> = (0..6)
        .flat_map(|i| (i as f32 * 1.5).to_le_bytes())
        .collect();
    let b: Vec<u8> = [0.25_f64, -4.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let ids: Vec<u8> = [101_i64, 7592, 102]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let tensors = [
        ("w", TensorView::new(Dtype::F32, vec![2, 3], &w).unwrap()),
        ("b", TensorView::new(Dtype::F64, vec![2], &b).unwrap()),
        ("ids", TensorView::new(Dtype::I64, vec![3], &ids).unwrap()),
    ];
    safetensors::serialize(tensors, None).unwrap()
}

#[test]
fn aligned_buffer_borrows_without_copying() {
    let buffer = AlignedBytes::from_bytes(&file());
    let weights = Weights::parse(buffer.as_bytes()).unwrap();
    assert_eq!(weights.names(), ["b", "ids", "w"]);
    // `view()` of the returned view borrows the buffer, not a temporary.
    let view = weights.get::<2, f32>("w").unwrap().view();
    assert_eq!(view.shape(), &[2, 3]);
    assert_eq!(
        view.iter().copied().collect::<Vec<_>>(),
        [0.0, 1.5, 3.0, 4.5, 6.0, 7.5]
    );
    // The view points into the buffer itself.
    let start = buffer.as_bytes().as_ptr() as usize;
    let at = view.storage().as_ptr() as usize;
    assert!(at > start && at < start + buffer.as_bytes().len());
    // Transforms stay zero-copy views of the file.
    let wt = view.transpose(0, 1).unwrap();
    assert_eq!(wt.get([2, 1]).unwrap(), &7.5);
    let ids = weights.get::<1, i64>("ids").unwrap();
    assert_eq!(
        ids.view().iter().copied().collect::<Vec<_>>(),
        [101, 7592, 102]
    );
}

#[test]
fn misaligned_values_are_refused_by_get_and_copied_by_get_as() {
    let bytes = file();
    // Shift the whole file by one byte inside an aligned buffer.
    let mut shifted = vec![0_u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    let buffer = AlignedBytes::from_bytes(&shifted);
    let weights = Weights::parse(&buffer.as_bytes()[1..]).unwrap();
    let Err(Error::InTensor { name, source }) = weights.get::<1, f64>("b") else {
        panic!("a misaligned f64 tensor cannot be borrowed");
    };
    assert_eq!(name, "b");
    let Error::NotBorrowable { op, dtype, reason } = *source else {
        panic!("expected NotBorrowable, got {source:?}");
    };
    assert_eq!((op, dtype.as_str()), ("Weights::get", "F64"));
    assert!(reason.ends_with("not a multiple of 8"), "{reason}");
    // get_as reads the same values by copying them.
    let b = weights.get_as::<1, f64>("b").unwrap();
    assert_eq!(b.as_slice(), [0.25, -4.0]);
    // The earlier form still copies.
    #[allow(deprecated)]
    let copied = weights.get_weight::<1, f64>("b").unwrap();
    #[allow(deprecated)]
    let is_copy = matches!(copied, Weight::Copied(_));
    assert!(is_copy);
    assert_eq!(
        copied.view().iter().copied().collect::<Vec<_>>(),
        [0.25, -4.0]
    );
}

#[test]
fn wrong_dtype_rank_and_name_are_typed_errors() {
    let buffer = AlignedBytes::from_bytes(&file());
    let weights = Weights::parse(buffer.as_bytes()).unwrap();
    // An error about one tensor names it (`InTensor`) around the op's error.
    let wrong_dtype = weights.get::<2, f64>("w").unwrap_err();
    assert_eq!(
        wrong_dtype,
        Error::InTensor {
            name: "w".into(),
            source: Box::new(Error::WrongDtype {
                op: "Weights::get",
                expected: "F64".into(),
                actual: "F32".into()
            })
        }
    );
    assert_eq!(
        wrong_dtype.to_string(),
        "tensor `w`: Weights::get: the tensor holds F32, but F64 was requested"
    );
    assert_eq!(
        weights.get::<3, f32>("w").unwrap_err(),
        Error::InTensor {
            name: "w".into(),
            source: Box::new(Error::RankMismatch {
                op: "Weights::get",
                expected: 3,
                actual: 2
            })
        }
    );
    let missing = weights.get::<1, f32>("attention.q").unwrap_err();
    assert_eq!(
        missing,
        Error::MissingTensor {
            name: "attention.q".into()
        }
    );
    assert_eq!(
        missing.to_string(),
        "no tensor named `attention.q` in the file"
    );
}

#[test]
fn truncated_and_corrupt_files_are_parse_errors() {
    let bytes = file();
    for cut in [0, 4, 8, 20, bytes.len() - 1] {
        let error = Weights::parse(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(
                error,
                Error::InvalidFile {
                    format: "safetensors",
                    ..
                }
            ),
            "cut at {cut}: {error:?}"
        );
    }
    let mut corrupt = bytes.clone();
    corrupt[8..16].copy_from_slice(b"not json");
    assert!(matches!(
        Weights::parse(&corrupt),
        Err(Error::InvalidFile {
            format: "safetensors",
            ..
        })
    ));
    let mut huge_header = bytes;
    huge_header[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        Weights::parse(&huge_header),
        Err(Error::InvalidFile {
            format: "safetensors",
            ..
        })
    ));
}

#[cfg(feature = "mmap")]
#[test]
fn a_mapped_file_gives_the_views_a_read_one_gives() {
    use llm_from_scratch::tensor::weights::MappedFile;
    let path =
        std::env::temp_dir().join(format!("weights-mmap-{}.safetensors", std::process::id()));
    std::fs::write(&path, file()).unwrap();
    let mapped = MappedFile::open(&path).unwrap();
    let read = AlignedBytes::read(&path).unwrap();
    // Removing the file leaves the mapping valid (the inode lives on).
    std::fs::remove_file(&path).unwrap();
    let (from_map, from_read) = (
        Weights::parse(mapped.bytes()).unwrap(),
        Weights::parse(read.as_bytes()).unwrap(),
    );
    let w = from_map.get::<2, f32>("w").unwrap();
    assert_eq!(w, from_read.get::<2, f32>("w").unwrap());
    // The view borrows the mapped pages themselves.
    let pages = mapped.bytes().as_ptr_range();
    assert!(pages.contains(&(w.storage().as_ptr() as *const u8)));
    assert_eq!(
        from_map
            .get::<1, f64>("b")
            .unwrap()
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        [0.25, -4.0]
    );
}
