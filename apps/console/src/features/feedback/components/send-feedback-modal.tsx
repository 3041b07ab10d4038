import { Button, Group, Modal, Select, Stack, Textarea } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { type FeedbackInput, feedbackInputSchema, feedbackTypes } from '@meterway/contracts';
import { type FeedbackType, feedbackTypeLabels } from '../../../lib/feedback-types';
import { notifySuccess } from '../../../lib/notify';
import { useCreateFeedback } from '../api/create-feedback';

const typeOptions = feedbackTypes.map((value) => ({ value, label: feedbackTypeLabels[value] }));

/** No type is preselected: the sender says what the message is about. */
type FeedbackFormValues = { type: FeedbackType | null; description: string };

type SendFeedbackModalProps = { opened: boolean; onClose: () => void };

export function SendFeedbackModal({ opened, onClose }: SendFeedbackModalProps) {
  const createFeedback = useCreateFeedback();
  const form = useForm<FeedbackFormValues>({
    mode: 'uncontrolled',
    initialValues: { type: null, description: '' },
    validate: schemaResolver(feedbackInputSchema, { sync: true }),
  });

  const close = () => {
    form.reset();
    onClose();
  };

  const submit = (values: FeedbackFormValues) => {
    // Valid by now; parsing again yields the trimmed description the api stores.
    const input: FeedbackInput = feedbackInputSchema.parse(values);
    createFeedback.mutate(input, {
      onSuccess: () => {
        notifySuccess('Thank you! Your feedback was sent.');
        close();
      },
    });
  };

  return (
    <Modal opened={opened} onClose={close} title="Send feedback" size="lg">
      <form noValidate onSubmit={form.onSubmit(submit)}>
        <Stack gap="md">
          <Select
            label="Type"
            placeholder="What is it about?"
            data={typeOptions}
            allowDeselect={false}
            withAsterisk
            key={form.key('type')}
            {...form.getInputProps('type')}
          />
          <Textarea
            label="Description"
            placeholder="Tell us what happened or what you would like"
            rows={5}
            withAsterisk
            key={form.key('description')}
            {...form.getInputProps('description')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={createFeedback.isPending}>
              Send feedback
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
