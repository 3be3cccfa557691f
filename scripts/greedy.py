"""transformers' greedy decoding as the fixture and the benchmark both call it."""

import torch


def greedy_generate(model, ids: torch.Tensor, new_tokens: int, **extra):
    """`model.generate` with exactly `new_tokens` greedy steps on the KV cache
    (no sampling, no end-of-text stop, an all-ones attention mask); `extra` adds
    generate options such as `output_logits=True`."""
    return model.generate(
        ids,
        attention_mask=torch.ones_like(ids),
        max_new_tokens=new_tokens,
        min_new_tokens=new_tokens,
        do_sample=False,
        use_cache=True,
        pad_token_id=None,
        eos_token_id=None,
        **extra,
    )
