#!/usr/bin/env python3
"""Generates the architecture set: networks outside the model zoo
(segmentation, detection heads, recurrent, audio, recommendation,
super-resolution, style transfer, transformers other than BERT and GPT),
written as their public reference implementations write them, for
measuring Strata on work its kernels were not tuned for.

Each model goes into OUT/<name>/ in the zoo's format (models/zoo.py):
model.onnx (torch.onnx.export, batch 1, first graph input `input`, graph
output `output`, the ONNX checker run on it) and test_data_set_0/ with
input_N.pb and output_0.pb, PyTorch's float32 eval-mode output. Besides
that:
  reference_f64/output_0.pb  the same network run by PyTorch in float64 on
                             the same inputs (the float32 weights widened),
                             to measure each runtime's own error;
  compile-flags              for models exported with dynamic axes (as their
                             users export them), one strata-compile flag a
                             line pinning the shapes of test_data_set_0
                             (--input-shape=NAME=DIMS).
Weights are seeded random; BatchNorm, GroupNorm, InstanceNorm and LayerNorm
affine parameters are random, and BatchNorm running statistics come from a
few train-mode passes on random inputs (so folding them is exercised). The
opset varies (11, 13, 17) as exporters in the wild do. The same seed gives
the same files.

Needs Debian's python3-torch, python3-torchvision, python3-onnx and
python3-numpy.

Usage: arch.py --out DIR [model ...]     (no model: the whole set)
       arch.py --list
"""

import argparse
import functools
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn
import torchvision
from torchvision.models import resnet
from torchvision.models.detection import retinanet
from torchvision.models.detection.backbone_utils import BackboneWithFPN
from torchvision.ops.feature_pyramid_network import LastLevelP6P7
from torchvision.models.segmentation import fcn_resnet50

from generate import SEED, write_tensor


def conv_bn_relu(cin, cout, k=3, stride=1, act=None):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(cout), act or nn.ReLU(inplace=True))


# --- segmentation -----------------------------------------------------------

