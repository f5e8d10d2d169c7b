// Backup-codes view: buttons post to the extension, which does the copying and saving.
(function () {
  const vscode = acquireVsCodeApi();
  const status = document.getElementById('status');
  for (const id of ['copy', 'save', 'done']) {
    document.getElementById(id).addEventListener('click', () => vscode.postMessage({ type: id }));
  }
  window.addEventListener('message', (e) => {
    if (e.data && e.data.type === 'status') status.textContent = e.data.text;
  });
  document.getElementById('copy').focus();
})();
