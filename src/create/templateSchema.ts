// The workspace template format, defined once. The JSON Schema contributed to VS Code
// (schemas/template.schema.json) is generated from this by scripts/gen-template-schema.mjs,
// and a unit test fails when the committed file is stale.
import * as z from 'zod/mini';
import { BEFORE_STOP_PATTERN, BUSY_WHILE_PATTERN, STOPPED_DAYS_MAX } from '../guard/installed';

/** Attach hover documentation (becomes `description` in the JSON Schema). */
function doc<T extends z.ZodMiniType>(schema: T, description: string): T {
  z.globalRegistry.add(schema, { description });
  return schema;
}

export const RUNTYPES = ['ssh', 'ssh_direct', 'ssh_proxy', 'jupyter', 'jupyter_direct', 'jupyter_proxy', 'args'] as const;

/** The most machines one group rents: the service's bulk calls take at most 64 ids. */
export const MAX_GROUP_COUNT = 64;

const positiveInt = () => z.int().check(z.minimum(1));

export const OfferRequirementsSchema = doc(
  z.strictObject({
    gpuNames: z.optional(
      doc(
        z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
        'GPU models to accept, exactly as the marketplace names them (e.g. "RTX 4090", "A100 SXM4"). One name searches with eq, several with in.',
      ),
    ),
    numGpus: z.optional(doc(positiveInt(), 'Exact number of GPUs per instance.')),
    minNumGpus: z.optional(doc(positiveInt(), 'Minimum number of GPUs per instance.')),
    minGpuRamGb: z.optional(doc(z.number().check(z.positive()), 'Minimum memory per GPU in GB (sent to the service in MB, ×1000).')),
    minReliability: z.optional(doc(z.number().check(z.gte(0), z.lte(1)), 'Minimum host reliability as a fraction between 0 and 1 (e.g. 0.98).')),
    verified: z.optional(doc(z.boolean(), 'Only identity-verified hosts. Default: true.')),
    rentable: z.optional(doc(z.boolean(), 'Only machines rentable right now. Default: true.')),
    minDirectPorts: z.optional(
      doc(z.int().check(z.gte(0)), 'Minimum number of directly reachable ports (needed for ssh_direct / jupyter_direct and port mappings).'),
    ),
    maxDphTotal: z.optional(doc(z.number().check(z.positive()), 'Maximum total price in dollars per hour. Offers above it are never shown or rented.')),
    type: z.optional(doc(z.enum(['on-demand', 'bid']), 'Pricing: "on-demand" (fixed price, default) or "bid" (interruptible; needs bidPrice).')),
    bidPrice: z.optional(
      doc(
        z.number().check(z.positive()),
        'Bid in dollars per hour for an interruptible ("bid") instance. Required with type "bid", not allowed with "on-demand".',
      ),
    ),
    order: z.optional(
      doc(
        z.array(z.tuple([z.string().check(z.minLength(1)), z.enum(['asc', 'desc'])])),
        'Server-side sort order as [field, direction] pairs, e.g. [["dlperf_per_dphtotal", "desc"]]. Default: score descending.',
      ),
    ),
    limit: z.optional(doc(z.int().check(z.minimum(1), z.maximum(1000)), 'Maximum number of offers to fetch (the service returns 64 without a limit).')),
    rank: z.optional(
      doc(
        z.enum(['cheapest', 'best-value']),
        'How matches are ranked in the pick list: "cheapest" first (default) or "best-value" (deep-learning performance per $/h).',
      ),
    ),
  }),
  'Which offers (machines) to rent: every search filter of the service.',
);

export const VolumeInfoSchema = doc(
  z.strictObject({
    volume_id: doc(z.int().check(z.minimum(1)), 'Id of an existing volume.'),
    mount_path: doc(z.string().check(z.minLength(1)), 'Absolute path where the volume is mounted in the container.'),
  }),
  'Attach an existing volume. Both volume_id and mount_path are required.',
);

