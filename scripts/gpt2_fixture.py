#!/usr/bin/env python3
"""Write tests/fixtures/gpt2/: a small GPT-2 with seeded random weights, saved by
Hugging Face `transformers`, and the logits and greedy tokens `transformers`
computes with it, so the Rust GPT-2 can be checked without Python.

Files (all rewritten byte for byte by this script):

- `model.safetensors`, `config.json`, `generation_config.json`: written by
  `GPT2LMHeadModel.save_pretrained` (safetensors). Every key carries the
  `transformer.` prefix (`transformer.wte.weight`, `transformer.h.0.attn.c_attn.weight`,
  ...). `lm_head.weight` is absent: the LM head is tied to `transformer.wte.weight`
  (`tie_word_embeddings: true`). No `attn.bias` mask buffer is stored.
- `reference.safetensors` (written by `safetensors_io.serialize`, header sorted):
  `prompt_ids` i64 [P], `prompt_logits` f32 [P, V] (one forward pass over the
  prompt), `generated_ids` i64 [N], `step_logits` f32 [N, V] (the logits that
  chose each generated token; step 0 is the last prompt position, from the
  prefill of `generate`, steps 1.. are single-token decode steps on the KV cache),
  and the same computed in float64 from the same (f32-valued) weights:
  `prompt_logits_f64` f64 [P, V], `step_logits_f64` f64 [N, V] (one uncached float64
  forward over prompt + generated[:-1], rows P-1..; `generate` itself casts step
  logits to float32, so it cannot give them); the f64 greedy tokens are the same.
- `reference.json`: the configuration, the ids, the versions, the key list and
  the diagnostics below, for people.

The math the Rust side must match (transformers 5.24 `modeling_gpt2.py`, eager):

    x = wte[ids] + wpe[positions]                      positions 0..T (+ cache length)
    per block i (h.{i}):
      a = LayerNorm(x; ln_1.weight, ln_1.bias)         mean/biased variance over C,
                                                       (a - mean) / sqrt(var + 1e-5) * w + b
      qkv = a · c_attn.weight + c_attn.bias            Conv1D: W stored [in, out] = [C, 3C],
                                                       so x·W (NOT x·Wᵀ as nn.Linear)
      q, k, v = qkv[..., 0:C], qkv[..., C:2C], qkv[..., 2C:3C]
      split heads: [T, C] -> [T, H, D] -> [H, T, D]    D = C / H, head h = columns h*D..(h+1)*D
      s = (q · kᵀ) * D**-0.5                           scale 1/sqrt(D) (a multiply by the
                                                       f32 constant D**-0.5)
      s[i, j] += finfo.min for j > i                   causal mask (additive; exp -> exactly 0)
      p = softmax(s, last axis)                        (ATen: max-subtracted exp, sum, divide)
      o = p · v, merge heads [H, T, D] -> [T, H, D] -> [T, C]
      x = x + (o · attn.c_proj.weight + attn.c_proj.bias)      c_proj W [C, C], Conv1D
      m = LayerNorm(x; ln_2)
      g = gelu_new(m · mlp.c_fc.weight + mlp.c_fc.bias)        c_fc W [C, 4C]
      x = x + (g · mlp.c_proj.weight + mlp.c_proj.bias)         c_proj W [4C, C]
    h = LayerNorm(x; ln_f)
    logits = h · wteᵀ                                  tied LM head, no bias

    gelu_new(u) = 0.5 * u * (1 + tanh(sqrt(2/pi) * (u + 0.044715 * u**3)))   (the tanh
                  approximation, NOT erf GELU; `reference.json` records how far the
                  logits move if erf GELU is used instead, so a test can tell them apart)

`spec_logits` below is this math in NumPy float64; the script asserts it matches
transformers' float64 logits (the difference is recorded in `reference.json`,
about 1e-14).

Dropout is off (eval, and every *_pdrop is 0). Greedy decoding: the next token
is the argmax of the last position's logits (the first index among equal
values, as `torch.argmax`); `reference.json` records the smallest gap between
the best and second-best logit over the steps, so a correct f32 implementation
cannot pick another token.

Weights: drawn from NumPy's PCG64 (`default_rng(SEED)`, uniform draws only,
which NumPy keeps stable), parameter by parameter in name order, scaled so
that attention is far from uniform, GELU works in its curved range and the
position embeddings and residual branches are strong enough that greedy
decoding does not just repeat one token (10 distinct ids in 16); layer-
norm gains in [0.6, 1.4] and biases in [-0.3, 0.3] (not 1 and 0), every Conv1D
bias non-zero, so a missing gain, bias or transpose changes the logits by far
more than the test tolerance.

Reproducibility: the script (through `scripts/fixture_cli.py`) runs torch on one thread with `MKL_CBWR=COMPATIBLE`
and `ATEN_CPU_CAPABILITY=default` (set before torch is imported), so the
reference bits do not depend on the thread count or on the CPU's vector width.

Setup and run (outside CI; tests never need Python), from the repository root:

    python3 -m venv /work/venv && /work/venv/bin/pip install -r scripts/requirements.txt
    /work/venv/bin/python scripts/gpt2_fixture.py           # (re)write tests/fixtures/gpt2/
    /work/venv/bin/python scripts/gpt2_fixture.py --check   # regenerate into a temp dir,
                                                            # exit 1 unless every byte matches

Versions used for the committed fixture: Python 3.11.7, torch 2.15.0 (PyPI wheel,
run on CPU), transformers 5.24.0, safetensors 0.8.0, numpy 2.4.6.
"""

