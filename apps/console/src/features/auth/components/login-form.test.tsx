import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderComponent } from '../../../testing/render';
import { LoginForm } from './login-form';

describe('LoginForm', () => {
  it('lists the messages of a failed attempt in a red Failure alert', () => {
    renderComponent(<LoginForm messages={['The provided credentials are invalid.', 'Please try again.']} />);

    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Failure')).toBeInTheDocument();
    expect(within(alert).getByText('The provided credentials are invalid.')).toBeInTheDocument();
    expect(within(alert).getByText('Please try again.')).toBeInTheDocument();
  });

  it('hands valid values to onSubmit, and only valid ones', async () => {
    const onSubmit = vi.fn();
    const { user } = renderComponent(<LoginForm onSubmit={onSubmit} />);

    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), ' secret pass ');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ email: 'ada@example.com', password: ' secret pass ' });
  });
});
