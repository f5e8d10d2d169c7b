// Writes one Remote-SSH host entry per instance into a file the extension owns
// (~/.ssh/gpu-rental/config), pulled into the user's SSH config by one marked Include line.
// No `vscode` here: the commands layer passes settings in, tests pass a temporary HOME.
import { join, isAbsolute, dirname } from 'node:path';
import type { Instance, Logger } from '../api/types';
import type { SshEntryWriter, SshOptions, SshOptionsByInstance } from './sshTypes';
import { type FsPort, nodeFsPort, readIfExists, ensurePrivateDir, writeAtomic, withFileLock, errCode, ConcurrentChangeError } from './fsPort';
import { hostKeyAlias, removeKnownHosts } from './knownHosts';
import { analyseUserConfig, includeLineFor, prependInclude, withoutBom, type IncludeStatus, type IncludeRefusal } from './userConfig';
import { sshAddress } from './address';
import { SshValueError, checkSshTarget, sshConfigPath, validHost, validPort } from './sshValues';
import {
  GROUP_ALIAS,
  HEADER,
  MANAGED_DIR,
  PROXY_ALIAS_SUFFIX,
  TEMPLATE_IDENTITY_NOTE,
  aliasFor,
  parseManaged,
  type Block,
  type LocalForward,
  type SshEntry,
} from './sshEntryFormat';
import * as l10n from '@vscode/l10n';

export interface SshConfigWriterOptions {
  /** The user's home directory (os.homedir() in the extension, a temp dir in tests). */
  home: string;
  /** The `remote.SSH.configFile` setting, if set. Read only: never changed. */
  userConfigFile?: string;
  /** The `gpuRental.ssh.identityFile` setting. A template's identityFile takes precedence. */
  identityFile?: string;
  /**
   * Which service the entries belong to (e.g. the API base URL's host). reconcile() only
   * touches entries of the same origin, so another account's hosts are left alone.
   */
  origin?: string;
  fs?: FsPort;
  log?: Logger;
  lockTimeoutMs?: number;
  lockStaleMs?: number;
}

export type SshConfigErrorCode = 'no-ssh-address' | 'invalid-value' | 'io';

/** A failure with a message that says what happened and what to do next. Never contains secrets. */
export class SshConfigError extends Error {
  constructor(
    readonly code: SshConfigErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SshConfigError';
  }
}

export class SshConfigWriter implements SshEntryWriter {
  readonly dir: string;
  readonly configPath: string;
  readonly knownHostsPath: string;
  readonly userConfigPath: string;
  private readonly lockPath: string;
  private readonly fs: FsPort;

  constructor(private readonly o: SshConfigWriterOptions) {
    this.fs = o.fs ?? nodeFsPort;
    this.dir = join(o.home, '.ssh', MANAGED_DIR);
    this.configPath = join(this.dir, 'config');
    this.knownHostsPath = join(this.dir, 'known_hosts');
    this.lockPath = join(this.dir, 'config.lock');
    this.userConfigPath = this.expand(o.userConfigFile?.trim() || join(o.home, '.ssh', 'config'));
  }

  private expand(p: string): string {
    if (p === '~') return this.o.home;
    if (p.startsWith('~/') || p.startsWith('~\\')) return join(this.o.home, p.slice(2));
    return isAbsolute(p) ? p : join(this.o.home, p);
  }

  /** The line that pulls our file into the user's SSH config. */
  includeLine(): string {
    return includeLineFor(this.configPath);
  }

  // ---- entries -------------------------------------------------------------------------

  /** The entries in the managed file (empty when there is none yet). */
  async entries(): Promise<SshEntry[]> {
    const buf = await readIfExists(this.fs, this.configPath);
    return buf ? parseManaged(buf.toString('utf8')).flatMap((b) => (b.entry ? [b.entry] : [])) : [];
  }

  async findEntry(id: number): Promise<SshEntry | undefined> {
    return (await this.entries()).find((e) => e.id === id);
  }

