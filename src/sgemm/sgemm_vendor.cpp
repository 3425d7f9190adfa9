// SgemmPrecision::tf32 through cuBLAS's TF32 GEMM, where the policy and the rule
// (sgemm_dispatch.cu, vendor_takes_tf32) give it that: the vendor as one of the library's paths.
//
// libgpulab does not link cuBLAS (its users need the CUDA runtime alone): the first such call opens
// libcublas.so.<the major version built against> with dlopen, which finds the copy a process
// already holds (PyTorch's, CuPy's) before any on the library path. Where none opens, tf32 runs on
// gpulab's own kernels, as on GPUs without this path.
#include "lib/launch_log.hpp"
#include "lib/per_device.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>

#include <cublas_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gpulab::sgemm_detail {
namespace {

// The entry points used, as cublas_api.h declares them (the static_casts below fail to compile
// where a declaration differs).
using Create = cublasStatus_t (*)(cublasHandle_t*);
using SetStream = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
using StatusString = const char* (*)(cublasStatus_t);
using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
                                  cudaDataType, int, const void*, cudaDataType, int, const void*, void*, cudaDataType, int,
                                  cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                                const void*, cudaDataType, int, long long, const void*, cudaDataType, int, long long,
                                                const void*, void*, cudaDataType, int, long long, int, cublasComputeType_t,
                                                cublasGemmAlgo_t);
static_assert(sizeof(static_cast<Create>(&cublasCreate_v2)) && sizeof(static_cast<SetStream>(&cublasSetStream_v2)) &&
              sizeof(static_cast<StatusString>(&cublasGetStatusString)) && sizeof(static_cast<GemmEx>(&cublasGemmEx)) &&
              sizeof(static_cast<GemmStridedBatchedEx>(&cublasGemmStridedBatchedEx)));

struct Cublas {
  Create create;
  SetStream set_stream;
  StatusString status_string;
  GemmEx gemm;
  GemmStridedBatchedEx gemm_strided_batched;

  void check(cublasStatus_t status, const char* what) const {
    if (status != CUBLAS_STATUS_SUCCESS)
      throw Error(std::string("gpulab::sgemm (tf32, through cuBLAS): ") + what + " failed: " + status_string(status));
  }
};

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

/// cuBLAS's entry points, or nothing where the library does not open (it stays open for the process).
std::optional<Cublas> open_cublas() {
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return std::nullopt;
  Cublas c{symbol<Create>(library, "cublasCreate_v2"), symbol<SetStream>(library, "cublasSetStream_v2"),
           symbol<StatusString>(library, "cublasGetStatusString"), symbol<GemmEx>(library, "cublasGemmEx"),
           symbol<GemmStridedBatchedEx>(library, "cublasGemmStridedBatchedEx")};
  if (!c.create || !c.set_stream || !c.status_string || !c.gemm || !c.gemm_strided_batched) return std::nullopt;
  return c;
}

const Cublas* cublas() {
  static const std::optional<Cublas> opened = open_cublas();
  return opened ? &*opened : nullptr;
}

/// cuBLAS handles are bound to a device and are not to be shared by threads at once: each thread
/// takes one per device from this pool and gives it back when it ends. Handles are never destroyed
/// (as PyTorch keeps its own): at the process's exit the CUDA context may already be gone.
class HandlePool {
 public:
  cublasHandle_t take(const Cublas& blas, int device) {
    {
      std::lock_guard lock(mutex_);
      if (std::vector<cublasHandle_t>& free = free_[device]; !free.empty()) {
        const cublasHandle_t h = free.back();
        free.pop_back();
        return h;
      }
    }
    // cublasCreate allocates; a capture in progress on another stream of this process must not
    // forbid that (the call's own stream may be the one being captured).
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    GPULAB_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    cublasHandle_t h = nullptr;
    const cublasStatus_t status = blas.create(&h);
    GPULAB_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    blas.check(status, "cublasCreate");
    return h;
  }
  void give_back(int device, cublasHandle_t h) {
    std::lock_guard lock(mutex_);
    free_[device].push_back(h);
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<cublasHandle_t>> free_;
};

HandlePool& handle_pool() {
  static HandlePool& pool = *new HandlePool;  // outlives every thread's handles
  return pool;
}

/// This thread's handles, one per device it has called on.
struct ThreadHandles {
  std::map<int, cublasHandle_t> held;
  ThreadHandles() = default;
  ThreadHandles(const ThreadHandles&) = delete;
  ThreadHandles& operator=(const ThreadHandles&) = delete;
  ~ThreadHandles() {
    for (const auto& [device, h] : held) handle_pool().give_back(device, h);
  }
  cublasHandle_t on(const Cublas& blas, int device) {
    auto it = held.find(device);
    if (it == held.end()) it = held.emplace(device, handle_pool().take(blas, device)).first;
    return it->second;
  }
};

thread_local ThreadHandles thread_handles;

}  // namespace

bool vendor_tf32_found() { return cublas() != nullptr; }

bool tf32_through_vendor(const GemmArgs& g, std::size_t batch) {
  return current_sgemm_policy().tf32_vendor && vendor_takes_tf32(g, batch) && vendor_tf32_found();
}

void vendor_tf32(const GemmArgs& g, std::size_t batch, cudaStream_t stream) {
  const Cublas* blas = cublas();
  if (blas == nullptr) throw Error("gpulab::sgemm (tf32): cuBLAS could not be opened");
  const cublasHandle_t h = thread_handles.on(*blas, current_device());
  blas->check(blas->set_stream(h, stream), "cublasSetStream");
  // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS reads B as it lies (a
  // column-major op(B)ᵀ when B is stored as is) first, then A.
  const cublasOperation_t op_b = g.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, op_a = g.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int lda = static_cast<int>(g.lda), ldb = static_cast<int>(g.ldb), ldc = static_cast<int>(g.ldc);  // vendor_takes_tf32: they fit
  constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_32F_FAST_TF32;
  if (batch == 1) {
    blas->check(blas->gemm(h, op_b, op_a, g.n, g.m, g.k, &g.alpha, g.b, CUDA_R_32F, ldb, g.a, CUDA_R_32F, lda, &g.beta, g.c,
                           CUDA_R_32F, ldc, kCompute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
  } else {
    for (std::size_t first = 0; first < batch; first += INT_MAX) {
      const GemmArgs part = g.member(first);
      const int count = static_cast<int>(std::min<std::size_t>(INT_MAX, batch - first));
      blas->check(blas->gemm_strided_batched(h, op_b, op_a, g.n, g.m, g.k, &g.alpha, part.b, CUDA_R_32F, ldb,
                                             static_cast<long long>(g.stride_b), part.a, CUDA_R_32F, lda,
                                             static_cast<long long>(g.stride_a), &g.beta, part.c, CUDA_R_32F, ldc,
                                             static_cast<long long>(g.stride_c), count, kCompute, CUBLAS_GEMM_DEFAULT),
                  "cublasGemmStridedBatchedEx");
    }
  }
  note_library_call(batch == 1 ? "cublasGemmEx" : "cublasGemmStridedBatchedEx", "cuBLAS TF32, its kernels not listed", stream);
}

}  // namespace gpulab::sgemm_detail
