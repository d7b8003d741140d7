//===- HLOps.td - hl operations --------------------------*- tablegen -*-===//
//
// One op per ONNX operator. Attribute names are ONNX's; an absent optional
// attribute means ONNX's default. The ops are split by family.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_OPS
#define STRATA_HL_OPS

include "HL/IR/HLBase.td"
include "HL/IR/HLControlFlow.td"
include "HL/IR/HLElementwise.td"
include "HL/IR/HLFused.td"
include "HL/IR/HLIndexing.td"
include "HL/IR/HLNN.td"
include "HL/IR/HLQuant.td"
include "HL/IR/HLRecurrent.td"
include "HL/IR/HLReduction.td"
include "HL/IR/HLSignal.td"
include "HL/IR/HLTensor.td"
include "HL/IR/HLVision.td"

#endif // STRATA_HL_OPS
