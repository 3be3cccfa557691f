#!/usr/bin/env python3
"""Write tests/fixtures/gpt2_f16/, gpt2_bf16/ and gpt2_f64/: the tiny GPT-2 of
tests/fixtures/gpt2/ (scripts/gpt2_fixture.py) saved by Hugging Face
`transformers` in float16, bfloat16 and float64, with the logits the Rust GPT-2
example must reproduce from each checkpoint.

Source: `GPT2LMHeadModel.from_pretrained("tests/fixtures/gpt2", attn_implementation="eager")`
(float32), and the prompt `prompt_ids` of tests/fixtures/gpt2/reference.safetensors.

gpt2_f16/ and gpt2_bf16/ (all rewritten byte for byte by this script):

- `model.safetensors`, `config.json`, `generation_config.json`: the source model
  `.to(torch.float16)` (resp. `torch.bfloat16`: every weight rounded to nearest,
  ties to even) and `save_pretrained` (safetensors). The script checks that every
  tensor is stored as F16 (resp. BF16) and that the keys and shapes are the
  source's (`transformer.` prefix, no `lm_head.weight`: tied to `transformer.wte.weight`);
  `config.json` says `"dtype": "float16"` (resp. `"bfloat16"`).
- `reference.safetensors` (`safetensors_io.serialize`, header sorted): the half
  checkpoint loaded back (`from_pretrained(dir, dtype="auto")`: the half type) and
  upcast with `model.float()`, i.e. the same rounded weights computed in float32,
  then exactly as scripts/gpt2_fixture.py: `prompt_ids` i64 [P], `prompt_logits` f32
  [P, V] (one forward pass over the prompt), `generated_ids` i64 [N] and
  `step_logits` f32 [N, V] (transformers' greedy `generate` on the KV cache; step 0
  is the last prompt position), and the same weights in float64 (`model.double()`):
  `prompt_logits_f64` f64 [P, V], `step_logits_f64` f64 [N, V] (one uncached pass over
  prompt + generated[:-1], rows P-1..). Also `prompt_logits_half` F16 (resp. BF16)
  [P, V]: the checkpoint run as loaded, in the half type on the CPU (PyTorch's half
  kernels, which accumulate in f32 inside each op and round every op's result):
  only for a loose "native half" comparison.
- `reference.json`: the configuration, ids, versions, key list with dtypes and the
  diagnostics: how far the f32-of-half-weights logits are from the source's f32
  logits (`tests/fixtures/gpt2/reference.safetensors`: the rounding of the weights
  matters far more than the f32 arithmetic), whether greedy decoding still picks
  the source's tokens, the smallest top-1 / top-2 gap, and how far the native half
  run is.

gpt2_f64/ (under 1.5 MB only without step logits, so):

- `model.safetensors` (every tensor F64), `config.json` (`"dtype": "float64"`),
  `generation_config.json`: the source model `.double()` and `save_pretrained`.
- `reference.safetensors`: `prompt_ids` i64 [P], `prompt_logits` f64 [P, V] (the f64
  checkpoint loaded back, in float64, one forward pass), `generated_ids` i64 [N]
  (greedy `generate` of the f64 model; the source's tokens). The step logits in
  float64 are not stored (the directory would pass 1.5 MB): the script checks
  that the f64 model's uncached float64 pass over prompt + generated[:-1] equals
  `step_logits_f64` of tests/fixtures/gpt2/reference.safetensors bit for bit, and
  its `prompt_logits` equals `prompt_logits_f64` there (an f32 -> f64 widening is
  exact, and both come from the same float64 code), so a test can use those.
- `reference.json`: as above.

The math is the one written out in scripts/gpt2_fixture.py; only the element type
of the stored weights changes.

Reproducibility: torch on one thread with `MKL_CBWR=COMPATIBLE` and
`ATEN_CPU_CAPABILITY=default` (scripts/fixture_cli.py); no randomness.

Run from the repository root (tests never need Python):

    /work/venv/bin/python scripts/gpt2_half_fixture.py           # (re)write the three folders
    /work/venv/bin/python scripts/gpt2_half_fixture.py --check   # regenerate into a temp dir,
                                                                 # exit 1 unless every byte matches

Versions used for the committed fixtures: Python 3.11.7, torch 2.15.0 (PyPI wheel,
run on CPU), transformers 5.24.0, safetensors 0.8.0, numpy 2.4.6.
"""

import json
import sys
from pathlib import Path

from fixture_cli import fixture_main, readable_json  # noqa: I001  (first: pins torch's numerics before torch loads)

