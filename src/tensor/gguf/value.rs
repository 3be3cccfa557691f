//! GGUF metadata values: [`GgufValueType`], [`GgufValue`] and
//! [`GgufArray`], and how they are read from the file.

use super::cursor::Cursor;
use crate::error::Error;

/// The type of a GGUF metadata value (GGUF's `gguf_metadata_value_type`,
/// ids 0 to 12).
///
/// ```
/// use llm_from_scratch::tensor::gguf::GgufValueType;
/// assert_eq!(GgufValueType::from_id(8), Some(GgufValueType::String));
/// assert_eq!(GgufValueType::String.name(), "string");
/// assert_eq!(GgufValueType::from_id(13), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GgufValueType {
    /// `u8` (id 0).
    U8,
    /// `i8` (id 1).
    I8,
    /// `u16` (id 2).
    U16,
    /// `i16` (id 3).
    I16,
    /// `u32` (id 4).
    U32,
    /// `i32` (id 5).
    I32,
    /// `f32` (id 6).
    F32,
    /// `bool`, one byte (id 7).
    Bool,
    /// A UTF-8 string: `u64` length, then the bytes (id 8).
    String,
    /// An array: item type, `u64` count, then the items (id 9).
    Array,
    /// `u64` (id 10).
    U64,
    /// `i64` (id 11).
    I64,
    /// `f64` (id 12).
    F64,
}

/// Every type, in id order.
const TYPES: [GgufValueType; 13] = {
    use GgufValueType::*;
    [
        U8, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64,
    ]
};

impl GgufValueType {
    /// The type of the id `id`, or `None` for an id GGUF does not define.
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgufValueType;
    /// assert_eq!(GgufValueType::from_id(4), Some(GgufValueType::U32));
    /// ```
    pub fn from_id(id: u32) -> Option<Self> {
        TYPES.get(usize::try_from(id).ok()?).copied()
    }

    /// The name used in error messages (`"u32"`, `"string"`, `"array"`, ...).
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgufValueType;
    /// assert_eq!(GgufValueType::F32.name(), "f32");
    /// ```
    pub fn name(self) -> &'static str {
        self.names().0
    }

    /// The name, and the name of an array of this type.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Self::U8 => ("u8", "array of u8"),
            Self::I8 => ("i8", "array of i8"),
            Self::U16 => ("u16", "array of u16"),
            Self::I16 => ("i16", "array of i16"),
            Self::U32 => ("u32", "array of u32"),
            Self::I32 => ("i32", "array of i32"),
            Self::F32 => ("f32", "array of f32"),
            Self::Bool => ("bool", "array of bool"),
            Self::String => ("string", "array of string"),
            Self::Array => ("array", "array of array"),
            Self::U64 => ("u64", "array of u64"),
            Self::I64 => ("i64", "array of i64"),
            Self::F64 => ("f64", "array of f64"),
        }
    }

    /// Bytes of one value of a fixed-size type; `None` for strings and arrays.
    fn fixed_size(self) -> Option<usize> {
        match self {
            Self::U8 | Self::I8 | Self::Bool => Some(1),
            Self::U16 | Self::I16 => Some(2),
            Self::U32 | Self::I32 | Self::F32 => Some(4),
            Self::U64 | Self::I64 | Self::F64 => Some(8),
            Self::String | Self::Array => None,
        }
    }
}

