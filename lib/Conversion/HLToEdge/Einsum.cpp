//===- Einsum.cpp - hl.einsum to transposes, reductions and matmuls -------===//
//
// The equation is parsed into one label string per operand (an ellipsis
// becomes digit labels, right-aligned across operands so its dimensions
// broadcast) and the output's labels (implicit outputs follow NumPy:
// ellipsis, then the letters used once, sorted). Each operand first loses
// its repeated labels (the diagonal: `select` against an identity mask and
// `reduce_sum` over one copy) and the labels no one else needs
// (`reduce_sum`). Operands are then contracted left to right: shared labels
// still needed later are batch dimensions of an `edge.matmul`, the others
// its contracted dimension. A final transpose orders the output.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// An operand with one label per dimension.
struct Term {
  Value value;
  std::string labels;
  ArrayRef<int64_t> shape() const {
    return cast<RankedTensorType>(value.getType()).getShape();
  }
};

/// Expands the equation into operand and output label strings; returns an
/// explanation on failure.
FailureOr<std::pair<SmallVector<std::string>, std::string>>
parseEquation(StringRef equation, ArrayRef<int64_t> ranks, std::string &error) {
  std::string compact;
  for (char c : equation)
    if (c != ' ')
      compact.push_back(c);
  StringRef text(compact);
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size()) {
    error = "has " + std::to_string(terms.size()) + " terms for " +
            std::to_string(ranks.size()) + " operands";
    return failure();
  }
  // Ellipsis dimensions per term.
  SmallVector<int64_t> ellipsisDims;
  int64_t maxEllipsis = 0;
  for (auto [term, rank] : llvm::zip(terms, ranks)) {
    size_t dots = term.find("...");
    int64_t letters = llvm::count_if(term, llvm::isAlpha);
    if (term.count('.') != (dots == StringRef::npos ? 0u : 3u) ||
        (dots == StringRef::npos && letters != rank) || letters > rank) {
      error = "term '" + term.str() + "' does not fit an operand of rank " +
              std::to_string(rank);
      return failure();
    }
    ellipsisDims.push_back(dots == StringRef::npos ? 0 : rank - letters);
    maxEllipsis = std::max(maxEllipsis, ellipsisDims.back());
  }
  if (maxEllipsis > 10) {
    error = "has more than 10 ellipsis dimensions";
    return failure();
  }
  auto expand = [&](StringRef term, int64_t dims) {
    std::string labels;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] != '.') {
        labels.push_back(term[i]);
        continue;
      }
      for (int64_t j = maxEllipsis - dims; j < maxEllipsis; ++j)
        labels.push_back(static_cast<char>('0' + j));
      i += 2;
    }
    return labels;
  };
  SmallVector<std::string> inputs;
  for (auto [term, dims] : llvm::zip(terms, ellipsisDims))
    inputs.push_back(expand(term, dims));
  std::string output;
  if (explicitOutput) {
    size_t dots = rhs.find("...");
    if (rhs.count('.') != (dots == StringRef::npos ? 0u : 3u)) {
      error = "has a malformed output '" + rhs.str() + "'";
      return failure();
    }
    output = expand(rhs, maxEllipsis);
  } else {
    output = expand("...", maxEllipsis);
    std::string letters;
    for (const std::string &in : inputs)
      letters += in;
    llvm::sort(letters);
    for (char c : letters)
      if (llvm::isAlpha(c) && llvm::count(letters, c) == 1)
        output.push_back(c);
  }
  for (char c : output)
    if (llvm::count(output, c) != 1 ||
        llvm::none_of(inputs, [&](const std::string &in) {
          return llvm::is_contained(in, c);
        })) {
      error = "output label '" + std::string(1, c) +
              "' is repeated or absent from the inputs";
      return failure();
    }
  return std::make_pair(inputs, output);
}

class EinsumBuilder {
public:
  EinsumBuilder(OpBuilder &builder, Location loc, Type elementType)
      : builder(builder), loc(loc), elementType(elementType) {}

