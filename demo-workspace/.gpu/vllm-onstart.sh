#!/bin/sh
# vllm-server.json's onstart: ssh_direct replaces the image's entrypoint, so start the server.
env >> /etc/environment
mkdir -p /workspace/hf
nohup python3 -m vllm.entrypoints.openai.api_server \
  --model "${VLLM_MODEL:-Qwen/Qwen2.5-7B-Instruct}" --host 0.0.0.0 --port 8000 \
  > /workspace/vllm.log 2>&1 &
