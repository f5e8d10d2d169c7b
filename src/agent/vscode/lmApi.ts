// VS Code's language-model tool API (stable in 1.95) and MCP server definition API (stable in
// 1.101), declared here as far as this extension uses them: `engines.vscode` stays at ^1.90 and
// @types/vscode with it, so the compiler does not know these names. Every use goes through
// lmApi(), which answers undefined where the running VS Code lacks the API (a runtime check, not a
// version number: forks and code-server ship their own). Shapes follow vscode.d.ts of 1.101.
import * as vscode from 'vscode';

export interface ToolPrepareOptions {
  readonly input: unknown;
}

export interface ToolInvocationOptions {
  readonly input: unknown;
  /** Set when the call comes from a chat; undefined for vscode.lm.invokeTool outside one. */
  readonly toolInvocationToken: unknown;
}

export interface ToolConfirmation {
  title: string;
  message: string | vscode.MarkdownString;
}

export interface PreparedToolInvocation {
  invocationMessage?: string | vscode.MarkdownString;
  /** Present: VS Code asks the user (Continue / Cancel, or a modal outside a chat) before invoke(). */
  confirmationMessages?: ToolConfirmation;
}

/** An opaque vscode.LanguageModelToolResult. */
export type ToolResult = { readonly content: readonly unknown[] };

export interface LanguageModelTool {
  prepareInvocation?(options: ToolPrepareOptions, token: vscode.CancellationToken): vscode.ProviderResult<PreparedToolInvocation>;
  invoke(options: ToolInvocationOptions, token: vscode.CancellationToken): vscode.ProviderResult<ToolResult>;
}

/** vscode.McpStdioServerDefinition (1.101). */
export interface McpStdioServerDefinition {
  readonly label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}

export interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: (listener: () => void) => { dispose(): void };
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
  resolveMcpServerDefinition?(server: McpStdioServerDefinition, token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition>;
}

/** What activation registers with (VS Code 1.95+; the MCP provider 1.101+). */
export interface LmApi {
  registerTool(name: string, tool: LanguageModelTool): vscode.Disposable;
  /** Absent before 1.101 (1.100 has it behind a proposed-API flag: calling it throws there). */
  registerMcpServerDefinitionProvider?(id: string, provider: McpServerDefinitionProvider): vscode.Disposable;
}

type Ctor<A extends unknown[], T> = new (...args: A) => T;

interface LmModule {
  lm?: Partial<LmApi>;
  LanguageModelToolResult?: Ctor<[unknown[]], ToolResult>;
  LanguageModelTextPart?: Ctor<[string], unknown>;
  McpStdioServerDefinition?: Ctor<[string, string, string[], Record<string, string>, string], McpStdioServerDefinition>;
}

const vscodeModule = (): LmModule => vscode as unknown as LmModule;

/** The registration functions where this VS Code has the tool API (and its result classes), else undefined. */
export function lmApi(m: LmModule = vscodeModule()): LmApi | undefined {
  const lm = m.lm;
  if (typeof lm?.registerTool !== 'function' || typeof m.LanguageModelToolResult !== 'function' || typeof m.LanguageModelTextPart !== 'function')
    return undefined;
  const registerMcp = lm.registerMcpServerDefinitionProvider;
  return {
    registerTool: lm.registerTool.bind(lm),
    ...(typeof registerMcp === 'function' ? { registerMcpServerDefinitionProvider: registerMcp.bind(lm) } : {}),
  };
}

/** new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]) (lmApi() checked both exist). */
export function textResult(text: string, m: LmModule = vscodeModule()): ToolResult {
  const { LanguageModelToolResult: Result, LanguageModelTextPart: Text } = m;
  if (!Result || !Text) throw new Error('This VS Code has no language-model tool results.');
  return new Result([new Text(text)]);
}

/** new vscode.McpStdioServerDefinition(…), or undefined where the class does not exist. */
export function stdioServer(
  label: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  version: string,
  m: LmModule = vscodeModule(),
): McpStdioServerDefinition | undefined {
  const Stdio = m.McpStdioServerDefinition;
  return typeof Stdio === 'function' ? new Stdio(label, command, args, env, version) : undefined;
}
