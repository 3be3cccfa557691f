//! The typed metadata getters of [`Gguf`]: `get_u32`, `get_str`,
//! `get_array_str`, ..., each checking the stored type.

use super::file::Gguf;
use super::value::{GgufArray, GgufValue, GgufValueType};
use crate::error::Error;
use crate::tensor::traverse::alloc::try_buffer;

impl<'a> Gguf<'a> {
    /// The value of `key` through `pick`, with the getters' errors.
    fn typed<T>(
        &self,
        op: &'static str,
        key: &str,
        expected: &'static str,
        pick: impl Fn(GgufValue<'a>) -> Option<T>,
    ) -> Result<T, Error> {
        let value = self.get(key).ok_or_else(|| Error::MissingMetadata {
            op,
            key: key.to_string(),
        })?;
        pick(value).ok_or_else(|| Error::MetadataTypeMismatch {
            op,
            key: key.to_string(),
            expected,
            actual: value.type_name(),
        })
    }

    /// The `u32` value of `key` (exactly a `u32`).
    ///
    /// # Errors
    /// [`Error::MissingMetadata`]; [`Error::MetadataTypeMismatch`] for any
    /// other type (the same for every getter below).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::gguf::Gguf, Error};
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// assert_eq!(gguf.get_u32("llama.attention.head_count_kv")?, 3);
    /// assert_eq!(
    ///     gguf.get_u32("general.architecture").unwrap_err().to_string(),
    ///     "Gguf::get_u32: metadata `general.architecture` holds string, but u32 was requested"
    /// );
    /// assert!(matches!(gguf.get_u32("nope"), Err(Error::MissingMetadata { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_u32(&self, key: &str) -> Result<u32, Error> {
        self.typed("Gguf::get_u32", key, "u32", |v| match v {
            GgufValue::U32(v) => Some(v),
            _ => None,
        })
    }

    /// The `i32` value of `key`. Errors as [`get_u32`](Self::get_u32).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_i32("test.i32")?, -7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_i32(&self, key: &str) -> Result<i32, Error> {
        self.typed("Gguf::get_i32", key, "i32", |v| match v {
            GgufValue::I32(v) => Some(v),
            _ => None,
        })
    }

    /// The `u64` value of `key`. Errors as [`get_u32`](Self::get_u32).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_u64("test.u64")?, 1 << 40);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_u64(&self, key: &str) -> Result<u64, Error> {
        self.typed("Gguf::get_u64", key, "u64", |v| match v {
            GgufValue::U64(v) => Some(v),
            _ => None,
        })
    }

    /// The value of `key` as a `usize` when it is an integer of any width
    /// and sign whose value fits (converters write counts as `u32` or
    /// `u64`). Errors as [`get_u32`](Self::get_u32).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_usize("llama.context_length")?, 8192);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_usize(&self, key: &str) -> Result<usize, Error> {
        self.typed("Gguf::get_usize", key, "a non-negative integer", |v| {
            usize::try_from(v.as_unsigned()?).ok()
        })
    }

    /// The `f32` value of `key`. Errors as [`get_u32`](Self::get_u32).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_f32("llama.attention.layer_norm_rms_epsilon")?, 1e-5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_f32(&self, key: &str) -> Result<f32, Error> {
        self.typed("Gguf::get_f32", key, "f32", |v| match v {
            GgufValue::F32(v) => Some(v),
            _ => None,
        })
    }

    /// The `bool` value of `key`. Errors as [`get_u32`](Self::get_u32).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert!(!Gguf::parse(&bytes)?.get_bool("tokenizer.ggml.add_bos_token")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_bool(&self, key: &str) -> Result<bool, Error> {
        self.typed("Gguf::get_bool", key, "bool", |v| match v {
            GgufValue::Bool(v) => Some(v),
            _ => None,
        })
    }

    /// The string value of `key`, borrowed from the file. Errors as
    /// [`get_u32`](Self::get_u32).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_str("tokenizer.ggml.pre")?, "smollm");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_str(&self, key: &str) -> Result<&'a str, Error> {
        self.typed("Gguf::get_str", key, "string", |v| match v {
            GgufValue::String(v) => Some(v),
            _ => None,
        })
    }

    /// The array value of `key`, of any item type. Errors as
    /// [`get_u32`](Self::get_u32).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_array("tokenizer.ggml.token_type")?.len(), 49152);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_array(&self, key: &str) -> Result<GgufArray<'a>, Error> {
        self.typed("Gguf::get_array", key, "array", |v| match v {
            GgufValue::Array(v) => Some(v),
            _ => None,
        })
    }

    /// The items of the array `key` of item type `item`, collected.
    fn array_of<T>(
        &self,
        op: &'static str,
        key: &str,
        item: GgufValueType,
        expected: &'static str,
        pick: fn(GgufValue<'a>) -> Option<T>,
    ) -> Result<Vec<T>, Error> {
        let array = self.typed(op, key, expected, |v| match v {
            GgufValue::Array(array) if array.item_type() == item => Some(array),
            _ => None,
        })?;
        let mut values = try_buffer(array.len()).map_err(|failed| Error::AllocationFailed {
            op,
            elements: failed.elements,
        })?;
        values.extend(array.iter().filter_map(pick));
        Ok(values)
    }

    /// The array of strings `key` (a tokenizer's tokens or merges), each
    /// borrowed from the file. Errors as [`get_u32`](Self::get_u32), plus
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let merges = Gguf::parse(&bytes)?.get_array_str("tokenizer.ggml.merges")?;
    /// assert_eq!(merges[0], "Ġ t");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_array_str(&self, key: &str) -> Result<Vec<&'a str>, Error> {
        let pick = |v| match v {
            GgufValue::String(v) => Some(v),
            _ => None,
        };
        let op = "Gguf::get_array_str";
        self.array_of(op, key, GgufValueType::String, "array of string", pick)
    }

    /// The array of `f32` `key` (a tokenizer's scores). Errors as
    /// [`get_array_str`](Self::get_array_str).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_array_f32("test.f32s")?, [0.5, -1.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_array_f32(&self, key: &str) -> Result<Vec<f32>, Error> {
        let pick = |v| match v {
            GgufValue::F32(v) => Some(v),
            _ => None,
        };
        self.array_of(
            "Gguf::get_array_f32",
            key,
            GgufValueType::F32,
            "array of f32",
            pick,
        )
    }

    /// The array of `i32` `key` (a tokenizer's token types). Errors as
    /// [`get_array_str`](Self::get_array_str).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let types = Gguf::parse(&bytes)?.get_array_i32("tokenizer.ggml.token_type")?;
    /// assert_eq!((types[0], types[100]), (3, 1)); // control, normal
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_array_i32(&self, key: &str) -> Result<Vec<i32>, Error> {
        let pick = |v| match v {
            GgufValue::I32(v) => Some(v),
            _ => None,
        };
        self.array_of(
            "Gguf::get_array_i32",
            key,
            GgufValueType::I32,
            "array of i32",
            pick,
        )
    }
}
