// A thread per GPU that issues work to it. One thread driving several GPUs issues each GPU's
// launches and NCCL calls after those of the GPUs before it: a few microseconds a GPU, and a
// collective cannot start before its last rank arrives, so a small call over four GPUs waits for
// every GPU's issue in turn. With a launcher per GPU the GPUs' work is issued at once, as from a
// process per GPU. The launchers wait for work spinning for a while, then asleep, so that calls in
// a row hand over in about a microsecond without a thread burning a core for ever.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

namespace gpulab::detail {

/// Runs work(i) for every i < devices.size() at once, each on the launcher thread of devices[i]
/// with that device current, and returns when all have returned, rethrowing the failure of the
/// lowest i that failed. Runs them in turn on the calling thread instead where the devices are not
/// all different, or where the caller is itself a launcher. Callers from several threads take turns.
void on_launchers(std::span<const int> devices, const std::function<void(std::size_t)>& work);

}  // namespace gpulab::detail