  /**
   * What the instance's template asked for: the create flow's recorded options, else (they live in
   * one VS Code profile's state and can be gone) what its managed entry carries (user, forwards,
   * the template's key). A remoteFolder is only ever in the recorded options.
   */
  async templateOptions(id: number, recorded: SshOptions | undefined): Promise<SshOptions> {
    return templateOptionsOf(recorded, recorded ? undefined : await this.findEntry(id));
  }

  /**
   * Writes or rewrites the instance's entry (the file only when it changes) and returns its alias.
   * `ssh`: the instance's template options (the create flow's, or what it recorded); undefined
   * when they are not known here, and then the entry's own user, forwards and template key are
   * kept. `key`: the key to use when the template names none (Connect: the setting's, else the
   * key check's); without it an existing entry keeps its key, else the writer's identityFile.
   */
  async writeEntry(instance: Instance, ssh: SshOptions | undefined, o: { key?: string } = {}): Promise<string> {
    let alias = '';
    const written = await this.mutate((blocks, dropHosts) => {
      const existing = blocks.get(instance.id)?.entry;
      const next = this.buildEntry(instance, ssh, existing, o.key);
      alias = next.alias;
      if (existing && (existing.hostName !== next.hostName || existing.port !== next.port)) dropHosts.push(existing);
      blocks.set(instance.id, this.blockFor(next));
    });
    if (written) this.o.log?.info(`ssh: wrote host entry ${alias} for instance ${instance.id}`);
    return alias;
  }

  /** Removes an instance's entry and its known_hosts lines. True when there was one. */
  async removeEntry(id: number): Promise<boolean> {
    let removed = false;
    await this.mutate((blocks, dropHosts) => {
      const b = blocks.get(id);
      if (!b) return;
      if (b.entry) dropHosts.push(b.entry);
      blocks.delete(id);
      removed = true;
    });
    if (removed) this.o.log?.info(`ssh: removed host entry of instance ${id}`);
    return removed;
  }

  /**
   * Brings the file in line with the account's instance list: entries of instances that no
   * longer exist go (with their known_hosts lines); entries whose host or port changed are
   * rewritten (with the options in `register`, else the entry's own), and so are entries that
   * lack what `register` holds for them (user, forwards, template key); running instances in
   * `register` (the create flow's ssh options) that have no entry yet get one. Only entries of
   * this writer's origin are touched; an entry that cannot be built (logged) is left as it is.
   * Pass the list only after a successful fetch: an empty list removes every entry of the origin.
   */
  async reconcile(
    instances: readonly Instance[],
    register: SshOptionsByInstance = {},
    o: { keep?: ReadonlySet<number> } = {},
  ): Promise<{ added: number[]; updated: number[]; removed: number[] }> {
    const res = { added: [] as number[], updated: [] as number[], removed: [] as number[] };
    const byId = new Map(instances.map((i) => [i.id, i]));
    await this.mutate((blocks, dropHosts) => {
      res.added.length = res.updated.length = res.removed.length = 0; // a retried round starts over
      for (const [id, b] of [...blocks]) {
        if ((b.origin ?? undefined) !== (this.o.origin ?? undefined)) continue;
        const inst = byId.get(id);
        if (!inst && o.keep?.has(id)) continue; // absent from one read only: not proof it is gone
        if (!inst) {
          if (b.entry) dropHosts.push(b.entry);
          blocks.delete(id);
          res.removed.push(id);
          continue;
        }
        if (!b.entry || !hasAddress(inst)) continue; // stopped: keep the entry for the next start
        const addr = sshAddress(inst);
        const moved =
          b.entry.hostName !== addr?.host ||
          b.entry.port !== addr?.port ||
          b.entry.proxy?.hostName !== addr?.fallback?.host ||
          b.entry.proxy?.port !== addr?.fallback?.port;
        const recorded = register[String(id)];
        // Unmoved, the entry may still lack what the template recorded (an entry an earlier
        // version wrote has no note that its key is the template's).
        if (!moved && !recorded) continue;
        // One instance the entry cannot be built for (a hostile new host, a recorded key path
        // OpenSSH cannot read) must not stop the round for the others.
        let next: Block;
        try {
          next = this.blockFor(this.buildEntry(inst, recorded, b.entry));
        } catch (e) {
          this.o.log?.warn(`ssh: entry of instance ${id} left as it is: ${(e as Error).message}`);
          continue;
        }
        if (next.lines.join('\n') === b.lines.join('\n')) continue;
        blocks.set(id, next);
        if (moved) dropHosts.push(b.entry);
        res.updated.push(id);
      }
      for (const [key, opts] of Object.entries(register)) {
        const inst = byId.get(Number(key));
        if (!inst || blocks.has(inst.id) || inst.state !== 'running' || !hasAddress(inst)) continue;
        try {
          blocks.set(inst.id, this.blockFor(this.buildEntry(inst, opts, undefined)));
          res.added.push(inst.id);
        } catch (e) {
          this.o.log?.warn(`ssh: no entry for instance ${inst.id}: ${(e as Error).message}`);
        }
      }
      return res.added.length + res.updated.length + res.removed.length > 0;
    });
    if (res.added.length + res.updated.length + res.removed.length) {
      this.o.log?.info(
        `ssh: reconciled entries (added ${res.added.join(',') || '-'}, updated ${res.updated.join(',') || '-'}, removed ${res.removed.join(',') || '-'})`,
      );
    }
    return res;
  }

