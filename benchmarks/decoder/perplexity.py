#!/usr/bin/env python3
"""Held-out perplexity of a trained decoder (models/train_decoder.py) as a
Strata program and in PyTorch, on the same windows of the Python standard
library files the training held out, and greedy generation compared token
by token.

With `--weights int8 int4` the whole-sequence program is also compiled with
those weight formats (--quantize-weights, groups of --weight-group-size)
and each one's held-out perplexity is given beside the f32 program's, with
its rise over it.

With `--weight-target-sqnr 30 40` the program is also compiled with each
matmul's width chosen automatically (--quantize-weights int4
--weight-target-sqnr DB) on --calibration-windows windows of the training
text; each choice is judged on the held-out windows, which it never saw:
its logits' SQNR against PyTorch's (pooled and the 10th-percentile
window's), its perplexity and its size. `--weight-target-perplexity 1 0.5`
does the same for a perplexity at most that many percent over the float
model's on the calibration windows' next bytes (--calibration-labels).

Usage: perplexity.py MODEL_DIR [--backend onednn] [--windows 16]
       [--context 256] [--generate 128] [--weights int8 int4]
       [--weight-group-size 32] [--weight-target-sqnr DB ...]
       [--weight-target-perplexity PCT ...] [--calibration-windows 8]
MODEL_DIR holds gpt.pt, train.json, full.onnx and with_past.onnx.
Prints one JSON object.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("STRATA_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(ROOT, "models"))
import decoder  # noqa: E402
import strata  # noqa: E402
import train_decoder  # noqa: E402


def log_softmax(x):
    x = x.astype(np.float64)
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_dir")
    parser.add_argument("--backend", default="onednn")
    parser.add_argument("--windows", type=int, default=16)
    parser.add_argument("--context", type=int, default=256)
    parser.add_argument("--generate", type=int, default=128)
    parser.add_argument("--weights", nargs="*", default=[],
                        choices=["int8", "int4", "int8-a8", "int4-a8"])
    parser.add_argument("--weight-group-size", type=int, default=32)
    parser.add_argument("--weight-target-sqnr", nargs="*", type=float,
                        default=[])
    parser.add_argument("--weight-target-perplexity", nargs="*", type=float,
                        default=[])
    parser.add_argument("--calibration-windows", type=int, default=8)
    args = parser.parse_args()
    config = json.load(open(os.path.join(args.model_dir, "train.json")))
    model = decoder.GPT(config["layers"], config["width"], config["heads"],
                        config["context"])
    model.load_state_dict(torch.load(os.path.join(args.model_dir, "gpt.pt")))
    model.eval()
    train, held, _, _ = train_decoder.corpus()
    compile_ = [os.path.join(BUILD, "bin", "strata-compile")]
    backend = [] if args.backend == "portable" else ["--backend", args.backend]
    starts = np.linspace(0, len(held) - args.context - 1,
                         args.windows).astype(int)
    # Calibration windows for the automatic choice: training text only.
    rng = np.random.default_rng(1)
    calibration_starts = rng.integers(0, len(train) - args.context - 1,
                                      args.calibration_windows)
    calibration = np.stack([train[s:s + args.context].astype(np.int64)[None]
                            for s in calibration_starts])
    calibration_path = os.path.join(args.model_dir, "calibration-windows.npy")
    np.save(calibration_path, calibration)
    # Their next bytes, for a perplexity target.
    labels_path = os.path.join(args.model_dir, "calibration-labels.npy")
    np.save(labels_path, np.stack([
        train[s + 1:s + args.context + 1].astype(np.int64)[None]
        for s in calibration_starts]))
    variants = [("f32", [])] + [
        (w, ["--quantize-weights", w.split("-")[0], "--weight-group-size",
             str(args.weight_group_size)]
         + (["--weight-activations", "int8"] if w.endswith("-a8") else []))
        for w in args.weights] + [
        (f"auto-{t:g}dB", ["--quantize-weights", "int4",
                           "--weight-group-size", str(args.weight_group_size),
                           "--calibration-data", calibration_path,
                           "--weight-target-sqnr", str(t), "--no-progress"])
        for t in args.weight_target_sqnr] + [
        (f"auto-{t:g}pct", ["--quantize-weights", "int4",
                            "--weight-group-size", str(args.weight_group_size),
                            "--calibration-data", calibration_path,
                            "--calibration-labels", labels_path,
                            "--weight-target-perplexity", str(t),
                            "--no-progress"])
        for t in args.weight_target_perplexity]
    losses, sqnrs, sizes, chosen = {}, {}, {}, {}
    theirs, want_logits = [], []
    for weights, quantize in variants:
        full = os.path.join(args.model_dir,
                            f"full-{args.backend}-{weights}.strata")
        report = full + ".json"
        subprocess.run(compile_ + [os.path.join(args.model_dir, "full.onnx"),
                                   "-o", full, "--input-shape",
                                   f"input_ids=1x{args.context}",
                                   "--report", report]
                       + backend + quantize, check=True)
        sizes[weights] = os.path.getsize(full)
        precision = json.load(open(report)).get("weight_precision")
        if precision:
            chosen[weights] = {k: precision[k] for k in [
                "sqnr_db", "sqnr_p10_db", "check_sqnr_db",
                "check_sqnr_p10_db", "margin_db", "perplexity_rise_pct",
                "check_perplexity_rise_pct", "margin_pct", "bytes",
                "programs", "weight_bits"]
                if k in precision}
        program = strata.load(full, threads=1)
        ours, each, signal, noise = [], [], 0.0, 0.0
        for i, s in enumerate(starts):
            chunk = held[s:s + args.context + 1].astype(np.int64)
            (logits,) = program.run(chunk[None, :-1])
            ours.append(-log_softmax(logits[0])[np.arange(args.context),
                                                chunk[1:]].mean())
            if weights == "f32":
                with torch.no_grad():
                    want = model(torch.from_numpy(chunk[None, :-1]))[0][0]
                want_logits.append(want.numpy().astype(np.float64))
                theirs.append(-log_softmax(want.numpy())[
                    np.arange(args.context), chunk[1:]].mean())
            want = want_logits[i]
            d = np.sum((logits[0] - want) ** 2)
            signal += np.sum(want ** 2)
            noise += d
            each.append(10 * np.log10(np.sum(want ** 2) / d))
        losses[weights] = float(np.mean(ours))
        each.sort()
        sqnrs[weights] = {"pooled_db": float(10 * np.log10(signal / noise)),
                          "p10_db": float(each[(len(each) + 9) // 10 - 1])}
    ours = [losses["f32"]]
    # Greedy generation from a held-out prompt, against PyTorch's.
    steps = os.path.join(args.model_dir, f"steps-{args.backend}.strata")
    ctx = config["context"]
    subprocess.run(compile_ + [
        os.path.join(args.model_dir, "with_past.onnx"), "-o", steps,
        "--state", "past-present", "--dim", f"past_sequence=0..{ctx - 1}",
        "--method", "prefill", "--dim", f"sequence=1..{ctx}",
        "--dim", f"total_sequence=1..{2 * ctx - 1}",
        "--method", "decode", "--dim", f"total_sequence=1..{ctx}",
        "--input-shape", "input_ids=1x1",
        "--input-shape", "position_ids=1x1"] + backend, check=True)
    # Greedy generation from three held-out prompts, through both exports:
    # the step program (prefill, then one token a call) and the
    # whole-sequence program run again on the growing sequence.
    dynamic = os.path.join(args.model_dir, f"full-dynamic-{args.backend}.strata")
    subprocess.run(compile_ + [os.path.join(args.model_dir, "full.onnx"), "-o",
                               dynamic, "--dim", f"sequence=1..{ctx}"] + backend,
                   check=True)
    whole = strata.load(dynamic, threads=1)
    stepper = strata.load(steps, threads=1)
    length = max(1, min(64, ctx - args.generate))
    agree, rates = [], []
    for prompt_start in starts[:3]:
        prompt = held[prompt_start:prompt_start + length].astype(np.int64)
        generated = stepper.generate(prompt.tolist(),
                                     max_new_tokens=args.generate)
        rates.append(generated["decode_tokens_per_s"])
        ids = torch.from_numpy(prompt[None])
        sequence = prompt[None]
        with torch.no_grad():
            for _ in range(args.generate):
                ids = torch.cat([ids, model(ids)[0][:, -1:].argmax(-1)], dim=1)
        for _ in range(args.generate):
            (logits,) = whole.run(sequence)
            sequence = np.concatenate(
                [sequence, logits[:, -1:].argmax(-1).astype(np.int64)], axis=1)
        want = ids[0, len(prompt):].tolist()
        agree.append({
            "prompt": bytes(prompt.astype(np.uint8)).decode("utf-8", "replace"),
            "steps_equal_pytorch": generated["tokens"] == want,
            "whole_equal_pytorch": sequence[0, len(prompt):].tolist() == want,
            "text": bytes(want).decode("utf-8", "replace")})
    print(json.dumps({
        "backend": args.backend, "windows": args.windows,
        "context": args.context,
        "strata_loss": float(np.mean(ours)),
        "pytorch_loss": float(np.mean(theirs)),
        "strata_perplexity": math.exp(np.mean(ours)),
        "pytorch_perplexity": math.exp(np.mean(theirs)),
        "weights_perplexity": {w: math.exp(v) for w, v in losses.items()},
        "weights_perplexity_rise": {
            w: math.exp(v) / math.exp(losses["f32"]) - 1
            for w, v in losses.items() if w != "f32"},
        "held_out_logits_sqnr_against_pytorch": sqnrs,
        "program_bytes": sizes,
        "weight_precision": chosen,
        "greedy_tokens": args.generate, "prompts": agree,
        "decode_tokens_per_s": rates,
    }, indent=2))


if __name__ == "__main__":
    main()
