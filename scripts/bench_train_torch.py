#!/usr/bin/env python3
"""PyTorch eager training throughput on a GPT-2-style model, one and two
threads (`torch.set_num_threads(K)`), printed as a table and, on the last line,
one JSON object: the reference the crate's trainer is measured against.

One training step, float32 on the CPU, as in `scripts/train_fixture.py`:

    logits = model(inputs).logits                        transformers GPT2LMHeadModel,
                                                         dropout 0, tied LM head
    loss = F.cross_entropy(logits.view(-1, V), targets.view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step(); optimizer.zero_grad(set_to_none=True)
                                                         AdamW(lr 3e-4, betas (0.9, 0.95),
                                                         eps 1e-8, weight_decay 0.1)

Model (defaults; every one is a flag): n_layer 4, n_head 4, n_embd 128,
T = n_positions = 128, batch B = 8, vocab 256 (byte-level), gelu_new,
attention `eager` (the math the crate implements; `--attn sdpa` for torch's
fused attention), GPT-2 initialization (transformers' own, seeded). Batches
are seeded random bytes, or consecutive windows of `--corpus FILE`'s bytes
(e.g. data/austen.txt from scripts/fetch_corpus.sh); the data does not change
the time.

Timing: for each of `--runs` runs (default 3) and each K in 1, 2: a fresh
model and optimizer, `--warmup` steps (default 3) untimed, then `--steps`
timed steps (default 10, `time.perf_counter` around the whole loop; `loss.item()`
each step, so the step is finished). tokens/s = steps·B·T / that time. The
table shows each run and the median over runs; `peak_rss_mib` is the process's
`ru_maxrss` (resource.getrusage) after each measurement (it only grows);
`rss_after_import_mib` is the same right after importing torch and transformers
(the PyPI wheel maps its CUDA libraries, most of the total), so the training's
own share is the difference.
`approx_train_gflop_s` uses the usual estimate 6·N + 12·L·T·C flops a token
(N = parameters, counting the tied wte once; the attention term for
q·kᵀ and p·v, forward and backward), an order of magnitude, not a count.

Also recorded: torch and transformers versions, torch's CPU capability, the
CPU model (/proc/cpuinfo), the date (UTC), the load average before and after,
and for each measurement `others_busy_cores`: the cores other processes kept
busy meanwhile, from /proc/stat (0 = a quiet machine; on 2 cores anything near
1 halves the 2-thread number).
With `--ours BINARY` (the crate's `train_gpt` example, built with `cargo build
--release --example train_gpt`), each measurement is followed by the same one
of ours on the same model, batch and thread count: `BINARY --layers L --width C
--heads H --seq T --batch B --bench-steps S --threads K --clip-norm 1.0 --lr 3e-4`
(seeded random bytes, 3 untimed steps, the same step: forward, backward,
clip_grad_norm_, AdamW), whose JSON line gives its tokens/s; the table then has
both and the ratio ours / PyTorch, from the same run, interleaved.

Run when the machine is quiet (`uptime`):

    /work/venv/bin/python scripts/bench_train_torch.py
    /work/venv/bin/python scripts/bench_train_torch.py --n-layer 12 --n-head 12 --n-embd 768 --seq 256 --batch 4
    /work/venv/bin/python scripts/bench_train_torch.py --n-layer 2 --n-head 4 --n-embd 64 --seq 64 --batch 4 \
        --steps 100 --runs 5 --ours target/release/examples/train_gpt
"""

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import transformers  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

