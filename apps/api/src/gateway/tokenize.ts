import { encode, encodeChat } from 'gpt-tokenizer';

type ContentPart = { type?: string; text?: string };
export type ChatMessage = { role: string; content?: string | ContentPart[] | null; name?: string };

const textOf = (content: ChatMessage['content']) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n') : '';

/**
 * Input tokens as OpenAI's chat format counts them (o200k encoding with the chat framing). It is
 * an estimate for other providers' models, which is what the reservation needs.
 */
export function estimateInputTokens(messages: ChatMessage[]): number {
  const chat = messages.map((message) => ({
    role: (['system', 'user', 'assistant'].includes(message.role) ? message.role : 'user') as 'system' | 'user' | 'assistant',
    content: textOf(message.content),
  }));
  return encodeChat(chat, 'gpt-4o').length;
}

export const countTextTokens = (text: string) => (text ? encode(text).length : 0);