export const InstanceSpecSchema = doc(
  z.strictObject({
    image: z.optional(
      doc(z.string().check(z.minLength(1)), 'Container image, e.g. "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-devel". Required unless template_hash_id is given.'),
    ),
    template_hash_id: z.optional(
      doc(
        z.string().check(z.minLength(1)),
        'A service-side template to use as the base configuration; fields given here override it and env is merged (your keys win).',
      ),
    ),
    label: z.optional(
      doc(
        z.string().check(z.minLength(1), z.maxLength(64)),
        'Instance name. A unique suffix is added per creation so an interrupted request can be reconciled. Default: the template name.',
      ),
    ),
    disk: z.optional(doc(z.number().check(z.positive()), 'Local disk size in GB. Default: 8.')),
    runtype: z.optional(
      doc(
        z.enum(RUNTYPES),
        'Launch mode: ssh/ssh_proxy (SSH via proxy), ssh_direct, jupyter/jupyter_proxy, jupyter_direct (recommended for Jupyter) or args (keep the image entrypoint; args_str replaces CMD; no SSH).',
      ),
    ),
    target_state: z.optional(doc(z.enum(['running', 'stopped']), 'Initial state: "running" (default) or "stopped".')),
    env: z.optional(
      doc(
        z.record(z.string(), z.string()),
        'Environment variables as an object {"NAME": "value"}. A key "-p HOST:CONTAINER" with value "1" maps a port. Do not use "-e NAME=value" strings. Values may use ${secret:NAME}.',
      ),
    ),
    onstart: z.optional(
      doc(z.string(), 'Shell commands run after the service entrypoint initialises (max 4048 characters). Use onstart or onstartFile, not both.'),
    ),
    onstartFile: z.optional(
      doc(z.string().check(z.minLength(1)), 'Workspace-relative path of a script whose content is sent as onstart (max 4048 characters after reading).'),
    ),
    args_str: z.optional(doc(z.string(), 'Replaces the image CMD. Only with runtype "args".')),
    use_jupyter_lab: z.optional(doc(z.boolean(), 'Start JupyterLab instead of Jupyter Notebook.')),
    jupyter_dir: z.optional(doc(z.string(), 'Directory Jupyter starts in.')),
    python_utf8: z.optional(doc(z.boolean(), 'Set the Python locale to C.UTF-8.')),
    lang_utf8: z.optional(doc(z.boolean(), 'Set the system locale to C.UTF-8.')),
    image_login: z.optional(
      doc(z.string(), 'Private registry credentials as registry flags, e.g. "-u user -p ${secret:REGISTRY_TOKEN} ghcr.io". Keep passwords in ${secret:NAME}.'),
    ),
    cancel_unavail: z.optional(doc(z.boolean(), 'Fail fast when the offer cannot start immediately instead of waiting.')),
    vm: z.optional(doc(z.boolean(), 'Create a VM instead of a container (register an SSH key first: there is no recovery without one).')),
    volume_info: z.optional(VolumeInfoSchema),
  }),
  'The creation request sent to PUT /api/v0/asks/{offer_id}/ (every field of the service creation table).',
);

export const LocalForwardSchema = doc(
  z.strictObject({
    localPort: doc(z.int().check(z.minimum(1), z.maximum(65535)), 'Port on your machine.'),
    remoteHost: z.optional(doc(z.string().check(z.minLength(1)), 'Host as seen from the instance. Default: localhost.')),
    remotePort: doc(z.int().check(z.minimum(1), z.maximum(65535)), 'Port on the remote host.'),
  }),
  'An SSH LocalForward: localhost:localPort on your machine reaches remoteHost:remotePort from the instance.',
);

export const SshOptionsSchema = doc(
  z.strictObject({
    remoteFolder: z.optional(doc(z.string().check(z.minLength(1)), 'Folder to open in the remote window, e.g. "/workspace".')),
    user: z.optional(doc(z.string().check(z.minLength(1)), 'SSH user. Default: root.')),
    identityFile: z.optional(doc(z.string().check(z.minLength(1)), 'Private key to use. Default: the gpuRental SSH identity setting.')),
    localForwards: z.optional(doc(z.array(LocalForwardSchema), 'Ports forwarded from your machine to the instance.')),
  }),
  'How the generated Remote-SSH entry looks and which folder Connect opens.',
);