THREADS = (1, 2)
RSS_AFTER_IMPORT_MIB = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def busy_seconds() -> float:
    """CPU seconds all processes spent busy since boot (/proc/stat: all but idle, iowait)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def build(args) -> GPT2LMHeadModel:
    torch.manual_seed(args.seed)
    config = GPT2Config(
        vocab_size=args.vocab,
        n_positions=args.seq,
        n_embd=args.n_embd,
        n_layer=args.n_layer,
        n_head=args.n_head,
        activation_function="gelu_new",
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
        tie_word_embeddings=True,
        attn_implementation=args.attn,
    )
    return GPT2LMHeadModel(config).train()


def batches(args, count: int):
    """`count` (inputs, targets) pairs of [B, T] int64, targets shifted by one."""
    need = count * args.batch * args.seq + 1
    if args.corpus:
        with open(args.corpus, "rb") as f:
            data = np.frombuffer(f.read(need), dtype=np.uint8).astype(np.int64) % args.vocab
        if len(data) < need:
            sys.exit(f"{args.corpus}: {len(data)} bytes, need {need}")
    else:
        data = np.random.default_rng(args.seed).integers(0, args.vocab, need, dtype=np.int64)
    z = torch.from_numpy(data)
    out = []
    for s in range(count):
        start = s * args.batch * args.seq
        window = z[start : start + args.batch * args.seq + 1]
        out.append((window[:-1].view(args.batch, args.seq), window[1:].reshape(args.batch, args.seq).clone()))
    return out


def measure(args, threads: int) -> dict:
    torch.set_num_threads(threads)
    model = build(args)
    params = list(model.parameters())
    optimizer = torch.optim.AdamW(params, lr=3e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
    data = batches(args, args.warmup + args.steps)

    def step(inputs, targets) -> float:
        logits = model(inputs).logits
        loss = F.cross_entropy(logits.view(-1, args.vocab), targets.view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.item()

    for inputs, targets in data[: args.warmup]:
        step(inputs, targets)
    losses = []
    busy0, own0 = busy_seconds(), sum(os.times()[:2])
    start = time.perf_counter()
    for inputs, targets in data[args.warmup :]:
        losses.append(step(inputs, targets))
    seconds = time.perf_counter() - start
    cpu = sum(os.times()[:2]) - own0
    others = (busy_seconds() - busy0 - cpu) / seconds
    tokens = args.steps * args.batch * args.seq
    return {
        "threads": threads,
        "seconds": seconds,
        "ms_per_step": 1e3 * seconds / args.steps,
        "tokens_per_s": tokens / seconds,
        "cpu_seconds": cpu,
        "cpu_tokens_per_s": tokens / cpu if cpu > 0 else None,
        "last_loss": losses[-1],
        "others_busy_cores": others,
        "load_1min": os.getloadavg()[0],
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def measure_ours(args, threads: int) -> dict:
    """The crate's train_gpt `--bench-steps` on the same model, batch and threads."""
    cmd = [
        args.ours, "--layers", str(args.n_layer), "--width", str(args.n_embd), "--heads", str(args.n_head),
        "--seq", str(args.seq), "--batch", str(args.batch), "--bench-steps", str(args.steps),
        "--threads", str(threads), "--clip-norm", "1.0", "--lr", "3e-4", "--seed", str(args.seed),
    ]
    busy0 = busy_seconds()
    child0 = os.times()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    child1 = os.times()
    row = json.loads(out.stdout.strip().splitlines()[-1])
    seconds_all = child1[4] - child0[4]
    own = (child1[2] - child0[2]) + (child1[3] - child0[3])
    row["others_busy_cores"] = (busy_seconds() - busy0 - own) / seconds_all if seconds_all > 0 else None
    cpu = row.get("cpu_seconds")
    row["cpu_tokens_per_s"] = row["steps"] * row["batch"] * row["seq"] / cpu if cpu else None
    row["memory_line"] = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else ""
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--n-embd", type=int, default=128)
    p.add_argument("--seq", type=int, default=128, help="T (also n_positions)")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--attn", choices=["eager", "sdpa"], default="eager")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--corpus", help="take the batches from this file's bytes")
    p.add_argument("--ours", help="the crate's train_gpt binary: measure it next to each PyTorch run")
    args = p.parse_args()
    if args.n_embd % args.n_head:
        p.error("n_head must divide n_embd")
    if args.ours and args.vocab != 256:
        p.error("--ours trains a byte-level model: --vocab 256")

    load_before = os.getloadavg()
    model = build(args)
    n_params = sum(t.numel() for t in model.parameters())
    del model
    flops_per_token = 6 * n_params + 12 * args.n_layer * args.seq * args.n_embd

    rows = []
    for run in range(args.runs):
        for k in THREADS:
            row = measure(args, k)
            row["run"] = run
            row["approx_train_gflop_s"] = row["tokens_per_s"] * flops_per_token / 1e9
            rows.append(row)
            print(
                f"run {run}  threads {k}  {row['ms_per_step']:8.1f} ms/step  {row['tokens_per_s']:9.0f} tokens/s  "
                f"({row['cpu_tokens_per_s'] or float('nan'):6.0f} per CPU s)  "
                f"~{row['approx_train_gflop_s']:5.1f} GFLOP/s  loss {row['last_loss']:.4f}  rss {row['peak_rss_mib']:.0f} MiB  "
                f"others busy {row['others_busy_cores']:.2f} cores",
                flush=True,
            )
            if args.ours:
                ours = measure_ours(args, k)
                row["ours"] = ours
                row["ratio"] = ours["tokens_per_s"] / row["tokens_per_s"]
                busy = ours["others_busy_cores"]
                print(
                    f"      ours   threads {k}  {ours['ms_per_step']:8.1f} ms/step  {ours['tokens_per_s']:9.0f} tokens/s  "
                    f"({ours['cpu_tokens_per_s'] or float('nan'):6.0f} per CPU s)  "
                    f"ours/torch {row['ratio']:.2f}x  loss {ours['last_loss']:.4f}  "
                    f"rss {ours['peak_rss_bytes'] / 2**20 if ours['peak_rss_bytes'] else float('nan'):.0f} MiB  "
                    f"others busy {busy if busy is not None else float('nan'):.2f} cores",
                    flush=True,
                )
    summary = {}
    for k in THREADS:
        tps = [r["tokens_per_s"] for r in rows if r["threads"] == k]
        summary[str(k)] = {
            "tokens_per_s_median": statistics.median(tps),
            "tokens_per_s_min": min(tps),
            "tokens_per_s_max": max(tps),
            "ms_per_step_median": statistics.median(r["ms_per_step"] for r in rows if r["threads"] == k),
        }
        if args.ours:
            ours = [r["ours"]["tokens_per_s"] for r in rows if r["threads"] == k]
            ratios = [r["ratio"] for r in rows if r["threads"] == k]
            summary[str(k)]["ours_tokens_per_s_median"] = statistics.median(ours)
            summary[str(k)]["ratio_median"] = statistics.median(ratios)
            summary[str(k)]["ratio_min"] = min(ratios)
            summary[str(k)]["ratio_max"] = max(ratios)
    print()
    print(f"{'threads':>7} | {'tokens/s (median)':>17} | {'min':>8} | {'max':>8} | {'ms/step':>8}"
          + (f" | {'ours tokens/s':>13} | {'ours/torch (median, min-max)':>28}" if args.ours else ""))
    print("-" * (60 + (47 if args.ours else 0)))
    for k, s in summary.items():
        print(
            f"{k:>7} | {s['tokens_per_s_median']:17.0f} | {s['tokens_per_s_min']:8.0f} | "
            f"{s['tokens_per_s_max']:8.0f} | {s['ms_per_step_median']:8.1f}"
            + (f" | {s['ours_tokens_per_s_median']:13.0f} | "
               f"{s['ratio_median']:.2f}x ({s['ratio_min']:.2f}-{s['ratio_max']:.2f}){'':>13}" if args.ours else "")
        )
    result = {
        "bench": "bench_train_torch",
        "config": {
            "n_layer": args.n_layer,
            "n_head": args.n_head,
            "n_embd": args.n_embd,
            "seq": args.seq,
            "batch": args.batch,
            "vocab": args.vocab,
            "attn": args.attn,
            "dtype": "float32",
            "parameters": n_params,
            "tokens_per_step": args.batch * args.seq,
            "warmup": args.warmup,
            "steps": args.steps,
            "runs": args.runs,
            "corpus": args.corpus,
        },
        "summary_by_threads": summary,
        "runs": rows,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_after_import_mib": RSS_AFTER_IMPORT_MIB,
        "approx_flops_per_token": flops_per_token,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
    }
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