import json
import sys
from pathlib import Path

from fixture_cli import fixture_main, readable_json  # noqa: I001  (first: pins torch's numerics before torch loads)

import numpy as np  # noqa: E402
import safetensors  # noqa: E402
from safetensors.numpy import load_file as load_numpy  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from greedy import greedy_generate  # noqa: E402  (scripts/greedy.py)
from safetensors_io import header_of, serialize  # noqa: E402  (scripts/safetensors_io.py)
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

SEED = 2019
LAYERS, HEADS, WIDTH, VOCAB, POSITIONS = 2, 4, 64, 1000, 64
# Includes the first and the last id of the vocabulary.
PROMPT_IDS = [464, 0, 318, 257, 999, 13, 11, 42]
GENERATE = 16
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "gpt2"
FILES = ["config.json", "generation_config.json", "model.safetensors", "reference.safetensors", "reference.json"]


def build_model() -> GPT2LMHeadModel:
    """The fixture model: transformers' GPT-2 with every parameter overwritten
    from PCG64 uniform draws (see the module docstring for the scales)."""
    config = GPT2Config(
        vocab_size=VOCAB,
        n_positions=POSITIONS,
        n_embd=WIDTH,
        n_layer=LAYERS,
        n_head=HEADS,
        activation_function="gelu_new",
        layer_norm_epsilon=1e-5,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
        tie_word_embeddings=True,
        attn_implementation="eager",
    )
    model = GPT2LMHeadModel(config).eval()
    rng = np.random.default_rng(SEED)

    def uniform(shape, low, high):
        return (low + (high - low) * rng.random(shape)).astype(np.float32)

    def centered(shape, std):  # uniform with this standard deviation
        half = std * 3.0**0.5
        return uniform(shape, -half, half)

    c = WIDTH
    with torch.no_grad():
        for name, param in sorted(model.named_parameters()):
            shape = tuple(param.shape)
            if name.endswith("wte.weight"):
                value = centered(shape, 0.3)
            elif name.endswith("wpe.weight"):
                value = centered(shape, 1.0)
            elif ".ln_" in name and name.endswith(".weight"):
                value = uniform(shape, 0.6, 1.4)
            elif ".ln_" in name and name.endswith(".bias"):
                value = uniform(shape, -0.3, 0.3)
            elif name.endswith("attn.c_attn.weight") or name.endswith("mlp.c_fc.weight"):
                value = centered(shape, 1.2 / c**0.5)
            elif name.endswith("attn.c_proj.weight"):
                value = centered(shape, 1.0 / c**0.5)
            elif name.endswith("mlp.c_proj.weight"):
                value = centered(shape, 1.0 / (4 * c) ** 0.5)
            elif name.endswith(".bias"):
                value = uniform(shape, -0.1, 0.1)
            else:
                raise ValueError(f"no rule for parameter {name}")
            param.copy_(torch.from_numpy(value))
    assert model.lm_head.weight.data_ptr() == model.transformer.wte.weight.data_ptr(), "LM head must be tied"
    return model


