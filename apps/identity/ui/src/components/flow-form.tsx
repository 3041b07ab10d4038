import type { UiNode } from '@ory/client-fetch';
import { createContext, type FormEvent, type ReactNode, useContext, useState } from 'react';
import { type FormValues, initialValues, inputAttributes, isSubmit } from '../lib/ui-nodes';

type FlowFormState = {
  values: FormValues;
  setValue: (name: string, value: string | boolean) => void;
  /** The submit button whose request is in flight. */
  pending: UiNode | undefined;
};

const FlowFormContext = createContext<FlowFormState | null>(null);

export function useFlowForm(): FlowFormState {
  const state = useContext(FlowFormContext);
  if (!state) throw new Error('A flow node is rendered outside <FlowForm>');
  return state;
}

type FlowFormProps = {
  /** The nodes this form owns; values start from theirs. Re-key the form to start over from a new flow. */
  nodes: readonly UiNode[];
  onSubmit: (values: FormValues, submitter: UiNode | undefined) => Promise<void>;
  children: ReactNode;
};

/** One <form> over Kratos nodes: holds what was typed and which button was pressed. */
export function FlowForm({ nodes, onSubmit, children }: FlowFormProps) {
  const [values, setValues] = useState(() => initialValues(nodes));
  const [pending, setPending] = useState<UiNode>();

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const submitter = pressedButton(nodes, (event.nativeEvent as SubmitEvent).submitter);
    setPending(submitter);
    try {
      await onSubmit(values, submitter);
    } finally {
      setPending(undefined);
    }
  };

  const setValue = (name: string, value: string | boolean) => setValues((current) => ({ ...current, [name]: value }));

  return (
    // noValidate: the identity service validates and its messages are shown under the fields.
    <form noValidate onSubmit={handleSubmit}>
      <FlowFormContext.Provider value={{ values, setValue, pending }}>{children}</FlowFormContext.Provider>
    </form>
  );
}

/** The node of the button that submitted the form; Enter in a field counts as the first button. */
function pressedButton(nodes: readonly UiNode[], element: HTMLElement | null): UiNode | undefined {
  const buttons = nodes.filter(isSubmit);
  if (element instanceof HTMLButtonElement) {
    const match = buttons.find((node) => {
      const attributes = inputAttributes(node);
      return attributes?.name === element.name && String(attributes.value ?? '') === element.value;
    });
    if (match) return match;
  }
  return buttons[0];
}
