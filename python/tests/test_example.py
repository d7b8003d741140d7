"""examples/python/torch_to_int8.py: a torch module trained there, compiled
to int8 delegated programs; its accuracy figures are measured on held-out
images against the labels and the module's own outputs."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT

pytest.importorskip("torch")


@pytest.mark.parametrize("backend", ["onednn", "xnnpack"])
def test_torch_to_int8_example(backend):
    script = os.path.join(ROOT, "examples", "python", "torch_to_int8.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    done = subprocess.run([sys.executable, script, "--backend", backend,
                           "--epochs", "3", "--json"], env=env, check=True,
                          capture_output=True, text=True)
    figures = json.loads(done.stdout)
    assert figures["accuracy_torch"] > 0.9
    assert figures["fp32_rel_l2"] < 1e-5
    assert figures["accuracy_fp32"] == figures["accuracy_torch"]
    assert figures["accuracy_int8"] >= figures["accuracy_torch"] - 0.02
    assert figures["int8_sqnr_db"] > 25
    # The convolutions run in the delegate (on XNNPACK the int8 classifier,
    # a 1x1 quantized convolution, stays on the portable kernels).
    assert figures["int8_delegated_ops"] >= 8
    assert figures["int8_portable_ops"] <= 1
