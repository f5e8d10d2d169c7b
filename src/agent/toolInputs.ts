// Every tool's input, defined once with zod: the handlers parse with it, and the JSON Schema that
// package.json's languageModelTools and the MCP server's tool list carry is generated from it
// (toolCatalogue.ts). Bounds are tight on purpose: an agent's negative, huge or non-integer
// number is a clear error before anything is sent.
import * as z from 'zod/mini';

function doc<T extends z.ZodMiniType>(schema: T, description: string): T {
  z.globalRegistry.add(schema, { description });
  return schema;
}

/** Ids the service hands out: positive integers (never 0, never beyond 2^31). */
const id = (what: string) => doc(z.int().check(z.gte(1), z.lte(2_147_483_647)), what);

const instanceId = () => id('The instance id (the number after # in list_instances).');
const quoteId = () =>
  doc(
    z.string().check(z.minLength(1), z.maxLength(64)),
    'The quote id a previous call of this tool returned. Give it only after the user agreed to the quoted price.',
  );

export const searchOffersInput = z.strictObject({
  query: z.optional(
    doc(
      z.string().check(z.minLength(1), z.maxLength(500)),
      'A query in the official CLI\'s language, e.g. "num_gpus>=2 gpu_name=RTX_4090 dph<1.5 reliability>0.98". When given, the structured filters below are ignored.',
    ),
  ),
  gpu_names: z.optional(
    doc(
      z.array(z.string().check(z.minLength(1), z.maxLength(40))).check(z.minLength(1), z.maxLength(10)),
      'GPU models exactly as the marketplace names them, e.g. ["RTX 4090", "A100 SXM4"].',
    ),
  ),
  num_gpus: z.optional(doc(z.int().check(z.gte(1), z.lte(64)), 'Exact number of GPUs.')),
  min_gpu_ram_gb: z.optional(doc(z.number().check(z.gt(0), z.lte(1024)), 'Minimum memory per GPU in GB.')),
  max_dph: z.optional(doc(z.number().check(z.gt(0), z.lte(1000)), 'Maximum price in dollars per hour (disk included).')),
  min_reliability: z.optional(doc(z.number().check(z.gte(0), z.lte(1)), 'Minimum host reliability between 0 and 1, e.g. 0.98.')),
  disk_gb: z.optional(doc(z.int().check(z.gte(1), z.lte(16_384)), 'Disk in GB the quoted prices include. Default 8.')),
  limit: z.optional(doc(z.int().check(z.gte(1), z.lte(50)), 'How many offers to return, cheapest first. Default 10.')),
});

export const noInput = z.strictObject({});

export const instanceInput = z.strictObject({ instance_id: instanceId() });

export const logsInput = z.strictObject({
  instance_id: instanceId(),
  tail: z.optional(doc(z.int().check(z.gte(1), z.lte(2000)), 'How many of the last lines to return. Default 100.')),
});

export const rentInput = z.strictObject({
  offer_id: z.optional(id('The offer to rent (from search_offers). Without it the cheapest offer that fits the template is quoted.')),
  template: z.optional(
    doc(
      z.string().check(z.minLength(1), z.maxLength(500)),
      'A workspace template file to rent with (e.g. ".gpu/train.json"): image, disk, guard, price cap and SSH options come from it.',
    ),
  ),
  image: z.optional(
    doc(
      z.string().check(z.minLength(1), z.maxLength(200)),
      'Without a template: the container image, e.g. "pytorch/pytorch:latest". The default idle guard applies.',
    ),
  ),
  disk_gb: z.optional(doc(z.int().check(z.gte(1), z.lte(16_384)), 'Without a template: the disk in GB. Default 16.')),
  quote_id: z.optional(quoteId()),
});

export const startInput = z.strictObject({ instance_id: instanceId(), quote_id: z.optional(quoteId()) });

export const destroyInput = z.strictObject({
  instance_id: instanceId(),
  confirm: doc(
    z.string().check(z.minLength(1), z.maxLength(100)),
    "The instance's label or id, repeated exactly as list_instances shows it, after the user agreed to destroy it and all its data.",
  ),
});

export const decideIncreaseInput = z.strictObject({
  increase_id: id('The pending price increase id (from price_increases).'),
  decision: doc(z.enum(['accept', 'reject']), 'accept: keep the instance at the new price. reject: refuse it (the host may end the contract at its end date).'),
  quote_id: z.optional(quoteId()),
});
