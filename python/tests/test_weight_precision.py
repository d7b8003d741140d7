"""--weight-target-sqnr: each matmul's weight width (int4, int8 or f32)
chosen automatically for an output SQNR target on the logits.

The GPT of models/decoder.py (2 layers, width 64) is exported by PyTorch;
the logits every figure is measured against are PyTorch's. The choice is
made on 32 windows of tokens and judged here on 24 windows it never saw."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import figures, low_decile_rank, tool

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "models"))
import decoder  # noqa: E402
import strata  # noqa: E402

WINDOW = 32


def test_low_decile_rank():
    # Worked from the binomial: 0.9^21 = 0.109 > 0.1, 0.9^22 = 0.098.
    assert low_decile_rank(21) == 1 and low_decile_rank(22) == 1
    assert low_decile_rank(75) == 4 and low_decile_rank(450) == 37


@pytest.fixture(scope="module")
def gpt(tmp_path_factory):
    """The exported GPT, its calibration windows, held-out windows, and
    PyTorch's logits on both."""
    root = tmp_path_factory.mktemp("gpt")
    torch.manual_seed(0)
    model = decoder.GPT(layers=2, width=64, heads=4, context=64).eval()
    decoder.export(model, str(root))
    rng = np.random.default_rng(7)
    calibration = rng.integers(0, 256, (32, 1, WINDOW)).astype(np.int64)
    held_out = rng.integers(0, 256, (24, 1, WINDOW)).astype(np.int64)
    np.save(root / "calibration.npy", calibration)
    with torch.no_grad():
        def logits(windows):
            return [model(torch.from_numpy(w))[0].numpy() for w in windows]
        return {"dir": root, "calibration": calibration,
                "held_out": held_out,
                "calibration_logits": logits(calibration),
                "held_out_logits": logits(held_out)}


