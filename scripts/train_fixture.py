#!/usr/bin/env python3
"""Write tests/fixtures/train/<case>/: a small GPT-2 with GPT-2-style seeded
initial weights, eight training batches, and what PyTorch computes when it
trains on them with AdamW and gradient-norm clipping: the gradient of the first
loss, the eight losses and the weights after the eight updates. The reference
for the crate's reverse-mode autodiff and its GPT-2 trainer.

Cases (`CASES` below):

    case   n_layer n_head n_embd n_positions vocab  B  T   C    tokens
    tiny   2       2      32     32          96     2  32  1.0  seeded uniform random ids
    small  2       4      64     64          256    4  64  2.1  the bytes of TEXT (the opening
                                                                of "Pride and Prejudice",
                                                                public domain), ids 0..255

Shared hyperparameters (`HYPER`): lr 3e-3 (constant), betas (0.9, 0.95), eps 1e-8,
weight_decay 0.1 on every parameter, S = 8 steps; C = clip_max_norm per case.

Files in each case folder (all rewritten byte for byte by this script):

- `model.safetensors`, `config.json`, `generation_config.json`: the initial
  model, written by `GPT2LMHeadModel.save_pretrained` (safetensors). Every *_pdrop
  is 0, `tie_word_embeddings` true (no `lm_head.weight` key: the LM head is
  `transformer.wte.weight`), eager attention, gelu_new, layer_norm_epsilon 1e-5.
- `batches.safetensors`: `inputs`, `targets` I64 [S, B, T], S = 8. From one
  token stream `z` of S·B·T + 1 ids: inputs[s, b, t] = z[(s·B + b)·T + t] and
  targets[s, b, t] = z[(s·B + b)·T + t + 1] (consecutive non-overlapping windows,
  targets = inputs shifted by one).
- `grads.safetensors`: the gradient of step 0's loss for every parameter, F32,
  same names and shapes as `model.safetensors`, taken BEFORE clipping and the
  update. `transformer.wte.weight`'s gradient is the sum of the embedding
  lookup's and the tied LM head's contributions.
- `losses.safetensors`: `losses` F32 [S], the loss of step s before its update.
- `weights_out.safetensors`: every parameter after the S updates, F32, same names.
- `hyper.json`: the optimizer and clipping hyperparameters, the batch layout and
  the initialization (the numbers of `HYPER` and `CASES` below).
- `reference.json`: the parameter list, the per-step gradient norms and whether
  clipping scaled each step, and the float32-vs-float64 spreads (below).

The parameters (the Hugging Face names, `model.named_parameters()` order, which
is also the order of the init draws; the sorted order is the order in the files):

    transformer.wte.weight [V, C]        transformer.wpe.weight [P, C]
    per block i in 0..n_layer:
      transformer.h.{i}.ln_1.weight [C]            transformer.h.{i}.ln_1.bias [C]
      transformer.h.{i}.attn.c_attn.weight [C, 3C] transformer.h.{i}.attn.c_attn.bias [3C]
      transformer.h.{i}.attn.c_proj.weight [C, C]  transformer.h.{i}.attn.c_proj.bias [C]
      transformer.h.{i}.ln_2.weight [C]            transformer.h.{i}.ln_2.bias [C]
      transformer.h.{i}.mlp.c_fc.weight [C, 4C]    transformer.h.{i}.mlp.c_fc.bias [4C]
      transformer.h.{i}.mlp.c_proj.weight [4C, C]  transformer.h.{i}.mlp.c_proj.bias [C]
    transformer.ln_f.weight [C]          transformer.ln_f.bias [C]

4 + 12·n_layer tensors. Not parameters and in no file: `lm_head.weight` (it is
wte), and the causal-mask buffers (`attn.bias` / `masked_bias` of older
transformers; transformers 5 builds the mask on the fly).

Initialization (transformers' GPT-2 `_init_weights`, made reproducible): one
`torch.Generator` seeded with the case's seed; for each parameter in
`named_parameters()` order, `param.normal_(0, std, generator=g)` for
wte, wpe, every attn.c_attn.weight and mlp.c_fc.weight (std = 0.02), and for every
attn.c_proj.weight and mlp.c_proj.weight (std = 0.02 / sqrt(2·n_layer)); every
Conv1D bias 0; every LayerNorm weight 1 and bias 0 (no draws for these).

The forward pass is the math written out in `scripts/gpt2_fixture.py` (the
same transformers GPT-2, eager), over [B, T] at positions 0..T, giving logits
[B, T, V]. One training step s (`train` below; float32, one thread):

    loss_s = F.cross_entropy(logits.view(-1, V), targets[s].view(-1))
           = mean over the B·T positions n of (logsumexp(logits_n) - logits_n[target_n])
    loss_s.backward()                                    grads g_p (step 0's: grads.safetensors)
    torch.nn.utils.clip_grad_norm_(params, C):
        total = || (||g_p||_2 for every p) ||_2          in the grads' dtype
        coef  = min(C / (total + 1e-6), 1)               (the 1e-6 is torch's)
        g_p  *= coef                                     for every p (x1.0 when not clipping)
    torch.optim.AdamW(params, lr, betas=(b1, b2), eps, weight_decay=wd), one param group,
    every parameter decayed (biases, LayerNorm and embeddings too), constant lr,
    amsgrad off; on the CPU torch runs its single-tensor (for-loop) AdamW; with t = s + 1:
        p *= 1 - lr·wd                                   decoupled weight decay, first
        m  = m + (1 - b1)·(g - m)                        exp_avg.lerp_(g, 1 - b1); m0 = 0
        v  = b2·v + (1 - b2)·g·g                         exp_avg_sq.mul_(b2).addcmul_(g, g); v0 = 0
        p -= (lr / (1 - b1**t)) · m / (sqrt(v) / sqrt(1 - b2**t) + eps)
    zero the grads (set to None) before the next step.

`spec_train` below is this update in NumPy float64, fed with torch's float64
per-step gradients; the script asserts it reproduces torch's float64 final
weights (the difference is recorded, about 1e-16), so the math written above is
the math torch runs.

float32 vs float64 (`reference.json` "f32_vs_f64"): the identical computation
(same initial values, batches and hyperparameters) run again after
`model.double()`. Recorded: max |g32 - g64| over all step-0 gradients divided by
max |g64| (`grads_max_abs_diff_rel_to_max_abs_grad`, also per parameter, each
relative to the global max |g64|), max |loss32 - loss64|, max |w32 - w64| over
the final weights (absolute and relative to max |w64|), and both runs' clipping
decisions (they must agree).

What the spreads mean for a test (measured: step-0 grads ~2e-7 of max |g|,
losses ~6e-7, final weights ~6e-6 absolute with max |w| ~1): the weights'
spread is AdamW's, not the gradients'. Where |g| is near eps (1e-8..1e-7) the
update is about lr·g/(|g| + eps), so a rounding error δ·|g| in g moves the update
by about lr·δ·eps/(|g| + eps), up to ~lr·δ; and the key slice of every
c_attn.bias (entries C..2C) has a gradient that is exactly zero in exact
arithmetic (softmax ignores a constant added to a score row), so its float32
gradient is rounding noise (~1e-11, recorded as key_bias_grad_step0_max_abs_*)
that Adam turns into updates of up to lr·|g|/eps ~ 3e-6 a step. Compare final
weights with an absolute tolerance (1e-4 leaves a factor ~15), not a relative
one. The recorded margins between each step's total
norm and C say how far an implementation's norm may drift before its clipping
decision flips; C is chosen so that clipping is active on some steps and not
on others, in both precisions.

Reproducibility: the script (through `scripts/fixture_cli.py`) runs torch on one
thread with `MKL_CBWR=COMPATIBLE` and `ATEN_CPU_CAPABILITY=default` (set before
torch is imported), so the bits do not depend on the thread count or the CPU's
vector width; safetensors files other than the saved model are written by
`safetensors_io.serialize` (header sorted).

Setup and run (outside CI; tests never need Python), from the repository root:

    /work/venv/bin/python scripts/train_fixture.py           # (re)write tests/fixtures/train/
    /work/venv/bin/python scripts/train_fixture.py --check   # regenerate into a temp dir,
                                                             # exit 1 unless every byte matches

Versions used for the committed fixture: Python 3.11.7, torch 2.15.0 (PyPI wheel,
run on CPU), transformers 5.24.0, safetensors 0.8.0, numpy 2.4.6.
"""