/// One metadata value of a GGUF file, borrowing the file's bytes (strings
/// and arrays are not copied).
///
/// ```
/// use llm_from_scratch::tensor::gguf::{GgufValue, GgufValueType};
/// let value = GgufValue::String("llama");
/// assert_eq!(value.value_type(), GgufValueType::String);
/// assert_eq!(value.type_name(), "string");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub enum GgufValue<'a> {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(&'a str),
    Array(GgufArray<'a>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl<'a> GgufValue<'a> {
    /// The value's type.
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::{GgufValue, GgufValueType};
    /// assert_eq!(GgufValue::U32(7).value_type(), GgufValueType::U32);
    /// ```
    pub fn value_type(&self) -> GgufValueType {
        match self {
            Self::U8(_) => GgufValueType::U8,
            Self::I8(_) => GgufValueType::I8,
            Self::U16(_) => GgufValueType::U16,
            Self::I16(_) => GgufValueType::I16,
            Self::U32(_) => GgufValueType::U32,
            Self::I32(_) => GgufValueType::I32,
            Self::F32(_) => GgufValueType::F32,
            Self::Bool(_) => GgufValueType::Bool,
            Self::String(_) => GgufValueType::String,
            Self::Array(_) => GgufValueType::Array,
            Self::U64(_) => GgufValueType::U64,
            Self::I64(_) => GgufValueType::I64,
            Self::F64(_) => GgufValueType::F64,
        }
    }

    /// The type's name, with the item type for arrays (`"array of string"`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::gguf::GgufValue;
    /// assert_eq!(GgufValue::Bool(true).type_name(), "bool");
    /// ```
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Array(array) => array.item_type().names().1,
            other => other.value_type().name(),
        }
    }

    /// The value as a `u64` when it is a non-negative integer of any width
    /// (counts written as `u32` by one converter and `u64` by another).
    pub(super) fn as_unsigned(&self) -> Option<u64> {
        match *self {
            Self::U8(v) => Some(v.into()),
            Self::U16(v) => Some(v.into()),
            Self::U32(v) => Some(v.into()),
            Self::U64(v) => Some(v),
            Self::I8(v) => u64::try_from(v).ok(),
            Self::I16(v) => u64::try_from(v).ok(),
            Self::I32(v) => u64::try_from(v).ok(),
            Self::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Reads a value of type `value_type` (an array's items too: `nested`
    /// refuses an array inside an array, as ggml's reader does).
    pub(super) fn read(
        cursor: &mut Cursor<'a>,
        value_type: GgufValueType,
        nested: bool,
        what: &dyn Fn() -> String,
    ) -> Result<Self, Error> {
        use GgufValueType as T;
        Ok(match value_type {
            T::U8 => Self::U8(u8::from_le_bytes(cursor.array(what)?)),
            T::I8 => Self::I8(i8::from_le_bytes(cursor.array(what)?)),
            T::U16 => Self::U16(u16::from_le_bytes(cursor.array(what)?)),
            T::I16 => Self::I16(i16::from_le_bytes(cursor.array(what)?)),
            T::U32 => Self::U32(cursor.u32(what)?),
            T::I32 => Self::I32(i32::from_le_bytes(cursor.array(what)?)),
            T::F32 => Self::F32(f32::from_le_bytes(cursor.array(what)?)),
            T::Bool => Self::Bool(cursor.array::<1>(what)?[0] != 0),
            T::String => Self::String(cursor.string(what)?),
            T::U64 => Self::U64(cursor.u64(what)?),
            T::I64 => Self::I64(i64::from_le_bytes(cursor.array(what)?)),
            T::F64 => Self::F64(f64::from_le_bytes(cursor.array(what)?)),
            T::Array if nested => {
                return Err(Error::GgufUnknownValueType {
                    what: what(),
                    value_type: 9,
                });
            }
            T::Array => Self::Array(GgufArray::read(cursor, what)?),
        })
    }
}

/// An array value of a GGUF file: `len` items of one type, borrowed from
/// the file and decoded as they are read (every item was checked when the
/// file was parsed: a string array's items are valid UTF-8).
///
/// ```
/// use llm_from_scratch::tensor::gguf::{Gguf, GgufValue, GgufValueType};
/// let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
/// let gguf = Gguf::parse(&bytes)?;
/// let Some(GgufValue::Array(tokens)) = gguf.get("tokenizer.ggml.tokens") else { panic!() };
/// assert_eq!((tokens.item_type(), tokens.len()), (GgufValueType::String, 49152));
/// assert_eq!(tokens.iter().next(), Some(GgufValue::String("<|endoftext|>")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq)]
pub struct GgufArray<'a> {
    item: GgufValueType,
    len: usize,
    bytes: &'a [u8],
}

impl std::fmt::Debug for GgufArray<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GgufArray({} × {})", self.len, self.item.name())
    }
}

impl<'a> GgufArray<'a> {
    /// The items' type.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::{Gguf, GgufValueType};
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// assert_eq!(gguf.get_array("tokenizer.ggml.token_type")?.item_type(), GgufValueType::I32);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn item_type(&self) -> GgufValueType {
        self.item
    }

    /// The number of items.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.get_array("tokenizer.ggml.merges")?.len(), 48900);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no items.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert!(!Gguf::parse(&bytes)?.get_array("tokenizer.ggml.tokens")?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The items in order.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::{Gguf, GgufValue};
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// let types = gguf.get_array("tokenizer.ggml.token_type")?;
    /// assert_eq!(types.iter().next(), Some(GgufValue::I32(3))); // <|endoftext|> is a control token
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = GgufValue<'a>> + 'a {
        let mut cursor = Cursor::new(self.bytes);
        let item = self.item;
        // Every item was read once at parse time, so no read fails here.
        (0..self.len)
            .map_while(move |_| GgufValue::read(&mut cursor, item, true, &String::new).ok())
    }

    /// Reads the item type, the count and the items, checking each.
    fn read(cursor: &mut Cursor<'a>, what: &dyn Fn() -> String) -> Result<Self, Error> {
        let id = cursor.u32(what)?;
        let item = GgufValueType::from_id(id).ok_or_else(|| Error::GgufUnknownValueType {
            what: format!("the items of {}", what()),
            value_type: id,
        })?;
        // A string takes at least its 8-byte length; an array of arrays is
        // refused below, after at least its 12-byte header.
        let min_item_bytes = item.fixed_size().unwrap_or(8);
        let len = cursor.count(min_item_bytes, what)?;
        let start = cursor.offset();
        match item.fixed_size() {
            // `count` checked that the items fit.
            Some(size) => {
                cursor.take(len * size, what)?;
            }
            None => {
                for index in 0..len {
                    let item_what = || format!("item {index} of {}", what());
                    GgufValue::read(cursor, item, true, &item_what)?;
                }
            }
        }
        let bytes = cursor.slice_from(start);
        Ok(Self { item, len, bytes })
    }
}