  private buildEntry(instance: Instance, known: SshOptions | undefined, existing: SshEntry | undefined, key?: string): SshEntry {
    if (!Number.isInteger(instance.id) || instance.id <= 0) {
      throw new SshConfigError(
        'invalid-value',
        l10n.t('The service reported an instance id ({0}) that is not a positive whole number, so no SSH entry was written.', String(instance.id)),
      );
    }
    // Where SSH listens by the service's rule (direct 22/tcp, proxy, Jupyter proxy + 1).
    const addr = sshAddress(instance);
    if (!addr) {
      throw new SshConfigError(
        'no-ssh-address',
        l10n.t('Instance {0} has no SSH address yet (it is {1}). Wait until it is running, then connect again.', instance.id, instance.state),
      );
    }
    // The template's options; when they are not known, what the entry got from the template.
    const ssh = templateOptionsOf(known, existing);
    const target = checkSshTarget(instance.id, addr.host, addr.port, ssh.user?.trim() || 'root');
    if (!target.ok) throw new SshConfigError('invalid-value', target.problem);
    const { host, port, user } = target;
    const fb = addr.fallback ? checkSshTarget(instance.id, addr.fallback.host, addr.fallback.port, user) : undefined;
    const proxy = fb?.ok ? { hostName: fb.host, port: fb.port } : undefined;
    // The template's key wins over every other; then the key the caller passes (Connect: the
    // setting's, else the key check's), the entry's own (not the template's), the writer's.
    // Absolute: `~` in a path is expanded by ssh, but not by every tool that reads the entry.
    const templateKey = ssh.identityFile?.trim() || undefined;
    const rawIdentity =
      templateKey || key?.trim() || (existing?.templateIdentity ? undefined : existing?.identityFile) || this.o.identityFile?.trim() || undefined;
    const identityFile = rawIdentity ? this.expand(rawIdentity) : undefined;
    if (identityFile) this.quoted(identityFile, l10n.t('The SSH identity file'), true); // refuses what cannot be written
    const localForwards: LocalForward[] = [];
    for (const f of ssh.localForwards ?? []) {
      const remoteHost = f.remoteHost?.trim() || 'localhost';
      if (!validPort(f.localPort) || !validPort(f.remotePort) || !validHost(remoteHost)) {
        throw new SshConfigError(
          'invalid-value',
          l10n.t("The port forward {0} -> {1}:{2} is not valid. Fix localForwards in the template's ssh section.", f.localPort, remoteHost, f.remotePort),
        );
      }
      localForwards.push({ localPort: f.localPort, remoteHost, remotePort: f.remotePort });
    }
    const groupAliases = ssh.groupAliases ?? existing?.groupAliases ?? [];
    const badAlias = groupAliases.find((a) => !GROUP_ALIAS.test(a) || a.length > 80);
    if (badAlias !== undefined)
      throw new SshConfigError(
        'invalid-value',
        l10n.t(
          'The group host name {0} cannot be written into an SSH config (only gpu- followed by lowercase letters, digits and "-").',
          JSON.stringify(badAlias.slice(0, 80)),
        ),
      );
    return {
      id: instance.id,
      ...(groupAliases.length ? { groupAliases } : {}),
      // Keep the alias once given, so Remote-SSH's recent list survives a relabel.
      alias: existing?.alias ?? aliasFor(instance),
      hostName: host,
      port,
      user,
      localForwards,
      ...(this.o.origin ? { origin: this.o.origin } : {}),
      ...(identityFile ? { identityFile } : {}),
      ...(identityFile && templateKey ? { templateIdentity: true } : {}),
      ...(proxy ? { proxy } : {}),
    };
  }

