#!/usr/bin/env python3
"""Write tests/fixtures/llama/: a tiny Llama GGUF with random weights in every type the
crate computes with, and what transformers computes from that same file, so the
`llama` example is checked against transformers without Python or the 98 MB model.

    /work/venv/bin/python scripts/llama_fixture.py     # the venv of scripts/requirements.txt

The model (`tiny.gguf`, ~60 KB): `general.architecture = llama`, 2 blocks, width 64,
4 query heads and 2 KV heads of 16 (grouped-query attention), SwiGLU width 96,
RMSNorm eps 1e-5, RoPE base 10000, vocabulary 299, tied head (no `output.weight`).
The tensor types cover every stored type of the example's path:

    token_embd Q8_0 | attn_q Q4_1 | attn_k Q4_0 | attn_v Q8_0 | attn_output F16
    ffn_gate Q4_1 | ffn_up Q4_0 | ffn_down BF16 (block 0) / F32 (block 1) | norms F32

The weights are written as they are drawn: for `attn_q` / `attn_k` the stored rows are
what GGUF files hold (rows permuted for llama.cpp's adjacent-pair RoPE); transformers
un-permutes them on load (`_reverse_permute_weights`) and rotates halves, the example
rotates adjacent pairs of the stored rows: the same attention, which the fixture checks.

The tokenizer metadata is GPT-2 style (`tokenizer.ggml.model = gpt2`, `pre = smollm`):
256 byte tokens, 39 merges, `<|im_start|>` (1) and `<|im_end|>` (2) as control
tokens, a minimal ChatML chat template. transformers is not asked to tokenize.

`reference.safetensors` (transformers 5.24, `AutoModelForCausalLM.from_pretrained(dir,
gguf_file="tiny.gguf", dtype=float32, attn_implementation="eager")`, one thread):
- `prompt_ids` i64 [P]: 12 fixed ids;
- `prefill_logits` f32 [P, V]: logits at every prompt position (one forward);
- `generated_ids` i64 [8]: greedy continuation with the KV cache (`generate`,
  `do_sample=False`, no eos);
- `step_logits` f32 [8, V]: the row each generated id was chosen from;
- `dequantized.*` f32: transformers' own dequantized `token_embd` and block 0's
  `attn_q` (as gguf.quants.dequantize gives them, the rows as stored).
Seeded: a rerun writes the same bytes.
"""

import importlib.metadata
import pathlib
import shutil
import sys
import tempfile

import gguf
import numpy as np
import torch
from transformers import AutoModelForCausalLM

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from safetensors_io import serialize  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "llama"
Q = gguf.GGMLQuantizationType
LAYERS, WIDTH, HEADS, KV_HEADS, FFN, VOCAB = 2, 64, 4, 2, 96, 299


