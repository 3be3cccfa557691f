#!/usr/bin/env python3
"""PyTorch's times for the cases the crate is measured on, one and two threads
(`torch.set_num_threads`), plus the machine's memory read bandwidth, printed as
a table and, on the last line, one JSON object.

Cases (every time is the median of many calls after warm-up; `--runs R` repeats
the whole suite R times and reports the median over runs, with the load average
seen at each run and the cores other processes kept busy meanwhile, from /proc/stat):

- `matmul512_{f32,f64}`: `a @ b`, both [512, 512] contiguous.
- `matmul512_t_{f32,f64}`: `x @ w.t()`, the right operand a transposed view of a
  contiguous [512, 512] (`nn.Linear`'s x·Wᵀ).
- `matmul_attn_{f32,f64}`: `[12, 1024, 64] @ [12, 64, 1024]` (attention scores).
- `decode_kt_{f32,f64}`: one decode step at T = 1024, H = 12, D = 64:
  `q [12,1,64] @ kt [12,64,1024]` with the key cache stored transposed (contiguous),
  then `p [12,1,1024] @ v [12,1024,64]`; `decode_kview_*`: the same with the key
  cache stored [12,1024,64] and `k.transpose(-1,-2)` (transformers' layout).
- `attention_e2e_{f32,f64}`: GPT-2 small attention from the packed projection
  `qkv [1, 1024, 2304]` to the merged `[1, 1024, 768]`: split Q/K/V, split heads
  (view + transpose), `q @ kᵀ * D**-0.5`, causal mask (`masked_fill` with -inf),
  `softmax(-1)`, `@ v`, merge heads (transpose + contiguous + view). No
  projections. (The crate's `examples/attention_heads` pipeline.)
- `attention_sdpa_{f32,f64}`: the same attention with PyTorch's fused
  `F.scaled_dot_product_attention(q, k, v, is_causal=True)` (scale D**-0.5,
  no mask tensor), then the same merge: the peer of the crate's fused ops
  (`matmul_affine` + `causal_softmax`, `cargo bench` key
  `attention_e2e_f32_fused_ms`).
- `gpt2_*`: transformers `GPT2LMHeadModel` at GPT-2 small's configuration (12
  layers, 12 heads, 768 wide, vocab 50257, 1024 positions; seeded random weights,
  f32, eager attention), a 32-token prompt, `generate(max_new_tokens=64,
  do_sample=False, use_cache=True)`. Forward hooks time generate's own calls:
  prefill = the first forward (32 tokens, logits of the last position only, as
  generate asks) -> prefill tokens/s = 32 / its time; decode = from the end of
  the prefill to the end of generate (63 single-token forwards plus generate's
  per-step work) -> decode tokens/s = 63 / that time; `gpt2_total_tok_s` = 64
  generated / the whole generate call. `gpt2_prefill_fwd_ms` times the prefill
  forward alone outside generate.
- `bandwidth_*`: memory read bandwidth: `torch.sum` over a 1 GiB f32 tensor
  (1 and 2 threads) and NumPy's `sum` over the same bytes (one thread), GB/s =
  2**30 / time / 1e9. `gpt2_decode_bound_tok_s` = that bandwidth / the weight bytes
  one decode step must read (every parameter except the unused rows of wpe).

Run when the machine is quiet (`uptime`; other jobs share its 2 cores):

    /work/venv/bin/python scripts/bench_torch.py --runs 3
    /work/venv/bin/python scripts/bench_torch.py --quick        # fewer repetitions

Versions used for BENCHMARKS.md: Python 3.11.7, torch 2.15.0 (PyPI wheel, CPU:
MKL 2024.2, AVX-512 dispatch), transformers 5.24.0, numpy 2.4.6.
"""

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from greedy import greedy_generate  # noqa: E402  (scripts/greedy.py)
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

THREADS = (1, 2)
PROMPT, GENERATED = 32, 64