  /** A path as an ssh_config argument; a path OpenSSH could not read back is an SshConfigError. */
  private quoted(path: string, what: string, percent: boolean): string {
    try {
      return sshConfigPath(path, what, { percent });
    } catch (e) {
      if (!(e instanceof SshValueError)) throw e;
      const fix = what.includes('identity') ? l10n.t(" Fix the template's ssh.identityFile or the gpuRental.ssh.identityFile setting.") : '';
      throw new SshConfigError('invalid-value', e.message + fix);
    }
  }

  private blockFor(e: SshEntry): Block {
    const host = (alias: string, hostName: string, port: number, proxy: boolean) => [
      `Host ${alias}`,
      `  HostName ${hostName}`,
      `  Port ${port}`,
      `  User ${e.user}`,
      ...(e.identityFile ? [`  IdentityFile ${this.quoted(e.identityFile, l10n.t('The SSH identity file'), true)}`, '  IdentitiesOnly yes'] : []),
      `  UserKnownHostsFile ${this.quoted(this.knownHostsPath, l10n.t('The GPU Rental known_hosts path'), true)}`,
      // Pinned per instance, not per address (knownHosts.ts): a recycled address or port never blocks a new machine.
      `  HostKeyAlias ${hostKeyAlias(e.id, e.origin, proxy)}`,
      '  CheckHostIP no',
      '  StrictHostKeyChecking accept-new',
      '  ServerAliveInterval 30',
      ...e.localForwards.map((f) => `  LocalForward ${f.localPort} ${f.remoteHost}:${f.remotePort}`),
    ];
    const lines = [
      `# gpu-rental:entry id=${e.id}${e.origin ? ` origin=${e.origin}` : ''}`,
      ...(e.templateIdentity && e.identityFile ? [TEMPLATE_IDENTITY_NOTE] : []),
      ...host([e.alias, ...(e.groupAliases ?? [])].join(' '), e.hostName, e.port, false),
      ...(e.proxy ? host(`${e.alias}${PROXY_ALIAS_SUFFIX}`, e.proxy.hostName, e.proxy.port, true) : []),
    ];
    return { id: e.id, lines, entry: e, ...(e.origin ? { origin: e.origin } : {}) };
  }

  /**
   * Re-read, change, write: all under the lock, so concurrent windows never lose entries. If
   * the lock was taken over before a rename (this window was slower than the stale time), that
   * file is not written and the whole round runs again on the other window's result.
   */
  private async mutate(change: (blocks: Map<number, Block>, dropHosts: SshEntry[]) => boolean | void): Promise<boolean> {
    await ensurePrivateDir(this.fs, this.dir);
    return retryOnConcurrentChange(this.o.log, l10n.t('the GPU Rental SSH config'), () =>
      withFileLock(
        this.fs,
        this.lockPath,
        async (lock) => {
          const before = (await readIfExists(this.fs, this.configPath))?.toString('utf8');
          const blocks = new Map(parseManaged(before ?? '').map((b) => [b.id, b]));
          const dropHosts: SshEntry[] = [];
          if (change(blocks, dropHosts) === false) return false;
          const text = [...HEADER, '', ...[...blocks.values()].flatMap((b) => [...b.lines, ''])].join('\n');
          // Host keys first: if the lock is taken over in between, the round runs again while the
          // entry is still in the file, so its keys are dropped then (the other way round, the
          // next round found no entry and the keys of a removed entry stayed for good).
          if (dropHosts.length) await this.dropKnownHosts(dropHosts, () => lock.check());
          if (text !== before) await writeAtomic(this.fs, this.configPath, text, 0o600, () => lock.check());
          return text !== before;
        },
        { timeoutMs: this.o.lockTimeoutMs, staleMs: this.o.lockStaleMs },
      ),
    );
  }

