//===- ShapeInferenceProcessTest.cpp - contained ONNX shape inference -----===//
//
// runONNXShapeInferenceContained gives the shapes in-process inference
// gives, sub-graphs included, and turns a fault of libonnx into an error
// naming the node. The faulting model is one libonnx 1.12's own Python
// binding crashes on too (LayerNormalization with an axis far outside the
// input's rank and its Mean output requested).
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXChecks.h"
#include "strata/Import/ShapeInferenceProcess.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

namespace {

void addTensor(onnx::ValueInfoProto *info, const std::string &name,
               std::vector<int64_t> dims) {
  info->set_name(name);
  auto *tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  auto *shape = tensor->mutable_shape();
  for (int64_t d : dims)
    shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto *addNode(onnx::GraphProto *graph, const std::string &name,
                         const std::string &opType,
                         std::vector<std::string> inputs,
                         std::vector<std::string> outputs) {
  onnx::NodeProto *node = graph->add_node();
  node->set_name(name);
  node->set_op_type(opType);
  for (const std::string &input : inputs)
    node->add_input(input);
  for (const std::string &output : outputs)
    node->add_output(output);
  return node;
}

/// An empty IR-8 model of graph "main" at `opset`.
onnx::ModelProto newModel(int opset) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(opset);
  model.mutable_graph()->set_name("main");
  return model;
}

/// x: [2, 3] -> relu -> If(cond) { then: relu, else: neg } -> y; the
/// shapes of `r` and of the branch values are for inference to find.
onnx::ModelProto makeModelWithBranches() {
  onnx::ModelProto model = newModel(13);
  onnx::GraphProto *graph = model.mutable_graph();
  addTensor(graph->add_input(), "x", {2, 3});
  onnx::ValueInfoProto *cond = graph->add_input();
  cond->set_name("cond");
  cond->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::BOOL);
  cond->mutable_type()->mutable_tensor_type()->mutable_shape();
  graph->add_output()->set_name("y");
  addNode(graph, "relu", "Relu", {"x"}, {"r"});
  onnx::NodeProto *branch = addNode(graph, "branch", "If", {"cond"}, {"y"});
  for (auto [attrName, opType] :
       {std::pair{"then_branch", "Relu"}, std::pair{"else_branch", "Neg"}}) {
    onnx::AttributeProto *attr = branch->add_attribute();
    attr->set_name(attrName);
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto *body = attr->mutable_g();
    body->set_name(attrName);
    addNode(body, std::string(attrName) + "_op", opType, {"r"},
            {std::string(attrName) + "_mid"});
    addNode(body, std::string(attrName) + "_out", "Identity",
            {std::string(attrName) + "_mid"}, {std::string(attrName) + "_y"});
    body->add_output()->set_name(std::string(attrName) + "_y");
  }
  return model;
}

TEST(ShapeInferenceProcess, InfersWhatInProcessInferenceInfers) {
  onnx::ModelProto inProcess = makeModelWithBranches();
  onnx::ModelProto contained = inProcess;
  ASSERT_EQ(strata::importer::runONNXShapeInference(inProcess), std::nullopt);
  ASSERT_EQ(strata::importer::runONNXShapeInferenceContained(contained),
            std::nullopt);
  // The main graph's `r`, and each branch's intermediate value.
  ASSERT_GE(contained.graph().value_info_size(), 1);
  EXPECT_EQ(contained.graph().value_info(0).name(), "r");
  EXPECT_EQ(
      contained.graph().value_info(0).type().tensor_type().shape().dim_size(),
      2);
  EXPECT_GE(contained.graph().node(1).attribute(0).g().value_info_size(), 1);
  EXPECT_GE(contained.graph().node(1).attribute(1).g().value_info_size(), 1);
  EXPECT_EQ(contained.SerializeAsString(), inProcess.SerializeAsString());
}

TEST(ShapeInferenceProcess, ReportsLibonnxErrors) {
  onnx::ModelProto model = makeModelWithBranches();
  // Add of [2, 3] and [4]: libonnx's broadcasting rule refuses it.
  onnx::GraphProto *graph = model.mutable_graph();
  addTensor(graph->add_input(), "w", {4});
  addNode(graph, "add", "Add", {"r", "w"}, {"s"});
  std::optional<std::string> error =
      strata::importer::runONNXShapeInferenceContained(model);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("node name: add"), std::string::npos) << *error;
  EXPECT_NE(error->find("Incompatible dimensions"), std::string::npos)
      << *error;
}

TEST(ShapeInferenceProcess, AFaultInLibonnxIsAnErrorNamingTheNode) {
  onnx::ModelProto model = newModel(17);
  onnx::GraphProto *graph = model.mutable_graph();
  addTensor(graph->add_input(), "x", {3, 4});
  addTensor(graph->add_input(), "w", {4});
  addTensor(graph->add_input(), "b", {4});
  addTensor(graph->add_output(), "z", {3, 4});
  addTensor(graph->add_output(), "mean", {3, 1});
  addTensor(graph->add_output(), "inv", {3, 1});
  addNode(graph, "first", "Relu", {"x"}, {"r"});
  addNode(graph, "second", "Relu", {"r"}, {"r2"});
  onnx::NodeProto *norm = addNode(graph, "norm", "LayerNormalization",
                                  {"r2", "w", "b"}, {"y", "mean", "inv"});
  onnx::AttributeProto *axis = norm->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(-33);
  addNode(graph, "last", "Relu", {"y"}, {"z"});

  onnx::ModelProto before = model;
  strata::importer::ShapeInferenceProcessCounts counts =
      strata::importer::getShapeInferenceProcessCounts();
  std::optional<std::string> error =
      strata::importer::runONNXShapeInferenceContained(model);
  EXPECT_EQ(strata::importer::getShapeInferenceProcessCounts().faults,
            counts.faults + 1);
  EXPECT_EQ(strata::importer::getShapeInferenceProcessCounts().failures,
            counts.failures);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("faulted (SIGSEGV)"), std::string::npos) << *error;
  EXPECT_NE(error->find("node 'norm' (LayerNormalization)"),
            std::string::npos)
      << *error;
  // The caller's model is untouched by the failed inference.
  EXPECT_EQ(model.SerializeAsString(), before.SerializeAsString());
}

} // namespace
