// The commented example "New Template" writes; unit tested to be a valid template.
// Its name is the file's: a fixed sample name made two identical titles in the template picker.
export function exampleTemplate(name: string): string {
  return EXAMPLE_TEMPLATE.replace('"name": "PyTorch on one RTX 4090"', `"name": ${JSON.stringify(name)}`);
}

const EXAMPLE_TEMPLATE = `{
  // GPU Rental workspace template. Hover any property for its documentation.
  // Strings may use \${workspaceFolder}, \${workspaceFolderBasename}, \${env:NAME} and
  // \${secret:NAME} (set with "GPU Rental: Set Template Secret"; never commit passwords).
  "name": "PyTorch on one RTX 4090",
  "description": "Cheapest verified RTX 4090 under $1/h, SSH into /workspace.",

  // Which machines to rent: every search filter of the marketplace.
  "offer": {
    "gpuNames": ["RTX 4090"],
    "numGpus": 1,
    "minGpuRamGb": 24,        // per GPU, in GB
    "minReliability": 0.95,   // fraction 0..1
    "verified": true,
    "minDirectPorts": 1,
    "maxDphTotal": 1.0,       // never rent above this $/h
    "type": "on-demand",      // or "bid" (interruptible) with "bidPrice": 0.25
    "rank": "cheapest"        // or "best-value" (performance per $)
  },

  // The creation request (PUT /api/v0/asks/{offer_id}/).
  "instance": {
    "image": "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-devel",
    "label": "\${workspaceFolderBasename}",   // a unique suffix is added per creation
    "disk": 32,                               // GB
    "runtype": "ssh_direct",
    "env": {
      "PROJECT": "\${workspaceFolderBasename}",
      "-p 8080:8080": "1"                     // port mapping host:container
    },
    "onstart": "pip install -q -r /workspace/requirements.txt || true"
    // or "onstartFile": "scripts/onstart.sh" (workspace-relative, max 4048 characters)
  },

  // The idle guard: a watchdog on the instance, added to onstart, that stops it when idle even
  // with VS Code closed. Without this block your gpuRental.guard.* settings apply (on: 30 min).
  // Keep a long job alive with:  touch /tmp/gpu-rental/busy  (every few minutes).
  // "guard": {
  //   "idleMinutes": 30,      // minutes with GPUs below gpuUtilBelow, no SSH session, no heartbeat
  //   "gpuUtilBelow": 5,      // percent; the busiest GPU counts
  //   "keepWhileSsh": true,   // an open SSH session keeps it running
  //   "action": "stop",       // or "destroy" (deletes the disk too)
  //   "maxHours": 12,         // hard cap, whatever the activity
  //   "maxSpend": 10          // hard cap in $ at the rented price
  // },
  // or "guard": false, to rent without it.

  // The Remote-SSH entry and what Connect opens.
  "ssh": {
    "remoteFolder": "/workspace",
    "localForwards": [{ "localPort": 8080, "remotePort": 8080 }]
  }
}
`;
