//===- EdgeOps.td - edge operations ----------------------*- tablegen -*-===//
//
// The ops of the core op set, split by family; the dialect, its types and
// the op classes the families share are in EdgeBase.td.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_OPS
#define STRATA_EDGE_OPS

include "Edge/IR/EdgeBase.td"
include "Edge/IR/EdgeDelegation.td"
include "Edge/IR/EdgeElementwise.td"
include "Edge/IR/EdgeFused.td"
include "Edge/IR/EdgeIndexing.td"
include "Edge/IR/EdgeLogic.td"
include "Edge/IR/EdgeNN.td"
include "Edge/IR/EdgeQuant.td"
include "Edge/IR/EdgeRecurrent.td"
include "Edge/IR/EdgeReduction.td"
include "Edge/IR/EdgeTensor.td"
include "Edge/IR/EdgeValueDependent.td"

#endif // STRATA_EDGE_OPS