  /// Permutes `term` so its labels read `order`.
  void transpose(Term &term, StringRef order) {
    if (term.labels == order)
      return;
    SmallVector<int64_t> perm, shape;
    for (char c : order) {
      int64_t from = term.labels.find(c);
      perm.push_back(from);
      shape.push_back(term.shape()[from]);
    }
    term.value = builder.create<edge::TransposeOp>(loc, term.value, perm);
    term.labels = order.str();
  }

  /// Sums `term` over the dimensions whose label is not in `keep`.
  void reduceExcept(Term &term, StringRef keep) {
    SmallVector<int64_t> axes, shape;
    std::string labels;
    for (auto [i, c] : llvm::enumerate(term.labels)) {
      if (keep.contains(c)) {
        labels.push_back(c);
        shape.push_back(term.shape()[i]);
      } else {
        axes.push_back(i);
      }
    }
    if (axes.empty())
      return;
    term.value = builder.create<edge::ReduceSumOp>(loc, term.value, axes,
                                                   /*keep_dims=*/false);
    term.labels = labels;
  }

  /// Replaces repeated labels of `term` by their diagonal.
  void takeDiagonals(Term &term) {
    for (size_t q = 0; q < term.labels.size(); ++q) {
      size_t p = term.labels.find(term.labels[q]);
      if (p == q)
        continue;
      ArrayRef<int64_t> shape = term.shape();
      int64_t n = shape[p];
      SmallVector<int64_t> maskShape(shape.size(), 1);
      maskShape[p] = maskShape[q] = n;
      SmallVector<bool> mask;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          mask.push_back(i == j);
      auto maskType = RankedTensorType::get(maskShape, builder.getI1Type());
      Value maskValue = builder.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(mask)));
      auto zeroType = RankedTensorType::get(
          SmallVector<int64_t>(shape.size(), 1), elementType);
      Value zero = builder.create<edge::ConstantOp>(
          loc,
          DenseElementsAttr::get(zeroType, builder.getZeroAttr(elementType)));
      Value masked =
          builder.create<edge::SelectOp>(loc, maskValue, term.value, zero);
      SmallVector<int64_t> reduced(shape);
      reduced.erase(reduced.begin() + q);
      term.value = builder.create<edge::ReduceSumOp>(
          loc, masked, ArrayRef<int64_t>{static_cast<int64_t>(q)},
          /*keep_dims=*/false);
      term.labels.erase(q, 1);
      --q;
    }
  }

  /// Contracts `lhs` with `rhs`, keeping the labels in `keep`; the result's
  /// labels are batch, lhs-only, rhs-only.
  Term contract(Term lhs, Term rhs, StringRef keep) {
    std::string batch, contracted, lhsOnly, rhsOnly;
    for (char c : lhs.labels) {
      if (!llvm::is_contained(rhs.labels, c))
        lhsOnly.push_back(c);
      else if (keep.contains(c))
        batch.push_back(c);
      else
        contracted.push_back(c);
    }
    for (char c : rhs.labels)
      if (!llvm::is_contained(lhs.labels, c))
        rhsOnly.push_back(c);
    transpose(lhs, batch + lhsOnly + contracted);
    transpose(rhs, batch + contracted + rhsOnly);
    auto extents = [](const Term &term, size_t from, size_t count) {
      return SmallVector<int64_t>(term.shape().slice(from, count));
    };
    auto product = [](ArrayRef<int64_t> values) {
      int64_t p = 1;
      for (int64_t v : values)
        p *= v;
      return p;
    };
    size_t b = batch.size();
    SmallVector<int64_t> lhsBatch = extents(lhs, 0, b);
    SmallVector<int64_t> rhsBatch = extents(rhs, 0, b);
    SmallVector<int64_t> mExtents = extents(lhs, b, lhsOnly.size());
    SmallVector<int64_t> nExtents =
        extents(rhs, b + contracted.size(), rhsOnly.size());
    int64_t m = product(mExtents), n = product(nExtents);
    int64_t k = product(extents(lhs, b + lhsOnly.size(), contracted.size()));
    SmallVector<int64_t> lhsShape(lhsBatch), rhsShape(rhsBatch), outShape;
    lhsShape.append({m, k});
    rhsShape.append({k, n});
    for (size_t i = 0; i < b; ++i)
      outShape.push_back(std::max(lhsBatch[i], rhsBatch[i]));
    SmallVector<int64_t> resultShape(outShape);
    outShape.append({m, n});
    llvm::append_range(resultShape, mExtents);
    llvm::append_range(resultShape, nExtents);
    Value lhsMatrix = reshapeTo(builder, loc, lhs.value, lhsShape);
    Value rhsMatrix = reshapeTo(builder, loc, rhs.value, rhsShape);
    Value matmul = builder.create<edge::MatMulOp>(loc, lhsMatrix, rhsMatrix);
    return {reshapeTo(builder, loc, matmul, resultShape),
            batch + lhsOnly + rhsOnly};
  }

