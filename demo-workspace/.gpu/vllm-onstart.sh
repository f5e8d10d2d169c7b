#!/bin/sh
# Sent as onstart by vllm-server.json. With ssh_direct the service's entrypoint replaces the
# image's, so the server has to be started here. Variables are appended to /etc/environment
# so they are visible in SSH sessions too.
env >> /etc/environment
mkdir -p /workspace/hf
nohup python3 -m vllm.entrypoints.openai.api_server \
  --model "${VLLM_MODEL:-Qwen/Qwen2.5-7B-Instruct}" --host 0.0.0.0 --port 8000 \
  > /workspace/vllm.log 2>&1 &
