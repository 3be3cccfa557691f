#!/usr/bin/env python3
"""llama.cpp (through llama-cpp-python) as the speed peer for SmolLM2-135M-Instruct
Q4_1: prefill and greedy-decode tokens/s on the same chat prompt that
scripts/smollm2_reference.py gives transformers, on 1 and 2 threads, and
llama.cpp's own logits for the greedy steps, saved for a later comparison.

What it does, per thread count K in (1, 2):

- `Llama(model_path, n_ctx=512, n_threads=K, n_threads_batch=K, verbose=False,
  seed=0)` (llama.cpp's defaults otherwise: n_batch 512, an f16 KV cache, the
  CPU backend built for this machine, `-march=native`).
- The prompt: the GGUF's `tokenizer.chat_template` rendered with jinja2 the way
  transformers renders it (`trim_blocks`, `lstrip_blocks`, one user message "What
  is the capital of France?", `add_generation_prompt=True`), checked equal to the
  text transformers rendered (`tests/fixtures/smollm2/reference.json`); the template
  inserts its default system prompt. Tokenized with `llm.tokenize(text.encode(),
  add_bos=False, special=True)` and checked equal to transformers' 37 ids.
- One warm-up, then `--runs` timed runs: `llm.reset()`, `llm.eval(prompt)` (the
  prefill; prefill tokens/s = 37 / its time), then 32 greedy tokens:
  `llm.sample(temp=0.0, repeat_penalty=1.0)` (llama.cpp's greedy sampler) after
  the prefill and after each `llm.eval([token])`; decode tokens/s = 31 / the time
  of the 31 single-token evals with their samples. The end-of-turn token does not
  stop it (the same 32 tokens transformers decodes in its measurement). llama.cpp's
  own counters (`llama_perf_context`: t_p_eval_ms / n_p_eval, t_eval_ms / n_eval)
  are recorded next to the wall-clock rates.

Untimed, with K = 1: the greedy steps again, reading each step's logits row
(`llama_get_logits_ith(ctx, -1)`, f32 [V]); the script asserts the sampler's
token is that row's argmax and writes `models/reference/llamacpp_logits.safetensors`
(ignored by git): `prompt_ids` i64 [P], `generated_ids` i64 [n] (up to and with
`<|im_end|>`), `logits` f32 [n, V] (row 0 = the first generated position), and
`llamacpp.json` beside it. When `models/reference/reference.safetensors` from
scripts/smollm2_reference.py is there, it prints how far llama.cpp's rows are from
transformers' (llama.cpp quantizes the activations to 8 bits for its Q4_1 / Q8_0
dot products and keeps K/V in f16, so expect differences far above f32 rounding).
When `models/SmolLM2-135M-Instruct.F32-dequantized.gguf` is there
(`smollm2_reference.py --write-f32-gguf`: every tensor dequantized to F32), the same
greedy steps run on it with an F32 KV cache as well (`type_k = type_v = F32`,
untimed), which takes llama.cpp's 8-bit activations and f16 cache out of the
comparison: what is left is f32 rounding if both run the same model.
It also tokenizes every string in `tests/fixtures/smollm2/tokenizer_cases.json`
with `special=True` and reports the cases whose ids differ from transformers'.

What it found (2026-12-02): with the Q4_1 file llama.cpp's first logits row is up
to 1.77 (mean 0.85) away from transformers', and at step 0 transformers' top-2 gap
is only 0.082 ("The" over "L"), so llama.cpp answers "L'Étoile, la Cité, la Nation,
..." instead of "The capital of France is Paris."; on the F32-dequantized copy with
an F32 KV cache it gives transformers' ids with logits within 4.8e-5 (f32 rounding).
So the two run the same model; the difference is llama.cpp's quantized arithmetic.

Output: a table, then one JSON line (versions, rates per run, medians, the texts).

Setup (its own venv, outside the repository; llama-cpp-python compiles llama.cpp
from the sdist with cmake, ~15 min on 2 cores):

    python3 -m venv /work/venv-llama
    /work/venv-llama/bin/pip install cmake ninja scikit-build-core
    nice -n 19 /work/venv-llama/bin/pip install llama-cpp-python==0.3.36
    bash scripts/fetch_smollm2.sh
    /work/venv-llama/bin/python scripts/bench_llamacpp.py            # when the machine is quiet

Versions used: llama-cpp-python 0.3.36 (vendors ggml-org/llama.cpp at
0c1e57098bba43ac29e6e3b677cdceebdd22334f), numpy 2.4.6, Jinja2 3.1.6, gcc 12.2,
Python 3.11.7.
"""

