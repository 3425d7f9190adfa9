# The call of this record, on the GPU machine with the build of 4c8af19 carried (build/device.tar.xz)
build/device/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*:SgemmLibrary.*:SgemmOzaki.*:Atax.*' --gtest_brief=1