export const GuardSchema = doc(
  z.strictObject({
    idleMinutes: z.optional(
      doc(
        z.int().check(z.minimum(1), z.maximum(10080)),
        'Act after this many minutes of continuous idleness. Default: the gpuRental.guard.idleMinutes setting (30).',
      ),
    ),
    gpuUtilBelow: z.optional(
      doc(
        z.number().check(z.gte(1), z.lte(100)),
        'A GPU counts as idle below this utilisation in percent (the busiest GPU counts). Default: the gpuRental.guard.gpuUtilBelow setting (5).',
      ),
    ),
    action: z.optional(
      doc(
        z.enum(['stop', 'destroy']),
        'What the guard does: "stop" (default; billing for the GPU ends, the disk is kept and still billed) or "destroy" (deletes the instance and its disk). Destroy is never a default.',
      ),
    ),
    keepWhileSsh: z.optional(doc(z.boolean(), 'An open SSH session (VS Code Remote-SSH, a terminal) keeps the instance running. Default: true.')),
    maxHours: z.optional(doc(z.number().check(z.positive()), 'Hard cap: act after this many hours of running, whatever the activity.')),
    maxSpend: z.optional(
      doc(
        z.number().check(z.positive()),
        'Hard cap: act once this many dollars were spent since the instance started, at the price known at creation, whatever the activity.',
      ),
    ),
    busyWhile: z.optional(
      doc(
        z
          .array(
            z
              .string()
              .check(
                z.regex(
                  BUSY_WHILE_PATTERN,
                  'A part of a command line: 2 to 80 letters, digits, spaces and . _ / : = @ + , % - (no quotes or shell characters), e.g. "python train.py".',
                ),
              ),
          )
          .check(z.minLength(1), z.maxLength(8)),
        'Processes that keep the instance running while they run: a part of their command line each, e.g. ["python train.py"]. Matched literally against every process on the instance (the guard log says "busy (process python train.py)").',
      ),
    ),
    beforeStop: z.optional(
      doc(
        z.string().check(z.regex(BEFORE_STOP_PATTERN, 'One line of at most 500 characters: join commands with ";" or "&&", or call a script on the instance.')),
        'A shell command the guard runs before it stops or destroys the instance (to save a checkpoint or copy outputs), with a time limit (beforeStopSeconds); its output goes to the guard log. Not run for a refused stop retried later.',
      ),
    ),
    beforeStopSeconds: z.optional(doc(z.int().check(z.minimum(1), z.maximum(3600)), 'Time limit for beforeStop in seconds (1–3600). Default: 300.')),
    destroyAfterStoppedDays: z.optional(
      doc(
        z.int().check(z.minimum(1), z.maximum(STOPPED_DAYS_MAX)),
        "Destroy the instance (disk and all data on it) once it stayed stopped this many days (1–365), so its disk stops billing; a warning comes a day before with Keep. VS Code does it while it runs. For this template's instances it replaces the gpuRental.guard.destroyAfterStoppedDays setting; the Rent confirmation states it, so renting is your consent. Default: the setting (off).",
      ),
    ),
  }),
  'The idle guard: a watchdog on the instance (installed through onstart) that stops it when GPUs, SSH sessions, Jupyter, the busyWhile processes and the heartbeat file /tmp/gpu-rental/busy show no work, even with your laptop closed. false turns it off for this template.',
);

