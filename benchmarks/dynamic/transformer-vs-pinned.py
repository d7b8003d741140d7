#!/usr/bin/python3
"""One dynamic program per transformer against programs pinned at each shape.

Usage: transformer-vs-pinned.py [--backend B] [--runs N] [--min-ms T]
                               [--build DIR]

Builds, with PyTorch (Debian's python3-torch), a BERT-style encoder
(nn.TransformerEncoder, 512 positions) exported with dynamic batch and
sequence axes and a GPT-style decoder (pre-norm, causal mask sliced to the
sequence, 1024 positions) exported with a dynamic sequence, the way users
export them (torch.onnx.export with dynamic_axes). Compiles each once for
its bounds (encoder: batch 1..8, sequence 8..512; decoder: sequence
1..1024) and once per tested shape with that shape pinned, and prints a
markdown table per model: the shape, the dynamic program's rel-L2 against
PyTorch run in float64, its median latency and the pinned program's (1
thread, strata-run --bench over at least --min-ms of runs; the fastest
median of --rounds interleaved rounds), their ratio, and the arenas (the dynamic
program's at its bounds, the pinned program's, the report's lower bound).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOCAB = 1000


class Transformer(nn.Module):
    def __init__(self, causal, positions, d_model=128, heads=4, layers=2, ff=512):
        super().__init__()
        self.causal = causal
        self.tokens = nn.Embedding(VOCAB, d_model)
        self.positions = nn.Embedding(positions, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0,
                                           activation="gelu", batch_first=True,
                                           norm_first=causal)
        self.encoder = nn.TransformerEncoder(layer, layers,
                                             enable_nested_tensor=False)
        for each in self.encoder.layers:
            each.self_attn._reset_parameters()
            each.linear1.reset_parameters()
            each.linear2.reset_parameters()
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, VOCAB if causal else 2)
        mask = torch.triu(torch.full((positions, positions), float("-inf")),
                          diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, ids):
        seq = ids.shape[1]
        x = self.tokens(ids) + self.positions(torch.arange(seq).unsqueeze(0))
        x = self.encoder(x, mask=self.mask[:seq, :seq] if self.causal else None)
        x = self.norm(x)
        return self.head(x if self.causal else x[:, 0])


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def compile_program(build, backend, model, shape, out):
    run([build + "/bin/strata-compile", model, "--backend", backend,
         "--input-shape", "ids=" + shape, "--report", out + ".json", "-o", out])
    plan = json.load(open(out + ".json"))["memory_plans"][0]
    return plan["arena_bytes"], plan["lower_bound_bytes"]


def median_ms(build, program, x, runs):
    text = run([build + "/bin/strata-run", program, "--input", x, "--threads",
                "1", "--bench", str(runs)]).stdout
    return float(re.search(r"median ([0-9.]+) ms", text).group(1))


def output(build, program, x, folder):
    run([build + "/bin/strata-run", program, "--input", x, "--output-dir", folder])
    return np.load(folder + "/output_0.npy")


def measure(name, model, bounds, shapes, args, tmp):
    torch.manual_seed(0)
    path = "%s/%s.onnx" % (tmp, name)
    example = torch.randint(0, VOCAB, (1 if model.causal else 2, 16))
    axes = ({"ids": {1: "seq"}, "out": {1: "seq"}} if model.causal else
            {"ids": {0: "batch", 1: "seq"}, "out": {0: "batch"}})
    torch.onnx.export(model, example, path, input_names=["ids"],
                      output_names=["out"], dynamic_axes=axes, opset_version=14)
    reference = model.double()
    dynamic = "%s/%s-dynamic.strata" % (tmp, name)
    arena, bound = compile_program(args.build, args.backend, path, bounds, dynamic)
    print("%s (%s, %s): dynamic arena %d bytes, lower bound %d bytes\n" %
          (name, args.backend, bounds, arena, bound))
    print("| batch x sequence | rel-L2 vs PyTorch f64 | dynamic ms | pinned ms "
          "| dynamic / pinned | pinned arena bytes |")
    print("|---|---:|---:|---:|---:|---:|")
    generator = torch.Generator().manual_seed(1)
    for batch, seq in shapes:
        ids = torch.randint(0, VOCAB, (batch, seq), generator=generator)
        x = "%s/%s-%dx%d.npy" % (tmp, name, batch, seq)
        np.save(x, ids.numpy())
        with torch.no_grad():
            want = reference(ids).numpy()
        got = output(args.build, dynamic, x, "%s/out-%s-%d-%d" % (tmp, name, batch, seq))
        err = np.linalg.norm(got - want) / np.linalg.norm(want)
        pinned = "%s/%s-%dx%d.strata" % (tmp, name, batch, seq)
        pinned_arena, _ = compile_program(args.build, args.backend, path,
                                          "%dx%d" % (batch, seq), pinned)
        # Enough runs for a median over at least --min-ms of work (a shape
        # of 70 microseconds needs thousands: a few runs are noise), then
        # interleaved rounds, the fastest median of each: this machine's
        # noise between two runs of one program is about 10%.
        estimate = median_ms(args.build, pinned, x, args.runs)
        runs = max(args.runs, int(args.min_ms / max(estimate, 1e-3)))
        d, p = float("inf"), float("inf")
        for _ in range(args.rounds):
            d = min(d, median_ms(args.build, dynamic, x, runs))
            p = min(p, median_ms(args.build, pinned, x, runs))
        print("| %dx%d | %.2e | %.3f | %.3f | %.3f | %d |" %
              (batch, seq, err, d, p, d / p, pinned_arena))
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="portable")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-ms", type=float, default=500.0,
                        help="time each median over at least this much work")
    parser.add_argument("--build", default=ROOT + "/build")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        torch.manual_seed(0)
        measure("encoder", Transformer(False, 512).eval(),
                "batch:1..8xseq:8..512",
                [(1, 8), (8, 512), (3, 37), (2, 200)], args, tmp)
        torch.manual_seed(0)
        measure("decoder", Transformer(True, 1024).eval(), "1xseq:1..1024",
                [(1, 1), (1, 1024), (1, 77), (1, 500)], args, tmp)


if __name__ == "__main__":
    sys.exit(main())
