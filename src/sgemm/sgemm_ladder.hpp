// The SGEMM ladder's table: the only place a rung is registered (bench, tests, `gpulab list`).
#pragma once

#include "core/ladder.hpp"
#include "sgemm/sgemm_args.hpp"

#include <cuda_runtime.h>

#include <span>

namespace gpulab {

/// The arithmetic a rung does, which decides the error bound it is checked against
/// (sgemm_cpu.hpp): FP32 on the CUDA cores, 3xTF32 or TF32 on the tensor cores, the Ozaki scheme
/// II on INT8 tensor cores with 8 or 7 moduli.
enum class SgemmMath { fp32, tf32x3, tf32, ozaki8, ozaki7 };

/// An SGEMM rung's launch function and what it needs of its operands (of the GPU: RungInfo::needs).
struct SgemmOps {
  /// C = alpha·A·B + beta·C, asynchronously on `stream` (C not read when beta = 0).
  void (*run)(const sgemm_device::GemmArgs& g, cudaStream_t stream) = nullptr;
  SgemmMath math = SgemmMath::fp32;
  bool needs_aligned_rows = false;  // 16-byte loads of A and B: rows 16-byte aligned
  bool every_form = false;          // reads operands stored transposed too (GemmArgs), not only as stored
  bool batches = false;             // runs a strided batch (GemmArgs::batch > 1) as one call
};

using SgemmRung = Rung<SgemmOps>;

/// naive … pipelined, the library's gpulab::sgemm, the tensor-core rows (3xTF32, cuBLAS TF32),
/// then the vendor (cublasSgemm, FP32).
std::span<const SgemmRung> sgemm_rungs();

}  // namespace gpulab
