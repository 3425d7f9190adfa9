// The conv ladder's table (conv_ladder.hpp).
#include "conv/conv_kernels.cuh"
#include "conv/conv_ladder.hpp"
#include "conv/conv_paths.hpp"
#include "conv/npp_filter.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"

#include <string>

namespace gpulab {
namespace {

using conv_device::ConvArgs;

/// Rungs 1–2: 32 × 8 threads a block, a thread per pixel.
dim3 pixel_grid(const ConvArgs& a) {
  return tile_grid(static_cast<std::size_t>(a.width), 32, static_cast<std::size_t>(a.height), 8, "conv");
}

void run_thread_per_pixel(const ConvArgs& a, cudaStream_t s) {
  launch("conv_thread_per_pixel", conv_ladder::thread_per_pixel, {pixel_grid(a), dim3(32, 8)}, s, a)
      .work([] { return std::string("a thread per pixel, 32x8 a block"); });
}

void run_constant_filter(const ConvArgs& a, cudaStream_t s) {
  launch("conv_constant_filter", conv_ladder::constant_filter, {pixel_grid(a), dim3(32, 8)}, s, a)
      .work([] { return std::string("a thread per pixel, 32x8 a block"); });
}

// ---- the texture object ----------------------------------------------------------------------------

/// The texture the last call read, kept while calls read the same image (a benchmark's repetitions
/// create it once). A texture object only describes memory (address, pitch, sizes), so the same
/// description stays right for a new allocation at the same address. Replacing it waits for the
/// device, since a kernel may still read through the old one; the last one lives until the process
/// ends.
cudaTextureObject_t image_texture(const ConvArgs& a) {
  struct Described {
    int device = -1;
    const std::uint8_t* in = nullptr;
    std::size_t pitch = 0;
    int width = 0, height = 0;
    cudaTextureObject_t texture = 0;
  };
  thread_local Described last;
  int device = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  if (last.texture != 0 && last.device == device && last.in == a.in && last.pitch == a.in_pitch && last.width == a.width &&
      last.height == a.height)
    return last.texture;
  if (last.texture != 0) {
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    GPULAB_CUDA_CHECK(cudaDestroyTextureObject(last.texture));
    last = {};
  }
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = const_cast<std::uint8_t*>(a.in);
  resource.res.pitch2D.desc = cudaCreateChannelDesc<unsigned char>();
  resource.res.pitch2D.width = 3 * static_cast<std::size_t>(a.width);
  resource.res.pitch2D.height = static_cast<std::size_t>(a.height);
  resource.res.pitch2D.pitchInBytes = a.in_pitch;
  cudaTextureDesc texture{};
  texture.addressMode[0] = texture.addressMode[1] = cudaAddressModeClamp;
  texture.filterMode = cudaFilterModePoint;
  texture.readMode = cudaReadModeElementType;
  cudaTextureObject_t object = 0;
  GPULAB_CUDA_CHECK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
  last = {device, a.in, a.in_pitch, a.width, a.height, object};
  return object;
}

std::optional<std::string> texture_refuses(const ConvArgs& a) {
  const auto alignment = static_cast<std::size_t>(current_device_attribute(cudaDevAttrTexturePitchAlignment));
  const auto max_width = static_cast<std::size_t>(current_device_attribute(cudaDevAttrMaxTexture2DLinearWidth));
  const auto max_height = current_device_attribute(cudaDevAttrMaxTexture2DLinearHeight);
  if (a.in_pitch % alignment != 0)
    return "a pitched texture needs rows a multiple of " + std::to_string(alignment) + " bytes apart (these are " +
           std::to_string(a.in_pitch) + ": try --layout aligned)";
  if (3 * static_cast<std::size_t>(a.width) > max_width || a.height > max_height)
    return "a pitched texture holds at most " + std::to_string(max_width) + " bytes x " + std::to_string(max_height) + " rows";
  return std::nullopt;
}

void run_texture(const ConvArgs& a, cudaStream_t s) {
  launch("conv_texture_reads", conv_ladder::texture_reads, {pixel_grid(a), dim3(32, 8)}, s, a, image_texture(a))
      .work([] { return std::string("a thread per pixel, 32x8 a block, bytes through a pitched 2-D texture"); });
}

// ---- the other rows ----------------------------------------------------------------------------------

void run_four_pixels(const ConvArgs& a, cudaStream_t s) {
  const dim3 grid = tile_grid((static_cast<std::size_t>(a.width) + 3) / 4, 32, static_cast<std::size_t>(a.height), 8, "conv");
  launch("conv_four_pixels", conv_ladder::four_pixels, {grid, dim3(32, 8)}, s, a)
      .work([] { return std::string("4 pixels a thread (three 32-bit words a row), 32x8 threads a block"); });
}

void run_shared_tile(const ConvArgs& a, cudaStream_t s) { conv_detail::run_shared_tile(a, s); }

void run_centre_blocks(const ConvArgs& a, cudaStream_t s) {
  const dim3 grid = tile_grid(static_cast<std::size_t>(a.width), conv_ladder::kTileW, static_cast<std::size_t>(a.height),
                              conv_ladder::kTileH, "conv");
  launch("conv_centre_blocks", conv_ladder::centre_blocks, {grid, dim3(conv_ladder::kTileW, conv_ladder::kTileH)}, s, a)
      .work([] { return std::string("a 32x8 tile; blocks inside the image load words unchecked, edge blocks bytes"); });
}

void run_sliding_window(const ConvArgs& a, cudaStream_t s) { conv_detail::run_sliding_window(a, s); }

void run_lanes(const ConvArgs& a, cudaStream_t s) { conv_detail::run_lanes(a, s); }
std::optional<std::string> lanes_refuse(const ConvArgs& a) {
  if (conv_detail::lanes_fit(a)) return std::nullopt;
  return "two channels a register need 16-byte-aligned rows and weights whose magnitudes sum to at most 128";
}

void run_lanes_realigned(const ConvArgs& a, cudaStream_t s) { conv_detail::run_lanes_realigned(a, s); }
std::optional<std::string> lanes_realigned_refuse(const ConvArgs& a) {
  if (conv_detail::lane_weights_fit(a)) return std::nullopt;
  return "two channels a register need weights whose magnitudes sum to at most 128";
}

void run_library(const ConvArgs& a, cudaStream_t s) {
  conv3x3(a.in, a.in_pitch, a.out, a.out_pitch, static_cast<std::size_t>(a.width), static_cast<std::size_t>(a.height),
          a.filter, a.border, s);
}

void run_npp(const ConvArgs& a, cudaStream_t s) { npp_filter_border(a, s); }
std::optional<std::string> npp_refuses(const ConvArgs& a) {
  if (auto why = npp_unavailable()) return why;
  if (a.border != Border::replicate) return "NPP's FilterBorder supports only the replicate border";
  return std::nullopt;
}

constexpr ConvRung row(std::string_view name, std::string_view adds, std::string_view claims,
                       void (*run)(const ConvArgs&, cudaStream_t), Role role = Role::rung,
                       std::optional<std::string> (*refuses)(const ConvArgs&) = nullptr) {
  return {{name, adds, role, false, false, claims}, {run, refuses}};
}

constexpr ConvRung kRungs[] = {
    row("thread_per_pixel", "a thread per pixel, byte loads, the border rule on every neighbour, the weights in global memory", "global_loads instructions",
        run_thread_per_pixel),
    row("constant_filter", "the filter a kernel parameter: the constant bank, one word broadcast to a warp", "instructions",
        run_constant_filter),
    row("texture_reads", "compared option: rung 2 reading every byte through a pitched 2-D texture object", "global_loads", run_texture,
        Role::rung, texture_refuses),
    row("four_pixels", "4 pixels a thread: their 12 bytes as three 32-bit words a row, written back as words; division by a multiply-high", "global_loads load_sectors store_sectors instructions",
        run_four_pixels),
    row("shared_tile", "a 32x8 tile from its 34x10 neighbourhood in shared memory, each byte loaded once a block", "global_loads bank_conflicts",
        run_shared_tile),
    row("centre_blocks", "blocks inside the image load their neighbourhood as words, no border rule; edge blocks apart", "branches instructions",
        run_centre_blocks),
    row("sliding_window", "16 pixels x 8 rows a thread, 3 rows in registers; 16-byte loads and stores on aligned rows", "global_loads registers",
        run_sliding_window),
    row("lanes", "two channels in the 16-bit halves of each register (one multiply for two), the next row loaded during this one, 3-row bands", "instructions",
        run_lanes, Role::rung, lanes_refuse),
    row("realigned_lanes", "the lanes on rows at any alignment: a run's words funnel-shifted out of five aligned 16-byte loads; "
        "16-byte stores from each lane's first boundary, the next lane's first bytes by shuffle", "instructions store_sectors",
        run_lanes_realigned, Role::rung, lanes_realigned_refuse),
    row("library",
        "gpulab::conv3x3: the lanes from 2^16 pixels where the weights allow (realigned on rows off 16-byte boundaries); else, on "
        "aligned rows, the window from 2^22 pixels (unaligned ones staged through aligned copies from 2^24); the shared tile otherwise", "dram",
        run_library, Role::library),
    row("nppiFilterBorder", "the vendor library (NPP, loaded at run time; replicate border only)", "dram", run_npp, Role::vendor,
        npp_refuses),
};

}  // namespace

std::span<const ConvRung> conv_rungs() { return kRungs; }

}  // namespace gpulab