def compile_gpt(gpt, out, *flags):
    result = subprocess.run(
        [tool("strata-compile"), str(gpt["dir"] / "full.onnx"), "-o", str(out),
         "--input-shape", f"input_ids=1x{WINDOW}", "--no-progress"]
        + list(flags), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def run(program_path, windows):
    program = strata.load(str(program_path))
    return [program.run(w)[0] for w in windows]


def choose(gpt, tmp_path, target, *flags):
    report = tmp_path / "report.json"
    result = compile_gpt(gpt, tmp_path / "auto.strata",
                         "--quantize-weights", "int4", "--calibration-data",
                         str(gpt["dir"] / "calibration.npy"),
                         "--weight-target-sqnr", str(target),
                         "--report", str(report), *flags)
    return (json.loads(report.read_text())["weight_precision"],
            tmp_path / "auto.strata", result.stderr)


@pytest.mark.parametrize("target", [28, 36])
def test_choice_meets_its_target_on_windows_it_never_saw(gpt, tmp_path,
                                                         target):
    chosen, program, stderr = choose(gpt, tmp_path, target)
    assert "weight precision (target output SQNR >= " in stderr
    # Every int4 misses the target, so the search must widen something.
    assert chosen["narrowest_sqnr_db"] < target
    widths = [node["bits"] for node in chosen["nodes"]]
    assert len(widths) == 9 and set(widths) <= {0, 4, 8}
    assert any(bits != 4 for bits in widths)
    pooled, low = figures(gpt["held_out_logits"], run(program, gpt["held_out"]))
    assert pooled >= target and low >= target, (pooled, low)
    # The report's figures are the program's: its check fold (every fourth
    # calibration window) measured here against PyTorch.
    check = [i for i in range(32) if i % 4 == 3]
    got = run(program, gpt["calibration"][check])
    want = [gpt["calibration_logits"][i] for i in check]
    pooled, low = figures(want, got)
    assert chosen["check_samples"] == 8 and chosen["choice_samples"] == 24
    assert abs(pooled - chosen["check_sqnr_db"]) < 0.05
    assert abs(low - chosen["check_sqnr_p10_db"]) < 0.05


def one_step_narrower(nodes):
    """For each node whose width the search raised: (index, node, the
    --weight-bits flag of the choice with that node one step narrower)."""
    narrower = {8: 4, 0: 8}
    for k, node in enumerate(nodes):
        if node["bits"] in narrower:
            yield k, node, ",".join(
                f"{n['node']}={narrower[n['bits']] if j == k else n['bits']}"
                for j, n in enumerate(nodes))


def test_choice_is_the_smallest_one_step_narrower_misses(gpt, tmp_path):
    target = 36
    chosen, program, _ = choose(gpt, tmp_path, target)
    required = target + chosen["margin_db"]
    choice = [i for i in range(32) if i % 4 != 3]
    want = [gpt["calibration_logits"][i] for i in choice]
    tried = 0
    for k, node, flag in one_step_narrower(chosen["nodes"]):
        out = tmp_path / f"narrower{k}.strata"
        compile_gpt(gpt, out, "--quantize-weights", "int4",
                    "--weight-bits", flag)
        pooled, low = figures(want, run(out, gpt["calibration"][choice]))
        assert min(pooled, low) < required, (node["node"], pooled, low)
        tried += 1
    assert tried >= 1
    # Smaller than every matmul at 8 bits, and the f32 program.
    sizes = {}
    for name, flags in [("int8", ["--quantize-weights", "int8"]),
                        ("f32", [])]:
        out = tmp_path / f"{name}.strata"
        compile_gpt(gpt, out, *flags)
        sizes[name] = os.path.getsize(out)
    assert os.path.getsize(program) < sizes["int8"] < sizes["f32"]


def test_the_printed_flag_compiles_the_same_bytes(gpt, tmp_path):
    chosen, program, stderr = choose(gpt, tmp_path, 30)
    assert f"as a flag: --weight-bits {chosen['weight_bits']}" in stderr
    again = tmp_path / "again.strata"
    compile_gpt(gpt, again, "--quantize-weights", "int4", "--weight-bits",
                chosen["weight_bits"])
    assert again.read_bytes() == program.read_bytes()
    # And the choice itself is deterministic.
    (tmp_path / "second").mkdir()
    _, twice, _ = choose(gpt, tmp_path / "second", 30)
    assert twice.read_bytes() == again.read_bytes()


def test_fixed_nodes_are_kept_and_not_searched(gpt, tmp_path):
    chosen, _, _ = choose(gpt, tmp_path, 30, "--weight-bits",
                          "/gpt/head/MatMul=0,/gpt/blocks.0/up/MatMul=8")
    by_node = {n["node"]: n for n in chosen["nodes"]}
    assert by_node["/gpt/head/MatMul"]["bits"] == 0
    assert by_node["/gpt/head/MatMul"]["fixed"]
    assert by_node["/gpt/blocks.0/up/MatMul"]["bits"] == 8
    assert not by_node["/gpt/blocks.1/up/MatMul"]["fixed"]


@pytest.mark.parametrize("flags,message", [
    (["--weight-target-sqnr", "30", "--calibration-data", "x.npy"],
     "--weight-target-sqnr needs --quantize-weights"),
    (["--weight-target-sqnr", "30", "--quantize-weights", "int4"],
     "--weight-target-sqnr needs --quantize-weights (the narrowest width) "
     "and --calibration-data"),
    (["--weight-target-sqnr", "nan", "--quantize-weights", "int4",
      "--calibration-data", "x.npy"],
     "--weight-target-sqnr must be a finite number of dB"),
    (["--weight-target-sqnr", "30", "--quantize-weights", "int4",
      "--quantize", "--calibration-data", "x.npy"],
     "--weight-target-sqnr chooses weight widths with f32 activations"),
    (["--weight-target-sqnr", "30", "--quantize-weights", "int4",
      "--calibration-data", "x.npy", "--method", "one"],
     "--weight-target-sqnr and --weight-target-perplexity choose on a "
     "program of one method"),
])
def test_bad_options_are_refused(gpt, tmp_path, flags, message):
    out = tmp_path / "bad.strata"
    result = subprocess.run(
        [tool("strata-compile"), str(gpt["dir"] / "full.onnx"), "-o",
         str(out), "--input-shape", f"input_ids=1x{WINDOW}"] + flags,
        capture_output=True, text=True)
    assert result.returncode != 0
    assert message in result.stderr
    assert not out.exists()


def test_from_the_python_api(gpt):
    program = strata.compile(
        str(gpt["dir"] / "full.onnx"), input_shapes={"input_ids": [1, WINDOW]},
        options={"quantize-weights": "int4", "weight-target-sqnr": 36},
        calibration=gpt["calibration"])
    chosen = program.report["weight_precision"]
    assert chosen["target_sqnr_db"] == 36 and chosen["check_samples"] == 8
    assert "weight precision (target output SQNR >= 36.0 dB)" in program.notes
    got = [program.run(w)[0] for w in gpt["held_out"]]
    pooled, low = figures(gpt["held_out_logits"], got)
    assert pooled >= 36 and low >= 36


# --weight-target-perplexity: the same search, judged by the perplexity of
# labelled tokens. An untrained GPT's logits barely move under int4, so
# this GPT is trained here for a few seconds on bytes of Python sources
# (models/decoder.py and textwrap.py); its windows and their next bytes
# come from text it was not trained on, calibration and held-out windows
# drawn alike from it. Groups of 64 rows make int4's rise worth a search.
PPL_FLAGS = ["--quantize-weights", "int4", "--weight-group-size", "64"]


def nll(logits, labels):
    """Negative log-likelihood per window (summed, float64) and tokens."""
    rows = np.asarray(logits, np.float64).reshape(-1, 256)
    labels = np.asarray(labels).reshape(-1)
    top = rows.max(1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(rows - top).sum(1))
    return float((lse - rows[np.arange(len(labels)), labels]).sum())


# The one-sided 90% quantile of Student's t at 47 degrees of freedom (48
# choice windows), from tables: 1.300.
T90_47 = 1.300


def rise(float_logits, got_logits, labels):
    """The pooled perplexity rise, and its 90% upper bound over the
    windows' own mean rises (48 windows), as the compiler judges a target."""
    mine = np.array([nll(g, y) for g, y in zip(got_logits, labels)])
    ref = np.array([nll(f, y) for f, y in zip(float_logits, labels)])
    tokens = np.array([np.size(y) for y in labels], np.float64)
    pooled = np.exp((mine.sum() - ref.sum()) / tokens.sum()) - 1
    each = (mine - ref) / tokens
    bound = each.mean() + T90_47 * each.std(ddof=1) / np.sqrt(len(each))
    return pooled, np.exp(bound) - 1


@pytest.fixture(scope="module")
def trained_gpt(tmp_path_factory):
    import textwrap
    from torch.nn import functional as F
    root = tmp_path_factory.mktemp("trained")
    torch.manual_seed(0)
    model = decoder.GPT(layers=2, width=64, heads=4, context=64)
    text = np.frombuffer(open(decoder.__file__, "rb").read() +
                         open(textwrap.__file__, "rb").read(),
                         np.uint8).astype(np.int64)
    split = int(len(text) * 0.75)
    train, unseen = text[:split], text[split:]
    rng = np.random.default_rng(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(400):
        starts = rng.integers(0, len(train) - WINDOW - 1, 16)
        x = torch.from_numpy(np.stack([train[s:s + WINDOW] for s in starts]))
        y = torch.from_numpy(np.stack([train[s + 1:s + WINDOW + 1]
                                       for s in starts]))
        loss = F.cross_entropy(model(x)[0].reshape(-1, 256), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    decoder.export(model, str(root))
    starts = np.random.default_rng(1).integers(0, len(unseen) - WINDOW - 1, 96)
    windows = np.stack([unseen[s:s + WINDOW] for s in starts])[:, None, :]
    labels = np.stack([unseen[s + 1:s + WINDOW + 1] for s in starts])[:, None]
    np.save(root / "calibration.npy", windows[:64])
    np.save(root / "labels.npy", labels[:64])
    with torch.no_grad():
        logits = [model(torch.from_numpy(w))[0].numpy() for w in windows]
    return {"dir": root, "calibration": windows[:64],
            "labels": labels[:64], "calibration_logits": logits[:64],
            "held_out": windows[64:], "held_out_labels": labels[64:],
            "held_out_logits": logits[64:]}


def choose_perplexity(gpt, tmp_path, target, *flags):
    report = tmp_path / "report.json"
    result = compile_gpt(gpt, tmp_path / "auto.strata", *PPL_FLAGS,
                         "--calibration-data",
                         str(gpt["dir"] / "calibration.npy"),
                         "--calibration-labels", str(gpt["dir"] / "labels.npy"),
                         "--weight-target-perplexity", str(target),
                         "--report", str(report), *flags)
    return (json.loads(report.read_text())["weight_precision"],
            tmp_path / "auto.strata", result.stderr)


@pytest.mark.parametrize("target", [1.0, 0.5])
def test_perplexity_choice_meets_its_target_on_windows_it_never_saw(
        trained_gpt, tmp_path, target):
    gpt = trained_gpt
    chosen, program, stderr = choose_perplexity(gpt, tmp_path, target)
    assert (f"weight precision (target perplexity at most {target:.3f}% over "
            "the float model's)") in stderr
    # Every int4 misses the target (held-out: +1.8% when written), so the
    # search must widen something.
    all4 = tmp_path / "all4.strata"
    compile_gpt(gpt, all4, *PPL_FLAGS)
    pooled, _ = rise(gpt["held_out_logits"], run(all4, gpt["held_out"]),
                     gpt["held_out_labels"])
    assert pooled > target / 100
    assert any(node["bits"] != 4 for node in chosen["nodes"])
    pooled, _ = rise(gpt["held_out_logits"], run(program, gpt["held_out"]),
                     gpt["held_out_labels"])
    assert pooled <= target / 100, pooled
    # The report's figures are the program's, measured here against
    # PyTorch's logits: the choice windows' pooled rise and 90% bound (which
    # the choice was judged by), the check windows' pooled rise (every
    # fourth window).
    for fold, keys in [(lambda i: i % 4 != 3, ["perplexity_rise_pct",
                                               "perplexity_rise_bound_pct"]),
                       (lambda i: i % 4 == 3, ["check_perplexity_rise_pct"])]:
        picked = [i for i in range(64) if fold(i)]
        got = run(program, gpt["calibration"][picked])
        here = rise([gpt["calibration_logits"][i] for i in picked], got,
                    gpt["labels"][picked])
        for index, key in enumerate(keys):
            assert abs(100 * here[index] - chosen[key]) < 1e-3, key
    assert chosen["perplexity_rise_bound_pct"] <= target
    assert chosen["check_perplexity_rise_pct"] <= target
    assert chosen["choice_samples"] == 48 and chosen["check_tokens"] == 16 * 32


def test_perplexity_choice_is_the_smallest_one_step_narrower_misses(
        trained_gpt, tmp_path):
    gpt, target = trained_gpt, 1.0
    chosen, program, _ = choose_perplexity(gpt, tmp_path, target)
    required = max(target - chosen["margin_pct"], 0) / 100
    choice = [i for i in range(64) if i % 4 != 3]
    want = [gpt["calibration_logits"][i] for i in choice]
    tried = 0
    for k, node, flag in one_step_narrower(chosen["nodes"]):
        out = tmp_path / f"narrower{k}.strata"
        compile_gpt(gpt, out, *PPL_FLAGS, "--weight-bits", flag)
        _, bound = rise(want, run(out, gpt["calibration"][choice]),
                        gpt["labels"][choice])
        assert bound > required, (node["node"], bound)
        tried += 1
    assert tried >= 1


@pytest.mark.parametrize("flags,message", [
    (["--weight-target-perplexity", "1", "--quantize-weights", "int4",
      "--calibration-data", "x.npy"],
     "--weight-target-perplexity needs --quantize-weights (the narrowest "
     "width), --calibration-data (the samples it is measured on) and "
     "--calibration-labels"),
    (["--weight-target-perplexity", "1", "--weight-target-sqnr", "30",
      "--quantize-weights", "int4", "--calibration-data", "x.npy",
      "--calibration-labels", "y.npy"],
     "are two targets for one choice: give one"),
    (["--weight-target-perplexity", "-1", "--quantize-weights", "int4",
      "--calibration-data", "x.npy", "--calibration-labels", "y.npy"],
     "--weight-target-perplexity must be a percentage from 0 to 1000"),
    (["--calibration-labels", "y.npy", "--quantize-weights", "int4"],
     "--calibration-labels is read by --weight-target-perplexity"),
])
def test_bad_perplexity_options_are_refused(gpt, tmp_path, flags, message):
    test_bad_options_are_refused(gpt, tmp_path, flags, message)


@pytest.mark.parametrize("labels,message", [
    (lambda y: y[:, :, :-1], "must be int64 with one label for each of the "
                             "32 logit rows of each of the 64 calibration "
                             "samples"),
    (lambda y: y.astype(np.int32), "must be int64"),
    (lambda y: np.where(np.arange(32) == 5, 256, y),
     "sample 0 row 5 has label 256, outside the vocabulary of 256"),
    # Every label of the check windows skipped: nothing to confirm with.
    (lambda y: np.where((np.arange(64) % 4 == 3)[:, None, None], -1, y),
     "labels 48 of the 48 samples it chooses on and 0 of the 16 it checks "
     "on (every fourth); it needs at least 2 and 1"),
])
def test_bad_labels_are_refused(trained_gpt, tmp_path, labels, message):
    bad = tmp_path / "labels.npy"
    np.save(bad, labels(trained_gpt["labels"]))
    out = tmp_path / "bad.strata"
    result = subprocess.run(
        [tool("strata-compile"), str(trained_gpt["dir"] / "full.onnx"), "-o",
         str(out), "--input-shape", f"input_ids=1x{WINDOW}", *PPL_FLAGS,
         "--calibration-data", str(trained_gpt["dir"] / "calibration.npy"),
         "--calibration-labels", str(bad), "--weight-target-perplexity", "1"],
        capture_output=True, text=True)
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not out.exists()


def test_perplexity_target_from_the_python_api(trained_gpt):
    gpt = trained_gpt
    program = strata.compile(
        str(gpt["dir"] / "full.onnx"), input_shapes={"input_ids": [1, WINDOW]},
        options={"quantize-weights": "int4", "weight-group-size": 64,
                 "weight-target-perplexity": 1.0,
                 "calibration-labels": gpt["labels"]},
        calibration=gpt["calibration"])
    chosen = program.report["weight_precision"]
    assert chosen["target_perplexity_rise_pct"] == 1.0
    got = [program.run(w)[0] for w in gpt["held_out"]]
    pooled, _ = rise(gpt["held_out_logits"], got, gpt["held_out_labels"])
    assert pooled <= 0.01