class UNet(nn.Module):
    """U-Net as github.com/milesial/Pytorch-UNet writes it (bilinear=False:
    ConvTranspose2d upsampling), base width 16."""

    class Double(nn.Sequential):
        def __init__(self, cin, cout):
            super().__init__(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                             nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class Up(nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
            self.conv = UNet.Double(cin, cout)

        def forward(self, x1, x2):
            x1 = self.up(x1)
            dy = x2.size()[2] - x1.size()[2]
            dx = x2.size()[3] - x1.size()[3]
            x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
            return self.conv(torch.cat([x2, x1], dim=1))

    def __init__(self, channels=3, classes=2, w=16):
        super().__init__()
        self.inc = UNet.Double(channels, w)
        self.downs = nn.ModuleList(
            nn.Sequential(nn.MaxPool2d(2), UNet.Double(w << i, w << (i + 1)))
            for i in range(4))
        self.ups = nn.ModuleList(UNet.Up(w << (i + 1), w << i)
                                 for i in reversed(range(4)))
        self.outc = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        skips = [self.inc(x)]
        for down in self.downs:
            skips.append(down(skips[-1]))
        x = skips.pop()
        for up in self.ups:
            x = up(x, skips.pop())
        return self.outc(x)


class SegmentationOutput(nn.Module):
    def __init__(self, network):
        super().__init__()
        self.network = network

    def forward(self, x):
        return self.network(x)["out"]


# --- detection --------------------------------------------------------------

class DBNet(nn.Module):
    """Differentiable-binarization text detector (MhLiao/DB's SegDetector):
    ResNet-18 backbone, FPN neck (nearest upsampling, add), the
    probability head upsampling with two ConvTranspose2d to the input size,
    sigmoid."""

    def __init__(self, inner=256):
        super().__init__()
        r = resnet.resnet18(weights=None)
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.layers = nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])
        self.ins = nn.ModuleList(nn.Conv2d(c, inner, 1, bias=False)
                                 for c in (64, 128, 256, 512))
        self.outs = nn.ModuleList(
            nn.Sequential(nn.Conv2d(inner, inner // 4, 3, padding=1,
                                    bias=False),
                          nn.Upsample(scale_factor=s, mode="nearest"))
            for s in (1, 2, 4, 8))
        self.binarize = nn.Sequential(
            nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False),
            nn.BatchNorm2d(inner // 4), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(inner // 4, inner // 4, 2, 2),
            nn.BatchNorm2d(inner // 4), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(inner // 4, 1, 2, 2), nn.Sigmoid())

    def forward(self, x):
        x = self.stem(x)
        c = []
        for layer in self.layers:
            x = layer(x)
            c.append(x)
        in2, in3, in4, in5 = (m(f) for m, f in zip(self.ins, c))
        out4 = F.interpolate(in5, scale_factor=2.0, mode="nearest") + in4
        out3 = F.interpolate(out4, scale_factor=2.0, mode="nearest") + in3
        out2 = F.interpolate(out3, scale_factor=2.0, mode="nearest") + in2
        p = [m(f) for m, f in zip(self.outs, (out2, out3, out4, in5))]
        return self.binarize(torch.cat(p[::-1], dim=1))


class YoloHead(nn.Module):
    """A YOLOv4-tiny-style backbone (Conv-BN-LeakyReLU(0.1), CSP blocks)
    with a YOLOv8-style anchor-free head: per level a box branch of 4x16
    distribution bins decoded with a softmax over the bins (axis 1 of
    (N, 16, 4, A)) and a 1x1 convolution with fixed 0..15 weights (DFL),
    and a class branch with a sigmoid."""

    def __init__(self, classes=80, bins=16):
        super().__init__()
        leaky = functools.partial(nn.LeakyReLU, 0.1, inplace=True)

        def cbl(cin, cout, k=3, s=1):
            return conv_bn_relu(cin, cout, k, s, leaky())

        self.bins, self.classes = bins, classes
        self.stem = nn.Sequential(cbl(3, 32, 3, 2), cbl(32, 64, 3, 2))
        self.csp = nn.ModuleList()
        for c in (64, 128, 256):
            self.csp.append(nn.ModuleList([cbl(c, c), cbl(c // 2, c // 2),
                                           cbl(c // 2, c // 2),
                                           cbl(c, c, 1)]))
        self.pool = nn.MaxPool2d(2, 2)
        self.last = cbl(512, 512)
        self.neck = cbl(512, 256, 1)
        self.up = nn.Sequential(cbl(256, 128, 1), nn.Upsample(scale_factor=2))
        self.box = nn.ModuleList(
            nn.Sequential(cbl(c, 64), cbl(64, 64), nn.Conv2d(64, 4 * bins, 1))
            for c in (384, 256))
        self.cls = nn.ModuleList(
            nn.Sequential(cbl(c, 128), cbl(128, 128),
                          nn.Conv2d(128, classes, 1)) for c in (384, 256))
        self.dfl = nn.Conv2d(bins, 1, 1, bias=False)
        with torch.no_grad():
            self.dfl.weight.copy_(torch.arange(bins, dtype=torch.float)
                                  .view(1, bins, 1, 1))
        self.dfl.requires_grad_(False)

    def csp_block(self, m, x):
        x = m[0](x)
        half = x.shape[1] // 2
        r = x
        x = m[1](torch.split(x, half, dim=1)[1])
        x1 = x
        x = m[2](x)
        x = m[3](torch.cat([x, x1], dim=1))
        feat = x
        return self.pool(torch.cat([r, x], dim=1)), feat

    def forward(self, x):
        x = self.stem(x)
        x, _ = self.csp_block(self.csp[0], x)
        x, _ = self.csp_block(self.csp[1], x)
        x, feat = self.csp_block(self.csp[2], x)
        p5 = self.neck(self.last(x))
        p4 = torch.cat([self.up(p5), feat], dim=1)
        boxes, scores = [], []
        for i, f in enumerate((p4, p5)):
            b = self.box[i](f)
            n, _, h, w = b.shape
            b = b.view(n, 4, self.bins, h * w).transpose(2, 1)
            b = self.dfl(b.softmax(1)).view(n, 4, h * w)
            boxes.append(b)
            scores.append(self.cls[i](f).view(n, self.classes, h * w))
        return torch.cat([torch.cat(boxes, 2),
                          torch.cat(scores, 2).sigmoid()], 1)


class RetinaNetHeads(nn.Module):
    """torchvision's RetinaNet pieces: ResNet-18 with its FPN
    (BackboneWithFPN, P6/P7 levels) and RetinaNetHead with GroupNorm (the
    v2 head), the classification and regression outputs concatenated."""

    def __init__(self, channels=128, classes=80):
        super().__init__()
        body = resnet.resnet18(weights=None)
        self.backbone = BackboneWithFPN(
            body, {"layer2": "0", "layer3": "1", "layer4": "2"},
            [128, 256, 512], channels,
            extra_blocks=LastLevelP6P7(channels, channels))
        self.head = retinanet.RetinaNetHead(
            channels, 9, classes,
            norm_layer=functools.partial(nn.GroupNorm, 32))

    def forward(self, x):
        features = list(self.backbone(x).values())
        out = self.head(features)
        return torch.cat([out["cls_logits"], out["bbox_regression"]], dim=2)


# --- recurrent --------------------------------------------------------------

class LSTMClassifier(nn.Module):
    """Text classifier: embedding, 2-layer bidirectional LSTM, max-pool
    over time, linear head."""

    def __init__(self, vocab=20000, dim=128, hidden=256, classes=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        out, _ = self.lstm(self.embedding(ids))
        return self.fc(out.max(dim=1).values)


class GRUSpeech(nn.Module):
    """DeepSpeech2-style acoustic model on log-mel frames: a strided Conv1d
    front end with BatchNorm and Hardtanh, 3 GRU layers, per-frame
    character logits with log-softmax."""

    def __init__(self, mels=80, hidden=256, chars=29):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(mels, hidden, 11, 2, 5, bias=False),
                                  nn.BatchNorm1d(hidden), nn.Hardtanh(0, 20))
        self.gru = nn.GRU(hidden, hidden, num_layers=3, batch_first=True)
        self.fc = nn.Linear(hidden, chars)

    def forward(self, feats):  # (N, T, mels)
        x = self.conv(feats.transpose(1, 2)).transpose(1, 2)
        x, _ = self.gru(x)
        return F.log_softmax(self.fc(x), dim=-1)


class CRNN(nn.Module):
    """CRNN text recognizer (Shi et al.; the VGG-style CNN of
    meijieru/crnn.pytorch): conv stack to a height-1 feature map, two
    bidirectional LSTM layers with linear embeddings, per-column logits."""

    def __init__(self, classes=37, hidden=256):
        super().__init__()
        tall = ((2, 2), (2, 1), (0, 1))
        cfg = [(1, 64, False, (2, 2)), (64, 128, False, (2, 2)),
               (128, 256, True, None), (256, 256, False, tall),
               (256, 512, True, None), (512, 512, False, tall)]
        layers = []
        for cin, cout, bn, pool in cfg:
            layers += [nn.Conv2d(cin, cout, 3, 1, 1)]
            if bn:
                layers += [nn.BatchNorm2d(cout)]
            layers += [nn.ReLU(True)]
            if pool is not None:
                layers += [nn.MaxPool2d(*pool)]
        layers += [nn.Conv2d(512, 512, 2, 1, 0), nn.BatchNorm2d(512),
                   nn.ReLU(True)]
        self.cnn = nn.Sequential(*layers)
        self.rnn1 = nn.LSTM(512, hidden, bidirectional=True)
        self.emb1 = nn.Linear(2 * hidden, hidden)
        self.rnn2 = nn.LSTM(hidden, hidden, bidirectional=True)
        self.emb2 = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        conv = self.cnn(x).squeeze(2).permute(2, 0, 1)  # (W, N, C)
        r, _ = self.rnn1(conv)
        t, n, h = r.size()
        r = self.emb1(r.view(t * n, h)).view(t, n, -1)
        r, _ = self.rnn2(r)
        return self.emb2(r.view(t * n, -1)).view(t, n, -1)


# --- recommendation ---------------------------------------------------------

class DLRM(nn.Module):
    """DLRM (facebookresearch/dlrm, dlrm_s_pytorch.py): bottom MLP on the 13
    dense features, 26 EmbeddingBag tables (mode "mean", indices and
    offsets as DLRM feeds them), dot interaction of the 27 vectors (upper
    triangle), top MLP, sigmoid."""

    ROWS = [1460, 583, 10131, 2202, 305, 24, 12517, 633, 3, 9346, 5683,
            8351, 3194, 27, 14992, 5461, 10, 5652, 2173, 4, 7046, 18, 15,
            2867, 105, 1426]  # Criteo Kaggle cardinalities, capped at 15k

    def __init__(self, dim=64, batch=128, bag=3):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(13, 512), nn.ReLU(),
                                    nn.Linear(512, 256), nn.ReLU(),
                                    nn.Linear(256, dim), nn.ReLU())
        self.tables = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="mean")
                                    for n in self.ROWS)
        pairs = 27 * 26 // 2
        self.top = nn.Sequential(nn.Linear(dim + pairs, 512), nn.ReLU(),
                                 nn.Linear(512, 256), nn.ReLU(),
                                 nn.Linear(256, 1), nn.Sigmoid())
        li, lj = torch.tril_indices(27, 27, offset=-1)
        self.register_buffer("li", li)
        self.register_buffer("lj", lj)

    def forward(self, dense, indices, offsets):
        x = self.bottom(dense)
        ly = [t(indices[k], offsets[k]) for k, t in enumerate(self.tables)]
        t = torch.cat([x] + ly, dim=1).view(x.shape[0], -1, x.shape[1])
        z = torch.bmm(t, torch.transpose(t, 1, 2))
        zflat = z[:, self.li, self.lj]
        return self.top(torch.cat([x, zflat], dim=1))


# --- super-resolution and style transfer ------------------------------------

class ESPCN(nn.Module):
    """The super-resolution network of PyTorch's ONNX export tutorial
    (ESPCN, Shi et al. 2016): convolutions on the Y channel, PixelShuffle
    by 3."""

    def __init__(self, upscale=3):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, 5, 1, 2)
        self.conv2 = nn.Conv2d(64, 64, 3, 1, 1)
        self.conv3 = nn.Conv2d(64, 32, 3, 1, 1)
        self.conv4 = nn.Conv2d(32, upscale ** 2, 3, 1, 1)
        self.pixel_shuffle = nn.PixelShuffle(upscale)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        return self.pixel_shuffle(self.conv4(x))


