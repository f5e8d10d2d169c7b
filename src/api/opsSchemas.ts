// Response schemas of the instance operations and the server-template search (service-today §6),
// re-exported by schemas.ts so the client loads them with the rest.
import * as z from 'zod/mini';
import type { LogRequestResult, ServerTemplate } from './types';

const str = z.catch(z.optional(z.nullable(z.string())), undefined);
const num = z.catch(z.optional(z.nullable(z.union([z.number(), z.pipe(z.string().check(z.regex(/^\s*-?\d+(\.\d+)?\s*$/)), z.transform(Number))]))), undefined);
const bool = z.catch(
  z.optional(
    z.nullable(
      z.union([
        z.boolean(),
        z.pipe(
          z.literal([0, 1]),
          z.transform((v) => v === 1),
        ),
      ]),
    ),
  ),
  undefined,
);

export const logRequestResultSchema = z.pipe(
  z.looseObject({ result_url: z.string().check(z.minLength(1)), msg: str }),
  z.transform((w): LogRequestResult => ({ result_url: w.result_url, ...(w.msg ? { msg: w.msg } : {}) })),
);

const templateRow = z.looseObject({
  id: z.union([z.number().check(z.int()), z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number))]),
  hash_id: z.string().check(z.minLength(1)),
  name: str,
  image: str,
  tag: str,
  env: str,
  onstart: str,
  onstart_cmd: str,
  runtype: str,
  args_str: str,
  recommended: bool,
  recommended_disk_space: num,
  desc: str,
  count_created: num,
  use_jupyter_lab: bool,
  jupyter_dir: str,
  ssh_direct: bool,
  jup_direct: bool,
  use_ssh: bool,
  private: bool,
  creator_id: num,
  docker_login_repo: str,
});

/** `{templates: [...]}`; a row without id or hash_id is dropped, not the whole answer. */
export const templateListSchema = z.pipe(
  z.looseObject({ templates: z.catch(z.array(z.unknown()), []) }),
  z.transform((w): ServerTemplate[] => {
    const out: ServerTemplate[] = [];
    for (const raw of w.templates) {
      const r = z.safeParse(templateRow, raw);
      if (!r.success) continue;
      const t = r.data;
      const { onstart_cmd, ...rest } = t;
      const row: ServerTemplate = { ...rest, name: t.name || t.hash_id, image: t.image ?? '' } as ServerTemplate;
      if (!row.onstart && onstart_cmd) row.onstart = onstart_cmd;
      for (const k of Object.keys(row) as Array<keyof ServerTemplate>) if (row[k] === undefined) delete row[k];
      out.push(row);
    }
    return out;
  }),
);
