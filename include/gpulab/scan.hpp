// gpulab/scan.hpp — prefix sums of a device vector, the top rung of gpulab's scan ladder.
//
//   std::size_t temp_bytes = gpulab::scan_temp_bytes<float>(n);
//   gpulab::DeviceBuffer<std::byte> temp(temp_bytes);
//   cudaMemset(temp.data(), 0, temp_bytes);                       // once, when the storage is new
//   gpulab::inclusive_scan(d_in, d_out, n, temp.data(), temp_bytes, stream);   // as often as needed
//
// Contract
// - In is std::int8_t, std::int16_t, std::int32_t, float or double; the output type is
//   scan_result_t<In>: int32 for the integers (8- and 16-bit values summed into int32, the usual
//   way to turn counts into offsets), the input's own type for floats.
// - inclusive_scan: out[i] = in[0] + … + in[i]. exclusive_scan: out[0] = 0, out[i] = in[0] + … +
//   in[i-1]. Any n ≥ 0 (n = 0 does nothing; sizes past 2^31 elements are fine). `in` and `out` may
//   be the same pointer (in place) but must not otherwise overlap. Any alignment of the element
//   type; 16-byte aligned pointers take the vectorised path.
// - Integers wrap modulo 2^32 (the same bits as a serial loop in unsigned arithmetic).
// - Floats accumulate in their own type and are deterministic: the same input on the same device
//   gives the same bits on every call, whatever the timing of the blocks. Element i is within
//   γ_k·Σ_{l≤i}|in[l]| of the exact prefix (γ_k = k·u / (1 − k·u), u the unit roundoff), with
//   k = scan_accumulation_depth<In>(i): a constant plus one per tile of scan_tile_elements<In>()
//   before element i, because each tile's prefix is its predecessor's plus one addition.
// - One kernel launch on `stream`, asynchronous to the host; nothing is allocated.
// - Temporary storage: at least scan_temp_bytes<In>(n) bytes of device memory, zero-filled before
//   its first use and then left to gpulab: every call leaves it ready for the next, so it can be
//   reused by later calls on any stream that are ordered after it, but not by two calls that may
//   run at the same time.
// - Throws gpulab::Error on a null pointer with n > 0, on too little temporary storage, on n too
//   large for one grid (more than 2^31 − 1 tiles), and on any CUDA error of the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpulab {

/// What a scan of In produces: int32 for 8-, 16- and 32-bit integers, the type itself for floats.
template <class In>
using scan_result_t = std::conditional_t<std::is_integral_v<In>, std::int32_t, In>;

/// Bytes of temporary storage a scan of n elements of In needs: 256 bytes plus 16 a tile of
/// scan_tile_elements<In>() (0.4% of the input for 8-bit values, less for wider ones).
template <class In>
std::size_t scan_temp_bytes(std::size_t n);

/// out[i] = in[0] + … + in[i] (see the contract above).
template <class In>
void inclusive_scan(const In* in, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    cudaStream_t stream = nullptr);

/// out[0] = 0, out[i] = in[0] + … + in[i-1] (see the contract above).
template <class In>
void exclusive_scan(const In* in, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    cudaStream_t stream = nullptr);

/// Segmented scans: a segment starts at element 0 and at every i with heads[i] ≠ 0 (n one-byte flags
/// in device memory, not overlapping `out`), and each segment is scanned on its own:
/// inclusive_segmented_scan gives out[i] = in[h] + … + in[i], h the first element of i's segment;
/// exclusive_segmented_scan gives out[i] = in[h] + … + in[i-1], 0 at a segment's first element.
/// Everything else is the scan's contract above: the types, in place allowed, wrapping integers,
/// deterministic floats, element i within γ_k·Σ_{h≤l≤i}|in[l]| of the exact prefix with
/// k = scan_accumulation_depth<In>(i), one launch, and the temporary storage (scan_temp_bytes<In>(n),
/// interchangeable with the plain scan's).
template <class In>
void inclusive_segmented_scan(const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n, void* temp,
                              std::size_t temp_bytes, cudaStream_t stream = nullptr);

/// See inclusive_segmented_scan.
template <class In>
void exclusive_segmented_scan(const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n, void* temp,
                              std::size_t temp_bytes, cudaStream_t stream = nullptr);

/// Segmented scans by key: a segment is a run of equal keys (n of them in device memory, Key int32_t
/// or int64_t, not overlapping `out`): one starts at element 0 and at every i with keys[i] ≠
/// keys[i-1], as CUB's InclusiveSumByKey takes them. The rest as above.
template <class In, class Key>
void inclusive_segmented_scan_by_key(const In* in, const Key* keys, scan_result_t<In>* out, std::size_t n, void* temp,
                                     std::size_t temp_bytes, cudaStream_t stream = nullptr);

/// See inclusive_segmented_scan_by_key.
template <class In, class Key>
void exclusive_segmented_scan_by_key(const In* in, const Key* keys, scan_result_t<In>* out, std::size_t n, void* temp,
                                     std::size_t temp_bytes, cudaStream_t stream = nullptr);

/// Segments by offsets: heads[i] = 1 where some offsets[j] = i, 0 elsewhere, for the segmented scans
/// above (n one-byte flags, `count` offsets of Offset int32_t or int64_t, all in device memory). The
/// offsets may come in any order and repeat (an empty segment); those outside [0, n) are skipped, so
/// CSR-style row pointers (0, …, n) work as they are. Two launches on `stream` (a memset and a
/// scatter); throws gpulab::Error on a null pointer where n or count is not 0.
template <class Offset>
void segment_heads_from_offsets(const Offset* offsets, std::size_t count, std::size_t n, std::uint8_t* heads,
                                cudaStream_t stream = nullptr);

/// Elements of one tile: the unit of work of one block, and the step of the error bound.
template <class In>
std::size_t scan_tile_elements();

/// The longest chain of additions behind element i, plus one for the final rounding: the k of the
/// error bound above.
template <class In>
std::size_t scan_accumulation_depth(std::size_t i);

}  // namespace gpulab
