#!/usr/bin/python3
"""The Python API's flows on models it was not written against: for each
ONNX model given (a model.onnx, or a folder holding one), with its
test_data_set_0 when it has one:

  plan      get_transformation_plan (tensorrt, then onednn), the first
            applied match switched off, apply_transformation_plan: the
            report must apply fewer matches than the full plan (the table
            gives tensorrt's counts);
  compile   compile(plan=...) with tensorrt's plan (a match off), and the
            onednn program, run on the data set's inputs (or seeded ones)
            and compared with the untransformed portable program (the
            larger rel-L2);
  partition partition (onednn,xnnpack): the ops each delegate claims;
  export    export_onnx (tensorrt, int8 on seeded random calibration):
            bytes that onnx.checker accepts.

Prints one row per model and the counts; exits 1 when any flow failed.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python/api-sweep.py MODEL...
"""
import json
import os
import sys
import traceback

import numpy as np
import onnx
from onnx import numpy_helper

import strata


def model_path(arg):
    return os.path.join(arg, "model.onnx") if os.path.isdir(arg) else arg


def inputs_of(path, method):
    folder = os.path.join(os.path.dirname(path), "test_data_set_0")
    if os.path.isdir(folder):
        files = sorted(f for f in os.listdir(folder)
                       if f.startswith("input_") and f.endswith(".pb"))
        arrays = []
        for name in files:
            tensor = onnx.TensorProto()
            with open(os.path.join(folder, name), "rb") as stream:
                tensor.ParseFromString(stream.read())
            arrays.append(numpy_helper.to_array(tensor))
        if len(arrays) == method.input_count:
            return arrays
    return None


def rel_l2(got, want):
    want = want.astype(np.float64)
    norm = np.linalg.norm(want)
    return np.linalg.norm(got - want) / norm if norm else np.linalg.norm(got)


# Pinned shapes and frozen values of the wild corpus's models, by folder
# name (benchmarks/wild/models.json: what run-wild.sh passes).
WILD = {entry["id"]: entry for entry in json.load(open(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "wild",
    "models.json")))}


def sweep(arg):
    path = model_path(arg)
    name = os.path.basename(os.path.dirname(path)) or path
    row = {"model": name}
    entry = WILD.get(name, {})
    pins = {"input_shapes": entry.get("input_shapes"),
            "input_values": entry.get("input_values")}
    plans = {}
    for backend in ("tensorrt", "onednn"):
        plan = strata.get_transformation_plan(path, backend=backend, **pins)
        full = strata.apply_transformation_plan(plan)
        applied = [m for m in plan if m.apply]
        row.setdefault("matches", len(plan))
        row.setdefault("applied", full.report["applied_count"])
        if applied:
            applied[0].apply = False
            fewer = strata.apply_transformation_plan(plan)
            assert (fewer.report["applied_count"]
                    < full.report["applied_count"]), \
                "switching a match off applied as many"
        plans[backend] = plan
    # The tensorrt plan with a match off (its program runs on the portable
    # kernels), and onednn's program, each against the untransformed one.
    programs = [strata.compile(path, plan=plans["tensorrt"], **pins),
                strata.compile(path, backend="onednn", threads=1, **pins)]
    reference = strata.compile(path, threads=1, **pins)
    method = reference.method(reference.default_method)
    data = inputs_of(path, method)
    if data is None:
        rng = np.random.default_rng(0)
        data = []
        for t in method.input_types:  # "f32[1, 3, 8, 8]"
            dtype, dims = t.rstrip("]").split("[")
            shape = [int(d) for d in dims.split(", ")] if dims else []
            value = rng.standard_normal(shape)
            data.append(value.astype(
                {"f32": np.float32, "f16": np.float16}.get(dtype, np.float32))
                if dtype in ("f32", "f16") else
                np.zeros(shape, {"i64": np.int64, "i32": np.int32,
                                 "u8": np.uint8, "i8": np.int8,
                                 "bool": np.bool_}[dtype]))
    want = reference.run(*data)
    row["rel_l2"] = max(rel_l2(g, w) for program in programs
                        for g, w in zip(program.run(*data), want)
                        if g.dtype.kind == "f")
    placement = strata.partition(path, backend="onednn,xnnpack", **pins)
    row["delegated"] = placement["delegated_ops"]
    row["portable"] = placement["portable_ops"]
    data = strata.export_onnx(path, quantize=True,
                              calibration="random-normal", **pins)
    onnx.checker.check_model(onnx.load_from_string(data))
    row["qdq_nodes"] = sum(n.op_type == "QuantizeLinear"
                           for n in onnx.load_from_string(data).graph.node)
    return row


def main():
    failed = 0
    print("| model | matches | applied | plan and onednn vs portable rel-L2 | "
          "delegated | portable | QuantizeLinear |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for arg in sys.argv[1:]:
        try:
            r = sweep(arg)
            print("| %s | %d | %d | %.2g | %d | %d | %d |" % (
                r["model"], r["matches"], r["applied"], r["rel_l2"],
                r["delegated"], r["portable"], r["qdq_nodes"]))
        except Exception as error:  # noqa: BLE001 - a row per model
            failed += 1
            message = str(error).strip().splitlines()
            print("| %s | failed: %s |" % (arg, message[0] if message
                                             else type(error).__name__))
            traceback.print_exc(file=sys.stderr)
    print("\n%d of %d models through every flow" % (
        len(sys.argv) - 1 - failed, len(sys.argv) - 1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
