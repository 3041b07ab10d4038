/** A choice of a chat completion (`message`) or of a streamed chunk (`delta`), as far as its billable output goes. */
type OutputPart = {
  content?: unknown;
  refusal?: unknown;
  /** Reasoning text, as DeepSeek and vLLM (`reasoning_content`) or OpenRouter and Groq (`reasoning`) return it. */
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: unknown;
  function_call?: unknown;
  audio?: unknown;
};

export type OutputJson = { choices?: ({ index?: unknown } & { message?: OutputPart; delta?: OutputPart })[] };

/**
 * Each text a provider bills as output, by where it stands (`<choice>:content`, `<choice>:tool:<n>:arguments`, …):
 * a stream's pieces of one text are joined before they are counted, and different texts are counted apart.
 */
export type ProducedText = Record<string, string>;

type Called = { name?: unknown; arguments?: unknown; input?: unknown };

/**
 * The output a provider bills for a completion or a chunk, as text to count when it reports no
 * usage: each choice's content, refusal and reasoning text and the names and arguments of its tool
 * and function calls (a provider bills all of them as output tokens). Output that is not text
 * (audio, a content part of another kind) cannot be counted from it: `uncountable`, and the call is
 * then charged what was reserved.
 */
export function billableOutput(json: OutputJson, part: 'message' | 'delta'): { produced: ProducedText; uncountable: boolean } {
  const produced: ProducedText = {};
  let uncountable = false;
  const add = (where: string, value: unknown) => {
    if (typeof value === 'string' && value) produced[where] = (produced[where] ?? '') + value;
  };
  for (const [position, choice] of (json.choices ?? []).entries()) {
    const output = choice[part];
    if (!output) continue;
    const at = typeof choice.index === 'number' ? choice.index : position;
    if (Array.isArray(output.content)) {
      for (const contentPart of output.content as { type?: unknown; text?: unknown }[]) {
        if (contentPart?.type === 'text') add(`${at}:content`, contentPart.text);
        else uncountable = true;
      }
    } else add(`${at}:content`, output.content);
    add(`${at}:refusal`, output.refusal);
    add(`${at}:reasoning`, output.reasoning_content ?? output.reasoning);
    const toolCalls = Array.isArray(output.tool_calls) ? (output.tool_calls as ({ index?: unknown; function?: Called; custom?: Called } | null)[]) : [];
    for (const [order, call] of toolCalls.entries()) {
      // A streamed piece names its tool call by index; a custom tool carries `input` instead of arguments.
      const tool = `${at}:tool:${typeof call?.index === 'number' ? call.index : order}`;
      const called = call?.function ?? call?.custom;
      add(`${tool}:name`, called?.name);
      add(`${tool}:arguments`, called?.arguments ?? called?.input);
    }
    const legacy = output.function_call as Called | null | undefined;
    add(`${at}:function:name`, legacy?.name);
    add(`${at}:function:arguments`, legacy?.arguments);
    if (output.audio !== undefined && output.audio !== null) uncountable = true;
  }
  return { produced, uncountable };
}

/** Adds a streamed piece's texts to what the stream produced so far. */
export function appendProduced(into: ProducedText, piece: ProducedText): void {
  for (const [where, text] of Object.entries(piece)) into[where] = (into[where] ?? '') + text;
}
