import { describe, expect, it } from 'vitest';
import { waitText } from './wait-text.js';

describe('waitText', () => {
  it.each([
    [900, '15 minutes'],
    [90, '1 minute 30 seconds'],
    [45, '45 seconds'],
    [1, '1 second'],
    [0.2, '1 second'],
    [60, '1 minute'],
    [3600, '1 hour'],
    [3900, '1 hour 5 minutes'],
    [3661, '1 hour 1 minute'],
    [7200, '2 hours'],
  ])('reads %s seconds as "%s"', (seconds, text) => {
    expect(waitText(seconds)).toBe(text);
  });
});