import numpy as np  # noqa: E402
import safetensors  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from greedy import greedy_generate  # noqa: E402  (scripts/greedy.py)
from half_dtypes import to_numpy16  # noqa: E402  (scripts/half_dtypes.py)
from safetensors.numpy import load_file as load_numpy  # noqa: E402
from safetensors_io import header_of, serialize  # noqa: E402  (scripts/safetensors_io.py)
from transformers import GPT2LMHeadModel  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
SOURCE = FIXTURES / "gpt2"
GENERATE = 16
LIMIT = 1_500_000  # bytes per folder
HALF = {"gpt2_f16": (torch.float16, "F16"), "gpt2_bf16": (torch.bfloat16, "BF16")}
MODEL_FILES = ["config.json", "generation_config.json", "model.safetensors", "reference.safetensors", "reference.json"]
FILES = [f"{folder}/{file}" for folder in ("gpt2_bf16", "gpt2_f16", "gpt2_f64") for file in MODEL_FILES]


def load(folder: Path) -> GPT2LMHeadModel:
    """`from_pretrained` in the checkpoint's own dtype, eager attention, eval mode."""
    return GPT2LMHeadModel.from_pretrained(folder, attn_implementation="eager", dtype="auto").eval()


def source_reference() -> dict:
    return load_numpy(str(SOURCE / "reference.safetensors"))


def save(model: GPT2LMHeadModel, folder: Path, dtype_name: str) -> dict:
    """`save_pretrained` and check the stored dtypes, keys and shapes against the source."""
    model.save_pretrained(folder, safe_serialization=True)
    header = {k: v for k, v in header_of(folder / "model.safetensors").items() if k != "__metadata__"}
    source = {k: v for k, v in header_of(SOURCE / "model.safetensors").items() if k != "__metadata__"}
    assert sorted(header) == sorted(source), "keys differ from the source checkpoint"
    assert all(k.startswith("transformer.") for k in header) and "lm_head.weight" not in header
    for name, entry in header.items():
        assert entry["dtype"] == dtype_name, (name, entry["dtype"])
        assert entry["shape"] == source[name]["shape"], name
    return {k: v["shape"] for k, v in sorted(header.items())}


def greedy(model, ids: torch.Tensor):
    """transformers' greedy `generate` with the KV cache: (new ids [N], logits [N, V])."""
    out = greedy_generate(model, ids, GENERATE, output_logits=True, return_dict_in_generate=True)
    return out.sequences[0, ids.shape[1] :], torch.stack([step[0] for step in out.logits])


def max_abs(a, b) -> float:
    return float((torch.as_tensor(a).double() - torch.as_tensor(b).double()).abs().max())


def half_reference(folder: Path, dtype: torch.dtype, source_model: GPT2LMHeadModel, src: dict):
    """The reference tensors and diagnostics of one half checkpoint."""
    ids = torch.from_numpy(src["prompt_ids"])[None]
    p = ids.shape[1]
    model = load(folder)
    assert model.dtype == dtype
    native = load(folder)  # stays in the half type
    model.float()
    source_state = source_model.state_dict()
    for name, value in model.state_dict().items():  # the f32 model holds the rounded weights exactly
        assert torch.equal(value, source_state[name].to(dtype).float()), name
    with torch.no_grad():
        prompt_logits = model(ids).logits[0]
        generated, step_logits = greedy(model, ids)
        full = torch.cat([ids[0], generated[:-1]])[None]
        full_logits = model(full).logits[0, p - 1 :]
        source_on_full = source_model(full).logits[0, p - 1 :]  # the f32 source model, same sequence
        model64 = load(folder).double()
        prompt64 = model64(ids).logits[0]
        step64 = model64(full).logits[0, p - 1 :]
        assert torch.equal(step64.argmax(-1), generated), "f64 greedy tokens differ from f32"
        prompt_half = native(ids).logits[0]
        generated_half, _ = greedy(native, ids)
    source_ids = src["generated_ids"].tolist()
    same = [a == b for a, b in zip(generated.tolist(), source_ids)]
    top2 = torch.topk(step_logits, 2, dim=-1).values
    weight_change = max(
        max_abs(value.float(), source_state[name]) for name, value in model.state_dict().items()
    )
    diagnostics = {
        "max_abs_weight_rounding": weight_change,
        "max_abs_minus_source_f32_prompt": max_abs(prompt_logits, src["prompt_logits"]),
        "max_abs_minus_source_f32_steps_same_sequence": max_abs(full_logits, source_on_full),
        "generated_ids_equal_source": all(same) and len(same) == len(source_ids),
        "first_step_differing_from_source": same.index(False) if False in same else None,
        "max_abs_f32_minus_f64_prompt": max_abs(prompt_logits, prompt64),
        "max_abs_f32_minus_f64_steps": max_abs(step_logits, step64),
        "max_abs_cached_minus_uncached_steps": max_abs(step_logits, full_logits),
        "min_top1_minus_top2_logit_over_steps": float((top2[:, 0] - top2[:, 1]).double().min()),
        "logit_std_prompt": float(prompt_logits.double().std()),
        "max_abs_half_compute_minus_f32_prompt": max_abs(prompt_half.float(), prompt_logits),
        "half_compute_generated_ids": generated_half.tolist(),
        "half_compute_generated_ids_equal": torch.equal(generated_half, generated),
        "distinct_generated_ids": len(set(generated.tolist())),
    }
    tensors = {
        "prompt_ids": src["prompt_ids"].astype(np.int64),
        "prompt_logits": np.ascontiguousarray(prompt_logits.numpy(), dtype=np.float32),
        "generated_ids": generated.numpy().astype(np.int64),
        "step_logits": np.ascontiguousarray(step_logits.numpy(), dtype=np.float32),
        "prompt_logits_f64": np.ascontiguousarray(prompt64.numpy(), dtype=np.float64),
        "step_logits_f64": np.ascontiguousarray(step64.numpy(), dtype=np.float64),
        "prompt_logits_half": to_numpy16(prompt_half),
    }
    return tensors, diagnostics


