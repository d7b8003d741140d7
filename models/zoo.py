#!/usr/bin/env python3
"""Generates the model zoo: every torchvision classification family, two
segmentation networks (LR-ASPP and DeepLabV3 on MobileNetV3, whose heads
resize to the input's shape computed in the graph) and BERT- and GPT-style
transformers, exported as PyTorch writes them, for the speed and coverage
benchmarks.

Each model is exported with torch.onnx.export (batch 1, static shapes,
graph input `input`, graph output `output`) exactly as
models/generate.py exports the bundled models: seeded random weights,
BatchNorm and LayerNorm affine parameters random and BatchNorm running
statistics from train-mode passes on random data, the reference output
computed by PyTorch in eval mode, the ONNX checker run on every file. The
same seed gives the same files. Nothing here is committed: the files (up to
0.5 GB each) go into the build tree (scripts/make-benchmark-models.sh
--zoo).

Needs Debian's python3-torch, python3-torchvision, python3-onnx and
python3-numpy.

Usage: zoo.py --out DIR [model ...]     (no model: the whole zoo)
       zoo.py --list
"""

import argparse
import os
import sys

import torch
from torch import nn
import torchvision.models as tvm

from generate import (SEED, export, randomize_batch_norm,
                      randomize_layer_norm)

VOCAB = 30522  # BERT's WordPiece vocabulary size
SEQ = 128


class TextEncoder(nn.Module):
    """A BERT-style encoder (bidirectional) or a GPT-style decoder-only
    stack (causal mask, pre-norm): token and learned position embeddings,
    GELU feed-forward, LayerNorm, a linear head over the vocabulary (GPT)
    or over two classes from the first token (BERT)."""

    def __init__(self, causal, d_model=256, heads=4, layers=4, ff=1024):
        super().__init__()
        self.causal = causal
        self.tokens = nn.Embedding(VOCAB, d_model)
        self.positions = nn.Embedding(SEQ, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0,
                                           activation="gelu",
                                           batch_first=True,
                                           norm_first=causal)
        self.encoder = nn.TransformerEncoder(layer, layers,
                                             enable_nested_tensor=False)
        for each in self.encoder.layers:  # deep copies: own weights each
            each.self_attn._reset_parameters()
            each.linear1.reset_parameters()
            each.linear2.reset_parameters()
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, VOCAB if causal else 2)
        mask = torch.triu(torch.full((SEQ, SEQ), float("-inf")), diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.tokens(ids) + self.positions(positions)
        x = self.encoder(x, mask=self.mask if self.causal else None)
        x = self.norm(x)
        return self.head(x if self.causal else x[:, 0])


def randomize_zero_linears(model, generator):
    """Random weights for linear layers that start at zero (torchvision's
    ViT head), so that the reference output depends on the whole network."""
    for m in model.modules():
        if isinstance(m, nn.Linear) and not m.weight.any():
            with torch.no_grad():
                m.weight.normal_(0.0, 0.02, generator=generator)


def torchvision_model(name, **kwargs):
    def build():
        return getattr(tvm, name)(weights=None, **kwargs)
    return build


class SegmentationOutput(nn.Module):
    """A torchvision segmentation network's "out" map (the networks return
    a dict, which ONNX export cannot name as one output)."""

    def __init__(self, network):
        super().__init__()
        self.network = network

    def forward(self, x):
        return self.network(x)["out"]


def segmentation_model(name, **kwargs):
    def build():
        return SegmentationOutput(getattr(tvm.segmentation, name)(
            weights=None, weights_backbone=None, **kwargs))
    return build


# name -> (builder, input: image side or "tokens", opset)
ZOO = {
    "alexnet": (torchvision_model("alexnet"), 224, 13),
    "vgg11_bn": (torchvision_model("vgg11_bn"), 224, 13),
    "resnet18": (torchvision_model("resnet18"), 224, 13),
    "resnet50": (torchvision_model("resnet50"), 224, 13),
    "resnext50_32x4d": (torchvision_model("resnext50_32x4d"), 224, 13),
    "wide_resnet50_2": (torchvision_model("wide_resnet50_2"), 224, 13),
    "densenet121": (torchvision_model("densenet121"), 224, 13),
    "squeezenet1_1": (torchvision_model("squeezenet1_1"), 224, 13),
    "googlenet": (torchvision_model("googlenet", aux_logits=False,
                                    init_weights=True), 224, 13),
    "inception_v3": (torchvision_model("inception_v3", aux_logits=False,
                                       init_weights=True), 299, 13),
    "mobilenet_v2": (torchvision_model("mobilenet_v2"), 224, 13),
    "mobilenet_v3_small": (torchvision_model("mobilenet_v3_small"), 224, 13),
    "mobilenet_v3_large": (torchvision_model("mobilenet_v3_large"), 224, 13),
    "mnasnet0_5": (torchvision_model("mnasnet0_5"), 224, 13),
    "mnasnet1_0": (torchvision_model("mnasnet1_0"), 224, 13),
    "shufflenet_v2_x1_0": (torchvision_model("shufflenet_v2_x1_0"), 224, 13),
    "efficientnet_b0": (torchvision_model("efficientnet_b0"), 224, 13),
    "efficientnet_v2_s": (torchvision_model("efficientnet_v2_s"), 224, 13),
    "regnet_x_400mf": (torchvision_model("regnet_x_400mf"), 224, 13),
    "regnet_y_400mf": (torchvision_model("regnet_y_400mf"), 224, 13),
    "convnext_tiny": (torchvision_model("convnext_tiny"), 224, 13),
    "lraspp_mobilenet_v3_large": (
        segmentation_model("lraspp_mobilenet_v3_large", num_classes=21),
        224, 13),
    "deeplabv3_mobilenet_v3_large": (
        segmentation_model("deeplabv3_mobilenet_v3_large", num_classes=21,
                           aux_loss=False),
        224, 13),
    "vit_b_16": (torchvision_model("vit_b_16"), 224, 14),
    "swin_t": (torchvision_model("swin_t"), 224, 14),
    "bert_encoder": (lambda: TextEncoder(causal=False), "tokens", 14),
    "gpt_decoder": (lambda: TextEncoder(causal=True), "tokens", 14),
}


def generate(name, out_dir):
    build, side, opset = ZOO[name]
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model = build()
    if side == "tokens":
        model.eval()
        randomize_layer_norm(model, generator)
        x = torch.randint(0, VOCAB, (1, SEQ), generator=generator)
    else:
        shape = (1, 3, side, side)
        randomize_zero_linears(model, generator)
        randomize_layer_norm(model, generator)
        randomize_batch_norm(model, shape, generator)
        x = torch.rand(*shape, generator=generator)
    export(name, model, x, out_dir, opset, keep_bn=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    if args.list:
        print("\n".join(ZOO))
        return
    if not args.out:
        sys.exit("zoo.py: --out DIR is required")
    torch.set_num_threads(1)
    for name in args.models or list(ZOO):
        if name not in ZOO:
            sys.exit(f"zoo.py: unknown model '{name}' (known: {', '.join(ZOO)})")
        generate(name, args.out)


if __name__ == "__main__":
    main()