def greedy(model, ids: torch.Tensor):
    """transformers' greedy `generate` with the KV cache: (new ids [N], logits [N, V])."""
    out = greedy_generate(model, ids, GENERATE, output_logits=True, return_dict_in_generate=True)
    new_ids = out.sequences[0, ids.shape[1] :]
    logits = torch.stack([step[0] for step in out.logits])
    return new_ids, logits


def spec_logits(weights_file: Path, ids: list) -> np.ndarray:
    """The docstring's math in plain NumPy float64, read from the saved file
    (keys as written, LM head = wte), over the whole sequence without a cache:
    the check that the math written above is the math transformers runs."""
    w = {k.removeprefix("transformer."): v.astype(np.float64) for k, v in load_numpy(str(weights_file)).items()}

    def layer_norm(x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-5) * w[f"{name}.weight"] + w[f"{name}.bias"]

    def conv1d(x, name):
        return x @ w[f"{name}.weight"] + w[f"{name}.bias"]

    def gelu_new(u):
        return 0.5 * u * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (u + 0.044715 * u**3)))

    t, c, h = len(ids), WIDTH, HEADS
    d = c // h
    x = w["wte.weight"][ids] + w["wpe.weight"][:t]
    future = np.triu(np.ones((t, t), dtype=bool), 1)
    for i in range(LAYERS):
        qkv = conv1d(layer_norm(x, f"h.{i}.ln_1"), f"h.{i}.attn.c_attn")
        q, k, v = (qkv[:, j * c : (j + 1) * c].reshape(t, h, d).transpose(1, 0, 2) for j in range(3))
        s = q @ k.transpose(0, 2, 1) * d**-0.5
        s = np.where(future, -np.inf, s)
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        o = (p @ v).transpose(1, 0, 2).reshape(t, c)
        x = x + conv1d(o, f"h.{i}.attn.c_proj")
        x = x + conv1d(gelu_new(conv1d(layer_norm(x, f"h.{i}.ln_2"), f"h.{i}.mlp.c_fc")), f"h.{i}.mlp.c_proj")
    return layer_norm(x, "ln_f") @ w["wte.weight"].T


