"""Write and compare safetensors files with reproducible bytes.

The `safetensors` package writes its `__metadata__` map in hash order, so two
runs with more than one metadata entry can differ. `serialize` writes the
header with every map sorted, the tensors in name order, and the data
8-byte aligned, so the same tensors give the same bytes on every run.
Used by the fixture scripts in this folder (numpy only).
"""

import json

import numpy as np

DTYPES = {
    np.dtype(np.float32): "F32",
    np.dtype(np.float64): "F64",
    np.dtype(np.int64): "I64",
}


def serialize(tensors: dict, metadata: dict) -> bytes:
    """The safetensors bytes of `tensors` (name -> C-contiguous numpy array)
    with `metadata` (str -> str), little-endian, header sorted by name."""
    header, chunks, offset = {"__metadata__": dict(sorted(metadata.items()))}, [], 0
    for name in sorted(tensors):
        value = tensors[name]
        data = value.astype(value.dtype.newbyteorder("<")).tobytes()
        header[name] = {
            "dtype": DTYPES[value.dtype],
            "shape": list(value.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # data starts 8-byte aligned
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


def header_of(path) -> dict:
    """The parsed JSON header of a safetensors file (for reports and checks)."""
    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        return json.loads(f.read(size))


def compare_dirs(expected_dir, produced_dir, names) -> list:
    """Names of the files in `names` whose bytes differ (or are missing)."""
    differing = []
    for name in names:
        a, b = expected_dir / name, produced_dir / name
        if not a.exists() or not b.exists() or a.read_bytes() != b.read_bytes():
            differing.append(name)
    return differing