import copy
import math
import sys
from pathlib import Path

from fixture_cli import fixture_main, readable_json  # noqa: I001  (first: pins torch's numerics before torch loads)

import numpy as np  # noqa: E402
import safetensors  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import transformers  # noqa: E402
from safetensors_io import header_of, serialize  # noqa: E402  (scripts/safetensors_io.py)
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

STEPS = 8
INIT_STD = 0.02
HYPER = {
    "lr": 3e-3,
    "betas": [0.9, 0.95],
    "eps": 1e-8,
    "weight_decay": 0.1,
    "clip_norm_type": 2.0,
}
# clip_max_norm C per case: between the case's gradient norms, so clipping is
# active on the first steps and not on the later ones (see reference.json).
CASES = {
    "tiny": {
        "n_layer": 2,
        "n_head": 2,
        "n_embd": 32,
        "n_positions": 32,
        "vocab_size": 96,
        "batch": 2,
        "seq": 32,
        "seed": 7,
        "clip_max_norm": 1.0,
    },
    "small": {
        "n_layer": 2,
        "n_head": 4,
        "n_embd": 64,
        "n_positions": 64,
        "vocab_size": 256,
        "batch": 4,
        "seq": 64,
        "seed": 11,
        "clip_max_norm": 2.1,
    },
}
# The opening of "Pride and Prejudice" (Jane Austen, 1813; public domain), ASCII:
# bytes 51..2263 of data/austen/prideprejudice.txt (scripts/fetch_corpus.sh), the
# first paragraphs of chapter 1. The small case's token stream is its first
# S·B·T + 1 = 2049 bytes.
TEXT = (
    "It is a truth universally acknowledged, that a single man in possession\n"
    "of a good fortune, must be in want of a wife.\n\n"
    "However little known the feelings or views of such a man may be on his\n"
    "first entering a neighbourhood, this truth is so well fixed in the minds\n"
    "of the surrounding families, that he is considered the rightful property\n"
    "of some one or other of their daughters.\n\n"
    '"My dear Mr. Bennet," said his lady to him one day, "have you heard that\n'
    'Netherfield Park is let at last?"\n\n'
    "Mr. Bennet replied that he had not.\n\n"
    '"But it is," returned she; "for Mrs. Long has just been here, and she\n'
    'told me all about it."\n\n'
    "Mr. Bennet made no answer.\n\n"
    '"Do you not want to know who has taken it?" cried his wife impatiently.\n\n'
    '"_You_ want to tell me, and I have no objection to hearing it."\n\n'
    "This was invitation enough.\n\n"
    '"Why, my dear, you must know, Mrs. Long says that Netherfield is taken\n'
    "by a young man of large fortune from the north of England; that he came\n"
    "down on Monday in a chaise and four to see the place, and was so much\n"
    "delighted with it, that he agreed with Mr. Morris immediately; that he\n"
    "is to take possession before Michaelmas, and some of his servants are to\n"
    'be in the house by the end of next week."\n\n'
    '"What is his name?"\n\n'
    '"Bingley."\n\n'
    '"Is he married or single?"\n\n'
    '"Oh! Single, my dear, to be sure! A single man of large fortune; four or\n'
    'five thousand a year. What a fine thing for our girls!"\n\n'
    '"How so? How can it affect them?"\n\n'
    '"My dear Mr. Bennet," replied his wife, "how can you be so tiresome! You\n'
    'must know that I am thinking of his marrying one of them."\n\n'
    '"Is that his design in settling here?"\n\n'
    '"Design! Nonsense, how can you talk so! But it is very likely that he\n'
    "_may_ fall in love with one of them, and therefore you must visit him as\n"
    'soon as he comes."\n\n'
    '"I see no occasion for that. You and the girls may go, or you may send\n'
    "them by themselves, which perhaps will be still better, for as you are\n"
    "as handsome as any of them, Mr. Bingley may like you the best of the\n"
    'party."\n\n'
    '"My dear, you flatter me. I certainly _have_ had my share of beauty, but\n'
    "I do not pretend to be anything extraordinary now. When a woman has five\n"
    'grown-up daughters, she ought to give over thinking of her own beauty."\n'
)
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "train"
CASE_FILES = [
    "config.json",
    "generation_config.json",
    "model.safetensors",
    "batches.safetensors",
    "grads.safetensors",
    "losses.safetensors",
    "weights_out.safetensors",
    "hyper.json",
    "reference.json",
]
FILES = [f"{case}/{name}" for case in CASES for name in CASE_FILES]


