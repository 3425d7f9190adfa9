#include "multi/world.hpp"

#include <gpulab/error.hpp>

#include <cstdlib>
#include <cstring>

#ifdef GPULAB_WITH_MPI
#include <mpi.h>
#endif

namespace gpulab {
namespace {

class SingleProcess final : public World {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_device(int) const override { return 0; }
  void barrier() const override {}
  double max(double x) const override { return x; }
  bool all(bool x) const override { return x; }
  bool same_everywhere(unsigned long long) const override { return true; }
  void broadcast(std::vector<std::byte>&) const override {}
  ncclUniqueId broadcast_id(const ncclUniqueId& id) const override { return id; }
  [[noreturn]] void abort(int code) const override { std::exit(code); }
};

#ifdef GPULAB_WITH_MPI
void check_mpi(int r, const char* what) {
  if (r != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}

class MpiWorld final : public World {
 public:
  MpiWorld() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) check_mpi(MPI_Init(nullptr, nullptr), "MPI_Init");
    check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    MPI_Comm host;  // the processes sharing this host: their order picks the GPU
    check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
    check_mpi(MPI_Comm_rank(host, &host_rank_), "MPI_Comm_rank");
    MPI_Comm_free(&host);
  }
  ~MpiWorld() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_device(int device_count) const override { return device_count > 0 ? host_rank_ % device_count : 0; }
  void barrier() const override { check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  double max(double x) const override {
    double out = 0.0;
    check_mpi(MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  bool all(bool x) const override {
    int in = x ? 1 : 0, out = 0;
    check_mpi(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    return out == 1;
  }
  bool same_everywhere(unsigned long long key) const override {
    unsigned long long lo = 0, hi = 0;
    check_mpi(MPI_Allreduce(&key, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(&key, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return lo == hi;
  }
  void broadcast(std::vector<std::byte>& bytes) const override {
    unsigned long long n = bytes.size();
    check_mpi(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    bytes.resize(n);
    if (n > 0) check_mpi(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }
  ncclUniqueId broadcast_id(const ncclUniqueId& id) const override {
    ncclUniqueId out = id;
    check_mpi(MPI_Bcast(&out, sizeof out, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return out;
  }
  [[noreturn]] void abort(int code) const override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }

 private:
  int rank_ = 0, size_ = 1, host_rank_ = 0;
};
#endif

}  // namespace

std::unique_ptr<World> single_process() { return std::make_unique<SingleProcess>(); }

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

std::unique_ptr<World> mpi_world() {
#ifdef GPULAB_WITH_MPI
  return std::make_unique<MpiWorld>();
#else
  throw Error("this gpulab was built without MPI (install libopenmpi-dev and rebuild); run it without mpirun");
#endif
}

}  // namespace gpulab
