// The multi-GPU forms of reduce, histogram, atax and scan for the runner (multi/multi_bench.hpp):
// the same inputs as their one-GPU cases, split by elements (reduce, histogram, scan) or rows (atax),
// checked against the same CPU references.
#pragma once

#include "atax/atax_file.hpp"
#include "conv/image.hpp"
#include "sgemm/sgemm_cpu.hpp"

#include <gpulab/conv.hpp>
#include <gpulab/multi_gpu.hpp>
#include "core/dtype.hpp"
#include "histogram/histogram_cpu.hpp"
#include "scan/scan_cpu.hpp"
#include "multi/multi_bench.hpp"

#include <memory>

namespace gpulab {

std::unique_ptr<MultiCase> make_reduce_multi(DType type, std::size_t n, std::uint64_t seed);
std::unique_ptr<MultiCase> make_histogram_multi(HistogramDistribution d, std::size_t n, std::uint32_t m,
                                                std::uint64_t seed);
std::unique_ptr<MultiCase> make_atax_multi(AtaxShape shape, std::uint64_t seed);
/// C = alpha·A·B (beta 0, packed), A split by rows, C gathered on every rank.
std::unique_ptr<MultiCase> make_sgemm_multi(SgemmShape shape, float alpha, std::uint64_t seed);
/// A generated packed image filtered in bands of rows: the result gathered on every rank, or each
/// rank keeping its own rows.
std::unique_ptr<MultiCase> make_conv_multi(std::size_t width, std::size_t height, const Filter3x3& filter, Border border,
                                           std::uint64_t seed, multi::Gather gather = multi::Gather::all);
/// In among int8, int16, int32, float32, float64 (the scan problem's types).
std::unique_ptr<MultiCase> make_scan_multi(DType type, ScanKind kind, std::size_t n, std::uint64_t seed);

}  // namespace gpulab
