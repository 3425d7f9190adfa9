# One call on an H200 with the build of 804c95f carried (conv rung 10, rows_once, reverted at 3a0da23); the call script was kept beside the build:
build/ci-device/tests/gpulab_gpu_tests --gtest_filter='*ConvLadder*rows_once*:*ConvLadder*lanes*'
for round in 1 2; do gpulab bench conv -s 7680x4320,3840x2160,15360x8640,1920x1080 --border replicate,zero --variants 8,10,library,vendor --json conv_$round.json --md conv_$round.md; done
gpulab profile conv -s 7680x4320 --variants 8,10 --json profile_conv.json --md profile_conv.md
