/** A submitted field's text, if it is text: a form or JSON body may carry anything there. */
export const stringField = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
