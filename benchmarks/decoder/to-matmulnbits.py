#!/usr/bin/env python3
"""Rewrites every MatMul by a constant [K, N] float weight of an ONNX model
into ONNX Runtime's com.microsoft MatMulNBits (4 or 8 bits, blocks of
--block-size rows of K, a scale and a zero point per column and block:
round to nearest on the block's range widened to include 0, as ONNX
Runtime's own quantizer's default), so that ONNX Runtime and Strata run
the same int4 file. The following Add of a constant [N] bias stays an Add.

Usage: to-matmulnbits.py IN.onnx OUT.onnx [--bits 4] [--block-size 32]
       [--accuracy-level 0]
"""
import argparse

import numpy as np
import onnx
from onnx import helper, numpy_helper


def quantize(w, bits, block):
    """(packed [N, blocks, block*bits/8], scales [N*blocks], packed zero
    points [N*ceil(blocks*bits/8)]) of w [K, N]."""
    k, n = w.shape
    blocks = -(-k // block)
    levels = 2 ** bits - 1
    padded = np.zeros((blocks * block, n), np.float64)
    padded[:k] = w
    groups = padded.reshape(blocks, block, n)
    valid = (np.arange(blocks * block) < k).reshape(blocks, block, 1)
    lo = np.minimum(np.where(valid, groups, np.inf).min(1), 0.0)
    hi = np.maximum(np.where(valid, groups, -np.inf).max(1), 0.0)
    scale = ((hi - lo) / levels).astype(np.float32).astype(np.float64)
    scale[~(scale > 0)] = 1.0
    zero = np.clip(np.rint(-lo / scale), 0, levels)
    q = np.clip(np.rint(groups / scale[:, None]) + zero[:, None], 0, levels)
    q = q.astype(np.uint8).transpose(2, 0, 1)  # [N, blocks, block]
    per_byte = 8 // bits
    packed = np.zeros((n, blocks, block // per_byte), np.uint8)
    for i in range(per_byte):
        packed |= (q[:, :, i::per_byte] << (bits * i)).astype(np.uint8)
    zp = zero.T.astype(np.uint8)  # [N, blocks]
    zp_padded = np.zeros((n, -(-blocks // per_byte) * per_byte), np.uint8)
    zp_padded[:, :blocks] = zp
    zp_packed = np.zeros((n, zp_padded.shape[1] // per_byte), np.uint8)
    for i in range(per_byte):
        zp_packed |= (zp_padded[:, i::per_byte] << (bits * i)).astype(np.uint8)
    return packed, scale.T.astype(np.float32).reshape(-1), zp_packed.reshape(-1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--bits", type=int, default=4, choices=[4, 8])
    parser.add_argument("--block-size", type=int, default=32)
    parser.add_argument("--accuracy-level", type=int, default=0)
    args = parser.parse_args()
    model = onnx.load(args.input)
    graph = model.graph
    weights = {t.name: t for t in graph.initializer}
    nodes, replaced = [], 0
    for node in graph.node:
        weight = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        if weight is None or len(weight.dims) != 2 or \
                weight.data_type != onnx.TensorProto.FLOAT:
            nodes.append(node)
            continue
        w = numpy_helper.to_array(weight)
        k, n = w.shape
        packed, scales, zp = quantize(w, args.bits, args.block_size)
        base = node.input[1]
        graph.initializer.extend([
            numpy_helper.from_array(packed, base + "_Q"),
            numpy_helper.from_array(scales, base + "_scales"),
            numpy_helper.from_array(zp, base + "_zp")])
        nodes.append(helper.make_node(
            "MatMulNBits", [node.input[0], base + "_Q", base + "_scales",
                            base + "_zp"], list(node.output),
            name=node.name, domain="com.microsoft", K=k, N=n, bits=args.bits,
            block_size=args.block_size, accuracy_level=args.accuracy_level))
        replaced += 1
    del graph.node[:]
    graph.node.extend(nodes)
    used = {i for node in graph.node for i in node.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, args.output)
    print(f"{replaced} MatMul nodes as MatMulNBits ({args.bits} bits, "
          f"blocks of {args.block_size})")


if __name__ == "__main__":
    main()
