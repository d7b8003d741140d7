"""Backends and transformation plans from Python, as the seeds use them:
set a backend, plan, switch a match off, apply, read the report's counts,
transform in one call; partitions before compiling; the QDQ ONNX export.
Expected outputs come from numpy in float64 (conftest.ResidualCNN) and from
onnx's own reference evaluator."""
import json
import subprocess

import numpy as np
import onnx
import pytest

import strata
from conftest import rel_l2, tool

SHAPE = {"x": "2x4x6x6"}


@pytest.fixture(autouse=True)
def no_selected_backend():
    strata.reset_backends()
    yield
    strata.reset_backends()


def sample(seed, batch=2):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((batch, 4, 6, 6)).astype(np.float32)


def test_backend_selection():
    assert strata.get_backend() is None
    names = [b["name"] for b in strata.discover_backends()]
    assert {"portable", "tensorrt", "onednn", "xnnpack"} <= set(names)
    strata.set_backend("tensorrt")
    backend = strata.get_backend()
    assert backend["name"] == "tensorrt"
    assert "ConvBNReLU" in backend["patterns"]["fusion"]
    with pytest.raises(strata.Error, match="unknown backend 'nope'"):
        strata.set_backend("nope")
    assert strata.get_backend()["name"] == "tensorrt"
    strata.reset_backends()
    assert strata.get_backend() is None


def test_compiling_keeps_the_selection(cnn_onnx):
    strata.set_backend("tensorrt")
    strata.compile(cnn_onnx, backend="onednn", input_shapes=SHAPE)
    assert strata.get_backend()["name"] == "tensorrt"


def test_selected_backend_is_the_default(cnn_onnx):
    strata.set_backend("onednn")
    program = strata.compile(cnn_onnx, input_shapes=SHAPE)
    assert program.report["delegation"]["backend"] == "onednn"


def test_plan_lists_every_match(cnn_onnx):
    strata.set_backend("tensorrt")
    plan = strata.get_transformation_plan(cnn_onnx, input_shapes=SHAPE)
    match = plan.matches["relu1"]["ConvBNReLU"]
    assert match.apply and match.nodes == ["conv1", "bn1", "relu1"]
    assert plan.matches["relu2"]["ConvBNAddReLU"].nodes == [
        "conv2", "bn2", "add", "relu2"]
    # The planner switched the shorter overlapping match off, saying why.
    overlapped = plan.matches["bn1"]["ConvBN"]
    assert not overlapped.apply and "overlaps ConvBNReLU" in overlapped.reason
    assert [p["name"] for p in plan.patterns][:1] == ["FlattenGemmToConv"]


def test_plan_with_one_match_off(cnn, cnn_onnx):
    strata.set_backend("tensorrt")
    plan = strata.get_transformation_plan(cnn_onnx, input_shapes=SHAPE)
    full = strata.apply_transformation_plan(plan)
    assert full.report["applied_count"] == 5
    assert full.applied("ConvBNReLU") == 1
    assert full.mlir.count('hl.fused "') == 4

    plan.matches["relu1"]["ConvBNReLU"].apply = False
    result = strata.apply_transformation_plan(plan)
    assert result.report["applied_count"] == 4
    assert result.applied("ConvBNReLU") == 0
    assert result.applied("ConvBNAddReLU") == 1
    assert ["conv1", "bn1", "relu1"] not in [
        m["nodes"] for m in result.report["matches"]]
    assert result.mlir.count('hl.fused "') == 3

    # The program of the plan computes the model.
    program = result.compile()
    x = sample(1)
    (y,) = program.run(x)
    assert rel_l2(y, cnn.reference(x)) < 1e-5
    assert program.report["transform"]["applied_count"] == 4


def test_plan_is_strata_compile_plan(cnn_onnx, tmp_path):
    out = tmp_path / "plan.json"
    subprocess.run([tool("strata-compile"), str(cnn_onnx), "--backend",
                    "tensorrt", "--input-shape", "x=2x4x6x6", "--plan-out",
                    str(out)], check=True, capture_output=True)
    plan = strata.get_transformation_plan(cnn_onnx, backend="tensorrt",
                                          input_shapes=SHAPE)
    assert plan.to_json() == json.loads(out.read_text())


def test_plan_for_quantization_needs_no_data(cnn_onnx):
    plan = strata.get_transformation_plan(cnn_onnx, backend="tensorrt",
                                          quantize=True, input_shapes=SHAPE)
    phases = {m.phase for m in plan}
    assert "quantized" in phases


def test_plan_of_another_model_is_refused(cnn_onnx, mlp_onnx):
    plan = strata.get_transformation_plan(cnn_onnx, backend="tensorrt",
                                          input_shapes=SHAPE)
    plan.model = str(mlp_onnx)
    plan.arguments["input_shapes"] = {"x": "2x8"}
    with pytest.raises(strata.Error, match="the model has no match of "
                       "pattern"):
        strata.apply_transformation_plan(plan)


def test_transform_with_some_patterns(cnn_onnx):
    result = strata.transform(cnn_onnx, patterns=["ConvBN"],
                              backend="tensorrt", input_shapes=SHAPE)
    # conv1+bn1 and conv2+bn2; fc becomes a Conv only through a conversion
    # pattern, which is not among them.
    assert result.report["applied_count"] == 2
    assert [p["name"] for p in result.report["patterns"]] == ["ConvBN"]
    with pytest.raises(strata.Error, match="no pattern 'ConvBNTanh'"):
        strata.transform(cnn_onnx, patterns=["ConvBNTanh"],
                         backend="tensorrt", input_shapes=SHAPE)


