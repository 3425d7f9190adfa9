// The matrix ladders' tables (transpose, add, triangle zeroing): the only place a rung is
// registered (docs/adding.md). The bench, the tests, the CLI's `list` and the reports walk them.
#pragma once

#include "core/ladder.hpp"

#include <gpulab/matrix.hpp>

#include <cuda_runtime.h>

#include <span>

namespace gpulab {

/// Every operand a matrix rung may use; each operation reads the ones it needs.
struct MatrixArgs {
  MatrixView<const float> a;  // transpose: the input; add: the first input
  MatrixView<const float> b;  // add: the second input
  MatrixView<float> out;      // transpose: aᵀ; add: c; zeroing: the matrix, in place
  float alpha = 1.f, beta = 1.f;
  Triangle part = Triangle::upper;
};

/// A matrix rung's launch function: its work on `stream`, asynchronously.
struct MatrixOps {
  void (*run)(const MatrixArgs& args, cudaStream_t stream) = nullptr;
  /// Works on `out` alone, in place (out starts as the input: transpose in place, zeroing).
  bool in_place = false;
};

using MatrixRung = Rung<MatrixOps>;

/// Each ladder in order, the library's function among it, then the vendor where there is one
/// (cublasSgeam for transpose and add; cuBLAS has no triangle zeroing).
std::span<const MatrixRung> transpose_rungs();
std::span<const MatrixRung> add_rungs();
std::span<const MatrixRung> triangle_rungs();

}  // namespace gpulab
