"""AdamW + clip_grad_norm_ reference for tests/train.rs (tests/fixtures/train/adamw/).

torch.optim.AdamW (single-tensor CPU path: foreach=False, fused=False) with
torch.nn.utils.clip_grad_norm_(max_norm=1.0) before each step, on three
parameters of shapes [4, 8], [8], [3, 5, 2] (30 elements: not a multiple of
the SIMD width, so ATen's scalar tail runs too), given gradients (not a
loss): 5 steps, steps 0, 2, 4 with gradients large enough to be clipped,
1 and 3 below the limit. Hyperparameters as tests/fixtures/train/tiny:
lr 0.003, betas (0.9, 0.95), eps 1e-8, weight_decay 0.1.

Written, for dtype D in (f32, f64), to D.safetensors:
  init.NAME                       the parameters before step 0
  grad.S.NAME                     step S's gradient as given (before clipping)
  clipped.S.NAME                  after clip_grad_norm_
  param.S.NAME                    the parameters after step S's AdamW update
  exp_avg.NAME, exp_avg_sq.NAME   the optimizer state after the last step
  total_norm                      [5], clip_grad_norm_'s return value per step

    /work/venv/bin/python scripts/adamw_fixture.py
"""

import pathlib

import numpy as np
import torch
from safetensors.torch import save_file

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests/fixtures/train/adamw"
SHAPES = {"a.weight": (4, 8), "a.bias": (8,), "b.weight": (3, 5, 2)}
STEPS = 5
SCALES = [3.0, 0.3, 3.0, 0.3, 3.0]
HYPER = dict(lr=0.003, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
MAX_NORM = 1.0


def run(dtype):
    rng = np.random.default_rng(23)
    params = {
        name: torch.nn.Parameter(torch.tensor(rng.standard_normal(shape), dtype=dtype))
        for name, shape in SHAPES.items()
    }
    grads = [
        {
            name: torch.tensor(rng.standard_normal(shape) * SCALES[s] / 3.0, dtype=dtype)
            for name, shape in SHAPES.items()
        }
        for s in range(STEPS)
    ]
    out = {f"init.{n}": p.detach().clone() for n, p in params.items()}
    opt = torch.optim.AdamW(params.values(), foreach=False, fused=False, **HYPER)
    norms = []
    for s in range(STEPS):
        for name, p in params.items():
            p.grad = grads[s][name].clone()
            out[f"grad.{s}.{name}"] = grads[s][name].clone()
        norm = torch.nn.utils.clip_grad_norm_(list(params.values()), MAX_NORM, foreach=False)
        norms.append(norm.item())
        for name, p in params.items():
            out[f"clipped.{s}.{name}"] = p.grad.detach().clone()
        opt.step()
        for name, p in params.items():
            out[f"param.{s}.{name}"] = p.detach().clone()
    for name, p in params.items():
        state = opt.state[p]
        out[f"exp_avg.{name}"] = state["exp_avg"].clone()
        out[f"exp_avg_sq.{name}"] = state["exp_avg_sq"].clone()
        assert state["step"].item() == STEPS
    out["total_norm"] = torch.tensor(norms, dtype=dtype)
    return out, norms


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    for dtype, tag in [(torch.float32, "f32"), (torch.float64, "f64")]:
        out, norms = run(dtype)
        save_file(out, OUT / f"{tag}.safetensors", metadata={"torch": torch.__version__})
        print(tag, "total norms", [f"{n:.6f}" for n in norms])


if __name__ == "__main__":
    main()
