// Wires the extension together: createServices() → registerViews() → registerCommands() →
// registerAgentSurfaces() (language-model tools, the MCP server for VS Code's agent) →
// startWatchers() (what follows later events, started once activate() has returned). Nothing
// else lives here (CONTRIBUTING.md "Architecture" has the feature map and the import rules).
import type * as vscode from 'vscode';
import { createServices } from './app/createServices';
import type { Services } from './core/vscode/services';
import { registerViews, type ViewsUi } from './app/registerViews';
import { registerCommands, resumeInterrupted } from './app/commandTable';
import { startWatchers } from './app/watchers';
import { registerAgentSurfaces, type AgentToolsHandle } from './agent/vscode/agentEntry';

export interface ExtensionApi {
  /** For integration tests and scripts. */
  readonly services: Services;
  /** The window's billing session once it runs (dist/billingSession.js), for integration tests. */
  billing(): unknown;
  /** The tree providers and status bar registerViews made, for integration tests. */
  readonly ui: ViewsUi;
  /** The language-model tools' confirmations, for integration tests; undefined where VS Code has no tool API. */
  readonly agentTools: AgentToolsHandle | undefined;
  /** Resumes interrupted creations as a restart does once the first list arrived (integration tests cannot reload the window). */
  resumeInterrupted(): Promise<void>;
  /** Duration of activate() itself in ms, for the performance bench (VS Code's total also counts loading the module). */
  readonly activateMs: number;
  /** performance.now() when the bundle started and finished evaluating (build banner/footer) and when activate() began. */
  readonly activationTimestamps: { loadStart?: number; loadEnd?: number; activateStart: number };
}

// Set by the first and last lines of dist/extension.js (scripts/build.mjs); absent in unit tests.
declare const __gpuRentalLoadStart: number | undefined;
declare const __gpuRentalLoadEnd: number | undefined;

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const t0 = performance.now();
  const { services, billing } = createServices(context);
  const ui = registerViews(services);
  registerCommands(services);
  const agentTools = registerAgentSurfaces(services, context);
  startWatchers(services);
  const loadStart = typeof __gpuRentalLoadStart === 'number' ? __gpuRentalLoadStart : undefined;
  const loadEnd = typeof __gpuRentalLoadEnd === 'number' ? __gpuRentalLoadEnd : undefined;
  return {
    services,
    billing,
    ui,
    agentTools,
    resumeInterrupted: () => resumeInterrupted(services),
    activateMs: performance.now() - t0,
    activationTimestamps: { loadStart, loadEnd, activateStart: t0 },
  };
}

export function deactivate(): void {
  // disposables are owned by context.subscriptions
}
