"""strata.compile: ONNX models from a path, bytes or a ModelProto."""
import json
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import strata
from strata import _strata
from conftest import rel_l2, tool


@pytest.mark.parametrize("form", ["path", "bytes", "proto"])
def test_compile_forms(mlp, mlp_onnx, form):
    model = {"path": str(mlp_onnx),
             "bytes": open(mlp_onnx, "rb").read(),
             "proto": onnx.load(str(mlp_onnx))}[form]
    program = strata.compile(model, input_shapes={"x": (3, 8)})
    x = np.random.default_rng(6).standard_normal((3, 8)).astype(np.float32)
    (y,) = program.run(x)
    assert rel_l2(y, mlp.reference(x)) < 1e-6


@pytest.mark.parametrize("backend", ["onednn", "xnnpack", "onednn,xnnpack"])
def test_compile_for_a_backend(mlp, mlp_onnx, backend):
    program = strata.compile(mlp_onnx, backend=backend,
                             input_shapes={"x": "2x8"}, threads=1)
    x = np.random.default_rng(7).standard_normal((2, 8)).astype(np.float32)
    (y,) = program.run(x)
    assert rel_l2(y, mlp.reference(x)) < 1e-5


def test_compile_dynamic_batch(mlp, mlp_onnx):
    program = strata.compile(mlp_onnx, input_shapes={"x": "batch:1..6x8"})
    assert program.method("main").input_types == ["f32[batch: 1..6, 8]"]
    rng = np.random.default_rng(8)
    for batch in [1, 6, 5]:
        x = rng.standard_normal((batch, 8)).astype(np.float32)
        (y,) = program.run(x)
        assert rel_l2(y, mlp.reference(x)) < 1e-6


def test_report_is_a_dict(mlp_onnx):
    program = strata.compile(mlp_onnx, input_shapes={"x": "2x8"})
    plan = program.report["memory_plans"][0]
    assert plan["arena_bytes"] >= plan["lower_bound_bytes"] > 0


def test_same_bytes_as_strata_compile(mlp_onnx, tmp_path):
    out = tmp_path / "cli.strata"
    subprocess.run([tool("strata-compile"), str(mlp_onnx), "-o", str(out),
                    "--backend", "onednn", "--input-shape", "x=batch:1..4x8"],
                   check=True, capture_output=True)
    data = _strata.compile_file(str(mlp_onnx), "backend=onednn",
                                ["x=batch:1..4x8"])[0]
    assert data == out.read_bytes()


def test_frozen_input(tmp_path):
    # y = x * scale, with `scale` an input frozen at compile time.
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "scale"], ["y"], name="scaled")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("scale", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    program = strata.compile(model, input_values={"scale": [3]})
    assert program.method("main").input_count == 1
    assert "frozen" in program.notes
    (y,) = program.run(np.array([1.5, -2], np.float32))
    assert np.array_equal(y, np.array([4.5, -6], np.float32))


def test_unsupported_op_names_the_node():
    graph = helper.make_graph(
        [helper.make_node("Frobnicate", ["x"], ["y"], name="mystery",
                          domain="example.custom")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("example.custom", 1)])
    with pytest.raises(strata.Error, match="mystery"):
        strata.compile(model)


def test_input_shape_contradicting_the_model(mlp_onnx):
    with pytest.raises(strata.Error,
                       match="sets dimension 1 to 9, the model fixes it to 8"):
        strata.compile(mlp_onnx, input_shapes={"x": "2x9"})


def test_unknown_backend(mlp_onnx):
    with pytest.raises(strata.Error, match="nonesuch"):
        strata.compile(mlp_onnx, backend="nonesuch", input_shapes={"x": "2x8"})


def test_bad_option(mlp_onnx):
    with pytest.raises(strata.Error, match="no-such-option"):
        strata.compile(mlp_onnx, options={"no-such-option": 1})


def test_malformed_model_bytes():
    with pytest.raises(strata.Error):
        strata.compile(b"this is not an onnx model")


def test_program_from_bytes_is_verified():
    with pytest.raises(strata.Error):
        strata.Program.from_bytes(b"\0" * 256, "zeros")


def test_discover_backends_as_strata_compile_lists_them():
    listed = subprocess.run([tool("strata-compile"), "--list-backends"],
                            check=True, capture_output=True, text=True).stdout
    names = [line.split(" ")[0] for line in listed.splitlines()
             if line and not line.startswith(" ")]
    backends = strata.discover_backends()
    assert [b["name"] for b in backends] == names
    by_name = {b["name"]: b for b in backends}
    assert by_name["onednn"]["delegate"] == "onednn"
    assert by_name["tensorrt"]["delegate"] is None
    for backend in backends:
        for phase, patterns in backend["patterns"].items():
            for pattern in patterns:
                assert pattern in listed, (backend["name"], phase, pattern)


def test_verify_against_the_reference(mlp_onnx):
    program = strata.compile(mlp_onnx, backend="onednn",
                             input_shapes={"x": "batch:1..4x8"}, verify=True)
    verification = program.verification
    assert verification["ok"]
    # A dynamic program is checked at its smallest, largest and an odd batch.
    against = [c["against"] for c in verification["comparisons"]]
    assert against == ["reference at batch=1", "reference at batch=4",
                       "reference at batch=3"]
    assert all(c["rel_l2"] < 1e-5 for c in verification["comparisons"])


def test_failed_verify_raises_with_the_comparison(mlp_onnx):
    # int8 is far from float at a tolerance of 1e-9.
    with pytest.raises(strata.Error, match=r"(?s)rel_l2 .* FAIL.*"
                       r"--verify failed; no program written"):
        strata.compile(mlp_onnx, backend="onednn", quantize=True,
                       calibration="random-normal", input_shapes={"x": "2x8"},
                       verify={"rel_l2": 1e-9})


def test_report_files(mlp_onnx, tmp_path):
    strata.compile(mlp_onnx, input_shapes={"x": "2x8"},
                   report=tmp_path / "report.json")
    report = json.loads((tmp_path / "report.json").read_text())
    assert [n["name"] for n in report["graph"]][:2] == ["fc1", "bias1"]
    strata.compile(mlp_onnx, input_shapes={"x": "2x8"},
                   report=tmp_path / "report.html")
    page = (tmp_path / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "fc1" in page


def test_verify_with_a_tolerance(mlp_onnx):
    program = strata.compile(mlp_onnx, input_shapes={"x": "2x8"}, verify=1e-4)
    assert program.verification["ok"]