def reference(model: GPT2LMHeadModel):
    """The reference tensors and the diagnostics that say how strict a test can be."""
    ids = torch.tensor([PROMPT_IDS], dtype=torch.long)
    with torch.no_grad():
        prompt_logits = model(ids).logits[0]
        generated, step_logits = greedy(model, ids)
        # The whole sequence in one pass without a cache: how far f32 results move
        # with the order of the work alone (cache vs. no cache).
        full = torch.cat([ids[0], generated[:-1]])[None]
        full_logits = model(full).logits[0, len(PROMPT_IDS) - 1 :]

        model64 = GPT2LMHeadModel(model.config).eval().double()
        model64.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
        prompt64 = model64(ids).logits[0]
        # generate() casts each step's logits to float32, so the f64 steps come from
        # one uncached float64 pass over the same sequence instead.
        step64 = model64(full).logits[0, len(PROMPT_IDS) - 1 :]
        assert torch.equal(step64.argmax(-1), generated), "f64 greedy tokens differ from f32"

        erf_config = GPT2Config.from_dict({**model.config.to_dict(), "activation_function": "gelu"})
        erf_model = GPT2LMHeadModel(erf_config).eval()
        erf_model.load_state_dict(model.state_dict())
        erf_logits = erf_model(ids).logits[0]

    top2 = torch.topk(step_logits, 2, dim=-1).values
    gaps = (top2[:, 0] - top2[:, 1]).double()
    diagnostics = {
        "max_abs_f32_minus_f64_prompt": float((prompt_logits.double() - prompt64).abs().max()),
        "max_abs_f32_minus_f64_steps": float((step_logits.double() - step64).abs().max()),
        "max_abs_cached_minus_uncached_steps": float((step_logits - full_logits).abs().max()),
        "max_abs_prompt_step0_minus_prompt_last": float((step_logits[0] - prompt_logits[-1]).abs().max()),
        "max_abs_erf_gelu_minus_gelu_new_prompt": float((erf_logits - prompt_logits).abs().max()),
        "min_top1_minus_top2_logit_over_steps": float(gaps.min()),
        "logit_std_prompt": float(prompt_logits.double().std()),
        "distinct_generated_ids": len(set(generated.tolist())),
    }
    tensors = {
        "prompt_ids": ids[0].numpy().astype(np.int64),
        "prompt_logits": np.ascontiguousarray(prompt_logits.numpy(), dtype=np.float32),
        "generated_ids": generated.numpy().astype(np.int64),
        "step_logits": np.ascontiguousarray(step_logits.numpy(), dtype=np.float32),
        "prompt_logits_f64": np.ascontiguousarray(prompt64.numpy(), dtype=np.float64),
        "step_logits_f64": np.ascontiguousarray(step64.numpy(), dtype=np.float64),
    }
    return tensors, diagnostics


def versions() -> dict:
    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
    }


def write(out_dir: Path) -> dict:
    """Write every fixture file into `out_dir`; returns the human-readable summary."""
    model = build_model()
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    tensors, diagnostics = reference(model)
    sequence = tensors["prompt_ids"].tolist() + tensors["generated_ids"][:-1].tolist()
    spec = spec_logits(out_dir / "model.safetensors", sequence)
    expected = np.concatenate([tensors["prompt_logits_f64"], tensors["step_logits_f64"][1:]])
    diagnostics["max_abs_numpy_spec_minus_transformers_f64"] = float(np.abs(spec - expected).max())
    assert diagnostics["max_abs_numpy_spec_minus_transformers_f64"] < 1e-9, "the documented math is not transformers'"
    metadata = {
        "model": "GPT2LMHeadModel, seeded random weights (scripts/gpt2_fixture.py)",
        "attn_implementation": "eager",
        "seed": str(SEED),
        **{k: str(v) for k, v in versions().items()},
    }
    (out_dir / "reference.safetensors").write_bytes(serialize(tensors, metadata))
    summary = {
        "config": {
            "n_layer": LAYERS,
            "n_head": HEADS,
            "n_embd": WIDTH,
            "n_inner": 4 * WIDTH,
            "vocab_size": VOCAB,
            "n_positions": POSITIONS,
            "layer_norm_epsilon": 1e-5,
            "activation_function": "gelu_new",
            "tie_word_embeddings": True,
            "attn_implementation": "eager",
        },
        "seed": SEED,
        "prompt_ids": tensors["prompt_ids"].tolist(),
        "generated_ids": tensors["generated_ids"].tolist(),
        "model_keys": {k: v["shape"] for k, v in header_of(out_dir / "model.safetensors").items() if k != "__metadata__"},
        "reference_keys": {
            k: [v["dtype"], v["shape"]] for k, v in header_of(out_dir / "reference.safetensors").items() if k != "__metadata__"
        },
        "diagnostics": diagnostics,
        "versions": versions(),
    }
    (out_dir / "reference.json").write_text(readable_json(summary) + "\n")
    return summary


def summarize(summary: dict) -> str:
    return f"prompt {summary['prompt_ids']} generated {summary['generated_ids']}\n" + json.dumps(
        summary["diagnostics"], indent=1
    )


if __name__ == "__main__":
    sys.exit(fixture_main(lambda out: summarize(write(out)), OUT, FILES, "gpt2_fixture.py"))
