import { Anchor, Button, type ButtonProps, Checkbox, Code, CopyButton, Group, Image, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import type { ChangeEvent } from 'react';
import type { UiNode, UiNodeImageAttributes, UiNodeInputAttributes, UiNodeTextAttributes, UiText } from '@ory/client-fetch';
import { inputAttributes, isHidden, isSubmit, nodeKey, nodeLabel } from '../lib/ui-nodes';
import { useFlowForm } from './flow-form';

/**
 * Renders Kratos UI nodes (identity-protocol.md §4.2) inside a <FlowForm>: inputs with their
 * labels and messages, submit buttons, images, texts and links. script and div nodes are not
 * rendered: this deployment sends none, and the page's CSP would block foreign scripts anyway.
 */
type NodeOptions = {
  /** Props for submit buttons, e.g. a red unlink button. */
  buttonProps?: (node: UiNode) => ButtonProps;
  /** Shown size of img nodes, in px (the server's width and height otherwise). */
  imageSize?: number;
  autoFocus?: boolean;
};

export function FlowNodes({ nodes, autoFocus, ...options }: NodeOptions & { nodes: readonly UiNode[] }) {
  // autoFocus goes to the first field the user types into, never to several.
  const focused = autoFocus ? nodes.findIndex((node) => inputAttributes(node) && !isSubmit(node) && !isHidden(node)) : -1;
  return nodes.map((node, index) => <FlowNode key={`${nodeKey(node)}-${index}`} node={node} {...options} autoFocus={index === focused} />);
}

export function FlowNode({ node, ...options }: NodeOptions & { node: UiNode }) {
  const { attributes } = node;
  switch (attributes.node_type) {
    case 'input':
      return <NodeInput node={node} attributes={attributes} {...options} />;
    case 'img':
      return <NodeImage node={node} attributes={attributes} size={options.imageSize} />;
    case 'text':
      return <NodeText node={node} attributes={attributes} />;
    case 'a':
      return (
        <Anchor href={attributes.href} size="sm">
          {attributes.title.text}
        </Anchor>
      );
    default:
      return null;
  }
}

type NodeInputProps = NodeOptions & { node: UiNode; attributes: UiNodeInputAttributes };

function NodeInput({ node, attributes, buttonProps, autoFocus }: NodeInputProps) {
  const { values, setValue, pending } = useFlowForm();
  const label = nodeLabel(node);
  const { name, type } = attributes;

  if (type === 'hidden') return <input type="hidden" name={name} value={valueText(attributes.value)} />;
  if (type === 'submit' || type === 'button') {
    return (
      <Button
        type="submit"
        name={name}
        value={valueText(attributes.value)}
        loading={pending === node}
        disabled={attributes.disabled || (pending !== undefined && pending !== node)}
        {...buttonProps?.(node)}
      >
        {label ?? valueText(attributes.value)}
      </Button>
    );
  }

  const error = joined(node.messages.filter((message) => message.type === 'error'));
  const description = joined(node.messages.filter((message) => message.type !== 'error'));
  const common = { name, label, error, description, disabled: attributes.disabled, autoFocus };
  if (type === 'checkbox') {
    return <Checkbox {...common} checked={values[name] === true} onChange={(event) => setValue(name, event.currentTarget.checked)} />;
  }
  const text = {
    ...common,
    // Mantine marks PasswordInput's inner input only with data-invalid; screen readers need aria.
    'aria-invalid': error ? true : undefined,
    value: String(values[name] ?? ''),
    onChange: (event: ChangeEvent<HTMLInputElement>) => setValue(name, event.currentTarget.value),
    autoComplete: attributes.autocomplete,
  };
  if (type === 'password') return <PasswordInput {...text} />;
  // A one-time code: numeric keypad on phones, and the OS offers codes it received.
  const oneTimeCode = name === 'totp_code' || name === 'code' || attributes.autocomplete === 'one-time-code';
  return (
    <TextInput
      {...text}
      type={type}
      pattern={attributes.pattern}
      maxLength={attributes.maxlength}
      {...(oneTimeCode ? { autoComplete: 'one-time-code', inputMode: 'numeric' as const } : {})}
    />
  );
}

function NodeImage({ node, attributes, size }: { node: UiNode; attributes: UiNodeImageAttributes; size: number | undefined }) {
  return <Image src={attributes.src} alt={nodeLabel(node) ?? ''} w={size ?? attributes.width} h={size ?? attributes.height} fit="contain" />;
}

/** A text node: its label, then the text itself (the TOTP secret) set in monospace to copy. */
function NodeText({ node, attributes }: { node: UiNode; attributes: UiNodeTextAttributes }) {
  const label = nodeLabel(node);
  const text = attributes.text.text;
  return (
    <Stack gap={6}>
      {label && (
        <Text size="sm" c="dimmed">
          {label}
        </Text>
      )}
      <Group gap="xs" wrap="nowrap" align="stretch">
        <Code block fz="sm" style={{ flex: 1, letterSpacing: '0.08em', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-node-id={attributes.id}>
          {text}
        </Code>
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button variant="default" size="xs" h="auto" onClick={copy} color={copied ? 'teal' : undefined}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

const valueText = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

const joined = (messages: readonly UiText[]): string | undefined => (messages.length ? messages.map((message) => message.text).join(' ') : undefined);