  private async dropKnownHosts(entries: SshEntry[], beforeRename: () => Promise<void>): Promise<void> {
    const buf = await readIfExists(this.fs, this.knownHostsPath);
    if (!buf) return;
    // By alias (where the pin lives now) and by address (pins written before there were aliases).
    const targets = entries.flatMap((e) => [
      { alias: hostKeyAlias(e.id, e.origin) },
      { host: e.hostName, port: e.port },
      ...(e.proxy ? [{ alias: hostKeyAlias(e.id, e.origin, true) }, { host: e.proxy.hostName, port: e.proxy.port }] : []),
    ]);
    const { text, removed } = removeKnownHosts(buf.toString('utf8'), targets);
    if (removed) await writeAtomic(this.fs, this.knownHostsPath, text, 0o600, beforeRename);
  }

  // ---- the Include line in the user's config -------------------------------------------

  private refused(reason: IncludeRefusal, why: string): IncludeStatus {
    const line = this.includeLine();
    return {
      state: 'refused',
      userConfig: this.userConfigPath,
      reason,
      line,
      message: l10n.t(
        'GPU Rental did not change {0} because {1}. To use its Remote-SSH hosts, add this line at the very top of that file yourself: {2}',
        this.userConfigPath,
        why,
        line,
      ),
    };
  }

  /** Whether the user's SSH config includes our file, and whether we may add the line. */
  async includeStatus(): Promise<IncludeStatus> {
    return (await this.inspectUserConfig()).status;
  }

  private async inspectUserConfig(): Promise<{ status: IncludeStatus; bytes?: Buffer; mode?: number; eol?: '\n' | '\r\n' }> {
    const p = this.userConfigPath;
    try {
      this.includeLine();
    } catch (e) {
      if (!(e instanceof SshValueError)) throw e;
      return {
        status: {
          state: 'refused',
          userConfig: p,
          reason: 'unwritable-path',
          line: '',
          message: l10n.t('GPU Rental cannot add its Remote-SSH hosts to {0}: {1}', p, e.message),
        },
      };
    }
    let st;
    try {
      st = await this.fs.lstat(p);
    } catch (e) {
      if (errCode(e) === 'ENOENT') return { status: { state: 'absent', userConfig: p }, eol: process.platform === 'win32' ? '\r\n' : '\n' };
      throw e;
    }
    if (st.isSymbolicLink()) return { status: this.refused('symlink', l10n.t('it is a symbolic link (rewriting it would replace the link)')) };
    if (!st.isFile()) return { status: this.refused('not-a-file', l10n.t('it is not a regular file')) };
    const bytes = await this.fs.readFile(p);
    const a = analyseUserConfig(bytes, [this.configPath, `~/.ssh/${MANAGED_DIR}/config`]);
    if (!a.ok) return { status: this.refused(a.reason, a.detail) };
    if (a.present && !a.bom) return { status: { state: 'present', userConfig: p } };
    if ((st.mode & 0o222) === 0)
      return {
        status: this.refused(
          'readonly',
          a.bom ? l10n.t('it is read-only (and starts with a byte-order mark, which OpenSSH refuses: remove it too)') : l10n.t('it is read-only'),
        ),
      };
    const status: IncludeStatus = a.bom ? { state: 'absent', userConfig: p, bom: true, includeThere: a.present } : { state: 'absent', userConfig: p };
    return { status, bytes, mode: st.mode & 0o777, eol: a.eol };
  }

