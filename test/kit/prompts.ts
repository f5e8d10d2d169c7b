// A fake of a prompts port (the interface through which a core flow asks the user: FlowPrompts,
// KeyPrompts, TfaPrompts...): each prompt answers from the test's script and every question is
// recorded, so a test can say what was asked, how often and with what.

/** One question the flow asked: the prompt's name and its arguments. */
export interface AskedPrompt {
  prompt: string;
  args: unknown[];
}

export interface RecordedPrompts<P> {
  /** The port to hand to the flow: the script's answers, each call recorded in `asked`. */
  prompts: P;
  asked: AskedPrompt[];
  /** The arguments of every call of one prompt, in order. */
  argsOf(prompt: keyof P & string): unknown[][];
}

/** `script` answers the prompts (a prompt it leaves out is left out of the port too, as an optional one would be). */
export function recordedPrompts<P extends object>(script: P): RecordedPrompts<P> {
  const asked: AskedPrompt[] = [];
  const prompts = {} as Record<string, unknown>;
  for (const [name, answer] of Object.entries(script)) {
    if (typeof answer !== 'function') continue;
    prompts[name] = (...args: unknown[]) => {
      asked.push({ prompt: name, args });
      return (answer as (...a: unknown[]) => unknown)(...args);
    };
  }
  return {
    prompts: prompts as P,
    asked,
    argsOf: (prompt) => asked.filter((a) => a.prompt === prompt).map((a) => a.args),
  };
}
