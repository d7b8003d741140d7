#!/usr/bin/env python3
"""Trains models/decoder.py's GPT on text a Debian package ships: the
Python standard library's sources (/usr/lib/python3.X/*.py, python3.X's
own package), as bytes. The files are split by name (every 20th file,
sorted, is held out), so the held-out perplexity is measured on code the
model never saw.

Usage: train_decoder.py OUT [--minutes M] [--layers 6 --width 512
       --heads 8 --context 1024] [--train-context 256] [--batch 8]
       [--seed 0] [--threads N] [--log-every 50] [--init gpt.pt]
`--init` starts from a state dict of the same configuration (a model
trained before, trained further; the warm-up is skipped).
Writes OUT/gpt.pt (the state dict), OUT/train.json (the configuration,
steps, tokens seen, held-out loss and perplexity per byte) and, through
decoder.export, OUT/full.onnx and OUT/with_past.onnx.
"""

import argparse
import glob
import json
import math
import os
import sys
import sysconfig
import time

import numpy as np
import torch
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decoder  # noqa: E402


def corpus():
    """(train bytes, held-out bytes) of the standard library's sources."""
    files = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"],
                                          "*.py")))
    held = [f for i, f in enumerate(files) if i % 20 == 0]
    train = [f for i, f in enumerate(files) if i % 20 != 0]
    read = lambda names: np.frombuffer(  # noqa: E731
        b"".join(open(f, "rb").read() for f in names), np.uint8)
    return read(train), read(held), len(train), len(held)


def held_out_loss(model, data, context, windows=16):
    """Mean cross-entropy (nats per byte) over `windows` evenly spaced
    windows of `context` bytes of held-out text, every position scored."""
    starts = np.linspace(0, len(data) - context - 1, windows).astype(int)
    total = 0.0
    with torch.no_grad():
        for s in starts:
            chunk = torch.from_numpy(data[s:s + context + 1].astype(np.int64))
            logits = model(chunk[None, :-1])[0]
            total += F.cross_entropy(logits[0], chunk[1:]).item()
    return total / windows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--context", type=int, default=1024)
    parser.add_argument("--train-context", type=int, default=256)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch threads (0: torch's default)")
    parser.add_argument("--log-every", type=int, default=50)
    parser.add_argument("--init", help="a state dict to start from")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train, held, train_files, held_files = corpus()
    model = decoder.GPT(args.layers, args.width, args.heads, args.context)
    if args.init:
        model.load_state_dict(torch.load(args.init))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3,
                                  weight_decay=0.01)
    ctx = args.train_context
    start, steps = time.time(), 0
    while time.time() - start < 60 * args.minutes:
        lr = 1e-3 * (1.0 if args.init else min(1.0, (steps + 1) / 100))
        for group in optimizer.param_groups:
            group["lr"] = lr
        offsets = rng.integers(0, len(train) - ctx - 1, args.batch)
        batch = torch.from_numpy(np.stack(
            [train[o:o + ctx + 1] for o in offsets]).astype(np.int64))
        logits = model(batch[:, :-1])[0]
        loss = F.cross_entropy(logits.reshape(-1, decoder.VOCAB),
                               batch[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        steps += 1
        if steps % args.log_every == 0:
            print(f"step {steps} ({time.time() - start:.0f} s): train loss "
                  f"{loss.item():.3f}", flush=True)
    model.eval()
    held_loss = held_out_loss(model, held, ctx)
    os.makedirs(args.out, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.out, "gpt.pt"))
    report = {
        "layers": args.layers, "width": args.width, "heads": args.heads,
        "context": args.context, "train_context": ctx, "batch": args.batch,
        "steps": steps, "tokens_seen": steps * args.batch * ctx,
        "minutes": args.minutes, "train_files": train_files,
        "held_out_files": held_files, "train_bytes": int(len(train)),
        "held_out_bytes": int(len(held)),
        "held_out_loss_nats_per_byte": held_loss,
        "held_out_perplexity_per_byte": math.exp(held_loss),
    }
    with open(os.path.join(args.out, "train.json"), "w") as f:
        json.dump(report, f, indent=2)
    decoder.export(model, args.out)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