private:
  OpBuilder &builder;
  Location loc;
  Type elementType;
};

/// hl.einsum -> edge transposes, reductions and batched matmuls.
struct EinsumLowering : public OpConversionPattern<hl::EinsumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    SmallVector<int64_t> ranks;
    for (Value input : adaptor.getInputs())
      ranks.push_back(cast<RankedTensorType>(input.getType()).getRank());
    std::string error;
    auto parsed = parseEquation(op.getEquation(), ranks, error);
    if (failed(parsed))
      return op.emitOpError("equation '")
             << op.getEquation() << "' is not supported: " << error;
    auto &[inputLabels, output] = *parsed;
    // A letter has one extent everywhere; ellipsis dimensions broadcast.
    llvm::DenseMap<char, int64_t> extents;
    for (auto [value, labels] : llvm::zip(adaptor.getInputs(), inputLabels))
      for (auto [c, extent] : llvm::zip(
               labels, cast<RankedTensorType>(value.getType()).getShape())) {
        auto [it, inserted] = extents.try_emplace(c, extent);
        bool broadcasts = llvm::isDigit(c) && (it->second == 1 || extent == 1);
        if (!inserted && it->second != extent && !broadcasts)
          return op.emitOpError("equation '")
                 << op.getEquation() << "' is not supported: label '" << c
                 << "' has extents " << it->second << " and " << extent;
        if (llvm::isDigit(c))
          it->second = std::max(it->second, extent);
      }

    EinsumBuilder builder(rewriter, op.getLoc(), resultType.getElementType());
    SmallVector<Term> terms;
    for (auto [value, labels] : llvm::zip(adaptor.getInputs(), inputLabels))
      terms.push_back({value, labels});
    // Labels needed after term `i`: the output's and those of later terms.
    // (A named reference: clang before 16 cannot capture a structured
    // binding.)
    const std::string &outputLabels = output;
    auto neededAfter = [&](size_t i) {
      std::string needed = outputLabels;
      for (size_t j = i + 1; j < terms.size(); ++j)
        needed += terms[j].labels;
      return needed;
    };
    Term result = terms[0];
    builder.takeDiagonals(result);
    for (size_t i = 1; i < terms.size(); ++i) {
      builder.takeDiagonals(terms[i]);
      std::string keep = neededAfter(i);
      // Labels only one side has and nobody needs are summed first.
      builder.reduceExcept(result, keep + terms[i].labels);
      builder.reduceExcept(terms[i], keep + result.labels);
      result = builder.contract(result, terms[i], keep);
    }
    builder.reduceExcept(result, output);
    builder.transpose(result, output);
    if (result.shape() != resultType.getShape())
      return op.emitOpError("equation '")
             << op.getEquation() << "' yields shape ["
             << llvm::join(llvm::map_range(
                               result.shape(),
                               [](int64_t v) { return std::to_string(v); }),
                           ", ")
             << "], not the result's";
    rewriter.replaceOp(op, result.value);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateEinsumPatterns(TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<EinsumLowering>(converter, patterns.getContext());
}
