"""The 16-bit element types for `safetensors_io.serialize`, for the half-precision
fixture scripts (scripts/half_fixture.py, scripts/gpt2_half_fixture.py).

`safetensors_io.DTYPES` maps NumPy dtypes to safetensors dtype names and knows
F32, F64 and I64. Importing this module adds:

- `np.uint16` -> "U16" (bit patterns), `np.uint8` -> "U8" (small codes),
- `np.float16` -> "F16",
- `BF16` -> "BF16": NumPy has no bfloat16, so a bfloat16 array is held as a
  one-field structured dtype over little-endian `u2` (the raw bit patterns); it
  is a dtype of its own, so `serialize` can tell it from U16.

The bytes written are the little-endian bit patterns in every case, as the
safetensors format stores them; nothing here rounds or converts a value.
"""

import numpy as np
import safetensors_io
import torch

BF16 = np.dtype([("bf16", "<u2")])

safetensors_io.DTYPES.update(
    {
        np.dtype(np.uint8): "U8",
        np.dtype(np.uint16): "U16",
        np.dtype(np.float16): "F16",
        BF16: "BF16",
    }
)


def bits16(t: torch.Tensor) -> np.ndarray:
    """The bit patterns of a float16 / bfloat16 tensor as a C-contiguous uint16 array."""
    assert t.dtype in (torch.float16, torch.bfloat16), t.dtype
    return np.ascontiguousarray(t.contiguous().view(torch.int16).numpy().view(np.uint16))


def to_numpy16(t: torch.Tensor) -> np.ndarray:
    """A float16 tensor as np.float16, a bfloat16 tensor as `BF16` (same bits)."""
    bits = bits16(t)
    return bits.view(np.float16) if t.dtype == torch.float16 else bits.view(BF16)


def from_bits16(bits: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    """The float16 / bfloat16 tensor with these uint16 bit patterns (a copy)."""
    return torch.from_numpy(np.ascontiguousarray(bits, dtype=np.uint16).view(np.int16).copy()).view(dtype)
