bash build/callAQ.sh   # scan rung 8: persistent blocks, the next tile bulk-copied in while one is scanned (branch wip/scan-pipelined, 29f1664)