import argparse
import json
import os
import statistics
import sys
import time
from importlib.metadata import version as package_version
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from safetensors_io import header_of, serialize  # noqa: E402  (scripts/safetensors_io.py, numpy only)

ROOT = Path(__file__).resolve().parent.parent
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_GGUF = ROOT / "models" / GGUF_NAME
DEFAULT_F32_GGUF = ROOT / "models" / "SmolLM2-135M-Instruct.F32-dequantized.gguf"
DEFAULT_OUT = ROOT / "models" / "reference"
GGML_TYPE_F32 = 0
FIXTURE = ROOT / "tests" / "fixtures" / "smollm2"
USER_MESSAGE = "What is the capital of France?"
NEW_TOKENS = 32
THREADS = (1, 2)


def load_safetensors(path: Path) -> dict:
    """name -> numpy array (F32, F64, I64 only), without the safetensors package."""
    dtypes = {"F32": np.float32, "F64": np.float64, "I64": np.int64}
    header = header_of(path)
    blob = path.read_bytes()
    start = 8 + int.from_bytes(blob[:8], "little")
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        out[name] = np.frombuffer(blob[start + lo : start + hi], dtype=dtypes[info["dtype"]]).reshape(info["shape"])
    return out


def render_prompt(template: str, eos: str, bos: str) -> str:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    messages = [{"role": "user", "content": USER_MESSAGE}]
    return env.from_string(template).render(
        messages=messages, add_generation_prompt=True, eos_token=eos, bos_token=bos
    )


def open_model(path: Path, threads: int, **extra):
    from llama_cpp import Llama

    return Llama(
        model_path=str(path), n_ctx=512, n_threads=threads, n_threads_batch=threads, verbose=False, seed=0, **extra
    )


def greedy_token(llm) -> int:
    return int(llm.sample(temp=0.0, top_k=1, repeat_penalty=1.0))


def timed_run(llm, prompt: list) -> dict:
    import llama_cpp

    llm.reset()
    llama_cpp.llama_perf_context_reset(llm.ctx)
    t0 = time.perf_counter()
    llm.eval(prompt)
    t1 = time.perf_counter()
    tokens = [greedy_token(llm)]
    t2 = time.perf_counter()
    for _ in range(NEW_TOKENS - 1):
        llm.eval([tokens[-1]])
        tokens.append(greedy_token(llm))
    t3 = time.perf_counter()
    perf = llama_cpp.llama_perf_context(llm.ctx)
    return {
        "prefill_tok_s": len(prompt) / (t1 - t0),
        "decode_tok_s": (NEW_TOKENS - 1) / (t3 - t2),
        "total_tok_s": NEW_TOKENS / (t3 - t0),
        "llama_prefill_tok_s": perf.n_p_eval / (perf.t_p_eval_ms / 1e3) if perf.t_p_eval_ms else None,
        "llama_decode_tok_s": perf.n_eval / (perf.t_eval_ms / 1e3) if perf.t_eval_ms else None,
        "llama_counts": [perf.n_p_eval, perf.n_eval],
        "tokens": tokens,
    }


def logits_run(llm, prompt: list, eos: int) -> tuple:
    """Greedy steps until eos (at most NEW_TOKENS), with the logits row of each step."""
    import llama_cpp

    llm.reset()
    llm.eval(prompt)
    vocab = llm.n_vocab()
    ids, rows = [], []
    while len(ids) < NEW_TOKENS:
        ptr = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
        row = np.ctypeslib.as_array(ptr, shape=(vocab,)).astype(np.float32, copy=True)
        token = greedy_token(llm)
        assert token == int(row.argmax()), f"sampler chose {token}, argmax is {int(row.argmax())}"
        ids.append(token)
        rows.append(row)
        if token == eos:
            break
        llm.eval([token])
    return np.asarray(ids, dtype=np.int64), np.stack(rows)


