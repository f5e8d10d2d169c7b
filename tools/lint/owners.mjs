// One owner per side effect (CONTRIBUTING.md "Architecture"), in one table read by the ESLint
// config: each row is something exactly one file (or a few named files) of src/ may do; anywhere
// else in src/ the selector is an error with the row's message. As coder/vscode-coder bans direct
// use of its API client and of setContext, this keeps a second writer from creeping back in.
// (Which files may import a command file is a layer rule: tools/lint/layers.mjs.)

/** { owner: files of src/ that may, selector: ESLint AST selector of the act, message }. */
export const OWNERS = [
  {
    owner: ['src/app/commandTable.ts'],
    selector: 'MemberExpression[property.name=/^register(TextEditor)?Command$/]',
    message: 'Commands are registered only by the command table in src/app/commandTable.ts: add a row there.',
  },
  {
    // src/agent/mcpPorts.ts: the MCP server is its own process, without VS Code or its proxy settings.
    owner: ['src/app/apiAccess.ts', 'src/agent/mcpPorts.ts'],
    selector: "CallExpression[callee.name='createApiClient'], CallExpression[callee.property.name='createApiClient']",
    message: 'API clients are made only by apiClientFactory (src/app/apiAccess.ts), which applies the proxy settings: use services.api(), or the factory.',
  },
  {
    owner: ['src/account/apiKey.ts'],
    selector: "MemberExpression[property.name='setApiKey'], CallExpression[callee.property.name=/^(store|delete)$/][arguments.0.value='apiKey']",
    message: 'The API key is stored and set on the connection only by its owner (src/account/apiKey.ts): call services.apiKey.save() or .clear().',
  },
  {
    owner: ['src/billing/vscode/billingSession.ts'],
    selector:
      ":matches(VariableDeclarator, PropertyDefinition, TSPropertySignature) TSTypeReference[typeName.name='BillingSession'], AssignmentExpression[left.property.name='billing']",
    message:
      'The billing session has one owner (src/billing/vscode/billingSession.ts): ask it with billingSession(services) or runningBilling(services); never keep a copy.',
  },
  {
    owner: ['src/core/stateKeys.ts'],
    selector:
      'VariableDeclarator[id.name=/_KEY$/] > Literal[value=/^gpuRental\\./], CallExpression[callee.property.name=/^(get|update)$/][callee.object.property.name=/^(globalState|workspaceState)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/], CallExpression[callee.property.name=/^(get|update)$/][callee.object.name=/^(globalState|workspaceState|state)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
    message: 'Every globalState/workspaceState key lives in src/core/stateKeys.ts (so two features never share one by accident): add it there and import it.',
  },
  {
    // No file: a message a user reads is never a bare string, so it can be translated.
    owner: [],
    selector:
      'CallExpression[callee.property.name=/^show(Information|Warning|Error)Message$/][arguments.0.type=/^(Literal|TemplateLiteral)$/], CallExpression[callee.name=/^(tellDone|tellNothing)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
    message:
      'A message a user reads goes through vscode.l10n.t(\'… {0} …\', value) so it can be translated (CONTRIBUTING.md "Localization"; `npm run l10n` writes l10n/bundle.l10n.json).',
  },
  {
    // No file: a core's text translated when its module loads stays English, as @vscode/l10n gets
    // VS Code's bundle at activation (src/app/coreL10n.ts), after the bundle has loaded.
    owner: [],
    selector: [
      'VariableDeclarator > CallExpression',
      'VariableDeclarator > ObjectExpression > Property > CallExpression',
      'VariableDeclarator > ArrayExpression > ObjectExpression > Property > CallExpression',
    ]
      .flatMap((tail) => [`Program > VariableDeclaration > ${tail}`, `Program > ExportNamedDeclaration > VariableDeclaration > ${tail}`])
      .map((s) => `${s}[callee.object.name='l10n'][callee.property.name='t']`)
      .join(', '),
    message:
      'A module constant made with l10n.t is translated before activation configures @vscode/l10n, so it stays English: make it a function (or a getter) that calls l10n.t when the text is shown.',
  },
];

/**
 * ESLint flat-config objects: every row's selector on src/, then, for each owner file, the rows
 * it does not own (a later config object's options replace an earlier one's for the same rule).
 */
export function ownerConfigs() {
  const rule = (rows) => ['error', ...rows.map(({ selector, message }) => ({ selector, message }))];
  const owners = [...new Set(OWNERS.flatMap((r) => r.owner))];
  return [
    { files: ['src/**/*.ts'], rules: { 'no-restricted-syntax': rule(OWNERS) } },
    ...owners.map((file) => ({ files: [file], rules: { 'no-restricted-syntax': rule(OWNERS.filter((r) => !r.owner.includes(file))) } })),
  ];
}
