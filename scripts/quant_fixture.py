"""Write tests/fixtures/gguf/: a tiny GGUF file with F32, F16, Q8_0, Q4_0 and
Q4_1 tensors and typed metadata (quant.gguf), and the values the Python
package `gguf` dequantizes them to (quant_expected.safetensors), so the
Rust tests compare against an independent reader without Python.

    python3 -m venv /work/venv-gguf && /work/venv-gguf/bin/pip install gguf numpy
    /work/venv-gguf/bin/python scripts/quant_fixture.py

quant_expected.safetensors holds, for each tensor NAME of quant.gguf:
  NAME.dequantized   f32, gguf.quants.dequantize of the stored bytes (F16
                     widened to f32), in the row-major shape;
  NAME.source        f32, the values before quantization;
plus `x` (f32 [3, K] activations) and NAME.linear (f64 [3, N]: x · Wᵀ
with W = NAME.dequantized, summed in f64) for the three block formats.
Seeded: the same bytes on every run.
"""

import importlib.metadata
import pathlib
import sys

import gguf
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from safetensors_io import serialize  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "gguf"
Q = gguf.GGMLQuantizationType


def main() -> None:
    rng = np.random.default_rng(22)
    # name -> (row-major shape, stored type)
    specs = {
        "f32": ((3, 5), Q.F32),
        "f16": ((2, 8), Q.F16),
        "q8_0": ((3, 64), Q.Q8_0),
        "q4_0": ((2, 96), Q.Q4_0),
        "q4_1": ((4, 64), Q.Q4_1),
    }
    writer = gguf.GGUFWriter(str(OUT / "quant.gguf"), arch="test")
    writer.add_name("quant fixture")
    writer.add_int32("test.i32", -7)
    writer.add_uint64("test.u64", 1 << 40)
    writer.add_array("test.f32s", [0.5, -1.5])
    writer.add_array("test.strings", ["a", "ß", ""])
    writer.add_bool("test.bool", True)
    writer.add_float64("test.f64", 0.1)
    expected = {}
    for name, (shape, qtype) in specs.items():
        source = rng.standard_normal(shape).astype(np.float32)
        if name == "q4_0":
            source[1, :32] = -np.abs(source[1, :32])  # a negative extreme: d < 0
        if name == "q4_1":
            source[3, 32:] = 0.25  # a constant block: d = 0
        if qtype == Q.F32:
            stored, values = source, source
        elif qtype == Q.F16:
            stored = source.astype(np.float16)
            values = stored.astype(np.float32)
        else:
            stored = gguf.quants.quantize(source, qtype)
            values = gguf.quants.dequantize(stored, qtype).astype(np.float32)
        writer.add_tensor(name, stored, raw_dtype=qtype)
        expected[f"{name}.source"] = source
        expected[f"{name}.dequantized"] = np.ascontiguousarray(values)
    for name in ("q8_0", "q4_0", "q4_1"):
        w = expected[f"{name}.dequantized"].astype(np.float64)
        key = f"x.{w.shape[1]}"
        if key not in expected:
            expected[key] = rng.standard_normal((3, w.shape[1])).astype(np.float32)
        expected[f"{name}.linear"] = expected[key].astype(np.float64) @ w.T
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    (OUT / "quant_expected.safetensors").write_bytes(serialize(expected, {
        "source": "scripts/quant_fixture.py", "gguf": importlib.metadata.version("gguf"),
    }))
    print("wrote", OUT / "quant.gguf", OUT / "quant_expected.safetensors")


if __name__ == "__main__":
    main()