def build_model(case: dict) -> GPT2LMHeadModel:
    """The case's GPT-2 with the seeded GPT-2 initialization of the docstring."""
    layers = case["n_layer"]
    config = GPT2Config(
        vocab_size=case["vocab_size"],
        n_positions=case["n_positions"],
        n_embd=case["n_embd"],
        n_layer=layers,
        n_head=case["n_head"],
        activation_function="gelu_new",
        layer_norm_epsilon=1e-5,
        initializer_range=INIT_STD,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
        tie_word_embeddings=True,
        attn_implementation="eager",
    )
    model = GPT2LMHeadModel(config)
    generator = torch.Generator().manual_seed(case["seed"])
    residual_std = INIT_STD / math.sqrt(2 * layers)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if ".ln_" in name:
                param.fill_(1.0 if name.endswith(".weight") else 0.0)
            elif name.endswith(".bias"):
                param.zero_()
            elif name.endswith("c_proj.weight"):
                param.normal_(0.0, residual_std, generator=generator)
            elif name.endswith(("wte.weight", "wpe.weight", "c_attn.weight", "c_fc.weight")):
                param.normal_(0.0, INIT_STD, generator=generator)
            else:
                raise ValueError(f"no rule for parameter {name}")
    assert model.lm_head.weight.data_ptr() == model.transformer.wte.weight.data_ptr(), "LM head must be tied"
    return model.train()