def test_partition_before_compiling(cnn_onnx):
    placement = strata.partition(cnn_onnx, backend="onednn",
                                 input_shapes=SHAPE)
    assert placement["backend"] == "onednn"
    ops = {op["op"] for op in placement["ops"] if op["backend"] == "onednn"}
    assert "edge.conv2d" in ops
    decision = placement["decisions"][0]
    assert decision["estimate_delegate_us"] > 0
    assert decision["estimate_portable_us"] > 0
    assert decision["decision"] == "delegate"


def test_partition_with_two_delegates(cnn_onnx):
    placement = strata.partition(cnn_onnx, backend="xnnpack,onednn",
                                 input_shapes=SHAPE)
    by_backend = placement["delegated_by_backend"]
    assert by_backend.get("xnnpack", 0) > 0
    assert sum(by_backend.values()) == placement["delegated_ops"]


def test_qdq_export(cnn, cnn_onnx, tmp_path):
    calibration = np.stack([sample(s) for s in range(8)])
    path = tmp_path / "qdq.onnx"
    data = strata.export_onnx(cnn_onnx, path, backend="tensorrt",
                              quantize=True, calibration=calibration,
                              input_shapes=SHAPE)
    assert path.read_bytes() == data
    model = onnx.load_from_string(data)
    onnx.checker.check_model(model)
    ops = [node.op_type for node in model.graph.node]
    assert ops.count("QuantizeLinear") >= 3
    assert ops.count("DequantizeLinear") >= ops.count("QuantizeLinear")
    # The exported model, run as any ONNX model (onnx.reference is newer
    # than Debian's onnx), against the float model in float64.
    x = sample(20)
    (y,) = strata.compile(model, input_shapes=SHAPE).run(x)
    want = cnn.reference(x)
    sqnr = 20 * np.log10(np.linalg.norm(want) / np.linalg.norm(y - want))
    assert sqnr > 25


def test_a_pattern_name_alone(cnn_onnx):
    result = strata.transform(cnn_onnx, patterns="ConvBN", backend="tensorrt",
                              input_shapes=SHAPE)
    assert [p["name"] for p in result.report["patterns"]] == ["ConvBN"]


def test_quantized_plan_with_a_generator_of_samples(cnn, cnn_onnx):
    samples = (sample(s) for s in range(4))
    plan = strata.get_transformation_plan(
        cnn_onnx, backend="tensorrt", quantize=True, calibration=samples,
        input_shapes=SHAPE)
    # Kept as a list, to calibrate when the plan is compiled.
    assert len(plan.arguments["calibration"]) == 4
    plan.matches["relu1"]["ConvBNReLU"].apply = False
    result = strata.apply_transformation_plan(plan)
    program = result.compile()
    assert program.report["quantization"]
    x = sample(30)
    (y,) = program.run(x)
    want = cnn.reference(x)
    assert 20 * np.log10(np.linalg.norm(want) / np.linalg.norm(y - want)) > 25
    with pytest.raises(strata.Error, match="takes no 'verify'"):
        strata.get_transformation_plan(cnn_onnx, verify=True,
                                       input_shapes=SHAPE)


def test_export_uses_the_selected_backend(cnn_onnx, tmp_path):
    import os

    strata.set_backend("onednn")  # its QDQ placement is tensorrt's
    calibration = np.stack([sample(s) for s in range(2)])
    path = tmp_path / "model.onnx"
    strata.export_onnx(cnn_onnx, path, quantize=True, calibration=calibration,
                       input_shapes=SHAPE)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_plan_compiles_for_its_backend(cnn, cnn_onnx):
    plan = strata.get_transformation_plan(cnn_onnx, backend="tensorrt",
                                          input_shapes=SHAPE)
    plan.matches["relu2"]["ConvBNAddReLU"].apply = False
    program = strata.compile(cnn_onnx, plan=plan, input_shapes=SHAPE)
    assert program.report["transform"]["applied_count"] == 4
    x = sample(50)
    assert rel_l2(program.run(x)[0], cnn.reference(x)) < 1e-5
    # Another backend's patterns are not the plan's.
    with pytest.raises(strata.Error, match="is not among the backend's "
                       "patterns"):
        strata.compile(cnn_onnx, plan=plan, backend="xnnpack",
                       input_shapes=SHAPE)


def test_export_of_cast_and_resize_at_opset_13(tmp_path):
    from onnx import TensorProto, helper, numpy_helper

    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")
    zero = numpy_helper.from_array(np.array(0, np.float32), "zero")
    graph = helper.make_graph([
        helper.make_node("Greater", ["x", "zero"], ["positive"], name="gt"),
        helper.make_node("Cast", ["positive"], ["mask"], name="cast",
                         to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x", "mask"], ["relu"], name="mul"),
        helper.make_node("Resize", ["relu", "", "s"], ["y"], name="up",
                         mode="nearest"),
    ], "cast_resize",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 6])],
        [scales, zero])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    data = strata.export_onnx(model, backend="tensorrt")
    exported = onnx.load_from_string(data)
    onnx.checker.check_model(exported)
    casts = [n for n in exported.graph.node if n.op_type == "Cast"]
    assert [a.i for a in casts[0].attribute if a.name == "to"] == [
        TensorProto.FLOAT]
    x = sample(60)[:1, :2, :3, :3]
    want = np.maximum(x, 0).repeat(2, axis=2).repeat(2, axis=3)
    (y,) = strata.compile(exported).run(np.ascontiguousarray(x))
    assert np.array_equal(y, want)
