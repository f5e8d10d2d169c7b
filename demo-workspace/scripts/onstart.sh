#!/bin/sh
# Runs on the instance after it boots (sent as the template's onstart).
mkdir -p /workspace && cd /workspace && echo "ready: $(nvidia-smi -L 2>/dev/null | head -1)" > /workspace/READY