def token_stream(name: str, case: dict) -> np.ndarray:
    """S·B·T + 1 token ids: seeded uniform ids (tiny) or the bytes of TEXT (small)."""
    n = STEPS * case["batch"] * case["seq"] + 1
    if case["vocab_size"] == 256:
        data = TEXT.encode("ascii")
        assert len(data) >= n, f"TEXT has {len(data)} bytes, {name} needs {n}"
        return np.frombuffer(data[:n], dtype=np.uint8).astype(np.int64)
    rng = np.random.default_rng(case["seed"])
    return np.floor(rng.random(n) * case["vocab_size"]).astype(np.int64)


def batches(stream: np.ndarray, case: dict):
    """inputs, targets I64 [S, B, T]: consecutive windows of the stream, shifted by one."""
    b, t = case["batch"], case["seq"]
    starts = np.arange(STEPS * b).reshape(STEPS, b) * t
    index = starts[:, :, None] + np.arange(t)[None, None, :]
    return stream[index], stream[index + 1]


def train(model: GPT2LMHeadModel, inputs: np.ndarray, targets: np.ndarray, clip: float) -> dict:
    """The S steps of the docstring; returns the losses, the gradient norms, the
    clip decisions, the per-step (pre-clip) gradients and the final parameters."""
    params = [p for _, p in model.named_parameters()]
    names = [n for n, _ in model.named_parameters()]
    optimizer = torch.optim.AdamW(
        params, lr=HYPER["lr"], betas=tuple(HYPER["betas"]), eps=HYPER["eps"], weight_decay=HYPER["weight_decay"]
    )
    vocab = model.config.vocab_size
    losses, norms, grads = [], [], []
    for s in range(STEPS):
        optimizer.zero_grad(set_to_none=True)
        logits = model(torch.from_numpy(inputs[s])).logits
        loss = F.cross_entropy(logits.view(-1, vocab), torch.from_numpy(targets[s]).view(-1))
        loss.backward()
        grads.append({n: p.grad.detach().clone() for n, p in zip(names, params)})
        total = torch.nn.utils.clip_grad_norm_(params, clip, norm_type=HYPER["clip_norm_type"])
        optimizer.step()
        losses.append(loss.item())
        norms.append(total.item())
    group = optimizer.param_groups[0]
    assert group["foreach"] in (None, False) and not group["fused"] and not group["amsgrad"], group
    return {
        "losses": losses,
        "norms": norms,
        "clipped": [n + 1e-6 > clip for n in norms],
        "grads": grads,
        "weights": {n: p.detach().clone() for n, p in zip(names, params)},
    }


