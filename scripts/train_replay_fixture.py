"""Every step's gradients of tests/fixtures/train/tiny, for tests of the trainer's
non-gradient half (clip_grad_norm_ + AdamW over S steps) against PyTorch's final
weights (tests/fixtures/train/tiny/weights_out.safetensors) without autodiff.

Reruns scripts/train_fixture.py's `train` loop on the committed initial model and
batches (transformers' GPT2LMHeadModel, float32, one thread) and writes

  tests/fixtures/train/tiny_replay/grads.safetensors: grad.S.NAME, F32, the
  gradient of step S's loss for every parameter, before clipping (S = 0..7),
  and weights.NAME, every parameter after the 8 clipped AdamW steps of THIS run.

This rerun's losses agree with the committed losses.safetensors to ~1e-7
relative but not bit for bit (step 2 differs in the last bits: measured with
torch 2.15.0, AVX-512, 1 thread), so the trajectories part by float noise and
the replay test compares against this run's own final weights; the script
prints the largest differences to the committed losses and weights.

    /work/venv/bin/python scripts/train_replay_fixture.py
"""

import json
import pathlib

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from transformers import GPT2LMHeadModel

ROOT = pathlib.Path(__file__).resolve().parent.parent
TINY = ROOT / "tests/fixtures/train/tiny"
OUT = ROOT / "tests/fixtures/train/tiny_replay"


def main():
    torch.set_num_threads(1)
    hyper = json.loads((TINY / "hyper.json").read_text())
    model = GPT2LMHeadModel.from_pretrained(TINY, attn_implementation="eager").train()
    batches = load_file(TINY / "batches.safetensors")
    names = [n for n, _ in model.named_parameters()]
    params = [p for _, p in model.named_parameters()]
    optimizer = torch.optim.AdamW(
        params, lr=hyper["lr"], betas=tuple(hyper["betas"]), eps=hyper["eps"], weight_decay=hyper["weight_decay"]
    )
    vocab = model.config.vocab_size
    out, losses = {}, []
    for s in range(hyper["steps"]):
        optimizer.zero_grad(set_to_none=True)
        logits = model(batches["inputs"][s]).logits
        loss = F.cross_entropy(logits.view(-1, vocab), batches["targets"][s].view(-1))
        loss.backward()
        for n, p in zip(names, params):
            out[f"grad.{s}.{n}"] = p.grad.detach().clone()
        torch.nn.utils.clip_grad_norm_(params, hyper["clip_max_norm"], norm_type=2.0)
        optimizer.step()
        losses.append(loss.item())
    reference = load_file(TINY / "losses.safetensors")["losses"]
    loss_diff = (torch.tensor(losses, dtype=torch.float32) - reference).abs().max().item()
    assert loss_diff < 1e-5, (losses, reference)
    weights = load_file(TINY / "weights_out.safetensors")
    weight_diff = max((p.detach() - weights[n]).abs().max().item() for n, p in zip(names, params))
    for n, p in zip(names, params):
        out[f"weights.{n}"] = p.detach().clone()
    OUT.mkdir(exist_ok=True)
    save_file(out, OUT / "grads.safetensors", metadata={"torch": torch.__version__})
    print(f"max |loss - committed| = {loss_diff:.3g}, max |weight - committed| = {weight_diff:.3g}")
    print(len(out), "tensors written")


if __name__ == "__main__":
    main()