class TransformerNet(nn.Module):
    """Fast neural style transfer as pytorch/examples writes it
    (fast_neural_style/transformer_net.py): reflection padding,
    InstanceNorm2d(affine), five residual blocks, nearest upsampling."""

    class ConvLayer(nn.Module):
        def __init__(self, cin, cout, k, stride, upsample=None):
            super().__init__()
            self.upsample = upsample
            self.pad = nn.ReflectionPad2d(k // 2)
            self.conv = nn.Conv2d(cin, cout, k, stride)

        def forward(self, x):
            if self.upsample:
                x = F.interpolate(x, mode="nearest",
                                  scale_factor=self.upsample)
            return self.conv(self.pad(x))

    class Residual(nn.Module):
        def __init__(self, c):
            super().__init__()
            L = TransformerNet.ConvLayer
            self.conv1, self.in1 = L(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)
            self.conv2, self.in2 = L(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)
            self.relu = nn.ReLU()

        def forward(self, x):
            out = self.relu(self.in1(self.conv1(x)))
            return self.in2(self.conv2(out)) + x

    def __init__(self):
        super().__init__()
        L = TransformerNet.ConvLayer
        self.down = nn.ModuleList([L(3, 32, 9, 1), L(32, 64, 3, 2),
                                   L(64, 128, 3, 2)])
        self.down_in = nn.ModuleList(nn.InstanceNorm2d(c, affine=True)
                                     for c in (32, 64, 128))
        self.res = nn.Sequential(*[TransformerNet.Residual(128)
                                   for _ in range(5)])
        self.up = nn.ModuleList([L(128, 64, 3, 1, 2), L(64, 32, 3, 1, 2)])
        self.up_in = nn.ModuleList(nn.InstanceNorm2d(c, affine=True)
                                   for c in (64, 32))
        self.out = L(32, 3, 9, 1)
        self.relu = nn.ReLU()

    def forward(self, x):
        for conv, norm in zip(self.down, self.down_in):
            x = self.relu(norm(conv(x)))
        x = self.res(x)
        for conv, norm in zip(self.up, self.up_in):
            x = self.relu(norm(conv(x)))
        return self.out(x)


# --- audio ------------------------------------------------------------------

class Wav2Vec2Small(nn.Module):
    """wav2vec 2.0 (fairseq / transformers Wav2Vec2Model, "group" norm
    feature extractor): seven Conv1d layers with GroupNorm(512, 512) after
    the first and GELU, feature projection (LayerNorm, Linear), the
    grouped positional convolution (kernel 128, 16 groups, weight norm),
    then two of the base model's 12 post-norm transformer layers."""

    def __init__(self, dim=768, layers=2):
        super().__init__()
        convs = []
        for i, (k, s) in enumerate([(10, 5)] + [(3, 2)] * 4 + [(2, 2)] * 2):
            block = [nn.Conv1d(1 if i == 0 else 512, 512, k, s, bias=False)]
            if i == 0:
                block.append(nn.GroupNorm(512, 512))
            block.append(nn.GELU())
            convs.append(nn.Sequential(*block))
        self.features = nn.Sequential(*convs)
        self.proj_norm = nn.LayerNorm(512)
        self.proj = nn.Linear(512, dim)
        self.pos = nn.utils.weight_norm(
            nn.Conv1d(dim, dim, 128, padding=64, groups=16), dim=2)
        self.norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(dim, 12, 3072, dropout=0.0,
                                       activation="gelu", batch_first=True)
            for _ in range(layers))

    def forward(self, wave):  # (N, samples)
        x = self.features(wave.unsqueeze(1)).transpose(1, 2)
        x = self.proj(self.proj_norm(x))
        p = F.gelu(self.pos(x.transpose(1, 2))[:, :, :-1]).transpose(1, 2)
        x = self.norm(x + p)
        for layer in self.layers:
            x = layer(x)
        return x


