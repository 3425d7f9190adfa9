// The exit codes of `gpulab` (also in `gpulab --help` and the README).
#pragma once

namespace gpulab {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   // a check failed, a CUDA error, a file could not be written, too little memory
  kExitUsage = 2,     // bad command line
  kExitNoDevice = 3,  // no CUDA device or driver
  kExitSlower = 4,    // `compare`: a row got slower beyond its noise (or broke) in the second run
  kExitMissingTool = 5,  // `profile` without ncu, `sanitize` without compute-sanitizer
};

}  // namespace gpulab