def compare_with_transformers(out_dir: Path, ids: np.ndarray, logits: np.ndarray) -> dict:
    path = out_dir / "reference.safetensors"
    if not path.exists():
        return {"available": False}
    ref = load_safetensors(path)
    theirs = ref["generated_ids"].tolist()
    # Row i is the same position only while the tokens before it agree.
    n = 1
    while n < min(len(ids), len(theirs)) and ids[n - 1] == theirs[n - 1]:
        n += 1
    diff = np.abs(logits[:n].astype(np.float64) - ref["logits"][:n].astype(np.float64))
    return {
        "available": True,
        "same_generated_ids": ids.tolist() == ref["generated_ids"].tolist(),
        "transformers_generated_ids": theirs,
        "max_abs_logits_row0": float(diff[0].max()),
        "max_abs_logits_per_row": [float(d.max()) for d in diff],
        "mean_abs_logits_row0": float(diff[0].mean()),
        "same_argmax_rows": int((logits[:n].argmax(-1) == ref["logits"][:n].argmax(-1)).sum()),
        "rows_compared": n,  # rows whose preceding tokens agree
    }


def tokenizer_check(llm) -> dict:
    path = FIXTURE / "tokenizer_cases.json"
    if not path.exists():
        return {"available": False}
    cases = json.loads(path.read_text())
    mismatches = []
    for case in cases:
        ids = llm.tokenize(case["text"].encode(), add_bos=False, special=True)
        if ids != case["ids"]:
            mismatches.append({"text": case["text"], "transformers": case["ids"], "llama_cpp": ids})
    return {"available": True, "cases": len(cases), "mismatches": mismatches}


