import type { UiNode, UiNodeInputAttributes } from '@ory/client-fetch';

/**
 * Reading Kratos UI nodes (identity-protocol.md §4.2) and turning a form back into the JSON body
 * the SDK submits. The server decides what to ask for; these helpers never assume a node exists.
 */

/** What the user has typed, by input name; checkboxes hold booleans. */
export type FormValues = Record<string, string | boolean>;

export function inputAttributes(node: UiNode): UiNodeInputAttributes | undefined {
  return node.attributes.node_type === 'input' ? node.attributes : undefined;
}

export const isSubmit = (node: UiNode): boolean => {
  const type = inputAttributes(node)?.type;
  return type === 'submit' || type === 'button';
};

export const isHidden = (node: UiNode): boolean => inputAttributes(node)?.type === 'hidden';

/** Inputs are named; text, img and a nodes carry an id (§4.2 "Node identity"). */
export function nodeKey(node: UiNode): string {
  const attributes = node.attributes as { name?: string; id?: string };
  return attributes.name ?? attributes.id ?? '';
}

export const nodeLabel = (node: UiNode): string | undefined => node.meta.label?.text;

export function findNode(nodes: readonly UiNode[], key: string): UiNode | undefined {
  return nodes.find((node) => nodeKey(node) === key);
}

export function csrfToken(nodes: readonly UiNode[]): string {
  const node = findNode(nodes, 'csrf_token');
  const value = node && inputAttributes(node)?.value;
  return typeof value === 'string' ? value : '';
}

/** The groups present, in the order the server listed them; `default` only carries the CSRF token. */
export function formGroups(nodes: readonly UiNode[]): string[] {
  return [...new Set(nodes.map((node) => node.group as string))].filter((group) => group !== 'default');
}

export function initialValues(nodes: readonly UiNode[]): FormValues {
  const values: FormValues = {};
  for (const node of nodes) {
    const attributes = inputAttributes(node);
    if (!attributes || isSubmit(node) || attributes.type === 'hidden') continue;
    values[attributes.name] = attributes.type === 'checkbox' ? attributes.value === true : valueText(attributes.value);
  }
  return values;
}

const valueText = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/** Submit buttons carry strings or booleans ("true" for totp_unlink); the API wants the boolean. */
function submittedValue(value: unknown): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

const unsafeKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** Kratos names nested fields with dots (`traits.email`); the JSON body nests them. */
function assign(target: Record<string, unknown>, name: string, value: unknown): void {
  const path = name.split('.');
  if (path.some((key) => unsafeKeys.has(key))) return;
  let cursor = target;
  for (const key of path.slice(0, -1)) {
    const next = cursor[key];
    cursor = (cursor[key] = typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
  }
  cursor[path[path.length - 1] as string] = value;
}

/**
 * The body for one submit: the CSRF token, the inputs of `groups`, and the pressed button. A
 * button named `method` sets the method; any other button (totp_unlink) is sent as a field and the
 * method is its group, so each settings card submits only what it shows.
 */
export function buildBody(nodes: readonly UiNode[], groups: readonly string[], values: FormValues, submitter: UiNode | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = { csrf_token: csrfToken(nodes) };
  for (const node of nodes) {
    const attributes = inputAttributes(node);
    if (!attributes || isSubmit(node) || attributes.name === 'csrf_token' || !groups.includes(node.group)) continue;
    assign(body, attributes.name, attributes.type === 'hidden' ? attributes.value : (values[attributes.name] ?? ''));
  }
  const pressed = submitter && inputAttributes(submitter);
  if (pressed) assign(body, pressed.name, submittedValue(pressed.value));
  body.method ??= submitter?.group ?? groups[0];
  return body;
}