def spec_train(initial: dict, grads: list, c: float) -> dict:
    """The docstring's clip + AdamW update in NumPy float64, from the given
    per-step gradients (name -> array): the final weights."""
    lr, (b1, b2), eps, wd = (HYPER[k] for k in ("lr", "betas", "eps", "weight_decay"))
    p = {n: v.copy() for n, v in initial.items()}
    m = {n: np.zeros_like(v) for n, v in initial.items()}
    v2 = {n: np.zeros_like(v) for n, v in initial.items()}
    for s, g in enumerate(grads):
        t = s + 1
        total = math.sqrt(sum(float(np.sum(x * x)) for x in g.values()))
        coef = min(c / (total + 1e-6), 1.0)
        for n in p:
            gn = g[n] * coef
            p[n] *= 1 - lr * wd
            m[n] = m[n] + (1 - b1) * (gn - m[n])
            v2[n] = b2 * v2[n] + (1 - b2) * gn * gn
            p[n] -= (lr / (1 - b1**t)) * m[n] / (np.sqrt(v2[n]) / math.sqrt(1 - b2**t) + eps)
    return p


def key_bias(grads: dict) -> float:
    """max |grad| over the key slices c_attn.bias[C:2C] of every block: zero in
    exact arithmetic (adding b to every key adds q·b to a whole score row, which
    softmax ignores), so what is left is rounding."""
    out = 0.0
    for name, g in grads.items():
        if name.endswith("attn.c_attn.bias"):
            c = g.shape[0] // 3
            out = max(out, float(g[c : 2 * c].abs().max()))
    return out


def f32_arrays(tensors: dict) -> dict:
    return {k: np.ascontiguousarray(v.detach().numpy(), dtype=np.float32) for k, v in tensors.items()}


def versions() -> dict:
    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
    }


