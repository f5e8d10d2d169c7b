// A tree row as plain data, so the rules of the Instances and Offers rows are unit-tested without VS Code.

export interface RowModel {
  /** Stable tree id (never contains changing values such as uptime). */
  id: string;
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  /** Codicon id. */
  icon: string;
  /** Theme colour id, or undefined for the default. */
  color: string | undefined;
  contextValue: string;
}
