// The processes a multi-GPU run spans. One process driving every GPU of its host (the default), or
// one process per GPU started by MPI (`mpirun -np N gpulab bench NAME --gpus N …`), each holding
// one rank, possibly on several hosts: what the runner needs across processes — a barrier, the
// slowest time, whether every rank passed, rank 0's bytes, NCCL's unique id — goes through here.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpulab {

class World {
 public:
  virtual ~World() = default;
  virtual int rank() const = 0;  // this process's index
  virtual int size() const = 0;  // processes
  /// The GPU this process's rank uses (MPI: its rank among the processes of its host).
  virtual int local_device(int device_count) const = 0;
  virtual void barrier() const = 0;
  virtual double max(double x) const = 0;
  virtual bool all(bool x) const = 0;
  virtual bool same_everywhere(unsigned long long key) const = 0;
  /// Rank 0's bytes on every rank (`bytes` is resized to rank 0's size).
  virtual void broadcast(std::vector<std::byte>& bytes) const = 0;
  virtual ncclUniqueId broadcast_id(const ncclUniqueId& id) const = 0;
  /// Ends every process with `code` (MPI_Abort): a rank that failed must not leave the others
  /// waiting in a collective.
  [[noreturn]] virtual void abort(int code) const = 0;
};

/// This process alone.
std::unique_ptr<World> single_process();

/// Whether an MPI launcher started this process (Open MPI's or PMI's environment).
bool launched_by_mpi();

/// MPI_Init's world (MPI_Finalize at its end). Throws gpulab::Error where gpulab was built without
/// MPI.
std::unique_ptr<World> mpi_world();

}  // namespace gpulab
