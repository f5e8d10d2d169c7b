// Authenticator-app setup view. Holds no state of its own (nothing in setState): the
// key stays in the page only while the view is open.
(function () {
  const vscode = acquireVsCodeApi();
  const form = document.getElementById('form');
  const code = document.getElementById('code');
  const label = document.getElementById('label');
  const status = document.getElementById('status');
  const verify = document.getElementById('verify');
  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'error' : '';
    code.setAttribute('aria-invalid', isError ? 'true' : 'false');
  }
  document.getElementById('copy').addEventListener('click', () => vscode.postMessage({ type: 'copy' }));
  // Demo mode only: the code a real app would show, one click into the field.
  const demoCode = document.getElementById('demo-code');
  const useDemo = document.getElementById('use-demo');
  if (useDemo && demoCode) {
    useDemo.addEventListener('click', () => {
      code.value = demoCode.textContent || '';
      code.focus();
    });
  }
  document.getElementById('cancel').addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') vscode.postMessage({ type: 'cancel' });
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const c = code.value.replace(/\s/g, '');
    if (!/^[0-9]{6}$/.test(c)) {
      say('Enter the 6-digit code your authenticator app shows (digits only).', true);
      code.focus();
      return;
    }
    if (label.value.trim().length > 30) {
      say('The label can be at most 30 characters.', true);
      label.focus();
      return;
    }
    verify.disabled = true;
    say('Verifying…', false);
    vscode.postMessage({ type: 'submit', code: c, label: label.value.trim() });
  });
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (m && m.type === 'result' && m.error) {
      verify.disabled = false;
      say(m.error, true);
      code.select();
      code.focus();
    } else if (m && m.type === 'demoCode' && demoCode && typeof m.code === 'string') {
      demoCode.textContent = m.code;
    } else if (m && m.type === 'copied') {
      say('Key copied to the clipboard.', false);
    }
  });
  code.focus();
})();