export const TemplateSchema = doc(
  z.strictObject({
    $schema: z.optional(doc(z.string(), 'The JSON Schema of this file (optional; VS Code applies it to .gpu/*.json anyway).')),
    name: doc(z.string().check(z.minLength(1), z.maxLength(80)), 'Display name shown in pick lists.'),
    description: z.optional(doc(z.string(), 'What this template is for.')),
    count: z.optional(
      doc(
        z.int().check(z.minimum(1), z.maximum(MAX_GROUP_COUNT)),
        `How many machines one Create rents for one job (1 to ${MAX_GROUP_COUNT}; default 1). From 2, a group: machines in one physical cluster on one private network, all or none, each told its rank and rank 0's address (MASTER_ADDR, NODE_RANK, WORLD_SIZE) for torchrun, DeepSpeed, MPI or Ray. Docker instances with SSH only; see docs/multi-node.md.`,
      ),
    ),
    offer: z.optional(OfferRequirementsSchema),
    instance: InstanceSpecSchema,
    ssh: z.optional(SshOptionsSchema),
    guard: z.optional(
      doc(
        z.union([GuardSchema, z.literal(false)]),
        'The idle guard on the instance: stops it after idleMinutes without GPU work, SSH session or heartbeat, even with your laptop closed. An object tunes it; false turns it off for this template. Without this property the gpuRental.guard.* settings apply.',
      ),
    ),
  }),
  'A GPU Rental workspace template. Strings may use ${workspaceFolder}, ${workspaceFolderBasename}, ${env:NAME} and ${secret:NAME}.',
);

export type Template = z.infer<typeof TemplateSchema>;

/** The JSON Schema contributed through contributes.jsonValidation (draft-07: what VS Code's JSON service understands best). */
/**
 * The contributed JSON Schema: completion and hover docs only. The extension's own diagnostics
 * (from TemplateSchema itself) own every structural check; a schema that checked too reported
 * every mistake twice in Problems, once in each wording. So the validation keywords are left
 * out; allowed values stay as `examples`, which VS Code still offers as completions.
 */
export function templateJsonSchema(): Record<string, unknown> {
  const s = z.toJSONSchema(TemplateSchema, { target: 'draft-7' }) as Record<string, unknown>;
  // allowComments / allowTrailingCommas: VS Code's own keywords, so the JSONC a template may be is not flagged either.
  return {
    ...(documentationOnly(s) as Record<string, unknown>),
    $id: 'gpu-rental-template',
    title: 'GPU Rental workspace template',
    allowComments: true,
    allowTrailingCommas: true,
  };
}

/** Keywords that make a validator report something; none of them is needed for completion or hover. */
const VALIDATION_KEYWORDS = new Set([
  'type',
  'required',
  'additionalProperties',
  'propertyNames',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'enum',
  'const',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'oneOf',
  'anyOf',
]);

function documentationOnly(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(documentationOnly);
  if (typeof node !== 'object' || node === null) return node;
  const n = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(n)) {
    if (k === '$schema' && typeof v === 'string') out[k] = v;
    else if (k === 'properties' || k === 'definitions' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, sub]) => [p, documentationOnly(sub)]));
    } else if (!VALIDATION_KEYWORDS.has(k)) out[k] = documentationOnly(v);
  }
  // Completion proposals: enum values, a const, true/false for booleans; alternatives' properties merged.
  const examples = new Set<unknown>(Array.isArray(n.examples) ? n.examples : []);
  const collect = (x: Record<string, unknown>): void => {
    if (Array.isArray(x.enum)) for (const e of x.enum) examples.add(e);
    if ('const' in x) examples.add(x.const);
    if (x.type === 'boolean') [true, false].forEach((b) => examples.add(b));
  };
  collect(n);
  for (const alt of [...((n.anyOf as unknown[]) ?? []), ...((n.oneOf as unknown[]) ?? [])]) {
    if (typeof alt !== 'object' || alt === null) continue;
    const a = alt as Record<string, unknown>;
    collect(a);
    if (a.properties)
      out.properties = { ...(documentationOnly({ properties: a.properties }) as { properties: object }).properties, ...(out.properties as object) };
    if (a.items && !out.items) out.items = documentationOnly(a.items);
  }
  if (examples.size) out.examples = [...examples];
  return out;
}