def write_case(name: str, case: dict, out_dir: Path) -> dict:
    model = build_model(case)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    model64 = copy.deepcopy(model).double()
    assert model64.lm_head.weight.data_ptr() == model64.transformer.wte.weight.data_ptr(), "f64 LM head must be tied"
    initial64 = {n: p.detach().numpy().copy() for n, p in model64.named_parameters()}

    inputs, targets = batches(token_stream(name, case), case)
    c = case["clip_max_norm"]
    run32 = train(model, inputs, targets, c)
    run64 = train(model64, inputs, targets, c)

    spec = spec_train(initial64, [{n: g.numpy() for n, g in step.items()} for step in run64["grads"]], c)
    spec_diff = max(float(np.abs(spec[n] - run64["weights"][n].numpy()).max()) for n in spec)
    assert spec_diff < 1e-12, f"{name}: the documented update is not torch's ({spec_diff})"

    g32, g64 = run32["grads"][0], run64["grads"][0]
    max_grad = max(float(g.abs().max()) for g in g64.values())
    max_weight = max(float(w.abs().max()) for w in run64["weights"].values())
    grad_rel = {n: float((g32[n].double() - g64[n]).abs().max()) / max_grad for n in g64}
    weight_abs_per_param = {n: float((run32["weights"][n].double() - run64["weights"][n]).abs().max()) for n in g64}
    weight_abs = max(weight_abs_per_param.values())
    assert run32["clipped"] == run64["clipped"], f"{name}: f32 and f64 clip on different steps"
    assert any(run32["clipped"]) and not all(run32["clipped"]), (
        f"{name}: clipping must be active on some steps only: {run32['norms']}"
    )
    f32_vs_f64 = {
        "grads_max_abs_diff_rel_to_max_abs_grad": max(grad_rel.values()),
        "grads_max_abs_diff_rel_to_max_abs_grad_per_param": grad_rel,
        "max_abs_grad_step0": max_grad,
        "losses_max_abs_diff": max(abs(a - b) for a, b in zip(run32["losses"], run64["losses"])),
        "weights_out_max_abs_diff": weight_abs,
        "weights_out_max_abs_diff_per_param": weight_abs_per_param,
        "weights_out_max_abs_diff_rel_to_max_abs_weight": weight_abs / max_weight,
        "max_abs_weight_out": max_weight,
        "grad_norm_max_abs_diff": max(abs(a - b) for a, b in zip(run32["norms"], run64["norms"])),
        "clip_decisions_agree": run32["clipped"] == run64["clipped"],
        "key_bias_grad_step0_max_abs_f32": key_bias(g32),
        "key_bias_grad_step0_max_abs_f64": key_bias(g64),
    }

    metadata = {
        "fixture": f"scripts/train_fixture.py case {name}",
        "seed": str(case["seed"]),
        **{k: str(v) for k, v in versions().items()},
    }
    (out_dir / "batches.safetensors").write_bytes(serialize({"inputs": inputs, "targets": targets}, metadata))
    (out_dir / "grads.safetensors").write_bytes(serialize(f32_arrays(g32), metadata))
    losses = np.array(run32["losses"], dtype=np.float32)
    (out_dir / "losses.safetensors").write_bytes(serialize({"losses": losses}, metadata))
    (out_dir / "weights_out.safetensors").write_bytes(serialize(f32_arrays(run32["weights"]), metadata))

    hyper = {
        **HYPER,
        "clip_max_norm": c,
        "optimizer": "torch.optim.AdamW, one param group, weight decay on every parameter, constant lr, "
        "amsgrad false, maximize false, foreach/fused off (CPU default: single-tensor)",
        "clip": "torch.nn.utils.clip_grad_norm_(params, clip_max_norm, norm_type=2): coef = min(C / (total + 1e-6), 1)",
        "loss": "F.cross_entropy(logits.view(-1, V), targets.view(-1)), mean over B*T",
        "steps": STEPS,
        "batch": case["batch"],
        "seq": case["seq"],
        "batch_layout": "inputs[s,b,t] = z[(s*B+b)*T+t], targets[s,b,t] = z[(s*B+b)*T+t+1]",
        "tokens": "bytes of the opening of Pride and Prejudice (TEXT in the script)"
        if case["vocab_size"] == 256
        else "floor(numpy default_rng(seed).random(S*B*T+1) * V)",
        "init": {
            "generator": "torch.Generator().manual_seed(seed), param.normal_ in named_parameters() order",
            "seed": case["seed"],
            "std": INIT_STD,
            "c_proj_std": INIT_STD / math.sqrt(2 * case["n_layer"]),
            "normal": ["wte.weight", "wpe.weight", "attn.c_attn.weight", "mlp.c_fc.weight"],
            "normal_scaled": ["attn.c_proj.weight", "mlp.c_proj.weight"],
            "ones": ["ln_1.weight", "ln_2.weight", "ln_f.weight"],
            "zeros": ["every bias (Conv1D and LayerNorm)"],
        },
        "config": {k: case[k] for k in ("n_layer", "n_head", "n_embd", "n_positions", "vocab_size")},
        "dtype": "float32",
        "threads": 1,
    }
    (out_dir / "hyper.json").write_text(readable_json(hyper) + "\n")

    summary = {
        "case": name,
        "parameters_in_named_parameters_order": [[n, list(p.shape)] for n, p in model.named_parameters()],
        "parameter_count": sum(p.numel() for p in model.parameters()),
        "not_parameters": "lm_head.weight (tied to transformer.wte.weight); no attn.bias / masked_bias buffer",
        "losses": run32["losses"],
        "losses_f64": run64["losses"],
        "grad_total_norm_per_step": run32["norms"],
        "grad_total_norm_per_step_f64": run64["norms"],
        "grad_total_norm_step0": run32["norms"][0],
        "clip_active_per_step": run32["clipped"],
        "clip_min_rel_margin": min(abs(n - c) / c for n in run32["norms"]),
        "f32_vs_f64": f32_vs_f64,
        "numpy_spec_update_minus_torch_f64_max_abs": spec_diff,
        "keys": {
            f: {k: [v["dtype"], v["shape"]] for k, v in header_of(out_dir / f).items() if k != "__metadata__"}
            for f in ("batches.safetensors", "losses.safetensors")
        },
        "versions": versions(),
    }
    (out_dir / "reference.json").write_text(readable_json(summary) + "\n")
    return summary


def write(out_dir: Path) -> dict:
    return {name: write_case(name, case, out_dir / name) for name, case in CASES.items()}


def summarize(summaries: dict) -> str:
    rows = []
    for name, s in summaries.items():
        d = s["f32_vs_f64"]
        rows.append(
            f"{name}: {s['parameter_count']} params, losses {[round(x, 4) for x in s['losses']]}\n"
            f"  norms {[round(x, 4) for x in s['grad_total_norm_per_step']]} clipped {s['clip_active_per_step']}\n"
            f"  f32-f64: grads rel {d['grads_max_abs_diff_rel_to_max_abs_grad']:.3e}, losses {d['losses_max_abs_diff']:.3e}, "
            f"weights {d['weights_out_max_abs_diff']:.3e} (rel {d['weights_out_max_abs_diff_rel_to_max_abs_weight']:.3e}), "
            f"spec {s['numpy_spec_update_minus_torch_f64_max_abs']:.1e}"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(fixture_main(lambda out: summarize(write(out)), OUT, FILES, "train_fixture.py"))