class Conformer(nn.Module):
    """Conformer-S encoder (Gulati et al.; torchaudio.models.Conformer's
    layout): Conv2d subsampling by 4, blocks of half-step feed-forward
    (SiLU), multi-head self-attention, convolution module (pointwise, GLU,
    depthwise Conv1d, BatchNorm1d, SiLU, pointwise), half-step
    feed-forward, LayerNorm."""

    class FF(nn.Sequential):
        def __init__(self, d):
            super().__init__(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(),
                             nn.Linear(4 * d, d))

    class ConvModule(nn.Module):
        def __init__(self, d, k=31):
            super().__init__()
            self.norm = nn.LayerNorm(d)
            self.pw1 = nn.Conv1d(d, 2 * d, 1)
            self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
            self.bn = nn.BatchNorm1d(d)
            self.pw2 = nn.Conv1d(d, d, 1)

        def forward(self, x):
            x = self.norm(x).transpose(1, 2)
            x = F.glu(self.pw1(x), dim=1)
            x = self.pw2(F.silu(self.bn(self.dw(x))))
            return x.transpose(1, 2)

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.ff1, self.ff2 = Conformer.FF(d), Conformer.FF(d)
            self.attn_norm = nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.conv = Conformer.ConvModule(d)
            self.norm = nn.LayerNorm(d)

        def forward(self, x):
            x = x + 0.5 * self.ff1(x)
            y = self.attn_norm(x)
            x = x + self.attn(y, y, y, need_weights=False)[0]
            x = x + self.conv(x)
            x = x + 0.5 * self.ff2(x)
            return self.norm(x)

    def __init__(self, mels=80, d=144, heads=4, blocks=4):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv2d(1, d, 3, 2), nn.ReLU(),
                                 nn.Conv2d(d, d, 3, 2), nn.ReLU())
        self.lin = nn.Linear(d * (((mels - 1) // 2 - 1) // 2), d)
        self.blocks = nn.ModuleList(Conformer.Block(d, heads)
                                    for _ in range(blocks))

    def forward(self, feats):  # (N, T, mels)
        x = self.sub(feats.unsqueeze(1))
        n, c, t, f = x.shape
        x = self.lin(x.transpose(1, 2).reshape(n, t, c * f))
        for block in self.blocks:
            x = block(x)
        return x


# --- transformers -----------------------------------------------------------

class T5Encoder(nn.Module):
    """T5-small's encoder as Hugging Face transformers writes it (modeling_t5):
    RMS LayerNorm (pow, mean, rsqrt), unscaled attention with a bucketed
    relative position bias computed in the graph, ReLU feed-forward,
    pre-norm residuals."""

    class Norm(nn.Module):
        def __init__(self, d, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))
            self.eps = eps

        def forward(self, x):
            # modeling_t5 widens half precision first (.to(torch.float32)):
            # a no-op on float32, and it would narrow the float64 reference.
            var = x.pow(2).mean(-1, keepdim=True)
            return self.weight * (x * torch.rsqrt(var + self.eps))

    def __init__(self, vocab=32128, d=512, heads=8, ff=2048, layers=6,
                 buckets=32, distance=128):
        super().__init__()
        self.heads, self.dk = heads, d // heads
        self.buckets, self.distance = buckets, distance
        self.embed = nn.Embedding(vocab, d)
        self.bias = nn.Embedding(buckets, heads)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            self.layers.append(nn.ModuleDict(dict(
                n1=T5Encoder.Norm(d), q=nn.Linear(d, d, bias=False),
                k=nn.Linear(d, d, bias=False), v=nn.Linear(d, d, bias=False),
                o=nn.Linear(d, d, bias=False), n2=T5Encoder.Norm(d),
                wi=nn.Linear(d, ff, bias=False),
                wo=nn.Linear(ff, d, bias=False))))
        self.final = T5Encoder.Norm(d)

    def bucket(self, rel):
        n = self.buckets // 2
        ret = (rel > 0).to(torch.long) * n
        rel = torch.abs(rel)
        exact = n // 2
        small = rel < exact
        large = exact + (torch.log(rel.float() / exact)
                         / math.log(self.distance / exact)
                         * (n - exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, n - 1))
        return ret + torch.where(small, rel, large)

    def forward(self, ids):
        n, s = ids.shape
        ctx = torch.arange(s, dtype=torch.long)[:, None]
        mem = torch.arange(s, dtype=torch.long)[None, :]
        bias = self.bias(self.bucket(mem - ctx)).permute(2, 0, 1).unsqueeze(0)
        x = self.embed(ids)
        for L in self.layers:
            y = L["n1"](x)
            q, k, v = (L[w](y).view(n, -1, self.heads, self.dk).transpose(1, 2)
                       for w in "qkv")
            scores = q @ k.transpose(3, 2) + bias
            w = F.softmax(scores.float(), dim=-1).type_as(scores)
            a = (w @ v).transpose(1, 2).reshape(n, -1, self.heads * self.dk)
            x = x + L["o"](a)
            x = x + L["wo"](F.relu(L["wi"](L["n2"](x))))
        return self.final(x)


# --- the set ----------------------------------------------------------------

def image(shape):
    return lambda g: (torch.rand(*shape, generator=g),)


def tokens(vocab, seq):
    return lambda g: (torch.randint(0, vocab, (1, seq), generator=g),)


def normal(shape):
    return lambda g: (torch.randn(*shape, generator=g),)


def dlrm_inputs(g, batch=128, bag=3):
    dense = torch.log1p(torch.rand(batch, 13, generator=g) * 100)
    idx = torch.stack([torch.randint(0, n, (batch * bag,), generator=g)
                       for n in DLRM.ROWS])
    offsets = (torch.arange(batch) * bag).repeat(26, 1)
    return dense, idx, offsets


def fcn():
    return SegmentationOutput(fcn_resnet50(weights=None, weights_backbone=None,
                                           num_classes=21, aux_loss=False))


# name -> (builder, inputs(generator), opset, input names, dynamic axes)
ARCH = {
    "unet": (UNet, image((1, 3, 256, 256)), 11, ["input"], None),
    "fcn_resnet50": (fcn, image((1, 3, 128, 128)), 13, ["input"],
                     {"input": {0: "batch", 2: "height", 3: "width"}}),
    "dbnet_resnet18": (DBNet, image((1, 3, 256, 256)), 11, ["input"],
                       {"input": {2: "height", 3: "width"}}),
    "yolo_tiny_dfl": (YoloHead, image((1, 3, 416, 416)), 13, ["input"], None),
    "retinanet_resnet18_fpn": (RetinaNetHeads, image((1, 3, 256, 256)), 17,
                               ["input"], None),
    "lstm_classifier": (LSTMClassifier, tokens(20000, 128), 13, ["input"],
                        {"input": {0: "batch", 1: "sequence"}}),
    "gru_speech": (GRUSpeech, normal((1, 200, 80)), 11, ["input"],
                   {"input": {1: "frames"}}),
    "crnn": (CRNN, normal((1, 1, 32, 128)), 11, ["input"], None),
    "dlrm": (DLRM, dlrm_inputs, 13, ["input", "indices", "offsets"], None),
    "espcn": (ESPCN, image((1, 1, 128, 128)), 11, ["input"],
              {"input": {0: "batch_size"}}),
    "style_transfer": (TransformerNet, lambda g: (torch.rand(
        1, 3, 128, 128, generator=g) * 255,), 11, ["input"], None),
    "wav2vec2_small": (Wav2Vec2Small, lambda g: (0.1 * torch.randn(
        1, 16000, generator=g),), 13, ["input"], {"input": {1: "samples"}}),
    "conformer_s": (Conformer, normal((1, 200, 80)), 17, ["input"], None),
    "t5_encoder": (T5Encoder, tokens(32128, 128), 13, ["input"],
                   {"input": {0: "batch", 1: "sequence"}}),
}


def randomize_norms(model, inputs, generator):
    """Random affine parameters of every normalization layer; BatchNorm
    running statistics from train-mode passes on seeded random inputs."""
    has_bn = False
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.GroupNorm,
                          nn.InstanceNorm2d, nn.LayerNorm, T5Encoder.Norm)):
            if getattr(m, "weight", None) is not None:
                with torch.no_grad():
                    m.weight.uniform_(0.5, 1.5, generator=generator)
                    if getattr(m, "bias", None) is not None:
                        m.bias.normal_(0.0, 0.1, generator=generator)
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.momentum = 0.5
            has_bn = True
    if has_bn:
        model.train()
        with torch.no_grad():
            for _ in range(3):
                model(*inputs(generator))
    model.eval()


