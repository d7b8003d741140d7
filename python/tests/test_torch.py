"""strata.compile of torch.nn.Modules, against the module's own outputs."""
import numpy as np
import pytest

import strata
from conftest import rel_l2

torch = pytest.importorskip("torch")
nn = torch.nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return torch.softmax(self.head(torch.flatten(self.features(x), 1)), 1)


def trained_cnn():
    torch.manual_seed(0)
    model = SmallCNN()
    with torch.no_grad():  # batch-norm statistics that are not the defaults
        for _ in range(3):
            model(torch.randn(4, 3, 16, 16))
    return model.eval()


@pytest.mark.parametrize("backend", ["portable", "onednn", "xnnpack"])
def test_module_matches_torch(backend):
    model = trained_cnn()
    x = torch.randn(2, 3, 16, 16)
    program = strata.compile(model, backend=backend, example_inputs=x,
                             threads=1)
    with torch.no_grad():
        want = model(x.double().float()).numpy()
        want64 = model.double()(x.double()).numpy()
    (got,) = program.run(x.numpy())
    assert rel_l2(got, want64) < 1e-5
    assert rel_l2(got, want) < 1e-5


def test_module_with_a_dynamic_batch():
    model = trained_cnn()
    program = strata.compile(
        model, example_inputs=torch.randn(2, 3, 16, 16),
        dynamic_axes={"input_0": {0: "batch"}, "output_0": {0: "batch"}},
        input_shapes={"input_0": "batch:1..8x3x16x16"})
    model = model.double()
    for batch in [1, 8, 5]:
        x = torch.randn(batch, 3, 16, 16)
        with torch.no_grad():
            want = model(x.double()).numpy()
        (got,) = program.run(x.numpy())
        assert got.shape == (batch, 10)
        assert rel_l2(got, want) < 1e-5


def test_module_without_example_inputs():
    with pytest.raises(strata.Error, match="example_inputs"):
        strata.compile(trained_cnn())
