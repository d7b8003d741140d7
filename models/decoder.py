#!/usr/bin/env python3
"""A GPT-style decoder with a KV cache, exported to ONNX the two ways
decoders ship: one graph over a whole sequence, and one step graph that
takes the cache as `past_key_values.N.key/value` inputs and returns
`present.N.key/value` (ONNX Runtime GenAI's and Hugging Face Optimum's
names), with `attention_mask` over past and new tokens and `position_ids`.

The architecture is nanoGPT's (pre-norm blocks, learned positions, GELU
MLP, tied-free head) over bytes (vocabulary 256), with the causal mask
computed inside the graph from the mask and the shapes, as exporters write
it. Weights are seeded random unless a state dict is given.

Usage: decoder.py OUT [--layers N --width D --heads H --context T]
       [--weights FILE.pt]
writes OUT/full.onnx (input_ids -> logits) and OUT/with_past.onnx.
"""

import argparse
import math
import os

import torch
from torch import nn
from torch.nn import functional as F

VOCAB = 256


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x, bias, past_key=None, past_value=None):
        """x [B, S, D]; bias [B, 1, S, P + S] additive; past [B, H, P, D/H].
        Returns the block's output and the present key and value."""
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=2)
        shape = (b, s, self.heads, d // self.heads)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        if past_key is not None:
            k = torch.cat([past_key, k], dim=2)
            v = torch.cat([past_value, v], dim=2)
        scores = q @ k.transpose(2, 3) / math.sqrt(d // self.heads) + bias
        y = F.softmax(scores, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, d))
        x = x + self.down(F.gelu(self.up(self.norm2(x))))
        return x, k, v


class GPT(nn.Module):
    def __init__(self, layers=2, width=64, heads=4, context=64):
        super().__init__()
        self.context = context
        self.tokens = nn.Embedding(VOCAB, width)
        self.positions = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, VOCAB)

    def forward(self, input_ids, attention_mask=None, position_ids=None,
                past=None):
        """input_ids [B, S]; attention_mask [B, P + S] (1 keep, 0 pad);
        position_ids [B, S]; past: a (key, value) pair per layer, each
        [B, H, P, D/H]. Returns the logits [B, S, 256] and the presents."""
        s = input_ids.shape[1]
        p = past[0][0].shape[2] if past is not None else 0
        if position_ids is None:
            position_ids = torch.arange(p, p + s).unsqueeze(0)
        if attention_mask is None:
            attention_mask = torch.ones(input_ids.shape[0], p + s)
        # Query i (at position p + i) sees keys 0..p + i that the mask keeps.
        rows = torch.arange(p, p + s).unsqueeze(1)
        cols = torch.arange(p + s).unsqueeze(0)
        allowed = (cols <= rows).unsqueeze(0) & (
            attention_mask[:, None, :] > 0)
        bias = torch.where(allowed, torch.tensor(0.0),
                           torch.tensor(-1e9)).unsqueeze(1)
        x = self.tokens(input_ids) + self.positions(position_ids)
        presents = []
        for i, block in enumerate(self.blocks):
            pk, pv = past[i] if past is not None else (None, None)
            x, k, v = block(x, bias, pk, pv)
            presents.append((k, v))
        return self.head(self.norm(x)), presents


class Full(nn.Module):
    """input_ids -> logits over the whole sequence."""

    def __init__(self, gpt):
        super().__init__()
        self.gpt = gpt

    def forward(self, input_ids):
        return self.gpt(input_ids)[0]


class WithPast(nn.Module):
    """(input_ids, attention_mask, position_ids, past...) -> (logits,
    present...)."""

    def __init__(self, gpt):
        super().__init__()
        self.gpt = gpt

    def forward(self, input_ids, attention_mask, position_ids, *past):
        pairs = [(past[2 * i], past[2 * i + 1]) for i in range(len(past) // 2)]
        logits, presents = self.gpt(input_ids, attention_mask, position_ids,
                                    pairs)
        return (logits,) + tuple(t for pair in presents for t in pair)


def past_names(layers):
    names = []
    for i in range(layers):
        names += [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
    return names


def export(gpt, out, opset=17):
    """Writes out/full.onnx and out/with_past.onnx."""
    os.makedirs(out, exist_ok=True)
    gpt.eval()
    layers = len(gpt.blocks)
    heads = gpt.blocks[0].heads
    width = gpt.tokens.embedding_dim
    ids = torch.randint(0, VOCAB, (1, 8))
    torch.onnx.export(Full(gpt), (ids,), os.path.join(out, "full.onnx"),
                      input_names=["input_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": {1: "sequence"},
                                    "logits": {1: "sequence"}},
                      opset_version=opset)
    p, s = 3, 2
    past = [torch.randn(1, heads, p, width // heads)
            for _ in range(2 * layers)]
    names = past_names(layers)
    presents = [n.replace("past_key_values", "present") for n in names]
    axes = {"input_ids": {1: "sequence"},
            "attention_mask": {1: "total_sequence"},
            "position_ids": {1: "sequence"}, "logits": {1: "sequence"}}
    for n in names:
        axes[n] = {2: "past_sequence"}
    for n in presents:
        axes[n] = {2: "total_sequence"}
    torch.onnx.export(
        WithPast(gpt),
        (torch.randint(0, VOCAB, (1, s)), torch.ones(1, p + s, dtype=torch.int64),
         torch.arange(p, p + s).unsqueeze(0), *past),
        os.path.join(out, "with_past.onnx"),
        input_names=["input_ids", "attention_mask", "position_ids"] + names,
        output_names=["logits"] + presents, dynamic_axes=axes,
        opset_version=opset)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--weights", help="a state dict to load")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    gpt = GPT(args.layers, args.width, args.heads, args.context)
    if args.weights:
        gpt.load_state_dict(torch.load(args.weights))
    export(gpt, args.out)


if __name__ == "__main__":
    main()