def busy_seconds() -> float:
    """CPU seconds all processes spent busy since boot (/proc/stat: all but idle, iowait)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gguf", type=Path, default=DEFAULT_GGUF, help=f"the model file (default {DEFAULT_GGUF})")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT, help="where llamacpp_logits.safetensors goes")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per thread count (default 3)")
    parser.add_argument("--f32-gguf", type=Path, default=DEFAULT_F32_GGUF, help="dequantized copy (used if present)")
    args = parser.parse_args()
    if not args.gguf.is_file():
        print(f"{args.gguf}: not found; run scripts/fetch_smollm2.sh first", file=sys.stderr)
        return 2
    import llama_cpp

    llm = open_model(args.gguf, 1)
    eos, bos = llm.token_eos(), llm.token_bos()
    template = llm.metadata["tokenizer.chat_template"]
    text = render_prompt(template, llm.detokenize([eos], special=True).decode(), llm.detokenize([bos], special=True).decode())
    prompt = llm.tokenize(text.encode(), add_bos=False, special=True)
    fixture = json.loads((FIXTURE / "reference.json").read_text()) if (FIXTURE / "reference.json").exists() else {}
    checks = {
        "prompt_text_equals_transformers": text == fixture.get("prompt_text"),
        "prompt_ids_equal_transformers": prompt == fixture.get("prompt_ids"),
        "prompt_len": len(prompt),
    }
    ids, logits = logits_run(llm, prompt, eos)
    answer = llm.detokenize(ids.tolist()).decode(errors="replace")
    comparison = compare_with_transformers(args.out_dir, ids, logits)
    tokenizer = tokenizer_check(llm)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    meta = {"model": GGUF_NAME, "llama_cpp_python": llama_cpp.__version__, "rows": "greedy steps, row 0 = first generated position"}
    tensors = {"prompt_ids": np.asarray(prompt, dtype=np.int64), "generated_ids": ids, "logits": np.ascontiguousarray(logits)}
    (args.out_dir / "llamacpp_logits.safetensors").write_bytes(serialize(tensors, meta))
    del llm

    dequantized = {"available": False}
    if args.f32_gguf.is_file():
        llm = open_model(args.f32_gguf, 1, type_k=GGML_TYPE_F32, type_v=GGML_TYPE_F32)
        ids32, logits32 = logits_run(llm, prompt, eos)
        dequantized = {
            "file": args.f32_gguf.name,
            "kv_cache": "F32",
            "answer": llm.detokenize(ids32.tolist()).decode(errors="replace"),
            **compare_with_transformers(args.out_dir, ids32, logits32),
        }
        del llm

    runs = {}
    load_start = os.getloadavg()[0]
    for threads in THREADS:
        llm = open_model(args.gguf, threads)
        w0, b0, o0 = time.perf_counter(), busy_seconds(), sum(os.times()[:2])
        timed_run(llm, prompt)  # warm-up
        rows = [timed_run(llm, prompt) for _ in range(args.runs)]
        runs[str(threads)] = {
            key: [r[key] for r in rows]
            for key in ("prefill_tok_s", "decode_tok_s", "total_tok_s", "llama_prefill_tok_s", "llama_decode_tok_s")
        }
        runs[str(threads)]["median_prefill_tok_s"] = statistics.median(r["prefill_tok_s"] for r in rows)
        runs[str(threads)]["median_decode_tok_s"] = statistics.median(r["decode_tok_s"] for r in rows)
        runs[str(threads)]["llama_counts"] = rows[0]["llama_counts"]
        # cores other processes kept busy meanwhile (0 = quiet machine)
        runs[str(threads)]["others_busy_cores"] = (
            busy_seconds() - b0 - (sum(os.times()[:2]) - o0)
        ) / (time.perf_counter() - w0)
        runs[str(threads)]["text_32_tokens"] = llm.detokenize(rows[0]["tokens"], special=True).decode(errors="replace")
        del llm

    result = {
        "versions": {
            "llama_cpp_python": llama_cpp.__version__,
            "llama_cpp_commit": "0c1e57098bba43ac29e6e3b677cdceebdd22334f (vendored in the 0.3.36 sdist)",
            "numpy": np.__version__,
            "jinja2": package_version("jinja2"),
            "python": sys.version.split()[0],
        },
        "system_info": llama_cpp.llama_print_system_info().decode().strip(),
        "prompt_checks": checks,
        "generated_ids": ids.tolist(),
        "answer": answer,
        "says_paris": "Paris" in answer,
        "vs_transformers": comparison,
        "f32_dequantized_f32_kv_vs_transformers": dequantized,
        "tokenizer_vs_transformers": tokenizer,
        "new_tokens": NEW_TOKENS,
        "runs": runs,
        "load_start": load_start,
        "load_end": os.getloadavg()[0],
    }
    (args.out_dir / "llamacpp.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")

    print(f"llama-cpp-python {llama_cpp.__version__}: prompt {len(prompt)} tokens, {NEW_TOKENS} greedy tokens, "
          f"{args.runs} runs each (load {load_start:.2f} -> {result['load_end']:.2f})")
    print(f"answer: {answer!r}; prompt text/ids equal transformers': {checks['prompt_text_equals_transformers']}/"
          f"{checks['prompt_ids_equal_transformers']}; tokenizer mismatches: "
          f"{len(tokenizer.get('mismatches', [])) if tokenizer['available'] else 'n/a'}")
    if comparison["available"]:
        print(f"vs transformers: same ids {comparison['same_generated_ids']}, row-0 max |diff| "
              f"{comparison['max_abs_logits_row0']:.4f}, same argmax {comparison['same_argmax_rows']}/{comparison['rows_compared']}")
    if dequantized.get("available"):
        print(f"F32-dequantized GGUF, F32 KV cache: {dequantized['answer']!r}, same ids {dequantized['same_generated_ids']}, "
              f"max |diff| over rows {max(dequantized['max_abs_logits_per_row']):.2e}")
    print(f"{'threads':>7} | {'prefill tok/s (runs)':>28} | {'median':>7} | {'decode tok/s (runs)':>24} | {'median':>7} | others busy")
    for threads, row in runs.items():
        pre = " ".join(f"{v:7.1f}" for v in row["prefill_tok_s"])
        dec = " ".join(f"{v:6.1f}" for v in row["decode_tok_s"])
        print(f"{threads:>7} | {pre:>28} | {row['median_prefill_tok_s']:7.1f} | {dec:>24} | {row['median_decode_tok_s']:7.1f} |"
              f" {row['others_busy_cores']:.2f} cores")
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
