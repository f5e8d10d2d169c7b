// The unused-export check of the lint tier (scripts/lint.mjs, CONTRIBUTING.md "Lint rules"): an
// export of src/ must be used by another file of src/ or bench/. An export that only tests use is
// allowed when its name says so (ends in `ForTests`) or its doc comment carries `@internal test`;
// one its own file uses is allowed (the file needs it; tests may pin it down too).
// An export nobody uses at all fails: delete it. It reads the same program the typechecker
// does (tsconfig.json: src, test, bench) with the linter's TypeScript 6, resolving every
// identifier to the export it names, so type-only, namespace (`m.x`) and import() uses count.
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';

const ts = createRequire(import.meta.url)('typescript');

/** Export names a test may use alone: `…ForTests`, or `/** @internal test *\/` on its declaration. */
export function namedForTests(name, declaration) {
  if (name.endsWith('ForTests')) return true;
  return ts.getJSDocTags(declaration).some((t) => t.tagName.text === 'internal' && /^\s*test\b/.test(ts.getTextOfJSDocComment(t.comment) ?? ''));
}

/** Who uses each declared symbol: 'own' (its file), 'src' (src/ or bench/) or 'test'. */
function usesOf(program, root) {
  const checker = program.getTypeChecker();
  const uses = new Map();
  const note = (sym, who) => {
    if (!uses.has(sym)) uses.set(sym, new Set());
    uses.get(sym).add(who);
  };
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || sf.fileName.includes('/node_modules/')) continue;
    const rel = relative(root, sf.fileName).split(sep).join('/');
    const kind = rel.startsWith('test/') ? 'test' : 'src';
    const visit = (node) => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
        let sym = checker.getSymbolAtLocation(node);
        if (sym && sym.flags & ts.SymbolFlags.Alias) {
          try {
            sym = checker.getAliasedSymbol(sym);
          } catch {
            // an unresolved import: nothing to count
          }
        }
        const decl = sym?.declarations?.[0];
        if (decl && !(decl.name === node)) note(sym, decl.getSourceFile() === sf ? 'own' : kind);
        // `const { a } = await import('./m')`: the property `a` names m's export.
        if (
          ts.isBindingElement(node.parent) &&
          node.parent.parent &&
          ts.isObjectBindingPattern(node.parent.parent) &&
          (node.parent.propertyName ?? node.parent.name) === node
        ) {
          const prop = checker.getTypeAtLocation(node.parent.parent).getProperty(node.text);
          const pd = prop?.declarations?.[0];
          if (prop && pd) note(prop, pd.getSourceFile() === sf ? 'own' : kind);
        }
      }
      // `lazy(load.sshKeys, 'addSshKey')`: a name given as a string next to a module loader
      // (or a module) names that module's export.
      if (ts.isCallExpression(node)) {
        for (const arg of node.arguments) {
          if (!ts.isStringLiteral(arg)) continue;
          for (const other of node.arguments) {
            if (other === arg) continue;
            const t = checker.getTypeAtLocation(other);
            const returned = t.getCallSignatures().map((s) => checker.getAwaitedType(s.getReturnType()) ?? s.getReturnType());
            for (const c of [t, ...returned]) {
              const prop = c.getProperty(arg.text);
              const pd = prop?.declarations?.[0];
              if (prop && pd) note(prop, pd.getSourceFile() === sf ? 'own' : kind);
            }
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return uses;
}

/**
 * Problems with the exports of `root`/src: one line per export nobody uses, and per export only
 * tests use that is not named for tests. `entries` are files whose exports are the outside world's
 * (VS Code calls activate()); `outside` names exports used by scripts outside the program, by file.
 */
export function unusedExports(root, { tsconfig = join(root, 'tsconfig.json'), entries = [], outside = {} } = {}) {
  const host = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  };
  const cfg = ts.getParsedCommandLineOfConfigFile(tsconfig, { noEmit: true }, host);
  const program = ts.createProgram({ rootNames: cfg.fileNames, options: cfg.options });
  const checker = program.getTypeChecker();
  const uses = usesOf(program, root);
  const problems = [];
  for (const sf of program.getSourceFiles()) {
    const rel = relative(root, sf.fileName).split(sep).join('/');
    if (sf.isDeclarationFile || !rel.startsWith('src/') || entries.includes(rel)) continue;
    const mod = checker.getSymbolAtLocation(sf);
    if (!mod) continue;
    for (const exp of checker.getExportsOfModule(mod)) {
      const decl = exp.declarations?.[0];
      // Re-exports are checked where they are declared.
      if (!decl || decl.getSourceFile() !== sf || exp.flags & ts.SymbolFlags.Alias) continue;
      const who = uses.get(exp) ?? new Set();
      const { line } = sf.getLineAndCharacterOfPosition(decl.getStart());
      const where = `${rel}:${line + 1}`;
      if (who.has('src') || who.has('own') || outside[rel]?.includes(exp.name)) continue;
      if (who.has('test')) {
        if (!namedForTests(exp.name, decl))
          problems.push(
            `${where}: export ${exp.name} is used only by tests: name it …ForTests or mark it /** @internal test */ (or use it, or stop exporting it)`,
          );
        continue;
      }
      if (!who.has('own')) problems.push(`${where}: export ${exp.name} is used by nobody: delete it`);
    }
  }
  return problems;
}