def f64_reference(folder: Path, src: dict):
    ids = torch.from_numpy(src["prompt_ids"])[None]
    p = ids.shape[1]
    model = load(folder)
    assert model.dtype == torch.float64
    with torch.no_grad():
        prompt64 = model(ids).logits[0]
        generated, _ = greedy(model, ids)
        full = torch.cat([ids[0], generated[:-1]])[None]
        step64 = model(full).logits[0, p - 1 :]
    assert generated.tolist() == src["generated_ids"].tolist(), "f64 greedy tokens differ from the source's"
    assert np.array_equal(prompt64.numpy(), src["prompt_logits_f64"]), "prompt logits differ from the source's f64"
    assert np.array_equal(step64.numpy(), src["step_logits_f64"]), "step logits differ from the source's f64"
    diagnostics = {
        "prompt_logits_equal_source_prompt_logits_f64": True,
        "uncached_step_logits_equal_source_step_logits_f64": True,
        "generated_ids_equal_source": True,
        "max_abs_minus_source_f32_prompt": max_abs(prompt64, src["prompt_logits"]),
        "step_logits_f64": "not stored (the folder would pass 1.5 MB): equal bit for bit to "
        "step_logits_f64 of tests/fixtures/gpt2/reference.safetensors",
    }
    tensors = {
        "prompt_ids": src["prompt_ids"].astype(np.int64),
        "prompt_logits": np.ascontiguousarray(prompt64.numpy(), dtype=np.float64),
        "generated_ids": generated.numpy().astype(np.int64),
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


def write_folder(out: Path, name: str, tensors: dict, diagnostics: dict, keys: dict, dtype_name: str):
    metadata = {
        "model": f"tests/fixtures/gpt2 GPT2LMHeadModel stored as {dtype_name} (scripts/gpt2_half_fixture.py)",
        "attn_implementation": "eager",
        **{k: str(v) for k, v in versions().items()},
    }
    (out / name / "reference.safetensors").write_bytes(serialize(tensors, metadata))
    config = json.loads((out / name / "config.json").read_text())
    reference = header_of(out / name / "reference.safetensors")
    summary = {
        "source": "tests/fixtures/gpt2 (scripts/gpt2_fixture.py)",
        "stored_dtype": dtype_name,
        "config_dtype": config["dtype"],
        "prompt_ids": tensors["prompt_ids"].tolist(),
        "generated_ids": tensors["generated_ids"].tolist(),
        "model_keys": keys,
        "reference_keys": {k: [v["dtype"], v["shape"]] for k, v in reference.items() if k != "__metadata__"},
        "diagnostics": diagnostics,
        "versions": versions(),
    }
    (out / name / "reference.json").write_text(readable_json(summary) + "\n")
    size = sum((out / name / f).stat().st_size for f in MODEL_FILES)
    assert size < LIMIT, f"{name} is {size} bytes"
    return size


def write(out: Path) -> dict:
    src = source_reference()
    report = {}
    for name, (dtype, dtype_name) in HALF.items():
        source_model = load(SOURCE)
        assert source_model.dtype == torch.float32
        keys = save(load(SOURCE).to(dtype), out / name, dtype_name)
        tensors, diagnostics = half_reference(out / name, dtype, source_model, src)
        size = write_folder(out, name, tensors, diagnostics, keys, dtype_name)
        report[name] = {"bytes": size, **diagnostics}
    keys = save(load(SOURCE).double(), out / "gpt2_f64", "F64")
    tensors, diagnostics = f64_reference(out / "gpt2_f64", src)
    size = write_folder(out, "gpt2_f64", tensors, diagnostics, keys, "F64")
    report["gpt2_f64"] = {"bytes": size, **diagnostics}
    return report


if __name__ == "__main__":
    sys.exit(fixture_main(lambda out: readable_json(write(out)), FIXTURES, FILES, "gpt2_half_fixture.py"))
