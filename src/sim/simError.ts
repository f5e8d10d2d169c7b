// An error the simulator turns into the spec's error shape.
export class SimFail extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    msg: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(msg);
  }
  body(): Record<string, unknown> {
    return { success: false, error: this.error, msg: this.message, ...this.extra };
  }
}

export const fail = (status: number, error: string, msg: string, extra?: Record<string, unknown>) => new SimFail(status, error, msg, extra);
