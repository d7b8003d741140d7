//===- BackendRegistryTest.cpp - backend registry semantics and plugins ---===//
//
// The registry follows the reference semantics: set by name (unknown: error
// listing the known names), get (auto-select the only backend; error when
// none, or several and none set), discover (cached; built-ins plus plugins
// from a search path), reset. Backends reject patterns in the wrong list.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOps.h"
#include "strata/Backends/Backend.h"
#include "strata/Patterns/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace strata;
using ::testing::HasSubstr;

namespace {

std::vector<Backend> portableOnly() { return {makePortableBackend()}; }
std::vector<Backend> none() { return {}; }

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : "";
}

TEST(BackendRegistry, UnknownNameErrorListsKnownNames) {
  BackendRegistry registry(getBuiltinBackends, "");
  EXPECT_EQ(
      errorOf(registry.set("nosuch")),
      "unknown backend 'nosuch' (known: portable, tensorrt, onednn, xnnpack)");
}

TEST(BackendRegistry, GetFailsWhenNoneInstalled) {
  BackendRegistry registry(none, "");
  auto backend = registry.get();
  ASSERT_FALSE(backend);
  EXPECT_EQ(errorOf(backend.takeError()), "no backend is installed");
}

TEST(BackendRegistry, GetFailsWhenSeveralAndNoneSet) {
  BackendRegistry registry(getBuiltinBackends, "");
  auto backend = registry.get();
  ASSERT_FALSE(backend);
  EXPECT_THAT(
      errorOf(backend.takeError()),
      HasSubstr(
          "4 backends are installed (portable, tensorrt, onednn, xnnpack) and "
          "none was selected"));
}

TEST(BackendRegistry, GetAutoSelectsTheOnlyBackend) {
  BackendRegistry registry(portableOnly, "");
  auto backend = registry.get();
  ASSERT_TRUE(bool(backend)) << errorOf(backend.takeError());
  EXPECT_EQ(backend->getName(), "portable");
}

TEST(BackendRegistry, SetSelectsByName) {
  BackendRegistry registry(getBuiltinBackends, "");
  ASSERT_EQ(errorOf(registry.set("tensorrt")), "");
  auto backend = registry.get();
  ASSERT_TRUE(bool(backend));
  EXPECT_EQ(backend->getName(), "tensorrt");
  EXPECT_FALSE(backend->getFusionPatterns().empty());
}

TEST(BackendRegistry, DiscoveryIsCachedUntilReset) {
  BackendRegistry registry(getBuiltinBackends, "");
  ASSERT_TRUE(bool(registry.discover()));
  ASSERT_TRUE(bool(registry.discover()));
  EXPECT_EQ(registry.getDiscoveryCount(), 1);
  ASSERT_EQ(errorOf(registry.set("tensorrt")), "");
  registry.reset();
  // Reset forgets the selection too: two backends and none set again.
  auto backend = registry.get();
  EXPECT_FALSE(bool(backend));
  llvm::consumeError(backend.takeError());
  EXPECT_EQ(registry.getDiscoveryCount(), 2);
}

TEST(BackendRegistry, ProcessWideRegistry) {
  resetBackends();
  ASSERT_EQ(errorOf(setBackend("portable")), "");
  auto backend = getBackend();
  ASSERT_TRUE(bool(backend));
  EXPECT_EQ(backend->getName(), "portable");
  EXPECT_TRUE(backend->getPatterns(/*quantize=*/true).empty());
  resetBackends();
}

PatternDescriptor fusionNamed(std::string name) {
  PatternDescriptor d = makeTensorRTBackend().getFusionPatterns().front();
  d.info.name = std::move(name);
  return d;
}

TEST(Backend, RejectsAPatternInTheWrongList) {
  auto backend = Backend::create("b", {fusionNamed("MyFusion")}, {}, {}, {});
  ASSERT_FALSE(bool(backend));
  EXPECT_EQ(errorOf(backend.takeError()),
            "backend 'b': pattern 'MyFusion' has phase fusion but is in the "
            "conversion list");
  auto quantized = Backend::create("b", {}, {}, {}, {fusionNamed("F2")});
  ASSERT_FALSE(bool(quantized));
  EXPECT_THAT(errorOf(quantized.takeError()),
              HasSubstr("'F2' has phase fusion but is in the quantized list"));
}

