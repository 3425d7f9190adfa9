// `gpulab conv batch`: seed 001 §5's pipeline over many images — copy in, filter, copy out —
// overlapped across streams, from four kinds of host memory, each stage and the overlap measured.
#pragma once

#include "conv/filter.hpp"

#include <gpulab/conv.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

/// Where the host side of the pipeline keeps the images and the results.
enum class HostMemory {
  pageable,    // malloc'ed: every copy is staged by the driver through a pinned buffer of its own
  pinned,      // cudaMallocHost: the copy engines read and write it directly
  registered,  // malloc'ed, then pinned with cudaHostRegister
  managed,     // cudaMallocManaged: no copies; prefetches move the pages, the kernel reads them in place
};

std::optional<HostMemory> parse_host_memory(std::string_view word);
std::string_view host_memory_name(HostMemory m);

struct BatchOptions {
  std::vector<std::string> files;
  std::string out_dir;
  std::string format = "png";  // of the files written: png or ppm
  int streams = 4;
  std::vector<HostMemory> memories;
  Filter3x3 filter;
  Border border = Border::replicate;
  int reps = 3;       // each stage's time: the median of this many runs
  bool check = true;  // every result against the CPU reference, every memory kind
};

/// Loads the files, runs the pipeline for each memory kind, prints the table and writes the
/// results of the first kind to out_dir. Returns the exit code: non-zero when a kind could not run
/// or a result differed. Throws gpulab::Error on bad files, options or too little memory.
int conv_batch(const BatchOptions& options, std::ostream& out);

}  // namespace gpulab
