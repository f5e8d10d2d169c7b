// Writes schemas/template.schema.json from the zod/mini template schema (src/create/templateSchema.ts),
// the single definition of the format. test/unit/create/template.test.ts fails when the committed
// file is stale. Usage: node scripts/gen-template-schema.mjs
import * as esbuild from 'esbuild';
import { mkdirSync, writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'gpu-template-schema-'));
try {
  const out = join(dir, 'schema.cjs');
  await esbuild.build({
    entryPoints: [join(root, 'src/create/templateSchema.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: out,
    absWorkingDir: root,
    logLevel: 'warning',
  });
  const { templateJsonSchema } = createRequire(import.meta.url)(out);
  mkdirSync(join(root, 'schemas'), { recursive: true });
  writeFileSync(join(root, 'schemas/template.schema.json'), `${JSON.stringify(templateJsonSchema(), null, 2)}\n`);
  console.log('wrote schemas/template.schema.json');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