TEST(Backend, RejectsDuplicatePatternNames) {
  auto backend =
      Backend::create("b", {}, {fusionNamed("X"), fusionNamed("X")}, {}, {});
  ASSERT_FALSE(bool(backend));
  EXPECT_THAT(errorOf(backend.takeError()),
              HasSubstr("pattern name 'X' is used twice"));
}

TEST(Backend, BuiltinListsHoldTheirOwnPhases) {
  Backend trt = makeTensorRTBackend();
  for (const auto &d : trt.getConversionPatterns())
    EXPECT_EQ(d.info.phase, PatternPhase::Conversion) << d.info.name;
  for (const auto &d : trt.getFusionPatterns())
    EXPECT_EQ(d.info.phase, PatternPhase::Fusion) << d.info.name;
  for (const auto &d : trt.getQuantizedPatterns())
    EXPECT_EQ(d.info.phase, PatternPhase::Quantized) << d.info.name;
  EXPECT_EQ(trt.getPatterns(false).size(), trt.getConversionPatterns().size() +
                                               trt.getFusionPatterns().size());
}

TEST(BackendPlugins, LoadsABackendFromASharedLibrary) {
  BackendRegistry registry(getBuiltinBackends, STRATA_TEST_PLUGIN_DIR);
  auto backends = registry.discover();
  ASSERT_TRUE(bool(backends)) << errorOf(backends.takeError());
  ASSERT_EQ(backends->size(), getBuiltinBackends().size() + 1);
  const Backend &plugin = backends->back();
  EXPECT_EQ(plugin.getName(), "test-plugin");
  EXPECT_THAT(plugin.getSource(), HasSubstr("test-backend.so"));
  ASSERT_EQ(errorOf(registry.set("test-plugin")), "");

  // Its pattern runs through the engine like a built-in one.
  mlir::MLIRContext context;
  context.loadDialect<hl::HLDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = hl.neg %x : tensor<4xf32>
      %1 = hl.neg %0 : tensor<4xf32>
      return %1 : tensor<4xf32>
    })mlir",
                                                        &context);
  ASSERT_TRUE(module);
  auto result = transform(*module, registry.get()->getPatterns());
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(result->report.applied("NegNeg"), 1);
  int fused = 0;
  result->module->walk([&](hl::FusedOp op) {
    EXPECT_EQ(op.getKind(), "neg_neg");
    ++fused;
  });
  EXPECT_EQ(fused, 1);
}

TEST(BackendPlugins, MissingEntryPointNamesTheFile) {
  BackendRegistry registry(getBuiltinBackends, STRATA_BAD_PLUGIN_DIR);
  auto backends = registry.discover();
  ASSERT_FALSE(bool(backends));
  EXPECT_THAT(errorOf(backends.takeError()),
              HasSubstr("bad-backend.so' does not export "
                        "strataRegisterBackends"));
}

TEST(BackendPlugins, DuplicateNamesAcrossPluginsAreRefused) {
  BackendRegistry registry(getBuiltinBackends,
                           std::string(STRATA_TEST_PLUGIN_DIR) + ":" +
                               STRATA_TEST_PLUGIN_DIR);
  auto backends = registry.discover();
  ASSERT_FALSE(bool(backends));
  EXPECT_THAT(errorOf(backends.takeError()),
              HasSubstr("two backends are named 'test-plugin'"));
}

TEST(BackendPlugins, MissingFolderIsNotAnError) {
  BackendRegistry registry(getBuiltinBackends, "/nonexistent/strata/plugins");
  auto backends = registry.discover();
  ASSERT_TRUE(bool(backends)) << errorOf(backends.takeError());
  EXPECT_EQ(backends->size(), getBuiltinBackends().size());
}

} // namespace
