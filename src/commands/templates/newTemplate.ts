// gpuRental.newTemplate: writes a commented example into .gpu/ and opens it.
import * as vscode from 'vscode';

export const EXAMPLE_TEMPLATE = `{
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

  // The Remote-SSH entry and what Connect opens.
  "ssh": {
    "remoteFolder": "/workspace",
    "localForwards": [{ "localPort": 8080, "remotePort": 8080 }]
  }
}
`;

export async function newTemplate(): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    void vscode.window.showErrorMessage('Templates live in a workspace folder, and none is open. Open a folder, then run "New Template" again.');
    return undefined;
  }
  const folder = folders.length === 1 ? folders[0]! : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Folder to create the template in' });
  if (!folder) return undefined;
  const name = await vscode.window.showInputBox({
    title: 'New GPU Rental template',
    prompt: 'File name in .gpu/',
    value: 'my-gpu-box',
    validateInput: (v) => (/^[A-Za-z0-9._-]+$/.test(v.replace(/\.json$/, '')) ? undefined : 'Use letters, digits, ".", "_" and "-".'),
  });
  if (!name) return undefined;
  const uri = vscode.Uri.joinPath(folder.uri, '.gpu', `${name.replace(/\.json$/, '')}.json`);
  try {
    await vscode.workspace.fs.stat(uri);
    void vscode.window.showErrorMessage(`${vscode.workspace.asRelativePath(uri)} already exists. Choose another name, or open the existing file.`);
    return undefined;
  } catch {
    // does not exist: good
  }
  await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder.uri, '.gpu'));
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(EXAMPLE_TEMPLATE));
  await vscode.window.showTextDocument(uri);
  return uri;
}