def to_double(xs):
    return tuple(x.double() if x.is_floating_point() else x for x in xs)


def generate(name, out_dir):
    build, inputs, opset, names, dynamic = ARCH[name]
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model = build()
    randomize_norms(model, inputs, generator)
    xs = inputs(generator)
    with torch.no_grad():
        y = model(*xs)
        y64 = model.double()(*to_double(xs))
        model.float()
    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    ref64 = os.path.join(folder, "reference_f64")
    os.makedirs(data, exist_ok=True)
    os.makedirs(ref64, exist_ok=True)
    onnx_path = os.path.join(folder, "model.onnx")
    kwargs = {}
    if dynamic:
        kwargs["dynamic_axes"] = dict(dynamic, output={0: "batch"}
                                      if 0 in dynamic.get("input", {}) else {})
    torch.onnx.export(model, xs, onnx_path, opset_version=opset,
                      input_names=names, output_names=["output"],
                      training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=True, **kwargs)
    onnx.checker.check_model(onnx.load(onnx_path), full_check=True)
    for i, x in enumerate(xs):
        write_tensor(x.numpy(), os.path.join(data, f"input_{i}.pb"))
    write_tensor(y.numpy(), os.path.join(data, "output_0.pb"))
    write_tensor(y64.numpy(), os.path.join(ref64, "output_0.pb"))
    flags = os.path.join(folder, "compile-flags")
    if dynamic:
        with open(flags, "w") as f:
            for n in dynamic:
                x = xs[names.index(n)]
                f.write(f"--input-shape={n}={'x'.join(map(str, x.shape))}\n")
    elif os.path.exists(flags):
        os.remove(flags)
    print(f"{name}: {os.path.getsize(onnx_path)} bytes, opset {opset}, "
          f"inputs {[list(x.shape) for x in xs]}, output {list(y.shape)}"
          f"{', dynamic axes' if dynamic else ''}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    if args.list:
        print("\n".join(ARCH))
        return
    if not args.out:
        sys.exit("arch.py: --out DIR is required")
    torch.set_num_threads(1)
    for name in args.models or list(ARCH):
        if name not in ARCH:
            sys.exit(f"arch.py: unknown model '{name}' (known: {', '.join(ARCH)})")
        generate(name, args.out)


if __name__ == "__main__":
    main()
