import { messages, type UiText } from './messages.js';

/** Kratos UI nodes (identity-protocol.md §4.2): what a flow asks the client to render and submit. */
export type UiNodeGroup = 'default' | 'password' | 'profile' | 'code' | 'link' | 'totp';

type InputAttributes = {
  name: string;
  type: 'text' | 'password' | 'hidden' | 'email' | 'submit';
  value?: unknown;
  required?: boolean;
  disabled: boolean;
  node_type: 'input';
  autocomplete?: 'email' | 'current-password' | 'new-password' | 'one-time-code';
  pattern?: string;
  maxlength?: number;
};

export type UiNode = {
  type: 'input' | 'text' | 'img' | 'a';
  group: UiNodeGroup;
  attributes: InputAttributes | Record<string, unknown>;
  messages: UiText[];
  meta: { label?: UiText };
};

export type Ui = { action: string; method: 'POST' | 'GET'; nodes: UiNode[]; messages?: UiText[] };

type InputOptions = Omit<InputAttributes, 'node_type' | 'disabled' | 'name' | 'type'> & { label?: UiText };

export function input(group: UiNodeGroup, name: string, type: InputAttributes['type'], options: InputOptions = {}): UiNode {
  const { label, ...attributes } = options;
  return {
    type: 'input',
    group,
    attributes: {
      name,
      type,
      ...(attributes.value === undefined || attributes.value === null ? {} : { value: attributes.value }),
      ...(attributes.required ? { required: true } : {}),
      disabled: false,
      node_type: 'input',
      ...(attributes.autocomplete ? { autocomplete: attributes.autocomplete } : {}),
      ...(attributes.pattern ? { pattern: attributes.pattern } : {}),
      ...(attributes.maxlength ? { maxlength: attributes.maxlength } : {}),
    },
    messages: [],
    meta: label ? { label } : {},
  };
}

export const csrfNode = (maskedToken: string) => input('default', 'csrf_token', 'hidden', { value: maskedToken, required: true });

export const submit = (group: UiNodeGroup, name: string, value: unknown, label: UiText) => input(group, name, 'submit', { value, label });

export const textNode = (group: UiNodeGroup, id: string, text: UiText, label?: UiText): UiNode => ({
  type: 'text',
  group,
  attributes: { text, id, node_type: 'text' },
  messages: [],
  meta: label ? { label } : {},
});

export const imageNode = (group: UiNodeGroup, id: string, src: string, label: UiText): UiNode => ({
  type: 'img',
  group,
  attributes: { src, id, width: 256, height: 256, node_type: 'img' },
  messages: [],
  meta: { label },
});

export const anchorNode = (group: UiNodeGroup, id: string, href: string, title: UiText): UiNode => ({
  type: 'a',
  group,
  attributes: { href, title, id, node_type: 'a' },
  messages: [],
  meta: {},
});

export const emailTraitNode = (group: 'default' | 'profile', value?: string) =>
  input(group, 'traits.email', 'email', { value, required: true, autocomplete: 'email', label: messages.emailTrait() });

const nodeKey = (node: UiNode) => String((node.attributes as { name?: string; id?: string }).name ?? (node.attributes as { id?: string }).id);

/**
 * Puts a message on the node named `name` (a JSON pointer `#/traits/email` names `traits.email`),
 * creating a text input in the default group when no such node exists, as Kratos does.
 */
export function attachMessage(nodes: UiNode[], name: string, message: UiText): UiNode[] {
  const index = nodes.findIndex((node) => nodeKey(node) === name && node.type === 'input');
  if (index === -1) return [...nodes, { ...input('default', name, 'text'), messages: [message] }];
  return nodes.map((node, i) => (i === index ? { ...node, messages: [...node.messages, message] } : node));
}

/** Sets the value of the input named `name`, in its usual place; `undefined` removes it (a password is never echoed). */
export function setValue(nodes: UiNode[], name: string, value: unknown): UiNode[] {
  return nodes.map((node) => {
    if (node.type !== 'input' || (node.attributes as InputAttributes).name !== name) return node;
    const entries = Object.entries(node.attributes).filter(([key]) => key !== 'value');
    if (value === undefined || value === '') return { ...node, attributes: Object.fromEntries(entries) as InputAttributes };
    const at = entries.findIndex(([key]) => key === 'type') + 1;
    entries.splice(at, 0, ['value', value]);
    return { ...node, attributes: Object.fromEntries(entries) as InputAttributes };
  });
}

/** Clears old messages everywhere, as Kratos does before attaching new ones. */
export function clearMessages(ui: Ui): Ui {
  const { messages: _old, ...rest } = ui;
  return { ...rest, nodes: ui.nodes.map((node) => ({ ...node, messages: [] })) };
}

export const withMessages = (ui: Ui, uiMessages: UiText[]): Ui => (uiMessages.length ? { ...ui, messages: uiMessages } : ui);

/** Refreshes the masked CSRF token in a stored UI. */
export const withCsrf = (ui: Ui, maskedToken: string): Ui => ({ ...ui, nodes: setValue(ui.nodes, 'csrf_token', maskedToken) });
