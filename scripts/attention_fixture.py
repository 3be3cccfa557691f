#!/usr/bin/env python3
"""NumPy reference for the GPT-2 attention pipeline of `examples/attention_heads`.

Writes tests/fixtures/attention_small.txt, which tests/attention.rs reads, so
the Rust tests need no Python. The input is the example's seeded input: the
same SplitMix64 generator (examples/common/prng.rs, whose unit test checks
it against this file), the same seed, the same mapping to [-1, 1), so both
sides start from identical bits.

The pipeline is written the NumPy way, independently of the Rust code:
np.split for Q/K/V, reshape + transpose for split heads, `@` (BLAS) for the
products, np.where for the causal mask, a max-subtracted softmax, and
transpose + reshape for merge heads (GPT-2 model.py: split_states,
split_heads, multihead_attn, merge_heads).

Setup (once; the venv lives outside the repository):

    python3 -m venv /work/venv && /work/venv/bin/pip install numpy

Run from the repository root:

    /work/venv/bin/python scripts/attention_fixture.py          # (re)write the fixture
    /work/venv/bin/python scripts/attention_fixture.py --check  # exit 1 if it differs

The output is deterministic: every float is written with repr(), which
round-trips exactly, so rerunning reproduces the committed file byte for
byte (generated with NumPy 2.4.6; another BLAS may change the last bits of
the products, which the Rust test tolerates up to 1e-12).
"""

import sys
from pathlib import Path

import numpy as np

# The fixture's sizes: B, T, H, D (C = H * D = 12). Small, but every axis > 1.
BATCH, SEQ, HEADS, HEAD_WIDTH = 2, 5, 3, 4
# The seed of examples/common/prng.rs (`SEED`).
SEED = 2019

MASK64 = (1 << 64) - 1
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "attention_small.txt"


def splitmix64(seed):
    """Yields SplitMix64 outputs, exactly as `SplitMix64::next_u64` in prng.rs."""
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def packed_qkv(batch, seq, width, seed):
    """[B, T, 3C] in row-major order; each value (bits >> 11) * 2^-52 - 1, exact."""
    bits = splitmix64(seed)
    count = batch * seq * 3 * width
    values = [float(next(bits) >> 11) * 2.0**-52 - 1.0 for _ in range(count)]
    return np.array(values, dtype=np.float64).reshape(batch, seq, 3 * width)


def pipeline(qkv, heads):
    """Every intermediate of GPT-2 attention, by name, in the order written."""
    batch, seq, packed = qkv.shape
    width = packed // 3
    head_width = width // heads

    q, k, v = np.split(qkv, 3, axis=2)

    def split_heads(x):
        return x.reshape(batch, seq, heads, head_width).transpose(0, 2, 1, 3)

    q_heads, k_heads, v_heads = split_heads(q), split_heads(k), split_heads(v)
    kt = k_heads.transpose(0, 1, 3, 2)
    scores = (q_heads @ kt) / np.sqrt(head_width)
    mask = np.tril(np.ones((seq, seq), dtype=bool))
    masked = np.where(mask, scores, -np.inf)
    exp = np.exp(masked - masked.max(axis=-1, keepdims=True))
    probs = exp / exp.sum(axis=-1, keepdims=True)
    attn = probs @ v_heads
    merged = attn.transpose(0, 2, 1, 3).reshape(batch, seq, width)
    return {
        "qkv": qkv,
        "q": q,
        "k": k,
        "v": v,
        "q_heads": q_heads,
        "k_heads": k_heads,
        "v_heads": v_heads,
        "kt": kt,
        "scores": scores,
        "masked": masked,
        "probs": probs,
        "attn": attn,
        "merged": merged,
    }


def render(tensors):
    """The fixture text: a config line, then per tensor a header and one value per line."""
    lines = [
        "# GPT-2 attention on seeded input, computed by NumPy.",
        "# Written by scripts/attention_fixture.py; regenerate it there, do not edit.",
        "# Format: `tensor NAME d0 d1 ...` then the values in row-major order, one per line (repr).",
        f"config batch={BATCH} seq={SEQ} heads={HEADS} head_width={HEAD_WIDTH} seed={SEED}",
    ]
    for name, array in tensors.items():
        lines.append("tensor " + name + " " + " ".join(str(n) for n in array.shape))
        lines.extend(repr(float(x)) for x in array.ravel(order="C"))
    return "\n".join(lines) + "\n"


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        print(__doc__, file=sys.stderr)
        return 2
    qkv = packed_qkv(BATCH, SEQ, HEADS * HEAD_WIDTH, SEED)
    text = render(pipeline(qkv, HEADS))
    if check:
        same = FIXTURE.exists() and FIXTURE.read_text() == text
        print(f"{FIXTURE}: {'reproduced byte for byte' if same else 'DIFFERS'}")
        return 0 if same else 1
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(text)
    print(f"wrote {FIXTURE} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
