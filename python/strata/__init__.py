"""Strata from Python (docs/python.md).

    import numpy as np, strata
    program = strata.load("model.strata")
    (y,) = program.run(np.zeros((1, 3, 224, 224), np.float32))

Everything here is the C++ API's (python/bindings): this package only
re-exports it.
"""
from ._strata import Error, Method, Program

__all__ = ["Error", "Method", "Program", "load"]


def load(path, threads=0):
    """Memory-maps and verifies the .strata program at `path`; its delegates
    run on `threads` threads (0: their default)."""
    return Program.load(str(path), threads)