def median_seconds(fn, min_calls: int, min_seconds: float) -> float:
    """Median wall time of `fn()` over at least `min_calls` calls and `min_seconds`."""
    fn()
    fn()
    times, start = [], time.perf_counter()
    while len(times) < min_calls or time.perf_counter() - start < min_seconds:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def kernel_cases(dtype, scale: float) -> dict:
    """The matmul, decode and attention cases in one dtype: name -> seconds."""
    g = torch.Generator().manual_seed(15)
    rand = lambda *shape: torch.rand(*shape, generator=g, dtype=dtype) * 2 - 1  # noqa: E731
    a, b, w = rand(512, 512), rand(512, 512), rand(512, 512)
    q_att, k_att = rand(12, 1024, 64), rand(12, 64, 1024)
    q1, kt, k, v = rand(12, 1, 64), rand(12, 64, 1024), rand(12, 1024, 64), rand(12, 1024, 64)
    p = torch.softmax(rand(12, 1, 1024), dim=-1)
    qkv = rand(1, 1024, 3 * 768)
    mask = torch.ones(1024, 1024, dtype=torch.bool).triu(1)
    wt = w.t()

    def attention():
        bsz, t, c3 = qkv.shape
        c, h = c3 // 3, 12
        d = c // h
        q, kk, vv = qkv.split(c, dim=2)
        q = q.view(bsz, t, h, d).transpose(1, 2)
        kk = kk.view(bsz, t, h, d).transpose(1, 2)
        vv = vv.view(bsz, t, h, d).transpose(1, 2)
        s = (q @ kk.transpose(-1, -2)) * d**-0.5
        s = s.masked_fill(mask, float("-inf"))
        o = torch.softmax(s, dim=-1) @ vv
        return o.transpose(1, 2).contiguous().view(bsz, t, c)

    def attention_sdpa():
        bsz, t, c3 = qkv.shape
        c, h = c3 // 3, 12
        d = c // h
        q, kk, vv = (part.view(bsz, t, h, d).transpose(1, 2) for part in qkv.split(c, dim=2))
        o = torch.nn.functional.scaled_dot_product_attention(q, kk, vv, is_causal=True)
        return o.transpose(1, 2).contiguous().view(bsz, t, c)

    diff = (attention() - attention_sdpa()).abs().max().item()
    assert diff < (1e-4 if dtype == torch.float32 else 1e-10), f"sdpa differs by {diff}"

    n = lambda base: max(3, int(base * scale))  # noqa: E731
    min_s = 0.3 * scale
    return {
        "matmul512": median_seconds(lambda: a @ b, n(20), min_s),
        "matmul512_t": median_seconds(lambda: a @ wt, n(20), min_s),
        "matmul_attn": median_seconds(lambda: q_att @ k_att, n(10), min_s),
        "decode_kt": median_seconds(lambda: (q1 @ kt, p @ v), n(200), min_s),
        "decode_kview": median_seconds(lambda: (q1 @ k.transpose(-1, -2), p @ v), n(200), min_s),
        "attention_e2e": median_seconds(attention, n(5), min_s),
        "attention_sdpa": median_seconds(attention_sdpa, n(5), min_s),
    }


def gpt2_small(threads: int, model, scale: float) -> dict:
    """Eager greedy generate at GPT-2 small: prefill and decode rates."""
    torch.set_num_threads(threads)
    prompt = torch.randint(0, model.config.vocab_size, (1, PROMPT), generator=torch.Generator().manual_seed(16))
    marks = []
    pre = model.register_forward_pre_hook(lambda m, a: marks.append(("start", time.perf_counter())))
    post = model.register_forward_hook(lambda m, a, o: marks.append(("end", time.perf_counter())))

    def generate():
        marks.clear()
        t0 = time.perf_counter()
        out = greedy_generate(model, prompt, GENERATED)
        t1 = time.perf_counter()
        assert out.shape[1] == PROMPT + GENERATED
        starts = [t for kind, t in marks if kind == "start"]
        ends = [t for kind, t in marks if kind == "end"]
        assert len(starts) == GENERATED, f"{len(starts)} forwards"
        return {"total": t1 - t0, "prefill": ends[0] - starts[0], "decode": t1 - ends[0]}

    with torch.no_grad():
        generate()  # warm-up
        runs = [generate() for _ in range(max(2, int(3 * scale)))]
        prefill_alone = median_seconds(
            lambda: model(prompt, use_cache=True, logits_to_keep=1), max(3, int(5 * scale)), 0.0
        )
    pre.remove()
    post.remove()
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    return {
        "gpt2_prefill_tok_s": PROMPT / med["prefill"],
        "gpt2_decode_tok_s": (GENERATED - 1) / med["decode"],
        "gpt2_total_tok_s": GENERATED / med["total"],
        "gpt2_prefill_fwd_ms": prefill_alone * 1e3,
    }