  /**
   * Prepends the marked Include line to the user's SSH config, once (calling it again is a
   * no-op). Only call after the user agreed. Returns the resulting status; a refusal
   * carries the one line for the user to add by hand.
   */
  async addInclude(): Promise<IncludeStatus> {
    await ensurePrivateDir(this.fs, this.dir);
    // Another program (an editor, a dotfile manager) may change the user's config while we
    // prepend our line: the file is compared again just before the rename, and on a change
    // the whole read-modify-write runs again on the new content.
    return retryOnConcurrentChange(this.o.log, this.userConfigPath, () =>
      withFileLock(
        this.fs,
        join(this.dir, 'include.lock'),
        async (lock) => {
          const r = await this.inspectUserConfig();
          if (r.status.state !== 'absent') return r.status;
          // The included file must exist, or ssh reports nothing but connects without our hosts.
          if (!(await readIfExists(this.fs, this.configPath))) await this.mutate(() => undefined);
          const fixBomOnly = r.status.state === 'absent' && r.status.includeThere === true;
          const data = fixBomOnly && r.bytes ? withoutBom(r.bytes) : prependInclude(r.bytes, this.includeLine(), r.eol ?? '\n');
          const unchanged = async () => {
            await lock.check();
            const now = await readIfExists(this.fs, this.userConfigPath);
            if (!(now === undefined ? r.bytes === undefined : r.bytes !== undefined && now.equals(r.bytes)))
              throw new ConcurrentChangeError(l10n.t('{0} was changed by another program while the Include line was being added', this.userConfigPath));
          };
          try {
            // Create a missing parent (0700 like ~/.ssh) but never change an existing one's mode.
            if (!r.bytes) await this.fs.mkdir(dirname(this.userConfigPath), { recursive: true, mode: 0o700 });
            await writeAtomic(this.fs, this.userConfigPath, data, r.mode ?? 0o600, unchanged);
          } catch (e) {
            if (e instanceof ConcurrentChangeError) throw e;
            this.o.log?.warn(`ssh: could not add the Include line: ${errCode(e) ?? (e as Error).message}`);
            return this.refused('write-failed', l10n.t('writing it failed ({0})', errCode(e) ?? 'error'));
          }
          if (r.status.state === 'absent' && r.status.bom)
            this.o.log?.info(`ssh: removed the byte-order mark at the start of ${this.userConfigPath} (OpenSSH refuses a config that starts with one)`);
          if (!fixBomOnly) this.o.log?.info(`ssh: added the Include line to ${this.userConfigPath}`);
          return { state: 'present', userConfig: this.userConfigPath } as IncludeStatus;
        },
        { timeoutMs: this.o.lockTimeoutMs, staleMs: this.o.lockStaleMs },
      ),
    );
  }
}

/** Runs a read-modify-write again (a few times) when it found the file or lock changed under it. */
async function retryOnConcurrentChange<T>(log: Logger | undefined, what: string, round: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await round();
    } catch (e) {
      if (!(e instanceof ConcurrentChangeError) || i >= 5) throw e;
      log?.info(`ssh: ${what}: ${e.message}; reading it again (round ${i + 1})`);
    }
  }
}

function hasAddress(i: Instance): boolean {
  return sshAddress(i) !== undefined;
}

/** The template's options: the recorded ones when known, else what the entry got from its template. */
function templateOptionsOf(known: SshOptions | undefined, existing: SshEntry | undefined): SshOptions {
  return known ?? (existing ? templatePartsOf(existing) : {});
}

/** What an entry got from its template: user, forwards, and the key when the entry says it is the template's. */
function templatePartsOf(e: SshEntry): SshOptions {
  return {
    user: e.user,
    localForwards: e.localForwards,
    ...(e.groupAliases ? { groupAliases: e.groupAliases } : {}),
    ...(e.templateIdentity && e.identityFile ? { identityFile: e.identityFile } : {}),
  };
}