def byte_tokens() -> list[str]:
    """GPT-2's bytes_to_unicode: the printable stand-in of every byte, in byte order."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    table = dict(zip(bs, cs))
    return [chr(table[b]) for b in range(256)]


def vocabulary() -> tuple[list[str], list[int], list[str]]:
    """Specials 0..3, then the 256 byte tokens, then 39 merged tokens."""
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<pad>"]
    singles = byte_tokens()
    merges = []
    merged = []
    words = ["th", "he", "the", "Ġt", "Ġth", "Ġthe", "in", "an", "er", "on", "at", "en", "ed", "is", "Ġa", "Ġi"]
    pieces = {"th": ("t", "h"), "he": ("h", "e"), "the": ("th", "e"), "Ġt": ("Ġ", "t"), "Ġth": ("Ġt", "h"),
              "Ġthe": ("Ġth", "e"), "in": ("i", "n"), "an": ("a", "n"), "er": ("e", "r"), "on": ("o", "n"),
              "at": ("a", "t"), "en": ("e", "n"), "ed": ("e", "d"), "is": ("i", "s"), "Ġa": ("Ġ", "a"), "Ġi": ("Ġ", "i")}
    for w in words:
        a, b = pieces[w]
        merges.append(f"{a} {b}")
        merged.append(w)
    for c in "abcdefghijklmnopqrstuvwxyz":
        if len(merged) < 39 and f"Ġ{c}" not in merged:
            merges.append(f"Ġ {c}")
            merged.append(f"Ġ{c}")
    tokens = specials + singles + merged
    types = [3, 3, 3, 3] + [1] * (len(singles) + len(merged))  # 3 = control, 1 = normal
    assert len(tokens) == VOCAB, len(tokens)
    return tokens, types, merges


def quantized(array: np.ndarray, qtype) -> np.ndarray:
    return array if qtype == Q.F32 else gguf.quants.quantize(array, qtype)


def main() -> None:
    rng = np.random.default_rng(23)
    tmp = pathlib.Path(tempfile.mkdtemp())
    path = tmp / "tiny.gguf"
    writer = gguf.GGUFWriter(str(path), arch="llama")
    writer.add_name("tiny llama fixture")
    writer.add_context_length(64)
    writer.add_embedding_length(WIDTH)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(VOCAB)
    tokens, types, merges = vocabulary()
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(False)
    writer.add_chat_template(
        "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )

    kv = KV_HEADS * WIDTH // HEADS

    def add(name: str, shape: tuple[int, ...], qtype, scale: float) -> None:
        values = (rng.standard_normal(shape) * scale).astype(np.float32)
        if qtype == Q.F16:
            writer.add_tensor(name, values.astype(np.float16))
        elif qtype == Q.BF16:
            writer.add_tensor(name, gguf.quants.quantize(values, Q.BF16), raw_dtype=Q.BF16)
        elif qtype == Q.F32:
            writer.add_tensor(name, values)
        else:
            writer.add_tensor(name, quantized(values, qtype), raw_dtype=qtype)

    add("token_embd.weight", (VOCAB, WIDTH), Q.Q8_0, 1.0)
    for n in range(LAYERS):
        norm = (1.0 + 0.1 * rng.standard_normal(WIDTH)).astype(np.float32)
        writer.add_tensor(f"blk.{n}.attn_norm.weight", norm)
        add(f"blk.{n}.attn_q.weight", (WIDTH, WIDTH), Q.Q4_1, 0.25)
        add(f"blk.{n}.attn_k.weight", (kv, WIDTH), Q.Q4_0, 0.25)
        add(f"blk.{n}.attn_v.weight", (kv, WIDTH), Q.Q8_0, 0.25)
        add(f"blk.{n}.attn_output.weight", (WIDTH, WIDTH), Q.F16, 0.125)
        norm = (1.0 + 0.1 * rng.standard_normal(WIDTH)).astype(np.float32)
        writer.add_tensor(f"blk.{n}.ffn_norm.weight", norm)
        add(f"blk.{n}.ffn_gate.weight", (FFN, WIDTH), Q.Q4_1, 0.2)
        add(f"blk.{n}.ffn_up.weight", (FFN, WIDTH), Q.Q4_0, 0.2)
        add(f"blk.{n}.ffn_down.weight", (WIDTH, FFN), Q.BF16 if n == 0 else Q.F32, 0.1)
    writer.add_tensor("output_norm.weight", (1.0 + 0.1 * rng.standard_normal(WIDTH)).astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    torch.set_num_threads(1)
    model = AutoModelForCausalLM.from_pretrained(
        str(tmp), gguf_file="tiny.gguf", dtype=torch.float32, attn_implementation="eager"
    ).eval()
    prompt = [1, 90, 294, 17, 260, 261, 262, 88, 2, 150, 33, 298]
    ids = torch.tensor([prompt])
    with torch.no_grad():
        prefill = model(ids).logits[0].float().numpy()
        out = model.generate(
            ids, max_new_tokens=8, do_sample=False, use_cache=True, output_logits=True,
            return_dict_in_generate=True, eos_token_id=None, pad_token_id=0,
        )
    generated = out.sequences[0, len(prompt):].numpy().astype(np.int64)
    steps = torch.stack(out.logits)[:, 0].float().numpy()
    assert (steps.argmax(axis=1) == generated).all()

    reader = gguf.GGUFReader(str(path))
    deq = {}
    for t in reader.tensors:
        if t.name in ("token_embd.weight", "blk.0.attn_q.weight"):
            deq[f"dequantized.{t.name}"] = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32)

    OUT.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, OUT / "tiny.gguf")
    tensors = {
        "prompt_ids": np.array(prompt, dtype=np.int64),
        "prefill_logits": prefill.astype(np.float32),
        "generated_ids": generated,
        "step_logits": steps.astype(np.float32),
        **deq,
    }
    (OUT / "reference.safetensors").write_bytes(
        serialize(tensors, metadata={
            "transformers": importlib.metadata.version("transformers"),
            "torch": torch.__version__,
            "gguf": importlib.metadata.version("gguf"),
        })
    )
    shutil.rmtree(tmp)
    print("wrote", OUT, "generated", generated.tolist())


if __name__ == "__main__":
    main()
