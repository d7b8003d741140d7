//===- ImporterTest.cpp - the ONNX importer's C++ API ---------------------===//
//
// Models are built with libonnx's protobuf classes and imported from bytes.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXImporter.h"
#include "strata/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

namespace {

/// Adds a float tensor value info with `dims` (a negative dim is `N`).
void addValueInfo(onnx::ValueInfoProto *info, const std::string &name,
                  std::vector<int64_t> dims) {
  info->set_name(name);
  auto *tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  auto *shape = tensor->mutable_shape();
  for (int64_t d : dims) {
    auto *dim = shape->add_dim();
    if (d < 0)
      dim->set_dim_param("N");
    else
      dim->set_dim_value(d);
  }
}

/// A model computing relu(x) + w, x: [N, 4], w: a [4] initializer.
onnx::ModelProto makeModel(const std::string &secondOp = "Add") {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("g");
  addValueInfo(graph->add_input(), "x", {-1, 4});
  addValueInfo(graph->add_output(), "y", {-1, 4});
  onnx::TensorProto *w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  for (float v : {1.f, 2.f, 3.f, 4.f})
    w->add_float_data(v);
  onnx::NodeProto *relu = graph->add_node();
  relu->set_name("relu0");
  relu->set_op_type("Relu");
  relu->add_input("x");
  relu->add_output("r");
  onnx::NodeProto *add = graph->add_node();
  add->set_name("add0");
  add->set_op_type(secondOp);
  add->add_input("r");
  add->add_input("w");
  add->add_output("y");
  return model;
}

class ImporterTest : public ::testing::Test {
protected:
  ImporterTest() {
    mlir::DialectRegistry registry;
    strata::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }
  /// Imports `model` collecting diagnostics into `errors`.
  mlir::OwningOpRef<mlir::ModuleOp>
  import(const onnx::ModelProto &model,
         const strata::ImportOptions &options = {}) {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      errors.push_back(d.str());
      return mlir::success();
    });
    return strata::importONNXBytes(model.SerializeAsString(), "m.onnx",
                                   &context, options);
  }
  mlir::MLIRContext context;
  std::vector<std::string> errors;
};

TEST_F(ImporterTest, ImportsSignatureNamesAndLocations) {
  auto module = import(makeModel());
  ASSERT_TRUE(module) << (errors.empty() ? "" : errors.front());
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  ASSERT_TRUE(main);
  EXPECT_EQ(main.getNumArguments(), 1u);
  EXPECT_EQ(main.getArgAttrOfType<mlir::StringAttr>(0, "hl.name").getValue(),
            "x");
  auto dimParams = main.getArgAttrOfType<mlir::ArrayAttr>(0, "hl.dim_params");
  ASSERT_TRUE(dimParams);
  EXPECT_EQ(mlir::cast<mlir::StringAttr>(dimParams[0]).getValue(), "N");
  EXPECT_EQ(main.getResultAttrOfType<mlir::StringAttr>(0, "hl.name").getValue(),
            "y");
  auto type = mlir::cast<mlir::RankedTensorType>(main.getArgumentTypes()[0]);
  EXPECT_TRUE(type.isDynamicDim(0));
  // Every hl op carries the node name fused with the file location.
  bool sawRelu = false;
  main.walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() != "hl.relu")
      return;
    sawRelu = true;
    auto loc = mlir::dyn_cast<mlir::NameLoc>(op->getLoc());
    ASSERT_TRUE(loc);
    EXPECT_EQ(loc.getName().getValue(), "relu0");
    EXPECT_TRUE(mlir::isa<mlir::FileLineColLoc>(loc.getChildLoc()));
  });
  EXPECT_TRUE(sawRelu);
}

TEST_F(ImporterTest, InputShapeFixesDynamicDimensions) {
  strata::ImportOptions options;
  std::string error;
  ASSERT_TRUE(succeeded(strata::parseInputShape("x=2x4", options, error)));
  auto module = import(makeModel(), options);
  ASSERT_TRUE(module);
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  auto type = mlir::cast<mlir::RankedTensorType>(main.getResultTypes()[0]);
  EXPECT_TRUE(type.hasStaticShape());
  EXPECT_EQ(type.getDimSize(0), 2);
}

TEST_F(ImporterTest, InputShapeErrors) {
  strata::ImportOptions options;
  std::string error;
  EXPECT_TRUE(failed(strata::parseInputShape("x=2x?", options, error)));
  EXPECT_TRUE(failed(strata::parseInputShape("noshape", options, error)));
  ASSERT_TRUE(succeeded(strata::parseInputShape("z=1x4", options, error)));
  EXPECT_FALSE(import(makeModel(), options));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.front().find("'z'"), std::string::npos) << errors.front();
}

TEST_F(ImporterTest, UnsupportedOpsAreAllListed) {
  onnx::ModelProto model = makeModel("Relu");
  // Make both nodes unsupported: a custom-domain op type.
  model.add_opset_import()->set_domain("com.example");
  model.mutable_opset_import(1)->set_version(1);
  for (auto &node : *model.mutable_graph()->mutable_node()) {
    node.set_domain("com.example");
    node.set_op_type("Foo");
    node.mutable_input()->DeleteSubrange(1, node.input_size() - 1);
  }
  strata::ImportOptions options;
  options.runChecker = false;
  options.runShapeInference = false;
  EXPECT_FALSE(import(model, options));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("'Foo'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("'relu0', 'add0'"), std::string::npos) << errors[0];
}

TEST_F(ImporterTest, CoverageListsEveryOpType) {
  std::string bytes = makeModel().SerializeAsString();
  auto coverage = strata::getONNXCoverageFromBytes(bytes, "m.onnx", &context);
  ASSERT_TRUE(succeeded(coverage));
  ASSERT_EQ(coverage->size(), 2u);
  EXPECT_EQ((*coverage)[0].opType, "Relu");
  EXPECT_EQ((*coverage)[0].opsetVersion, 13);
  EXPECT_TRUE((*coverage)[0].supported);
  EXPECT_EQ((*coverage)[1].nodeNames, std::vector<std::string>{"add0"});
}

TEST_F(ImporterTest, LargeInitializersBecomeResources) {
  onnx::ModelProto model = makeModel();
  onnx::TensorProto *w = model.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  std::vector<float> data(4, 0.5f);
  w->set_raw_data(std::string(reinterpret_cast<char *>(data.data()), 16));
  strata::ImportOptions options;
  options.resourceThresholdBytes = 16;
  auto module = import(model, options);
  ASSERT_TRUE(module);
  int resources = 0;
  module->walk([&](mlir::Operation *op) {
    for (auto attr : op->getAttrs())
      resources += mlir::isa<mlir::DenseResourceElementsAttr>(attr.getValue());
  });
  EXPECT_EQ(resources, 1);
}

TEST_F(ImporterTest, GarbageIsAnError) {
  EXPECT_FALSE(strata::importONNXBytes("\xff\xff\xff\xff garbage", "bad.onnx",
                                       &context));
}

} // namespace
