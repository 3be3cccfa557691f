#!/usr/bin/env python3
"""Write tests/fixtures/norm/reference.json: PyTorch's LayerNorm and RMSNorm
over the last axis, so `tests/norm.rs` checks the crate's `layer_norm` and
`rms_norm` against an independent implementation without Python.

Each case is an object with
- `name`, `dtype` ("f32" or "f64"), `shape` [rows, C], `eps`;
- `x` (row-major), `gamma`, `beta` ([C]): seeded `torch.randn` values (x scaled
  by 3 and shifted by 1.5 per row so the mean is not 0);
- `layer_norm`: `torch.nn.functional.layer_norm(x, (C,), gamma, beta, eps)`;
- `rms_norm`: `torch.nn.functional.rms_norm(x, (C,), gamma, eps)`.
Values are printed by Python's `repr` of the exact float, so each parses back
to the same f32 / f64. PyTorch (CPU) sums in its own order and multiplies by
`rsqrt`, so the Rust test compares within a tolerance, not bit for bit.

Usage: `python scripts/norm_fixture.py` (rewrites the file; deterministic).
"""

import json
import pathlib

import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests/fixtures/norm/reference.json"

CASES = [
    ("gpt2_width", torch.float32, 3, 768, 1e-5),
    ("small", torch.float32, 2, 5, 1e-5),
    ("llama_eps", torch.float32, 2, 576, 1e-6),
    ("long_f64", torch.float64, 2, 1000, 1e-12),
]


def values(t):
    return [float(v) for v in t.reshape(-1).tolist()]


def main():
    torch.manual_seed(21)
    cases = []
    for name, dtype, rows, c, eps in CASES:
        x = torch.randn(rows, c, dtype=dtype) * 3 + torch.arange(rows, dtype=dtype)[:, None] * 1.5
        gamma = 1 + 0.1 * torch.randn(c, dtype=dtype)
        beta = 0.1 * torch.randn(c, dtype=dtype)
        cases.append(
            {
                "name": name,
                "dtype": "f32" if dtype == torch.float32 else "f64",
                "shape": [rows, c],
                "eps": eps,
                "x": values(x),
                "gamma": values(gamma),
                "beta": values(beta),
                "layer_norm": values(F.layer_norm(x, (c,), gamma, beta, eps)),
                "rms_norm": values(F.rms_norm(x, (c,), gamma, eps)),
            }
        )
    meta = {"torch": torch.__version__, "cases": cases}
    OUT.write_text(json.dumps(meta, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
