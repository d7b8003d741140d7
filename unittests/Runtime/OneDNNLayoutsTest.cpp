//===- OneDNNLayoutsTest.cpp - when one layout's bytes read as another ----===//
//
// sameBytes against its definition, with oneDNN's own reorders as the
// judge: distinct values reordered into `have` and into `view` must put
// every element at the same byte exactly when sameBytes says so. Shapes
// with unit and partial-block extents, where distinct tags coincide.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using namespace strata::runtime::onednn;
using dnnl::memory;
using tag = memory::format_tag;

/// Whether every element reordered into `view` lies at the byte it lies at
/// in `have`: both filled from distinct values 1..N by oneDNN (padding
/// zero), `view` unpadded, so its bytes must equal `have`'s first ones.
bool sameByReorders(const dnnl::engine &engine, const Desc &have,
                    const Desc &view) {
  if (view.get_size() > have.get_size())
    return false;
  Desc plain = plainDesc(have.dims());
  std::vector<float> values(plain.get_size() / sizeof(float));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i + 1);
  std::vector<uint8_t> a(have.get_size(), 0), b(view.get_size(), 0);
  dnnl::stream stream(engine);
  memory from(plain, engine, values.data());
  memory inA(have, engine, a.data()), inB(view, engine, b.data());
  dnnl::reorder(from, inA).execute(stream, from, inA);
  dnnl::reorder(from, inB).execute(stream, from, inB);
  stream.wait();
  return std::memcmp(a.data(), b.data(), b.size()) == 0;
}

TEST(OneDNNLayouts, SameBytesAgreesWithReorders) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const std::vector<Dims> shapes = {{1, 16, 3, 3}, {2, 32, 5, 4}, {1, 8, 7, 7},
                                    {1, 1, 4, 4},  {3, 1, 1, 16}, {1, 24, 1, 1},
                                    {1, 16, 1, 5}, {4, 3, 2, 1}};
  const std::vector<tag> tags = {tag::abcd,    tag::acdb,      tag::aBcd8b,
                                 tag::aBcd16b, tag::bacd,      tag::cdba,
                                 tag::Abcd16a, tag::ABcd16b16a};
  int agreed = 0, same = 0;
  for (const Dims &dims : shapes)
    for (tag haveTag : tags)
      for (tag viewTag : tags) {
        Desc have(dims, memory::data_type::f32, haveTag);
        Desc view(dims, memory::data_type::f32, viewTag);
        // sameBytes refuses padded views; so does the definition here.
        bool padded = view.get_size() != plainDesc(dims).get_size();
        bool expected = !padded && sameByReorders(engine, have, view);
        EXPECT_EQ(sameBytes(have, view), expected)
            << layoutName(have) << " read as " << layoutName(view) << " over "
            << dims[0] << "x" << dims[1] << "x" << dims[2] << "x" << dims[3];
        ++agreed;
        same += expected;
      }
  // Both answers occur, beyond the trivial have == view.
  EXPECT_GT(same, static_cast<int>(shapes.size() * tags.size()));
  EXPECT_LT(same, agreed);
}

} // namespace
