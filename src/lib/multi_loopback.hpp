// A test seam for gpulab::multi on one GPU. NCCL refuses two ranks on one device, so the code a
// rank runs only when it is not rank 0 of one (an offset from the ranks before it, broadcasts from
// other roots, a neighbour's rows above) could not otherwise run without several GPUs. While a
// LoopbackRanks is alive on a thread, the all-ranks functions (the overloads taking a span of
// ranks) called on that thread take the span's i-th entry as rank i of span.size() — every rank may
// be on one device, the `comm` fields are not read — and do each collective with copies that follow
// NCCL's semantics (all-gather in rank order, a sum all-reduce, a broadcast from its root), after
// every rank's local part has finished. The ranks must agree on their collectives, as NCCL
// requires; a disagreement throws. Slow and for tests only: nothing is timed through it.
#pragma once

namespace gpulab::multi::detail {

class LoopbackRanks {
 public:
  LoopbackRanks();
  ~LoopbackRanks();
  LoopbackRanks(const LoopbackRanks&) = delete;
  LoopbackRanks& operator=(const LoopbackRanks&) = delete;

 private:
  bool previous_;
};

}  // namespace gpulab::multi::detail
