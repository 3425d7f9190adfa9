bash build/callAP.sh   # scan rung 8 with the look-back read by the whole block (branch wip/scan-block-lookback, 816c924)
