// The list carries only the columns the views need (select_cols); an expanded row, Details and
// Open Jupyter read the whole record on demand with show-instance.
import type { Instance, Logger, ServiceApi } from '../api/types';

/** The full record of `row`, or `row` itself when it cannot be read now (the list row is still right). */
export async function fullRecord(api: () => Promise<ServiceApi>, row: Instance, log?: Logger): Promise<Instance> {
  try {
    const full = await (await api()).showInstance(row.id);
    return full.id === row.id ? full : row;
  } catch (e) {
    log?.debug(`instance ${row.id}: the full record could not be read (${e instanceof Error ? e.message : String(e)}); showing the list's columns`);
    return row;
  }
}