def bandwidth(scale: float) -> dict:
    """Read bandwidth in GB/s: torch.sum over 1 GiB f32 (1 and 2 threads), NumPy sum."""
    x = torch.rand(2**28, dtype=torch.float32)  # 1 GiB, touched
    result = {}
    for t in THREADS:
        torch.set_num_threads(t)
        result[f"bandwidth_torch_{t}t_gbs"] = 2**30 / median_seconds(lambda: x.sum(), max(5, int(9 * scale)), 0.0) / 1e9
    xn = x.numpy()
    result["bandwidth_numpy_1t_gbs"] = 2**30 / median_seconds(lambda: xn.sum(), max(5, int(9 * scale)), 0.0) / 1e9
    return result


def busy_seconds() -> float:
    """CPU seconds all processes spent busy since boot (/proc/stat: all but idle, iowait)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def one_run(model, weight_bytes: int, scale: float) -> dict:
    row = {"load_start": os.getloadavg()[0]}
    wall0, busy0, own0 = time.perf_counter(), busy_seconds(), sum(os.times()[:2])
    row.update(bandwidth(scale))
    for t in THREADS:
        torch.set_num_threads(t)
        for dtype, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
            for name, seconds in kernel_cases(dtype, scale).items():
                row[f"{name}_{tag}_{t}t_ms"] = seconds * 1e3
        for name, value in gpt2_small(t, model, scale).items():
            row[f"{name}_{t}t"] = value
        bw = row[f"bandwidth_torch_{t}t_gbs"]
        row[f"gpt2_decode_bound_tok_s_{t}t"] = bw * 1e9 / weight_bytes
    row["load_end"] = os.getloadavg()[0]
    # Cores the other processes kept busy during this run, on average (0 = quiet machine).
    wall = time.perf_counter() - wall0
    row["others_busy_cores"] = (busy_seconds() - busy0 - (sum(os.times()[:2]) - own0)) / wall
    return row


def build_gpt2_small():
    torch.manual_seed(124)
    config = GPT2Config(
        vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12, attn_implementation="eager"
    )
    model = GPT2LMHeadModel(config).eval()
    params = sum(p.numel() for p in model.parameters())  # tied wte counted once
    per_token = params - (config.n_positions - 1) * config.n_embd  # one wpe row is read
    return model, params, per_token * 4


def table(result: dict) -> str:
    lines = [f"{'case':<28}{'1 thread':>14}{'2 threads':>14}"]
    keys = sorted({k.rsplit("_", 2)[0] for k in result if k.endswith("t_ms")})
    for key in keys:
        vals = [result.get(f"{key}_{t}t_ms") for t in THREADS]
        lines.append(f"{key + ' (ms)':<28}" + "".join(f"{v:>14.4f}" for v in vals))
    for key in ("gpt2_prefill_tok_s", "gpt2_decode_tok_s", "gpt2_total_tok_s", "gpt2_prefill_fwd_ms", "gpt2_decode_bound_tok_s"):
        vals = [result[f"{key}_{t}t"] for t in THREADS]
        lines.append(f"{key:<28}" + "".join(f"{v:>14.2f}" for v in vals))
    lines.append(
        f"{'read bandwidth (GB/s)':<28}{result['bandwidth_torch_1t_gbs']:>14.2f}{result['bandwidth_torch_2t_gbs']:>14.2f}"
        f"   (numpy 1t {result['bandwidth_numpy_1t_gbs']:.2f})"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="repeat the suite; report medians over runs")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions per case")
    args = parser.parse_args()
    scale = 0.3 if args.quick else 1.0
    model, params, weight_bytes = build_gpt2_small()
    runs = []
    for r in range(args.runs):
        runs.append(one_run(model, weight_bytes, scale))
        last = runs[-1]
        print(
            f"run {r + 1}/{args.runs}: load {last['load_start']:.2f} -> {last['load_end']:.2f}, "
            f"other processes busy {last['others_busy_cores']:.2f} cores",
            file=sys.stderr,
        )
    result = {k: statistics.median(run[k] for run in runs) for k in runs[0]}
    result["loads"] = [[run["load_start"], run["load_end"], run["others_busy_cores"]] for run in runs]
    result.update(
        runs=args.runs,
        gpt2_params=params,
        gpt2_weight_bytes_per_token=weight_bytes,
        torch=torch.__version__,
        transformers=transformers.__version__,
        numpy=np.__version__,
        cpu_capability=torch.backends.cpu.get_cpu_capability(),
        date=time.strftime("%Y-%m-%d %H:%M"),
    )
    print(table(result))
    print(f"loads (1-min avg at start, at end, other processes' busy cores) per run: {result['loads']}")
    print(json.dumps({k: (round(v, 6) if isinstance(v, float) else v) for k, v in result.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
